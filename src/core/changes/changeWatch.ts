// What a worker's card says about its change set, kept current: the files it touched (re-read while
// it runs, at most once a second), overlaps with other pending change sets (flagged on both cards at
// once, and told to the orchestrator once per pair, a reload included: toldOverlaps.ts), and how the
// change set ended. Invariant: a card's counts come from git (a snapshot of the worktree), never from
// what the worker said it did.
import type { WorkerCard } from '../../shared/protocol';
import type { AgentSession, AgentSessions } from '../copilot/agentSessions';
import type { BatonStore } from '../store/types';
import type { SendToWorker } from './conflictResolution';
import { PendingChangeSets } from './pendingChangeSets';
import type { Logger } from '../util/logger';
import { describeOverlaps, findOverlaps } from './overlaps';
import { cardChanges } from './changeTotals';
import { WorkerChanges, type ChangeEvent, type FinishedWorker } from './workerChanges';
import { ChangeVerifier, type ChangeVerifierOptions } from './changeVerifier';
import { forgetTold, recordTold, wasTold } from './toldOverlaps';
import { loggedStoreWrite } from '../util/loggedStoreWrite';

/** A running worker's touched files are read again at most this often (a snapshot of its worktree each time). */
const TOUCHED_REFRESH_MS = 1000;

/** What the watch reads and writes of a worker (the pool's Worker record). */
export interface WatchedWorker extends FinishedWorker {
  state: WorkerCard['state'];
  overlaps?: WorkerCard['overlaps'];
  outcome?: WorkerCard['outcome'];
  conflicts?: WorkerCard['conflicts'];
  summary?: string;
  verify?: WorkerCard['verify'];
  /** Runs when the current task ends (a conflict resolution checks or undoes its work). */
  followUp?: { activity: string; after: (end: 'completed' | 'failed' | 'timed_out' | 'killed') => Promise<string> };
}

/** The most of a worker's report its card keeps. */
const MAX_CARD_SUMMARY = 500;

export interface ChangeWatchOptions {
  changes: WorkerChanges;
  /** Where the pairs already told are kept (toldOverlaps.ts). */
  store: BatonStore;
  /** Every worker the views show (active and finished). */
  workers: () => WatchedWorker[];
  /** Tells the views at once. */
  fire: () => void;
  /** A change set ended (applied, kept as a branch, discarded): the single place for what must follow (the session goes). */
  settled?: (name: string) => void;
  /** Runs baton.workers.verifyCommand after a finished run (see changeVerifier.ts). */
  verifier?: ChangeVerifier;
  logger: Logger;
}

export class ChangeWatch {
  /** Per running worker: the pending re-read of its touched files. */
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private disposed = false;

  constructor(private readonly opts: ChangeWatchOptions) {}

  /**
   * A worker's change set ended (or, partly applied, shrank): the card says so at once. The single
   * place for whatever else must follow a settled change.
   */
  settled(name: string, settled: ChangeEvent): void {
    // A worker no longer listed (past the finished ones kept) has no card to update, but a change set that ended lets
    // its session go all the same (it stayed on disk until the next start's sweep).
    const w = this.opts.workers().find((x) => x.name === name);
    if (settled.kind === 'conflicted') {
      if (w) w.conflicts = settled.paths;
      this.opts.fire();
      return;
    }
    if (settled.kind === 'undone') {
      // Only the card that still shows that Apply: a worker that has run again since has other changes to show.
      if (w?.outcome?.kind === 'applied' && !w.changes) w.outcome = { kind: 'applied', text: settled.text };
      this.opts.fire();
      return;
    }
    if (w) w.conflicts = undefined;
    if (settled.kind === 'partly-applied') {
      if (!w) return;
      void this.opts.changes
        .totals(name)
        .then((t) => {
          w.changes = cardChanges(t);
          this.updateOverlaps();
          this.opts.fire();
        })
        .catch((err: unknown) => this.opts.logger.warn(`Worker '${name}': could not count its remaining changes (${errorText(err)})`));
      return;
    }
    if (w) {
      w.changes = undefined;
      w.outcome = { kind: settled.kind, text: settled.text, ...(settled.undoable ? { undoable: true } : {}) };
    }
    // Its pairs are told again should a new change of that name overlap (a new pair: it was never told).
    loggedStoreWrite(this.opts.logger, () => forgetTold(this.opts.store, (n) => n === name), 'forget its overlaps told');
    this.updateOverlaps();
    this.opts.fire();
    this.opts.settled?.(name);
  }

  /** A tool of a running worker finished: its touched files are read again within a second. */
  refreshSoon(w: WatchedWorker): void {
    if (this.disposed || this.timers.has(w.name)) return;
    const timer = setTimeout(() => {
      void this.refresh(w)
        .catch((err: unknown) => this.opts.logger.warn(`Worker '${w.name}': could not read its touched files (${errorText(err)})`))
        .finally(() => this.timers.delete(w.name));
    }, TOUCHED_REFRESH_MS);
    this.timers.set(w.name, timer);
  }

  /**
   * What a finished task's completion message says about its changes: the follow-up's verdict (a
   * conflict resolution settles first, so the counts after it are what it left), the change line,
   * and overlaps not told yet. Also keeps the worker's report on its card.
   */
  async completionNote(w: WatchedWorker, end: 'completed' | 'failed' | 'timed_out' | 'killed', output: string): Promise<string> {
    const said = output.trim();
    if (said) w.summary = said.length > MAX_CARD_SUMMARY ? `${said.slice(0, MAX_CARD_SUMMARY - 1)}…` : said;
    const follow = w.followUp;
    w.followUp = undefined;
    const followed = follow ? await follow.after(end).catch((err: unknown) => `\n\n(${follow.activity} could not finish: ${errorText(err)})`) : '';
    const changed = await this.opts.changes.resultNote(w);
    // Verified after the counts (an unchanged worker has nothing to verify) and while its session is still open.
    const verified = end === 'completed' && !this.disposed ? await this.opts.verifier?.afterRun(w) : '';
    return followed + changed + (verified ?? '') + this.overlapNote(w);
  }

  /**
   * Runs again the verify a closing window stopped on `w`'s change set, if one did (verifyAgain.ts); `notRun`: why it
   * cannot run now, recorded as the verify's "not run" reason.
   */
  async verifyAgain(w: WatchedWorker, notRun?: string): Promise<void> {
    await this.opts.verifier?.again(w, notRun);
  }

  /** Stops a running verify of `name` (the worker is being killed). */
  stopVerify(name: string): void {
    this.opts.verifier?.stop(name);
  }

  /** The overlaps of `w` the orchestrator has not heard of yet, for its completion message ('' when none). */
  private overlapNote(w: WatchedWorker): string {
    this.updateOverlaps();
    const fresh = (w.overlaps ?? []).filter((o) => !wasTold(this.opts.store, w.name, o.worker));
    if (!fresh.length) return '';
    loggedStoreWrite(this.opts.logger, () => fresh.forEach((o) => recordTold(this.opts.store, w.name, o.worker)), 'record the overlaps told');
    return (
      `\n\nOverlap: its changes touch the same files as ${describeOverlaps(fresh)}, also pending. ` +
      'Applying both will conflict: sequence them, or have one build on the other (resolve_worker_conflicts after the first is applied).'
    );
  }

  dispose(): void {
    this.disposed = true;
    this.opts.verifier?.dispose();
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private async refresh(w: WatchedWorker): Promise<void> {
    if (this.disposed || w.state !== 'running' || !this.opts.changes.has(w.name)) return;
    const t = await this.opts.changes.totals(w.name);
    // Finished meanwhile: its result note counted the files already.
    if (this.disposed || w.state !== 'running') return;
    w.changes = cardChanges(t);
    this.updateOverlaps();
    this.opts.fire();
  }

  /** Flags every worker whose pending change touches a file another pending change touches. */
  /** Every pending worker's overlaps found again, the cards told (those a reload listed again, once counted). */
  refreshOverlaps(): void {
    this.updateOverlaps();
    this.opts.fire();
  }

  private updateOverlaps(): void {
    const workers = this.opts.workers();
    const touched = new Map<string, string[]>();
    for (const w of workers) if (w.changes?.paths?.length) touched.set(w.name, w.changes.paths);
    const found = findOverlaps(touched);
    for (const w of workers) w.overlaps = found.get(w.name);
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The change lifecycle of a worker pool: the pending change sets, their operations and the cards' watch. */
export function createChangeLifecycle(opts: {
  store: BatonStore;
  storageDir: string;
  logger: Logger;
  /** Where a change set's repository is looked for once it moved (the workspace folders). */
  workspaceFolders?: () => readonly string[];
  sessions: AgentSessions;
  /** The live session of a worker still in the pool. */
  liveSession: (name: string) => AgentSession | undefined;
  /** The worker's task runs now: its changes wait (settleGate.ts). */
  working: (name: string) => boolean;
  send: SendToWorker;
  workers: () => WatchedWorker[];
  fire: () => void;
  settled?: (name: string) => void;
  /** baton.workers.verifyCommand and the workers' time limit. */
  verifySettings?: ChangeVerifierOptions['settings'];
}): { pending: PendingChangeSets; changes: WorkerChanges; watch: ChangeWatch } {
  const pending = new PendingChangeSets(opts.store, opts.storageDir, opts.logger, opts.workspaceFolders);
  let watch: ChangeWatch | undefined;
  const changes = new WorkerChanges({ ...opts, pending, onSettled: (n, e) => watch?.settled(n, e) });
  const verifier = opts.verifySettings
    ? new ChangeVerifier({ pending, liveSession: opts.liveSession, settings: opts.verifySettings, fire: opts.fire, logger: opts.logger })
    : undefined;
  watch = new ChangeWatch({ changes, store: opts.store, workers: opts.workers, fire: opts.fire, settled: opts.settled, verifier, logger: opts.logger });
  return { pending, changes, watch };
}
