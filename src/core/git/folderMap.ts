// Folders without git of their own, each with the repository Baton keeps for it (folderRepos.ts): git run in such a
// folder, or below it, is told that repository and that work tree (GIT_DIR, GIT_WORK_TREE), so a `.git` found there (one
// a worker made) is never what git reads.
import { resolve } from 'node:path';
import { isWithin } from '../workers/protectedPaths';

export interface MappedFolder {
  folder: string;
  gitDir: string;
}

export class FolderMap {
  private readonly mapped = new Map<string, string>();
  private ownStorage: string | undefined;

  /** Git run in `folder` (a real path) or below it uses `gitDir`; `undefined` ends that. */
  set(folder: string, gitDir: string | undefined): void {
    if (gitDir) this.mapped.set(folder, gitDir);
    else this.mapped.delete(folder);
  }

  /** Baton's storage folder: git run there (its worktrees, whose `.git` files name their repository) is never mapped. */
  setOwnStorage(dir: string): void {
    this.ownStorage = resolve(dir);
  }

  /** The innermost mapped folder that is `cwd` or holds it, with its repository. */
  lookup(cwd: string): MappedFolder | undefined {
    if (!this.mapped.size) return undefined;
    const dir = resolve(cwd);
    // A mapped folder may hold Baton's storage (a home folder).
    if (this.ownStorage && isWithin(dir, this.ownStorage)) return undefined;
    let best: MappedFolder | undefined;
    for (const [folder, gitDir] of this.mapped) {
      if (isWithin(dir, folder) && (!best || folder.length > best.folder.length)) best = { folder, gitDir };
    }
    return best;
  }
}
