// The workers BatonEvents follows, one run at a time: a run is one task of a worker, from its start to its report. A
// name comes back (a new worker of a finished one's name, a finished worker revived by a follow-up) possibly before the
// last run's report arrived, so what a delegate call follows, and what a report ends, is a run, never a name.
// Invariants:
// - a delegate call's handler gets the run its own worker started, and that run's report: never another call's;
// - the reports of one name end its runs in the order they ended (each is handed over as its task ends);
// - a run is held from its start to its report only, so nothing here grows with the workers a window has seen;
// - a run whose task ended with no report on its way (stopped by the orchestrator, cut by shutdown) ends at once.
import type { BatonWorkerEndState } from '../../../api/baton';
import type { WorkerCard, WorkerResultCard } from '../../shared/protocol';
import type { BatonStore } from '../store/types';
import { reportText } from '../workers/workerMessages';
import type { Handler } from './batonEventParts';

/** A report stored in the inbox but not handed over this long after the task ended (a failed delivery) ends from its row. */
const REPORT_WAIT_MS = 10_000;

export interface WorkerRun {
  readonly name: string;
  state: WorkerCard['state'];
  startedAt: number;
  lastLine: string;
  readonly conversation: string;
  /** The delegate call that started it, if one did. */
  readonly handler: Handler | undefined;
  /** The newest inbox row when it started: the row of its own report is a later one. */
  readonly inboxMark: number;
  /** Its task ended and its report has not been seen yet. */
  awaitingReport?: BatonWorkerEndState;
  timer?: NodeJS.Timeout;
}

export interface WorkerRunsDeps {
  store: Pick<BatonStore, 'undeliveredInbox'>;
  /** The worker's own last words (the pool's summaryOf), for a run that ends with no report. */
  outputOf: (name: string) => string | undefined;
  /** A run ended: tell worker.finished with `text`, the report as people read it. */
  finished: (run: WorkerRun, state: BatonWorkerEndState, text: string) => void;
}

export class WorkerRuns {
  /** Delegate calls whose worker has not started yet, by name, in call order (their creates run in that order). */
  private readonly follows = new Map<string, Handler[]>();
  private readonly current = new Map<string, WorkerRun>();
  /** Ended runs of a name that started again before their report came, oldest first. */
  private readonly unreported = new Map<string, WorkerRun[]>();

  constructor(private readonly deps: WorkerRunsDeps) {}

  /** A delegate call is about to create worker `name`: its run goes to `handler`. The returned function gives up the wait. */
  follow(name: string, handler: Handler): () => void {
    const waiting = this.follows.get(name) ?? [];
    this.follows.set(name, [...waiting, handler]);
    return () => this.unfollow(name, handler);
  }

  /** A delegate call waits for worker `name` to start. */
  followed(name: string): boolean {
    return this.follows.has(name);
  }

  /** The newest run of `name`, while it runs or waits for its report. */
  of(name: string): WorkerRun | undefined {
    return this.current.get(name);
  }

  /** What is held now (the bound the tests check): runs running or waiting for their report, and calls waiting for a start. */
  get size(): number {
    let n = this.current.size + this.follows.size;
    for (const runs of this.unreported.values()) n += runs.length;
    return n;
  }

  /** Worker `card.name` started a task: a new run, taken by the first delegate call waiting for that name. */
  start(card: WorkerCard, conversation: string): WorkerRun {
    const previous = this.current.get(card.name);
    // Its report is still to come: it stays to be ended by it (its timer too), the new run does not take it over.
    if (previous?.awaitingReport) this.unreported.set(card.name, [...(this.unreported.get(card.name) ?? []), previous]);
    else if (previous?.timer) clearTimeout(previous.timer);
    const waiting = this.follows.get(card.name);
    const handler = waiting?.[0];
    if (handler) this.unfollow(card.name, handler);
    const run: WorkerRun = {
      name: card.name,
      state: card.state,
      startedAt: card.startedAt,
      lastLine: card.lastLine,
      conversation,
      handler,
      inboxMark: this.inboxRows().reduce((max, row) => Math.max(max, row.id), 0),
    };
    this.current.set(card.name, run);
    return run;
  }

  /**
   * The run's task ended. Its report was stored in the inbox before its card changed (taskEnd.ts), and is handed over
   * once its session is closed: then it waits for that. With no row, none is coming: it ends now, in true words.
   */
  ended(run: WorkerRun, state: BatonWorkerEndState): void {
    run.state = state;
    run.awaitingReport = state;
    const row = this.inboxRows().find((r) => r.worker_name === run.name && r.id > run.inboxMark);
    if (!row) {
      this.end(run, this.unreportedText(run.name, state));
      return;
    }
    const card = parseCard(row.result);
    run.timer = setTimeout(() => this.end(run, card ? reportText(card) : this.unreportedText(run.name, state)), REPORT_WAIT_MS);
    run.timer.unref?.();
  }

  /** A report of worker `name` reached the orchestrator: it ends the oldest of its runs still waiting for one. */
  reported(name: string, text: string): void {
    const run = this.unreported.get(name)?.[0] ?? this.current.get(name);
    if (run?.awaitingReport) this.end(run, text);
  }

  dispose(): void {
    for (const run of this.current.values()) if (run.timer) clearTimeout(run.timer);
    for (const runs of this.unreported.values()) for (const run of runs) if (run.timer) clearTimeout(run.timer);
  }

  private end(run: WorkerRun, text: string): void {
    const state = run.awaitingReport;
    if (!state) return;
    run.awaitingReport = undefined;
    if (run.timer) clearTimeout(run.timer);
    run.timer = undefined;
    if (this.current.get(run.name) === run) this.current.delete(run.name);
    const rest = (this.unreported.get(run.name) ?? []).filter((r) => r !== run);
    if (rest.length) this.unreported.set(run.name, rest);
    else this.unreported.delete(run.name);
    this.deps.finished(run, state, text);
  }

  private unfollow(name: string, handler: Handler): void {
    const rest = (this.follows.get(name) ?? []).filter((h) => h !== handler);
    if (rest.length) this.follows.set(name, rest);
    else this.follows.delete(name);
  }

  /** What a run ended without a report says: how it ended and the worker's own last words, nothing it did not do. */
  private unreportedText(name: string, state: BatonWorkerEndState): string {
    const output = this.deps.outputOf(name)?.trim() ?? '';
    if (state === 'killed') return `Worker '${name}' was stopped before it finished.${output ? `\n\nIts output so far:\n\n${output}` : ''}`;
    return output || reportText({ worker: name, state, durationMs: 0, report: '' }) || `Worker '${name}' ended (${state}) without a report.`;
  }

  private inboxRows(): ReturnType<BatonStore['undeliveredInbox']> {
    try {
      return this.deps.store.undeliveredInbox();
    } catch {
      return []; // the store is closing: nothing more is handed over
    }
  }
}

/** The stored result card of an inbox row; undefined for a row from before cards were stored, or one that does not parse. */
function parseCard(raw: string | null): WorkerResultCard | undefined {
  if (!raw) return undefined;
  try {
    const card = JSON.parse(raw) as Partial<WorkerResultCard>;
    return typeof card.worker === 'string' && typeof card.report === 'string' && typeof card.state === 'string' ? (card as WorkerResultCard) : undefined;
  } catch {
    return undefined;
  }
}
