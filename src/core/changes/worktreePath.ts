// A path inside a worker's worktree, for Baton's own reads and writes there, which run outside the worker's sandbox.
// The worker writes its worktree, symlinks included: a folder of it made a link to elsewhere would carry a plain
// `join(worktree, path)` out of the worktree. Measured on the real runtime: a worker resolving conflicts replaced
// `src` by a link to a folder outside its sandbox and was stopped; the undo wrote its `src/app.txt` there. Invariant:
// Baton never reads, writes or removes through a link in a worktree; only git (checkout-index) writes beyond, and it
// replaces such a link itself.
import { constants } from 'node:fs';
import { lstat, mkdir, open, realpath, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';

/**
 * The absolute path of `rel` in `root`, every folder on the way a real folder of `root`: a link or a file where a
 * folder must be is removed (the link itself, never what it points at) and the folder made. Throws when the folder
 * still resolves elsewhere (something changed it meanwhile). The last part is not looked at: remove it before writing.
 */
export async function writablePath(root: string, rel: string): Promise<string> {
  const parts = rel.split(/[\\/]+/).filter(Boolean);
  let dir = root;
  for (const part of parts.slice(0, -1)) {
    dir = join(dir, part);
    const info = await lstat(dir).catch(() => undefined);
    if (info?.isDirectory()) continue;
    if (info) await rm(dir, { force: true });
    await mkdir(dir);
  }
  await assertInside(root, dirname(join(root, ...parts)));
  return join(root, ...parts);
}

/** Whether `rel` in `root` is reached through real folders of `root` only (no link on the way, the last part aside). */
export async function readableInside(root: string, rel: string): Promise<boolean> {
  const parts = rel.split(/[\\/]+/).filter(Boolean);
  let dir = root;
  for (const part of parts.slice(0, -1)) {
    dir = join(dir, part);
    const info = await lstat(dir).catch(() => undefined);
    if (!info?.isDirectory()) return false;
  }
  return true;
}

/**
 * The text of the regular file `rel` in `root`, or undefined when there is none there: nothing behind a link, and
 * never a FIFO or a device, whose open would wait for a writer forever (a worker can make one with mkfifo, and a read
 * blocks one of the few threads all of the extension host's file reads share).
 */
export async function readWorktreeFile(root: string, rel: string): Promise<string | undefined> {
  if (!(await readableInside(root, rel))) return undefined;
  // O_NOFOLLOW and O_NONBLOCK are POSIX (0 elsewhere): the open itself neither follows a link nor waits.
  const flags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
  const file = await open(join(root, rel), flags).catch(() => undefined);
  if (!file) return undefined;
  try {
    return (await file.stat()).isFile() ? await file.readFile('utf8') : undefined;
  } finally {
    await file.close();
  }
}

async function assertInside(root: string, dir: string): Promise<void> {
  const [realRoot, realDir] = await Promise.all([realpath(root), realpath(dir)]);
  const r = relative(realRoot, realDir);
  if (r === '' || (r !== '..' && !r.startsWith(`..${sep}`) && !isAbsolute(r))) return;
  throw new Error(`${dir} leads out of the worktree ${root}; nothing was written there.`);
}
