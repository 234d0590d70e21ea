// The files Review's diff editor opens beside the worker's own. A symbolic link opened in an editor shows its target's
// content, and saving it writes the target: a worker that turned `setup.sh` into a link to `~/.bashrc` showed the
// user's .bashrc as the worker's version, and an edit saved there went into it. A link is shown as what git records
// for it, its target path, in a copy of its own.
import { lstat, mkdir, readlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** `path` as Review shows it: itself, or, for a symbolic link, a file at `copy` naming its target. */
export async function linkShownAsText(path: string, copy: string): Promise<string> {
  const stats = await lstat(path).catch(() => undefined);
  if (!stats?.isSymbolicLink()) return path;
  await mkdir(dirname(copy), { recursive: true });
  await writeFile(copy, `Symbolic link to ${await readlink(path)}\n`);
  return copy;
}

/** An empty file at `p` (the side of a file that did not exist). */
export async function writeEmpty(p: string): Promise<void> {
  await mkdir(dirname(p), { recursive: true });
  await writeFile(p, '');
}
