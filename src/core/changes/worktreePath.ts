// A path inside a worker's worktree, for Baton's own reads and writes there, which run outside the worker's sandbox.
// The worker writes its worktree, symlinks included: a folder of it made a link to elsewhere would carry a plain
// `join(worktree, path)` out of the worktree. Measured on the real runtime: a worker resolving conflicts replaced
// `src` by a link to a folder outside its sandbox and was stopped; the undo wrote its `src/app.txt` there. Invariant:
// Baton never reads, writes or removes through a link in a worktree; only git (checkout-index) writes beyond, and it
// replaces such a link itself.
import { lstat, mkdir, realpath, rm } from 'node:fs/promises';
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

async function assertInside(root: string, dir: string): Promise<void> {
  const [realRoot, realDir] = await Promise.all([realpath(root), realpath(dir)]);
  const r = relative(realRoot, realDir);
  if (r === '' || (r !== '..' && !r.startsWith(`..${sep}`) && !isAbsolute(r))) return;
  throw new Error(`${dir} leads out of the worktree ${root}; nothing was written there.`);
}
