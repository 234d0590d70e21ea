// Where a path of the user's repository leads, for Baton's own writes there (Resolve in the editor) and to say why git
// refused one (Apply). A folder on the way may be a symbolic link the user made: one to a folder outside the repository
// carried `join(userRoot, path)` out of it, and Resolve in the editor wrote its markers into the outside file (git
// apply itself refuses to write beyond a link, which Apply then called a conflict). Invariant: a folder is judged by
// where it resolves (realpath), against the resolved root, never by how it is spelled.
import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { ApplyConflictFile, FileChange } from './changeSet';

/**
 * Whether `rel`'s folder in `userRoot` resolves outside the repository. A folder the change would make is judged by the
 * nearest one on the way that exists (git makes the rest inside it).
 */
export async function outsideRepository(userRoot: string, rel: string): Promise<boolean> {
  const root = await realpath(userRoot);
  for (let dir = dirname(join(userRoot, rel)); ; dir = dirname(dir)) {
    const real = await realpath(dir).catch(() => undefined);
    if (real !== undefined) {
      const r = relative(root, real);
      return r === '..' || r.startsWith(`..${sep}`) || isAbsolute(r);
    }
    if (dirname(dir) === dir) return true;
  }
}

/** The files of `files` (either name of a rename) whose folder resolves outside `userRoot`, as Apply's refusal names them. */
export async function outsideFiles(userRoot: string, files: readonly FileChange[]): Promise<ApplyConflictFile[]> {
  const out: ApplyConflictFile[] = [];
  for (const f of files) {
    for (const p of f.oldPath ? [f.path, f.oldPath] : [f.path]) {
      if (await outsideRepository(userRoot, p)) {
        out.push({ path: p, reason: 'outside-repository' });
        break;
      }
    }
  }
  return out;
}
