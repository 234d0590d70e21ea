// The change sets waiting for the user (applied, kept as a branch or discarded), kept in the store
// so they stay reviewable across reloads and restarts. Invariants: nothing here deletes a worktree
// or a branch unless the user said so (discard, apply without keep, keep as a branch); a name with
// pending changes is not reused.
import * as path from 'node:path';
import { Git } from '../git/git';
import { WorktreeManager, type OrphanWorktree } from '../git/worktrees';
import type { BatonStore } from '../store/types';
import type { Logger } from '../util/logger';
import { describeSummary, type ApplyResult, type BoundedDiff, type ChangeSet, type ChangeSummary, type ReviewEntry } from './changeSet';
import { ChangeSets } from './changeSets';
import { ChangeError } from './changeError';

const KEY_PREFIX = 'changeset:';
/** The most of a diff handed to the model at once. */
export const MAX_MODEL_DIFF_BYTES = 30_000;

export class PendingChangeSets {
  readonly worktrees: WorktreeManager;
  readonly changeSets: ChangeSets;

  constructor(
    private readonly store: BatonStore,
    storageDir: string,
    private readonly logger: Logger,
    readonly git = new Git(),
  ) {
    this.worktrees = new WorktreeManager({ git, storageDir });
    this.changeSets = new ChangeSets({ git, storageDir, worktrees: this.worktrees });
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

  save(cs: ChangeSet): void {
    this.store.setState(KEY_PREFIX + cs.worker, JSON.stringify(cs));
  }

  require(name: string): ChangeSet {
    const cs = this.get(name);
    if (!cs) throw new ChangeError(`Worker '${name}' has no pending changes in a worktree.`);
    return cs;
  }
}
