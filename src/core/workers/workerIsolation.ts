// Where a worker works. In a git repository each worker gets its own worktree on `baton/<name>`
// (two workers never clobber each other or the user's edits); what becomes of its changes is the
// change lifecycle's (src/core/changes/). Invariant: a name with pending changes is not reused.
import * as path from 'node:path';
import type { WorkerCard } from '../../shared/protocol';
import type { ChangeSet } from '../changes/changeSet';
import type { PendingChangeSets } from '../changes/pendingChangeSets';
import { realpath } from 'node:fs/promises';
import { GitError } from '../git/git';
import { FolderTooLargeError, MAX_FOLDER_FILES } from '../git/folderRepos';
import { WorktreeError } from '../git/worktrees';
import { linkedTargets, type IncludedEntry } from '../git/worktreeInclude';
import { WorkerError } from './workerTypes';
import { realpathNearest } from './protectedPaths';

/** Why a worker gets no worktree, in a few words (the permission prompt's); the note keeps git's whole message. */
const UNGUARDED_BECAUSE = {
  'not-a-repo': 'it is not in a git repository',
  'no-commits': 'its repository has no commit yet',
  'untracked-working-dir': 'git does not track it, so a worktree would not hold it',
} as const;

/** Where a new worker will work, and how that was decided (said on the card and in the tool result). */
export interface Placement {
  workingDir: string;
  isolation: NonNullable<WorkerCard['isolation']>;
  changeSet?: ChangeSet;
  /** Readable inside the sandbox, never writable: the repository's git folder and the folders linked into the worktree. */
  readonlyPaths?: string[];
  /** What was brought into its worktree from the user's checkout: folders linked (read-only), files copied. */
  included?: IncludedEntry[];
  /** Where the links lead: the folders in the user's checkout. */
  linkedTargets?: string[];
  /** Out of its reach entirely (a worker reading the folder itself): what git ignores there, absolute paths. */
  hidden?: string[];
  /** One sentence for the tool result and the log. */
  note: string;
  /**
   * Set when a worker meant to be isolated must change the folder itself (why it has no copy): git reads a `.git` it
   * could make there, outside its sandbox, so the user is asked first (WorkerSetup.place).
   */
  unguarded?: string;
}

export class WorkerIsolation {
  constructor(private readonly pending: PendingChangeSets) {}

  /**
   * The worktree placed for a worker that never started (its session did not open, a kill as it started) goes. Not a
   * Discard: nothing of it was settled, and the card (and kept session) of the name's last worker must not hear of it.
   */
  async unplace(name: string): Promise<void> {
    if (this.pending.get(name)) await this.pending.discard(name);
  }

  /** Baton's worktrees folder: inside its (protected) storage, but a worker's own place to work. */
  worktreesRoot(storageDir: string): string {
    return path.join(storageDir, 'worktrees');
  }

  /**
   * Readable to the worker, never writable: the git folders of where it works, wherever git keeps them. The runtime's
   * sandbox lets a command write the git folder of its working directory (so git works there); config and hooks there
   * name programs that git run outside the sandbox (Baton's, the user's, VS Code's) runs. Measured: a worker in its
   * worktree of a repository that is itself a linked worktree wrote `core.fsmonitor` into the config both share, and one
   * in place in a folder below a repository's root into that repository's, since neither had a `.git` folder where it
   * worked for the policy to name.
   */
  async gitFolders(dir: string): Promise<string[]> {
    return this.pending.git.gitFolders(dir).catch((err: unknown) => {
      if (err instanceof GitError && err.kind === 'not-installed') return [];
      throw err;
    });
  }

  /**
   * `mode`: the user's setting ('none': the folder itself) or the model's request ('read-only': the folder, to read).
   * `protectedPaths`: what a copy of a folder without git must never hold (the sandbox denies them in the folder).
   */
  async place(
    name: string,
    dir: string,
    mode: 'worktree' | 'none' | 'read-only',
    include: readonly string[],
    protectedPaths: readonly string[] = [],
  ): Promise<Placement> {
    if (mode === 'read-only') {
      // A folder without git too large to list in time: as before Baton listed them, nothing is hidden (the note says so).
      let unlisted = false;
      const gitless = (folder: string): Promise<string[]> =>
        this.pending.folderRepos.ignoredIn(folder).catch((err: unknown) => {
          if (!(err instanceof GitError && err.kind === 'timeout')) throw err;
          unlisted = true;
          return [];
        });
      const hidden = await this.pending.worktrees.ignoredOutside(dir, include, gitless).catch((err: unknown) => {
        if (err instanceof GitError && err.kind === 'not-installed') return [];
        throw err instanceof WorktreeError ? new WorkerError(`${err.message} Start it in a worktree instead.`) : err;
      });
      const what = hidden.length
        ? ` The ${hidden.length} entr${hidden.length === 1 ? 'y' : 'ies'} git ignores there (local files: secrets, dependencies, builds) are hidden from it.`
        : unlisted
          ? ` ${dir} is too large to list what its .gitignore files ignore in time: nothing there is hidden from it.`
          : '';
      return {
        workingDir: dir,
        isolation: { kind: 'in-place', readOnly: true },
        readonlyPaths: await this.gitFolders(dir),
        hidden,
        note: `It works in ${dir} itself, to read only: it cannot change a file there.${what}`,
      };
    }
    if (mode === 'none') {
      return { workingDir: dir, isolation: { kind: 'in-place' }, readonlyPaths: await this.gitFolders(dir), note: `It works in ${dir} itself (no isolation).` };
    }
    // A folder whose copy another worker's changes still wait in: a copy of it as it is now, from the same repository.
    const copied = this.pending.git.folders.lookup(await realpath(dir).catch(() => dir))?.folder;
    if (copied) return this.placeInCopy(name, dir, copied, include, protectedPaths);
    try {
      return await this.placeInWorktree(name, dir, include);
    } catch (err) {
      if (err instanceof WorktreeError && err.kind === 'not-a-repo') return this.placeInCopy(name, dir, dir, include, protectedPaths);
      return this.inPlaceFor(err, dir);
    }
  }

  /**
   * A folder without git: a worktree of Baton's own repository of `folder` (folderRepos.ts), committed as it is now, so
   * the worker never writes the folder itself (where a `.git` it made would be read by git run outside its sandbox).
   * Too many files to copy, or no git: the worker works in the folder itself, as the note says.
   */
  private async placeInCopy(name: string, dir: string, folder: string, include: readonly string[], protectedPaths: readonly string[]): Promise<Placement> {
    const repos = this.pending.folderRepos;
    try {
      let gitDir: string;
      try {
        gitDir = await repos.snapshot(
          folder,
          protectedPaths.map((p) => realpathNearest(p)),
        );
      } catch (err) {
        if (err instanceof FolderTooLargeError) {
          return {
            workingDir: dir,
            isolation: { kind: 'in-place' },
            readonlyPaths: await this.gitFolders(dir),
            note: `It works in ${dir} itself (the folder is not in a git repository, and ${err.message}); its file changes are tracked, so they can be reviewed and undone.`,
            unguarded: `it has no git and ${err.files.toLocaleString('en')} files; Baton copies up to ${MAX_FOLDER_FILES.toLocaleString('en')}`,
          };
        }
        return this.inPlaceFor(err, dir);
      }
      // Its name taken, its folder one the copy leaves out: said as for any worktree.
      return await this.placeInWorktree(name, dir, include, gitDir).catch((err: unknown) => this.inPlaceFor(err, dir));
    } finally {
      await repos.release(folder);
    }
  }

  /** Where a worker goes when it could not get a worktree for `err`; rethrows what is not such a reason. */
  private async inPlaceFor(err: unknown, dir: string): Promise<Placement> {
    if (err instanceof WorktreeError && (err.kind === 'not-a-repo' || err.kind === 'no-commits' || err.kind === 'untracked-working-dir')) {
      const why = err.kind === 'not-a-repo' ? 'the folder is not in a git repository' : err.message;
      return {
        workingDir: dir,
        isolation: { kind: 'in-place' },
        // A repository with no commit yet, or a folder of one that git does not track: its git folder is there all the same.
        readonlyPaths: await this.gitFolders(dir),
        note: `It works in ${dir} itself (${why}); its file changes are tracked, so they can be reviewed and undone.`,
        unguarded: UNGUARDED_BECAUSE[err.kind],
      };
    }
    // No git: nothing would read a `.git` the worker made (VS Code's git needs it too), so nothing to ask.
    if (err instanceof GitError && err.kind === 'not-installed') {
      return { workingDir: dir, isolation: { kind: 'in-place' }, note: `It works in ${dir} itself: git is not installed, so it could not get a worktree.` };
    }
    if (err instanceof WorktreeError) throw new WorkerError(err.message);
    throw err;
  }

  /** Its own worktree of the repository `dir` is in (`folderRepo`: Baton's repository of a folder without git). */
  private async placeInWorktree(name: string, dir: string, include: readonly string[], folderRepo?: string): Promise<Placement> {
    const { worktrees } = this.pending;
    // Marked as being placed until recorded (and a while after, for other windows' stores): never taken for an orphan.
    const created = await worktrees.createWorkerWorktree({ repoDir: dir, workerName: name, include, justCommitted: !!folderRepo, recordLater: true });
    const wt = folderRepo ? { ...created, record: { ...created.record, folderRepo } } : created;
    try {
      this.pending.save(wt.record);
    } catch (err) {
      // Not recorded (its window is closing, the store shut): the worktree goes now (and its marker), or it stays an
      // orphan nobody owns whose branch refuses the name ever after.
      await worktrees.removeWorkerWorktree(wt).catch(() => undefined);
      throw err;
    }
    // A marker that cannot be rewritten counts as placing: its worktree is hidden from the orphans an hour at most.
    if (wt.marker) await worktrees.recorded(wt.marker).catch(() => undefined);
    const left = wt.userHadUncommittedChanges
      ? ` Your ${wt.uncommittedCount} uncommitted change(s) are NOT in it (${wt.uncommittedPaths.slice(0, 5).join(', ')}${wt.uncommittedCount > 5 ? ', …' : ''}).`
      : '';
    const problems = wt.includeProblems.length ? ` Not linked into it: ${wt.includeProblems.map((p) => p.path).join(', ')}.` : '';
    const linked = linkedTargets(wt.repoRoot, wt.included);
    return {
      workingDir: wt.workingDir,
      changeSet: wt.record,
      included: wt.included,
      linkedTargets: linked,
      readonlyPaths: [...(await this.gitFolders(wt.worktreePath)), ...linked],
      isolation: {
        kind: 'worktree',
        branch: wt.branch,
        baseCommit: wt.baseCommit,
        sourceDir: dir,
        uncommittedLeftOut: wt.userHadUncommittedChanges,
        ...(folderRepo ? { copy: true } : {}),
      },
      note: folderRepo
        ? `It works in a copy of ${dir} in Baton's storage (${wt.worktreePath}; the folder is not a git repository); your files stay untouched until you apply its changes.${problems}`
        : `It works in its own git worktree on branch ${wt.branch} from ${wt.baseCommit.slice(0, 8)} (${wt.worktreePath}); your files stay untouched until you apply its changes.${left}${problems}`,
    };
  }
}
