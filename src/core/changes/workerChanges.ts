// A worker's pending changes, whatever the folder: a git worktree's change set (WorkerIsolation; of a copy in a folder
// without git), or, for a worker in place, the files the runtime tracked for the worker's session (diffed and
// rewound through that session). Both are recorded in the store, so a reload or a restart still
// lists them, and they stay until the user applies (keeps) or discards them.
import { existsSync } from 'node:fs';
import { Emitter } from '../util/emitter';
import type { AgentSession, AgentSessions, FileChange as SessionFileChange } from '../copilot/agentSessions';
import { diffOrNote, discardedInPlace, readTracked, realFileChanges, TRACKED_PREFIX, tracksInPlace, type TrackedRecord } from './inPlaceChanges';
import type { BatonStore } from '../store/types';
import type { Logger } from '../util/logger';
import { ChangeError } from './changeError';
import { ApplyConflict, describeLeftOut, describeSubmoduleWork, describeSummary, type ChangeSummary, type FileChange } from './changeSet';
import { cardChanges, summaryTotals, totalsOf, type ChangeTotals } from './changeTotals';
import { ConflictResolver, type SendToWorker } from './conflictResolution';
import { MAX_MODEL_DIFF_BYTES, type PendingApplyOptions, type PendingChangeSets } from './pendingChangeSets';
import { SettleGate, WorkerAtWork } from './settleGate';
import { verifyWarning, type VerifyWarning } from './verifyRecord';
import { alreadyThere, also, stayed } from './outcomeTexts';
import { replacedByApply } from './replacedFiles';

import type { ChangeEvent, ChangesReady, FinishedWorker, PendingChanges, Review } from './workerChangeTypes';
import type { UndoRecord } from './applyUndo';
export type { ChangeEvent, ChangesReady, FinishedWorker, PendingChanges, Review, Settlement } from './workerChangeTypes';

export interface WorkerChangesOptions {
  pending: PendingChangeSets;
  sessions: AgentSessions;
  store: BatonStore;
  logger: Logger;
  /** The live session of a worker still in the pool (a running worker can be reviewed too). */
  liveSession: (name: string) => AgentSession | undefined;
  /** The worker's task runs now (a follow-up, a conflict resolution, its verify): its changes cannot be settled. */
  working: (name: string) => boolean;
  /**
   * The one place a change set's end is announced (applied, kept as a branch, discarded): the pool
   * shows it on the card. Anything else that must happen when a worker's change is settled hooks here.
   */
  onSettled?: (name: string, event: ChangeEvent) => void;
  /** Continues the same worker with a message (conflict resolution); unset: workers cannot be asked. */
  send?: SendToWorker;
}

export class WorkerChanges {
  private readonly ready = new Emitter<ChangesReady>();
  /** A worker's change set became ready to review (its task ended with changes). */
  readonly onReady = this.ready.event;
  private readonly isolation: PendingChangeSets;
  private readonly sessions: AgentSessions;
  private readonly store: BatonStore;
  private readonly logger: Logger;
  private readonly liveSession: (name: string) => AgentSession | undefined;
  private readonly onSettled: (name: string, event: ChangeEvent) => void;
  private readonly resolver: ConflictResolver | undefined;
  /** Apply, discard, keep and resolve: one at a time per worker, never while it works (settleGate.ts). */
  private readonly gate: SettleGate;

  constructor(opts: WorkerChangesOptions) {
    this.isolation = opts.pending;
    this.sessions = opts.sessions;
    this.store = opts.store;
    this.logger = opts.logger;
    this.liveSession = opts.liveSession;
    this.onSettled = opts.onSettled ?? (() => undefined);
    this.gate = new SettleGate(opts.working);
    const { pending } = opts;
    this.resolver = opts.send ? new ConflictResolver(pending, pending.mover, pending.baseRefs, opts.send) : undefined;
  }

  /**
   * "Resolve with the worker": moves it onto the user's current tree and sends it the conflicts (see
   * conflictResolution.ts). The user's files are untouched; the final Apply still asks.
   */
  resolveWithWorker(name: string): Promise<string> {
    return this.settle(name, 'have it resolve its conflicts', async () => {
      if (!this.isolation.get(name)) throw new ChangeError(`Worker '${name}' has no pending changes in a worktree: there is nothing to move onto your tree.`);
      if (!this.resolver) throw new ChangeError('Workers cannot be asked to resolve conflicts here.');
      return this.resolver.resolveWithWorker(name);
    });
  }

  /**
   * At start, what closed or dead windows left: each "Resolve with the worker" half done is undone (the worktree and its
   * base back as before the attempt; one another live window runs is left to it), then their temporary files go.
   */
  async recoverAtStart(): Promise<void> {
    for (const cs of this.isolation.list().filter((c) => c.resolving)) {
      await this.settle(cs.worker, 'put its worktree back', () => Promise.resolve()).catch((err: unknown) => {
        if (!(err instanceof WorkerAtWork)) this.logger.error(err instanceof Error ? err.message : String(err));
      });
    }
    await this.isolation.sweepTemp().catch((err: unknown) => this.logger.warn(`Could not sweep Baton's temporary folder: ${String(err)}`));
    await this.isolation.sweepFolderRepos().catch((err: unknown) => this.logger.warn(`Could not sweep Baton's repositories of folders: ${String(err)}`));
  }

  /**
   * Throws WorkerAtWork while the worker's task runs, so a confirm is not asked for what would be refused. `what`:
   * what waits for it ("apply them").
   */
  assertSettleable(name: string, what: string): void {
    this.gate.assertIdle(name, what);
  }

  /** Its changes are being applied, kept, discarded or resolved now (or such an operation waits its turn). */
  settling(name: string): boolean {
    return this.gate.busy(name);
  }

  /** A worker in place (no isolation, a folder too large to copy): its session's tracked changes are its change set. */
  trackInPlace(name: string, sessionId: string, workingDir: string): void {
    this.store.setState(TRACKED_PREFIX + name, JSON.stringify({ sessionId, workingDir } satisfies TrackedRecord));
  }

  list(): PendingChanges[] {
    const worktrees = this.isolation
      .list()
      .map((c): PendingChanges => ({ worker: c.worker, kind: 'worktree', dir: c.worktreePath, branch: c.branch, changeSet: c }));
    const tracked = this.store
      .stateKeys(TRACKED_PREFIX)
      .map((k) => k.slice(TRACKED_PREFIX.length))
      .map((worker): PendingChanges | undefined => {
        const r = this.tracked(worker);
        return r ? { worker, kind: 'tracked', dir: r.workingDir, sessionId: r.sessionId } : undefined;
      })
      .filter((p): p is PendingChanges => p !== undefined);
    return [...worktrees, ...tracked];
  }

  /** Worktrees in Baton's storage no change set owns (a crash, a lost record): Doctor lists them. */
  orphans(): ReturnType<PendingChangeSets['orphans']> {
    return this.isolation.orphans();
  }

  /** Removes the orphaned worktrees (and baton/ branches) the user confirmed (`confirmed`: their paths) that still are. */
  async removeOrphans(confirmed?: readonly string[]): Promise<number> {
    const orphans = (await this.isolation.orphans()).filter((o) => !confirmed || confirmed.includes(o.worktreePath));
    for (const o of orphans) await this.isolation.removeOrphan(o);
    return orphans.length;
  }

  /** The sessions whose tracked changes wait for review (their rewind needs them). */
  trackedSessionIds(): string[] {
    return this.store.stateKeys(TRACKED_PREFIX).flatMap((k) => this.tracked(k.slice(TRACKED_PREFIX.length))?.sessionId ?? []);
  }

  has(name: string): boolean {
    return this.isolation.get(name) !== undefined || this.tracked(name) !== undefined;
  }

  /**
   * The worker's changes as they are now, to pass as Apply's `expectTree` once the user confirmed what they saw: a
   * follow-up that changes them meanwhile then refuses the Apply (ChangedSinceConfirm). Undefined for changes made in
   * the user's folder itself (nothing to pin: they are already there).
   */
  async pinned(name: string): Promise<string | undefined> {
    const cs = this.isolation.get(name);
    return cs ? this.isolation.changeSets.snapshot(cs) : undefined;
  }

  async totals(name: string): Promise<ChangeTotals> {
    if (this.isolation.get(name)) return summaryTotals(await this.isolation.summarize(name));
    return totalsOf(await this.trackedFiles(name));
  }

  /** What Apply's confirm must say about the change set's last verify (failed, not run, stale), or undefined. */
  async verifyWarning(name: string): Promise<VerifyWarning | undefined> {
    const cs = this.isolation.get(name);
    if (!cs?.verify) return undefined;
    return verifyWarning(cs.verify, await this.isolation.changeSets.snapshot(cs).catch(() => undefined));
  }

  /** A bounded summary and diff for the model (with the last verify's verdict, when there is one). */
  async forModel(name: string): Promise<string> {
    const cs = this.isolation.get(name);
    if (cs) {
      const warning = await this.verifyWarning(name);
      const verdict = cs.verify ? `${warning?.line ?? `verify passed: ${cs.verify.command}`}\n` : '';
      return verdict + (await this.isolation.diff(name)).text;
    }
    const files = await this.trackedFiles(name);
    let text = `${totalsOf(files).line}\n\n${files.map(diffOrNote).join('\n')}`;
    if (text.length > MAX_MODEL_DIFF_BYTES)
      text = `${text.slice(0, MAX_MODEL_DIFF_BYTES)}\n[… diff truncated at ${MAX_MODEL_DIFF_BYTES} characters; review it in VS Code]`;
    return text;
  }

  async review(name: string): Promise<Review> {
    if (this.isolation.get(name)) return { kind: 'files', entries: await this.isolation.reviewEntries(name) };
    const record = this.requireTracked(name);
    const files = await this.trackedFiles(name);
    return { kind: 'unified', dir: record.workingDir, text: files.map(diffOrNote).join('\n') };
  }

  /**
   * Worktree: the chosen files (default all) all or nothing onto the user's tree; what was not chosen
   * stays pending. Tracked: the changes are already in place; the record is let go.
   */
  apply(name: string, opts: PendingApplyOptions): Promise<string> {
    return this.settle(name, 'apply them', async () => {
      if (this.isolation.get(name)) {
        let r;
        try {
          r = await this.isolation.apply(name, opts);
        } catch (err) {
          const paths = err instanceof ApplyConflict ? err.files.filter((f) => f.reason === 'does-not-apply').map((f) => f.path) : [];
          if (paths.length) this.onSettled(name, { kind: 'conflicted', paths });
          throw err;
        }
        if (!r.applied.length && !r.before?.files.length) {
          return `Worker '${name}' has no file to apply.${also(uncounted(r.before))} Discard lets its worktree go.`;
        }
        if (!r.applied.length) return `Nothing was applied from worker '${name}': no file was chosen.`;
        const rest = r.remaining ? `; ${r.remaining} file${r.remaining === 1 ? '' : 's'} stay${r.remaining === 1 ? 's' : ''} pending in its worktree` : '';
        const kept = opts.keep && !r.remaining ? ' (its worktree and branch are kept)' : '';
        const unnoted = r.unnoted
          ? ` Baton could not note which files landed (${r.unnoted}): they stay listed as pending, and the next Apply finds them already in your tree.`
          : '';
        // Work in a submodule keeps the change set pending (pendingChangeSets.ts): said, so it is not taken for landed.
        const held = r.before?.submodules?.length && !opts.keep ? ' Its worktree stays, pending with that work, until you Discard it.' : '';
        const text = `Applied ${r.summary} from worker '${name}' to your working tree${rest}${kept}.${replacedByApply(r)}${alreadyThere(r.alreadyThere)}${also(uncounted(r.before))}${held}${stayed(r.left)}${unnoted}`;
        if (r.settled) this.onSettled(name, { kind: 'applied', text: `applied: ${r.summary}`, ...(r.undoable ? { undoable: true } : {}) });
        else
          this.onSettled(name, {
            kind: 'partly-applied',
            text: `applied: ${r.summary}${rest}${held ? '; its work in a submodule stays in its worktree' : ''}`,
          });
        return text;
      }
      const record = this.requireTracked(name);
      // Moved or deleted since: nothing can be counted there, and there is nothing to keep but the record to let go.
      const totals = existsSync(record.workingDir) ? await this.totals(name) : undefined;
      this.store.deleteState(TRACKED_PREFIX + name);
      this.onSettled(name, { kind: 'applied', text: totals ? `kept ${totals.line} in place` : 'let go' });
      if (!totals) return `Let go of the changes worker '${name}' made in ${record.workingDir}, which is no longer there: they went with the folder.`;
      return `Kept ${totals.line} that worker '${name}' made in ${record.workingDir}.`;
    });
  }

  /** The Applies that can be undone (each worker's last, when it settled its changes), the newest first. */
  undoableApplies(): UndoRecord[] {
    return this.isolation.undo.list();
  }

  /** Takes back the worker's last Apply that settled its changes (applyUndo.ts); its card says so. */
  async undoApply(name: string, opts: { dirtyBuffers: readonly string[] }): Promise<string> {
    const rec = await this.isolation.undoApply(name, opts.dirtyBuffers);
    this.onSettled(name, { kind: 'undone', text: `Apply undone: ${rec.summary} taken back` });
    const back = rec.files.length === 1 ? 'its file is as it was' : `its ${rec.files.length} files are as they were`;
    if (rec.already) return `The Apply of worker '${name}' (${rec.summary}) was already taken back: ${back} before it, and nothing was written.`;
    return `Undid the Apply of worker '${name}' (${rec.summary}): ${back} before it.`;
  }

  /**
   * "Resolve in the editor" (after the user confirmed): what applies cleanly is applied, each
   * conflicting file gets conflict markers and stays unmerged in the index; the worktree goes.
   */
  resolveInEditor(name: string, opts: { dirtyBuffers: readonly string[] }): Promise<{ text: string; conflicted: string[] }> {
    return this.settle(name, 'apply them', async () => {
      if (!this.isolation.get(name)) throw new ChangeError(`Worker '${name}' has no pending changes in a worktree.`);
      const r = await this.isolation.applyWithMarkers(name, opts);
      const n = r.conflicted.length;
      this.onSettled(name, { kind: 'applied', text: `applied with conflict markers: ${n} file${n === 1 ? '' : 's'} to merge in the editor` });
      return {
        text: `Applied the changes of worker '${name}' to your working tree: ${r.applied.length} file(s) cleanly, ${n} with conflict markers to resolve (${r.conflicted.map((c) => c.path).join(', ')}).${stayed(r.left)}`,
        conflicted: r.conflicted.map((c) => c.userPath),
      };
    });
  }

  /** The changed files one by one (for choosing what to apply). */
  async files(name: string): Promise<FileChange[]> {
    if (this.isolation.get(name)) return (await this.isolation.summarize(name)).files;
    throw new ChangeError(`Worker '${name}' changed its folder in place: its changes are taken or undone as a whole.`);
  }

  /** Worktree only: one commit on `baton/<name>` with `message`, the worktree removed, the branch kept. */
  keepAsBranch(name: string, message: string): Promise<string> {
    return this.settle(name, 'keep them as a branch', async () => {
      if (!this.isolation.get(name)) throw new ChangeError(`Worker '${name}' has no worktree: only a worktree's changes can be kept as a branch.`);
      const totals = await this.totals(name);
      // Nothing but folders left out: a commit of nothing would let the worktree, and them, go unasked (as Apply does not).
      if (!totals.files && totals.leftOut) return `Worker '${name}' has no file to keep as a branch. ${totals.leftOut} Discard lets its worktree go.`;
      const kept = await this.isolation.keepAsBranch(name, message);
      this.onSettled(name, { kind: 'kept', text: `kept on ${kept.branch}` });
      // What the commit holds: the whole change, parts already applied included (the pending totals counted the rest).
      const line = describeSummary(kept.summary);
      return kept.left
        ? `Kept ${line} of worker '${name}' as commit ${kept.commit.slice(0, 8)} on branch ${kept.branch}, which stays for merge, cherry-pick or a pull request.${also(totals.leftOut)}${stayed(kept.left)}`
        : `Kept ${line} of worker '${name}' as commit ${kept.commit.slice(0, 8)} on branch ${kept.branch}; its worktree is gone, the branch stays for merge, cherry-pick or a pull request.${also(totals.leftOut)}`;
    });
  }

  /** Worktree: worktree and branch removed. Tracked: every file the worker changed is put back as it was. */
  discard(name: string): Promise<string> {
    return this.gate.run(name, 'discard them', async () => {
      if (this.isolation.get(name)) {
        const { left, branchKept } = await this.isolation.discard(name);
        this.onSettled(name, { kind: 'discarded', text: 'discarded' });
        if (left) return `Discarded the changes of worker '${name}': none of them reaches your files.${stayed(left)}`;
        if (branchKept) return `Discarded the changes of worker '${name}': its worktree is gone; the branch a Keep as branch made stays.`;
        return `Discarded the changes of worker '${name}': its worktree and branch are gone.`;
      }
      const record = this.requireTracked(name);
      const { restored, kept } = await this.isolation.intoUserFiles(() => this.withSession(name, record, (s) => s.rewindFiles()));
      this.store.deleteState(TRACKED_PREFIX + name);
      this.onSettled(name, { kind: 'discarded', text: kept.length ? `discarded, but for ${kept.length} file(s) changed since` : 'discarded' });
      this.logger.info(`Rewound ${restored.length} file(s) worker '${name}' changed in ${record.workingDir}; kept ${kept.length}`);
      return discardedInPlace(name, record.workingDir, restored.length, kept);
    });
  }

  /** Settles `name`'s changes through the gate, once a resolution its window left half done is undone (Discard needs none). */
  private settle<T>(name: string, what: string, fn: () => Promise<T>): Promise<T> {
    return this.gate.run(name, what, async () => {
      const recovered = await this.resolver?.recover(name).catch((err: unknown) => {
        const why = err instanceof Error ? err.message : String(err);
        throw new ChangeError(
          `Worker '${name}' was resolving its conflicts when its window closed, and its worktree could not be put back (${why}): Discard its changes.`,
        );
      });
      if (recovered)
        this.logger.warn(`Worker '${name}' was resolving its conflicts when its window closed: its worktree and base are back as before that attempt`);
      return fn();
    });
  }

  /** The worker's changes in one line for its result (and its card), while its session is still open. */
  async resultNote(w: FinishedWorker): Promise<string> {
    // A worker in place is tracked for every task (a follow-up may change files after an earlier one changed none);
    // one started to read only changes nothing (its sandbox and permissions hold it), so it has nothing to review.
    if (tracksInPlace(w.isolation) && w.sessionId) this.trackInPlace(w.name, w.sessionId, w.workingDir);
    if (!this.has(w.name)) return '';
    try {
      const t = await this.totals(w.name);
      w.changes = cardChanges(t);
      w.changesTree = t.tree;
      if (!t.files) {
        // Nothing to review in place: the record goes, so the Workers view does not list it as waiting.
        if (w.isolation?.kind !== 'worktree') this.store.deleteState(TRACKED_PREFIX + w.name);
        return t.leftOut ? `\n\nChanges: none that can be applied. ${t.leftOut}` : '';
      }
      const dir = (w.isolation?.kind === 'worktree' ? this.isolation.get(w.name)?.worktreePath : undefined) ?? w.workingDir;
      this.ready.fire({ worker: w.name, dir, files: t.paths });
      const where =
        w.isolation?.kind === 'worktree'
          ? ` in ${w.isolation.copy ? 'its copy of the folder' : `its worktree on ${w.isolation.branch}`}; nothing reaches the user's files until they apply it`
          : ` in ${w.workingDir} (can be undone)`;
      return `\n\nChanges: ${t.line}${where}.${also(t.leftOut)} See review_worker_changes('${w.name}').`;
    } catch (err) {
      this.logger.warn(`Worker '${w.name}': could not summarize its changes (${err instanceof Error ? err.message : String(err)})`);
      return '';
    }
  }

  private async trackedFiles(name: string): Promise<SessionFileChange[]> {
    const record = this.requireTracked(name);
    return realFileChanges(await this.withSession(name, record, (s) => s.changedFiles()), record.workingDir);
  }

  /** The worker's live session, or its session resumed just for this (it runs no turn: every permission is refused). */
  private async withSession<T>(name: string, record: TrackedRecord, fn: (s: AgentSession) => Promise<T>): Promise<T> {
    if (!existsSync(record.workingDir))
      throw new ChangeError(
        `The folder worker '${name}' changed in place, ${record.workingDir}, is no longer there (moved or deleted): its changes cannot be shown or undone from here. Apply lets them go.`,
      );
    const live = this.liveSession(name);
    if (live) return fn(live);
    const session = await this.sessions.resume(record.sessionId, {
      role: 'worker',
      workingDirectory: record.workingDir,
      systemMessage: `You are '${name}', a finished background worker of Baton.`,
      permissions: () => ({ kind: 'reject', feedback: 'This session is only being reviewed.' }),
      ownSession: true,
      trackChanges: true,
    });
    try {
      return await fn(session);
    } finally {
      await session.disconnect();
    }
  }

  private tracked(name: string): TrackedRecord | undefined {
    return readTracked(this.store, name);
  }

  private requireTracked(name: string): TrackedRecord {
    const r = this.tracked(name);
    if (!r) throw new ChangeError(`Worker '${name}' has no pending changes.`);
    return r;
  }
}

/** What a summary does not count: folders that are repositories of their own, work in submodules ('' when none). */
function uncounted(s: ChangeSummary | undefined): string {
  return [describeLeftOut(s?.nested), describeSubmoduleWork(s?.submodules)].filter(Boolean).join(' ');
}
