// Where a worker works, and what becomes of its changes. In a git repository each worker gets its
// own worktree on `baton/<name>` (two workers never clobber each other or the user's edits); its
// change set is kept in the store until the user applies or discards it, so it stays reviewable
// across reloads and restarts. Invariants: nothing here deletes a worktree or a branch unless the
// user said so (discard, or apply without keep); a name with pending changes is not reused.
import * as path from 'node:path';
import type { WorkerCard } from '../../shared/protocol';
import { describeSummary, type ApplyResult, type BoundedDiff, type ChangeSet, type ChangeSummary, type ReviewEntry } from '../git/changeSet';
import { ChangeSets } from '../git/changeSets';
import { Git, GitError } from '../git/git';
import { WorktreeError, WorktreeManager, type OrphanWorktree } from '../git/worktrees';
import type { BatonStore } from '../store/types';
import type { Logger } from '../util/logger';
import { WorkerError } from './workerTypes';

const KEY_PREFIX = 'changeset:';
/** The most of a diff handed to the model at once. */
export const MAX_MODEL_DIFF_BYTES = 30_000;

/** Where a new worker will work, and how that was decided (said on the card and in the tool result). */
export interface Placement {
  workingDir: string;
  isolation: NonNullable<WorkerCard['isolation']>;
  changeSet?: ChangeSet;
  /** Readable inside the sandbox, never writable: the repository's git folder and the folders linked into the worktree. */
  readonlyPaths?: string[];
  linked?: string[];
  /** One sentence for the tool result and the log. */
  note: string;
}

export class WorkerIsolation {
  private readonly worktrees: WorktreeManager;
  private readonly changeSets: ChangeSets;

  constructor(
    private readonly store: BatonStore,
    storageDir: string,
    private readonly logger: Logger,
    git = new Git(),
  ) {
    this.worktrees = new WorktreeManager({ git, storageDir });
    this.changeSets = new ChangeSets({ git, storageDir, worktrees: this.worktrees });
  }

  /** Baton's worktrees folder: inside its (protected) storage, but a worker's own place to work. */
  worktreesRoot(storageDir: string): string {
    return path.join(storageDir, 'worktrees');
  }

  async place(name: string, dir: string, mode: 'worktree' | 'none', include: readonly string[]): Promise<Placement> {
    if (this.get(name)) {
      throw new WorkerError(
        `Worker '${name}' still has changes waiting for review. Apply or discard them first (apply_worker_changes / discard_worker_changes), or pick another name.`,
      );
    }
    if (mode === 'none') return { workingDir: dir, isolation: { kind: 'in-place' }, note: `It works in ${dir} itself (no isolation).` };
    try {
      const wt = await this.worktrees.createWorkerWorktree({ repoDir: dir, workerName: name, include });
      this.save(wt.changeSet);
      const left = wt.userHadUncommittedChanges
        ? ` Your ${wt.uncommittedCount} uncommitted change(s) are NOT in it (${wt.uncommittedPaths.slice(0, 5).join(', ')}${wt.uncommittedCount > 5 ? ', …' : ''}).`
        : '';
      const problems = wt.includeProblems.length ? ` Not linked into it: ${wt.includeProblems.map((p) => p.path).join(', ')}.` : '';
      return {
        workingDir: wt.workingDir,
        changeSet: wt.changeSet,
        linked: wt.included.map((i) => i.path),
        readonlyPaths: [path.join(wt.repoRoot, '.git'), ...wt.included.filter((i) => i.how === 'linked').map((i) => path.join(wt.repoRoot, i.path))],
        isolation: { kind: 'worktree', branch: wt.branch, baseCommit: wt.baseCommit, sourceDir: dir, uncommittedLeftOut: wt.userHadUncommittedChanges },
        note: `It works in its own git worktree on branch ${wt.branch} from ${wt.baseCommit.slice(0, 8)} (${wt.worktreePath}); your files stay untouched until you apply its changes.${left}${problems}`,
      };
    } catch (err) {
      if (err instanceof WorktreeError && (err.kind === 'not-a-repo' || err.kind === 'no-commits' || err.kind === 'untracked-working-dir')) {
        const why = err.kind === 'not-a-repo' ? 'the folder is not in a git repository' : err.message;
        return {
          workingDir: dir,
          isolation: { kind: 'in-place' },
          note: `It works in ${dir} itself (${why}); its file changes are tracked, so they can be reviewed and undone.`,
        };
      }
      if (err instanceof GitError && err.kind === 'not-installed') {
        return { workingDir: dir, isolation: { kind: 'in-place' }, note: `It works in ${dir} itself: git is not installed, so it could not get a worktree.` };
      }
      if (err instanceof WorktreeError) throw new WorkerError(err.message);
      throw err;
    }
  }

  get(name: string): ChangeSet | undefined {
    const raw = this.store.getState(KEY_PREFIX + name);
    if (!raw) return undefined;
    try {
      return JSON.parse(raw) as ChangeSet;
    } catch {
      this.logger.warn(`The change set of worker '${name}' could not be read; it is listed by Doctor as an orphaned worktree`);
      return undefined;
    }
  }

  list(): ChangeSet[] {
    return this.store
      .stateKeys(KEY_PREFIX)
      .map((k) => this.get(k.slice(KEY_PREFIX.length)))
      .filter((c): c is ChangeSet => c !== undefined);
  }

  summarize(name: string): Promise<ChangeSummary> {
    return this.changeSets.summarize(this.require(name));
  }

  diff(name: string, maxBytes = MAX_MODEL_DIFF_BYTES): Promise<BoundedDiff> {
    return this.changeSets.diff(this.require(name), { maxBytes });
  }

  reviewEntries(name: string): Promise<ReviewEntry[]> {
    return this.changeSets.originalAndModified(this.require(name));
  }

  /** All or nothing onto the user's tree; then the worktree and branch go, unless `keep`. */
  async apply(name: string, opts: { dirtyBuffers: readonly string[]; keep?: boolean }): Promise<ApplyResult & { summary: string }> {
    const cs = this.require(name);
    const summary = describeSummary(await this.changeSets.summarize(cs));
    const result = await this.changeSets.apply(cs, { userRepoDir: cs.repoRoot, dirtyBuffers: opts.dirtyBuffers });
    if (!opts.keep) await this.forget(cs);
    this.logger.info(`Applied worker '${name}' (${summary}) to ${cs.repoRoot}${opts.keep ? '; its worktree is kept' : ''}`);
    return { ...result, summary };
  }

  async discard(name: string): Promise<void> {
    await this.forget(this.require(name));
    this.logger.info(`Discarded the changes of worker '${name}'`);
  }

  /** Worktrees in Baton's storage that no change set owns (a crash, a lost record). */
  orphans(): Promise<OrphanWorktree[]> {
    return this.worktrees.listOrphans(new Set(this.list().map((c) => c.worktreePath)));
  }

  removeOrphan(o: OrphanWorktree): Promise<void> {
    return this.worktrees.removeWorkerWorktree({
      repoRoot: o.repoRoot ?? '',
      worktreePath: o.worktreePath,
      branch: o.branch ?? `baton/${path.basename(o.worktreePath)}`,
    });
  }

  private async forget(cs: ChangeSet): Promise<void> {
    await this.changeSets.discard(cs);
    this.store.deleteState(KEY_PREFIX + cs.worker);
  }

  private save(cs: ChangeSet): void {
    this.store.setState(KEY_PREFIX + cs.worker, JSON.stringify(cs));
  }

  private require(name: string): ChangeSet {
    const cs = this.get(name);
    if (!cs) throw new WorkerError(`Worker '${name}' has no pending changes in a worktree.`);
    return cs;
  }
}
