// One conversation's queue: turns and between-turn tasks run one at a time, in order (concurrent sends to one SDK
// session corrupt it). The Orchestrator decides what a turn does; this decides when.
import { TurnError, type Job, type QueuedTurn } from './turn';

/** Why work asked of a closed conversation (deleted, or Baton closing) did not run. */
function closedError(): TurnError {
  return new TurnError({ kind: 'cancelled', message: 'The conversation was closed (deleted, or Baton closed) before this could run.' }, '');
}

export class TurnQueue {
  private readonly jobs: Job[] = [];
  private processing = false;
  private closed = false;
  /** The turn being processed, so closing can let it write its outcome before the store closes. */
  private runningTurn: Promise<void> | undefined;
  /** The job taken out of the queue is a turn: it runs from then on (hasTurns), before runTurn has returned its promise. */
  private turnTaken = false;
  /** whenNoTurns's callers, checked at each change the queue tells (fireBusy). */
  private readonly idleWaiters = new Set<() => void>();

  constructor(
    private readonly runTurn: (turn: QueuedTurn) => Promise<void>,
    /** Told whenever busy or the count waiting changes. */
    private readonly onBusy: (busy: boolean, queued: number) => void,
  ) {}

  get busy(): boolean {
    return this.processing;
  }

  get length(): number {
    return this.jobs.length;
  }

  /** The running turn, if one runs. */
  get running(): Promise<void> | undefined {
    return this.runningTurn;
  }

  /** A turn runs or waits (tasks between turns do not count). */
  get hasTurns(): boolean {
    return this.turnTaken || this.jobs.some((job) => job.kind === 'turn');
  }

  /** Resolves true once no turn runs or waits, false after `ms` or when `signal` aborts first. */
  whenNoTurns(ms: number, signal?: AbortSignal): Promise<boolean> {
    if (!this.hasTurns) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.idleWaiters.delete(check);
        signal?.removeEventListener('abort', done);
        resolve(!this.hasTurns);
      };
      const check = () => !this.hasTurns && done();
      const timer = setTimeout(done, ms);
      this.idleWaiters.add(check);
      signal?.addEventListener('abort', done, { once: true });
      if (signal?.aborted) done();
    });
  }

  /** The turns still waiting, in order. */
  get waiting(): QueuedTurn[] {
    return this.jobs.flatMap((job) => (job.kind === 'turn' ? [job.turn] : []));
  }

  /** Queues a turn; `queued` runs once it is in the queue and before it can start (so "queued" is told before "started"). */
  push(turn: QueuedTurn, queued?: () => void): void {
    this.jobs.push({ kind: 'turn', turn });
    queued?.();
    // Behind other work the pump is not started again, so the turn now waiting is told here.
    if (this.processing) this.fireBusy();
    void this.pump();
  }

  /**
   * Runs work between turns, after everything queued so far, so it never interleaves with a running turn. Once the queue
   * is closed it rejects, closedError: a task dropped or asked after close settled never (a second delete of a
   * conversation, a rewind asked as it was deleted, waited for ever).
   */
  task<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(closedError());
    return new Promise<T>((resolve, reject) => {
      this.jobs.push({ kind: 'task', run: () => fn().then(resolve, reject), drop: () => reject(closedError()) });
      void this.pump();
    });
  }

  /**
   * Runs `fn` before anything still queued (and after the running turn). Once the queue is closed nothing more runs in
   * it: the promise then resolves without `fn` (holdAll.ts would otherwise wait for ever on a closed conversation).
   */
  first(fn: () => Promise<void> | void): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.jobs.unshift({ kind: 'task', run: () => Promise.resolve().then(fn).then(resolve, reject), drop: resolve });
      void this.pump();
    });
  }

  /** Takes a waiting turn out of the queue and hands it to `withdrawn`; false when it is not waiting (running or settled). */
  take(turnId: string, withdrawn: (turn: QueuedTurn) => void): boolean {
    const index = this.jobs.findIndex((job) => job.kind === 'turn' && job.turn.turnId === turnId);
    const job = index >= 0 ? this.jobs.splice(index, 1)[0] : undefined;
    if (job?.kind !== 'turn') return false;
    withdrawn(job.turn);
    this.fireBusy();
    return true;
  }

  /** Nothing more starts; returns the turns that were waiting (tasks are dropped). */
  close(): QueuedTurn[] {
    this.closed = true;
    const dropped = this.jobs.splice(0);
    for (const job of dropped) if (job.kind === 'task') job.drop?.();
    return dropped.flatMap((job) => (job.kind === 'turn' ? [job.turn] : []));
  }

  private async pump(): Promise<void> {
    if (this.processing || this.closed) return;
    this.processing = true;
    try {
      for (let job = this.jobs.shift(); job && !this.closed; job = this.jobs.shift()) {
        // Told once the job is out of the queue: a turn that runs is no longer counted as waiting (the panel's Stop and
        // the status bar said "1 queued" through the last queued message's whole answer), and counts as answering.
        this.turnTaken = job.kind === 'turn';
        this.fireBusy();
        if (job.kind === 'task') await job.run().catch(() => undefined);
        else {
          this.runningTurn = this.runTurn(job.turn);
          await this.runningTurn;
          this.runningTurn = undefined;
        }
      }
    } finally {
      this.turnTaken = false;
      this.processing = false;
      this.fireBusy();
    }
  }

  private fireBusy(): void {
    this.onBusy(this.processing, this.jobs.length);
    for (const check of [...this.idleWaiters]) check();
  }
}
