// What the file system says before git is asked: whether a folder exists, and whether git could find a repository
// from it at all (a start of git blocks the extension host's thread for 10–50 ms on a loaded machine).
import { lstat, readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

/** Whether `dir` (a real path) or a folder above it may hold a `.git`: false only when none of them does. */
export async function gitEntryAbove(dir: string): Promise<boolean> {
  const dirs: string[] = [];
  for (let d = dir; ; d = dirname(d)) {
    dirs.push(d);
    if (dirname(d) === d) break;
  }
  const found = await Promise.all(
    dirs.map((d) =>
      lstat(join(d, '.git')).then(
        () => true,
        // A folder that cannot be read may hold one: git decides then.
        (err: NodeJS.ErrnoException) => err.code !== 'ENOENT' && err.code !== 'ENOTDIR',
      ),
    ),
  );
  return found.includes(true);
}

export async function isDirectory(dir: string): Promise<boolean> {
  try {
    return (await stat(dir)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * A linked worktree's index file, from its `.git` file `gitdir: <dir>` (the index is `<dir>/index`,
 * gitrepository-layout), or undefined when the `.git` is not such a file.
 */
export async function linkedIndexPath(worktreePath: string): Promise<string | undefined> {
  try {
    const m = /^gitdir: (.+)$/m.exec(await readFile(join(worktreePath, '.git'), 'utf8'));
    if (m) return join(resolve(worktreePath, m[1].trim()), 'index');
  } catch {}
  return undefined;
}
