// The change sets waiting for the user (applied, kept as a branch or discarded), kept in the store
// so they stay reviewable across reloads and restarts. Invariants: nothing here deletes a worktree
// or a branch unless the user said so (discard, apply without keep, keep as a branch); a name with
// pending changes is not reused.
import { existsSync } from 'node:fs';
import { lstat, readdir, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { Git } from '../git/git';
import { WorktreeManager, type OrphanWorktree } from '../git/worktrees';
import { FolderRepos } from '../git/folderRepos';
import type { BatonStore } from '../store/types';
import type { Logger } from '../util/logger';
import { KeyedQueue } from '../util/keyedQueue';
import { sweepFolderLock, withFolderLock } from '../util/folderLock';
import { describeSummary, type ApplyResult, type BoundedDiff, type ChangeSet, type ChangeSummary, type ReplacedFiles, type ReviewEntry } from './changeSet';
import { applyWithMarkers, type MarkedApply } from './applyWithMarkers';
import { ApplyUndo, type UndoRecord } from './applyUndo';
import { BaseRefs } from './baseRefs';
import { ChangeSets, type ApplyOptions } from './changeSets';
import { keepAsBranch, type KeptBranch } from './keepAsBranch';
import { TreeMover } from './moveOntoUserTree';
import { ChangeError } from './changeError';
import { afterLanding, replacedAmong } from './replacedFiles';

const KEY_PREFIX = 'changeset:';
/**
 * The most of a diff handed to the model at once: under the 20 KB a tool's result may hold (TOOL_OUTPUT_BYTES), with
 * room for the summary and verify lines around it. At 30,000 the runtime passed a pointer to a file instead.
 */
export const MAX_MODEL_DIFF_BYTES = 16_000;
/** How old an entry of `tmp/` must be before a start takes it for one a dead window left (each use lasts seconds). */
const TEMP_LEFT_AFTER_MS = 60 * 60 * 1000;

/** The lock folder every window takes to write into the user's files (folderLock.ts: gone with its hold, or its window). */
export const USER_FILES_LOCK = path.join('locks', 'user-files');
/** A hold not refreshed for this long is a frozen window's (a live one refreshes it while it writes, however long). */
const USER_FILES_STALE_MS = 3 * 60 * 1000;

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** What an Apply of a pending change set did (ApplyResult), in the words and flags the card and the message need. */
export type PendingApply = ApplyResult & {
  summary: string;
  /** Every change landed and the change set went. */
  settled: boolean;
  /** Why its worktree stayed (see forget). */
  left?: string;
  undoable?: boolean;
  /** A part applied whose landing Baton could not note (its base not moved): why. */
  unnoted?: string;
  /** The user's files it put the worker's version over, as a Resolve with the worker left them (replacedFiles.ts). */
  replaced?: ReplacedFiles;
};

/** An Apply as asked: the editor's unsaved files, whether the worktree stays, which files, the snapshot confirmed. */
export type PendingApplyOptions = Pick<ApplyOptions, 'dirtyBuffers' | 'paths' | 'expectTree'> & { keep?: boolean };

export class PendingChangeSets {
  readonly worktrees: WorktreeManager;
  readonly changeSets: ChangeSets;
  readonly baseRefs: BaseRefs;
  readonly mover: TreeMover;
  /** Baton's own repositories of folders without git (folderRepos.ts). */
  readonly folderRepos: FolderRepos;
  /** The Applies that can be undone (applyUndo.ts). */
  readonly undo: ApplyUndo;
  /**
   * What writes into the user's files (Apply, Resolve in the editor, Undo Apply, a Discard that rewinds a worker in
   * place), one at a time, whichever worker it is for (each worker's own are ordered by its SettleGate too). git apply
   * reads a file and writes it back whole, so two at once in one file kept only the last one's edit, both saying they
   * landed (measured: two Applies of different lines of one file, started together, lost one in 30 of 30); and an Undo
   * checked while an Apply wrote the same file could take back bytes that were not its own. One queue for every folder:
   * a worker in place in a subfolder writes into the repository another's Apply writes into, and the wait is an Apply's.
   * Other windows take their turn too, through a lock folder in the global storage they share (USER_FILES_LOCK).
   */
  private readonly userFileWrites = new KeyedQueue();

  constructor(
    private readonly store: BatonStore,
    private readonly storageDir: string,
    private readonly logger: Logger,
    /** Where a change set's repository is looked for when it is no longer where it was (the workspace folders). */
    private readonly folders: () => readonly string[] = () => [],
    readonly git = new Git(),
  ) {
    this.worktrees = new WorktreeManager({ git, storageDir });
    this.changeSets = new ChangeSets({ git, storageDir, worktrees: this.worktrees });
    this.baseRefs = new BaseRefs(git, storageDir);
    this.mover = new TreeMover(git, this.changeSets, this.baseRefs, storageDir);
    this.folderRepos = new FolderRepos(git, storageDir);
    this.undo = new ApplyUndo(git, storageDir, store, logger);
    git.folders.setOwnStorage(storageDir);
  }

  get(name: string): ChangeSet | undefined {
    const raw = this.store.getState(KEY_PREFIX + name);
    if (!raw) return undefined;
    try {
      const cs = JSON.parse(raw) as ChangeSet;
      // Its folder has no git of its own: git run there reads Baton's repository of it (this window may not have placed it).
      if (cs.folderRepo) this.folderRepos.remap(cs.repoRoot, cs.folderRepo);
      return cs;
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

  async summarize(name: string): Promise<ChangeSummary> {
    return this.changeSets.summarize(await this.requireLive(name));
  }

  async diff(name: string, maxBytes = MAX_MODEL_DIFF_BYTES): Promise<BoundedDiff> {
    return this.changeSets.diff(await this.requireLive(name), { maxBytes });
  }

  async reviewEntries(name: string): Promise<ReviewEntry[]> {
    return this.changeSets.originalAndModified(await this.requireLive(name));
  }

  /**
   * The chosen files (default all) onto the user's tree, all or nothing. When every file landed, the
   * worktree and branch go (unless `keep`); otherwise the base moves over the applied files, so the
   * rest stays pending on its own and a later Apply takes only that.
   */
  async apply(name: string, opts: PendingApplyOptions): Promise<PendingApply> {
    const cs = await this.requireLive(name);
    return this.intoUserFiles(() => this.applyNow(cs, opts));
  }

  private async applyNow(cs: ChangeSet, opts: PendingApplyOptions): Promise<PendingApply> {
    const name = cs.worker;
    const keepPatchAs = path.join(this.storageDir, 'tmp', `undo-${name}-${Date.now()}`);
    const result = await this.changeSets.apply(cs, {
      userRepoDir: cs.repoRoot,
      dirtyBuffers: opts.dirtyBuffers,
      paths: opts.paths,
      keepPatchAs,
      expectTree: opts.expectTree,
    });
    const summary = describeSummary(await this.summaryOfApplied(cs, result));
    const written = result.applied.filter((p) => !result.alreadyThere?.includes(p));
    const replaced = replacedAmong(cs.replaces, written, result.remaining === 0);
    // Nothing to apply at all (only folders left out, repositories of their own): the worktree stays for Discard to let go.
    // Nor does the change set settle while its worktree holds work in a submodule, which no patch carries: the files
    // land, and the worktree stays pending with that work until the user Discards it.
    const held = !!result.before?.submodules?.length;
    const settled = result.remaining === 0 && !opts.keep && result.applied.length > 0 && !held;
    const undoable = result.applied.length > 0 && (await this.keepUndo(name, result, summary, settled ? keepPatchAs : undefined));
    await rm(keepPatchAs, { force: true });
    const left = settled ? (await this.forget(cs)).left : undefined;
    let unnoted: string | undefined;
    if (!settled && result.applied.length && result.tree) {
      // The files are in the user's tree by now: a failure here must not say the Apply failed (it did not).
      try {
        const base = await this.baseRefs.advance(cs, result.tree, result.applied, `baton: ${name}'s changes applied to the user's tree`);
        this.save(afterLanding({ ...cs, baseCommit: base }, result.applied));
      } catch (err) {
        unnoted = errorText(err);
        this.logger.warn(`Worker '${name}': the files applied stay listed as pending (its base could not move: ${unnoted})`);
      }
    }
    const pending = held ? `; its work in a submodule stays in ${cs.worktreePath}` : `; ${result.remaining} file(s) stay pending`;
    this.logger.info(`Applied worker '${name}' (${summary}) to ${cs.repoRoot}${settled ? '' : pending}`);
    return {
      ...result,
      summary,
      settled,
      ...(left ? { left } : {}),
      ...(undoable ? { undoable } : {}),
      ...(unnoted ? { unnoted } : {}),
      ...(replaced ? { replaced } : {}),
    };
  }

  /**
   * An Apply that settled the worker's changes can be undone (applyUndo.ts): its patch is kept (moved from `patchFile`).
   * Any other Apply (a part of them, or the worktree kept) lets an earlier one's undo go: undone, it would be out of order.
   */
  private async keepUndo(name: string, result: ApplyResult, summary: string, patchFile: string | undefined): Promise<boolean> {
    // A rename already there is left out under both its names: `git apply -R` matches --exclude against the name it
    // writes back (the old one), so the new name alone let the undo take back the user's own rename.
    const renamedFrom = new Map((result.before?.files ?? []).flatMap((f) => (f.oldPath ? [[f.path, f.oldPath] as const] : [])));
    const exclude = (result.alreadyThere ?? []).flatMap((p) => [p, ...(renamedFrom.has(p) ? [renamedFrom.get(p)!] : [])]);
    const files = result.applied.filter((f) => !exclude.includes(f));
    if (!patchFile || !files.length || !result.root || !existsSync(patchFile)) {
      await this.undo.drop(name);
      return false;
    }
    return this.undo
      .keep({ worker: name, root: result.root, files, exclude, summary }, patchFile)
      .then(() => true)
      .catch((err: unknown) => {
        this.logger.warn(`The Apply of worker '${name}' cannot be undone: its patch could not be kept (${errorText(err)})`);
        return false;
      });
  }

  /** Takes back the worker's last Apply that settled its changes (applyUndo.ts), in turn with the other writes into the user's files. */
  async undoApply(name: string, dirtyBuffers: readonly string[]): Promise<UndoRecord & { already?: boolean }> {
    return this.intoUserFiles(() => this.undo.undo(name, dirtyBuffers));
  }

  /** Runs `write` once the other writes into the user's files, this window's and other windows', are over (userFileWrites). */
  intoUserFiles<T>(write: () => Promise<T>): Promise<T> {
    return this.userFileWrites.run('user files', () => withFolderLock(path.join(this.storageDir, USER_FILES_LOCK), USER_FILES_STALE_MS, write));
  }

  /** "Resolve in the editor": clean files applied, conflicting ones merged with markers and left unmerged; then the worktree goes. */
  async applyWithMarkers(name: string, opts: { dirtyBuffers: readonly string[] }): Promise<MarkedApply & { left?: string }> {
    const cs = await this.requireLive(name);
    const result = await this.intoUserFiles(() => applyWithMarkers({ git: this.git, changeSets: this.changeSets, storageDir: this.storageDir }, cs, opts));
    const { left } = await this.forget(cs, { held: true });
    this.logger.info(`Applied worker '${name}' to ${cs.repoRoot} with ${result.conflicted.length} conflicted file(s) left to the editor`);
    return { ...result, ...(left ? { left } : {}) };
  }

  /** Commits the whole change on `baton/<name>`, removes the worktree, keeps the branch. */
  async keepAsBranch(name: string, message: string): Promise<KeptBranch & { left?: string }> {
    const cs = await this.requireLive(name);
    if (cs.folderRepo) {
      throw new ChangeError(`${cs.repoRoot} is not a git repository, so there is no branch to keep worker '${name}'\u2019s changes on: Apply or Discard them.`);
    }
    this.save({ ...cs, keeping: true });
    const kept = await keepAsBranch({ git: this.git, changeSets: this.changeSets, storageDir: this.storageDir }, cs, message).catch((err: unknown) => {
      this.save(cs);
      throw err;
    });
    const { left } = await this.forget(cs, { keepBranch: true, held: true });
    this.logger.info(`Kept the changes of worker '${name}' as ${kept.branch} (${kept.commit.slice(0, 8)})`);
    return { ...kept, ...(left ? { left } : {}) };
  }

  /** Says why its worktree stayed, when it did, and whether its branch stayed (see forget). */
  async discard(name: string): Promise<{ left?: string; branchKept?: boolean }> {
    const gone = await this.forget(this.require(name));
    this.logger.info(`Discarded the changes of worker '${name}'`);
    return gone;
  }

  /**
   * What windows that died mid-operation left in `tmp/` (an index, a merge's three files, a move's copies): removed
   * once an hour old, but for the copies a resolution under way in another window would be undone from.
   */
  async sweepTemp(now = Date.now()): Promise<void> {
    await this.undo.sweep(TEMP_LEFT_AFTER_MS);
    // A dead window's hold of the user files' lock (and what a take-over it died in renamed aside).
    const locks = path.dirname(path.join(this.storageDir, USER_FILES_LOCK));
    for (const name of await readdir(locks).catch(() => [])) await sweepFolderLock(path.join(locks, name), USER_FILES_STALE_MS);
    const dir = path.join(this.storageDir, 'tmp');
    const kept = new Set(this.list().flatMap((c) => (c.resolving ? [path.basename(c.resolving.backupDir)] : [])));
    for (const name of await readdir(dir).catch(() => [])) {
      const st = await lstat(path.join(dir, name)).catch(() => undefined);
      if (kept.has(name) || !st || now - st.mtimeMs < TEMP_LEFT_AFTER_MS) continue;
      await rm(path.join(dir, name), { recursive: true, force: true });
      this.logger.info(`Removed ${name} from Baton's temporary folder: a window that closed mid-operation left it`);
    }
  }

  /** Worktrees in Baton's storage that no change set owns (a crash, a lost record). */
  orphans(): Promise<OrphanWorktree[]> {
    return this.worktrees.listOrphans(new Set(this.list().map((c) => c.worktreePath)));
  }

  async removeOrphan(o: OrphanWorktree): Promise<void> {
    await this.worktrees.removeWorkerWorktree({
      repoRoot: o.repoRoot ?? '',
      worktreePath: o.worktreePath,
      branch: o.branch ?? `baton/${path.basename(o.worktreePath)}`,
    });
    const worker = path.basename(o.worktreePath);
    if (o.repoRoot) await this.baseRefs.remove({ worker, repoRoot: o.repoRoot });
    // Its review copies too, unless a live change set has the name now (another repository's worker).
    if (!this.get(worker)) await this.changeSets.removeReviewCopies({ worker });
  }

  /**
   * Lets a change set go once what the user chose happened (applied, kept as a branch, discarded): its record and base
   * ref first, then its worktree (with its branch, unless kept) and review copies. A worktree that cannot be removed now
   * (a file a process still holds, a read-only folder a tool made) stays as an orphan for Baton: Clean Up Orphaned
   * Worktrees, and what was chosen stands: an Apply used to fail after its files had landed, and the card stayed for
   * ever, since Discard failed the same way. Says why the worktree stayed, when it did, and whether its branch did.
   * `held`: the worktree stays too while it holds the worker's work in a submodule (submoduleWork.ts), which no Apply
   * or kept branch carries: removing it deleted that work unsaid. Only a Discard lets that go.
   */
  private async forget(cs: ChangeSet, opts: { keepBranch?: boolean; held?: boolean } = {}): Promise<{ left?: string; branchKept?: boolean }> {
    const held = opts.held ? await this.changeSets.submoduleWork(cs).catch(() => []) : [];
    this.store.deleteState(KEY_PREFIX + cs.worker);
    if (held.length) {
      await this.baseRefs.remove(cs).catch((err: unknown) => this.logger.warn(`Worker '${cs.worker}': its base ref stays (${errorText(err)})`));
      const named = held.map((s) => `${s.path}/`).join(', ');
      this.logger.warn(`Worker '${cs.worker}': its worktree ${cs.worktreePath} stays, holding its work in ${named}; it is listed as an orphan`);
      return { left: `it holds the worker's work in submodule ${named}: it is at ${cs.worktreePath}` };
    }
    await this.baseRefs.remove(cs).catch((err: unknown) => this.logger.warn(`Worker '${cs.worker}': its base ref stays (${errorText(err)})`));
    await this.changeSets.removeReviewCopies(cs).catch((err: unknown) => this.logger.warn(`Worker '${cs.worker}': its review copies stay (${errorText(err)})`));
    try {
      return await this.worktrees.removeWorkerWorktree(cs, { keepBranch: opts.keepBranch ?? cs.keeping === true });
    } catch (err) {
      this.logger.warn(`Worker '${cs.worker}': its worktree ${cs.worktreePath} could not be removed (${errorText(err)}); it is listed as an orphan`);
      return { left: errorText(err) };
    } finally {
      if (cs.folderRepo) {
        const inUse = this.list().some((c) => c.folderRepo === cs.folderRepo);
        await this.folderRepos
          .removeUnless(cs.repoRoot, cs.folderRepo, inUse)
          .catch((err: unknown) => this.logger.warn(`Baton's repository of ${cs.repoRoot} stays (${errorText(err)}); the next start removes it`));
      }
    }
  }

  /** Baton's repositories of folders without git that no change set uses (a window that died placing a worker). */
  async sweepFolderRepos(): Promise<void> {
    const named = new Set(this.list().flatMap((c) => (c.folderRepo ? [c.folderRepo] : [])));
    const removed = await this.folderRepos.sweep(named, TEMP_LEFT_AFTER_MS);
    if (removed) this.logger.info(`Removed ${removed} of Baton's repositories of folders without git that no worker's changes use`);
  }

  /** "N files changed, +a −b" of what was applied (the apply's own summary, limited to its files). */
  private async summaryOfApplied(cs: ChangeSet, result: ApplyResult): Promise<ChangeSummary> {
    if (!result.remaining) return result.before ?? (await this.changeSets.summarize(cs));
    const applied = new Set(result.applied);
    const files = (result.before?.files ?? []).filter((f) => applied.has(f.path));
    return { files, additions: files.reduce((n, f) => n + f.additions, 0), deletions: files.reduce((n, f) => n + f.deletions, 0) };
  }

  save(cs: ChangeSet): void {
    this.store.setState(KEY_PREFIX + cs.worker, JSON.stringify(cs));
  }

  require(name: string): ChangeSet {
    const cs = this.get(name);
    if (!cs) throw new ChangeError(`Worker '${name}' has no pending changes in a worktree.`);
    return cs;
  }

  /**
   * As require, for what reads the worktree: one removed outside Baton (by hand, `git worktree remove`) is said so, and
   * a repository the user moved or renamed is found again among the workspace folders (the change set follows it).
   */
  private async requireLive(name: string): Promise<ChangeSet> {
    const cs = this.require(name);
    if (!existsSync(cs.worktreePath)) {
      throw new ChangeError(
        `The worktree of worker '${name}' is gone (${cs.worktreePath} was removed outside Baton): its changes cannot be read or applied. Discard lets them go.`,
      );
    }
    if (existsSync(cs.repoRoot)) return cs;
    const moved = await this.worktrees.findMovedRepository(cs.worktreePath, this.folders());
    if (!moved) {
      throw new ChangeError(
        `The repository of worker '${name}' is no longer at ${cs.repoRoot} (moved, renamed or deleted): open the folder it is in now, and Baton finds it there; or Discard the changes.`,
      );
    }
    this.save({ ...cs, repoRoot: moved });
    this.logger.info(`Worker '${name}': its repository moved from ${cs.repoRoot} to ${moved}; its worktree follows it`);
    return { ...cs, repoRoot: moved };
  }
}
