// A path inside a worker's worktree, for Baton's own reads and writes there, which run outside the worker's sandbox.
// The worker writes its worktree, symlinks included: a folder of it made a link to elsewhere would carry a plain
// `join(worktree, path)` out of the worktree. Measured on the real runtime: a worker resolving conflicts replaced
// `src` by a link to a folder outside its sandbox and was stopped; the undo wrote its `src/app.txt` there. Invariant:
// Baton never reads, writes or removes through a link in a worktree; only git (checkout-index) writes beyond, and it
// replaces such a link itself.
import { lstat, mkdir, realpath, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { readOwnFile, type OwnFile } from '../util/ownFile';

/** The folders on the way from `root` to `rel` (its last part aside), outermost first, and `rel` in `root`. */
function way(root: string, rel: string): { folders: string[]; target: string } {
  const parts = rel.split(/[\\/]+/).filter(Boolean);
  const folders = parts.slice(0, -1).map((_, i) => join(root, ...parts.slice(0, i + 1)));
  return { folders, target: join(root, ...parts) };
}

/**
 * The absolute path of `rel` in `root`, every folder on the way a real folder of `root`: a link or a file where a
 * folder must be is removed (the link itself, never what it points at) and the folder made. Throws when the folder
 * still resolves elsewhere (something changed it meanwhile). The last part is not looked at: remove it before writing.
 */
export async function writablePath(root: string, rel: string): Promise<string> {
  const { folders, target } = way(root, rel);
  for (const dir of folders) {
    const info = await lstat(dir).catch(() => undefined);
    if (info?.isDirectory()) continue;
    if (info) await rm(dir, { force: true });
    await mkdir(dir);
  }
  await assertInside(root, dirname(target));
  return target;
}

/** How `rel` in `root` is reached: through real folders only, through a missing one, or through a link or a file. */
async function reached(root: string, rel: string): Promise<'inside' | 'missing' | 'elsewhere'> {
  for (const dir of way(root, rel).folders) {
    const info = await lstat(dir).catch(() => undefined);
    if (!info) return 'missing';
    if (!info.isDirectory()) return 'elsewhere';
  }
  return 'inside';
}

/** Whether `rel` in `root` is reached through real folders of `root` only (no link on the way, the last part aside). */
export async function readableInside(root: string, rel: string): Promise<boolean> {
  return (await reached(root, rel)) === 'inside';
}

/**
 * The regular file `rel` in `root`, read (ownFile.ts): never behind a link, never a FIFO or a device (a worker can make
 * one with mkfifo). A link, a FIFO, a folder or a path through a link is `not-a-file`.
 */
export async function readWorktreeFile(root: string, rel: string): Promise<OwnFile> {
  const reach = await reached(root, rel);
  if (reach !== 'inside') return { kind: reach === 'missing' ? 'absent' : 'not-a-file' };
  return readOwnFile(join(root, rel));
}

async function assertInside(root: string, dir: string): Promise<void> {
  const [realRoot, realDir] = await Promise.all([realpath(root), realpath(dir)]);
  const r = relative(realRoot, realDir);
  if (r === '' || (r !== '..' && !r.startsWith(`..${sep}`) && !isAbsolute(r))) return;
  throw new Error(`${dir} leads out of the worktree ${root}; nothing was written there.`);
}
