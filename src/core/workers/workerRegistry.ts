// Which workers exist: the active ones (holding a slot) and the last finished ones, the rules a
// new or attached worker must pass, and the throttled change event the views listen to.
// Invariant: a name and a slot are reserved before any await, so concurrent creates cannot overshoot.
import { Emitter } from '../util/emitter';
import { localClock, localDay } from '../util/localTime';
import { seconds } from './workerMessages';
import { WorkerError, type StopReason, type Worker, type WorkerInfo, type WorkerSettings, type WorkerStatus } from './workerTypes';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,47}$/;
export const KEEP_FINISHED = 20;
const OUTPUT_FIRES_PER_SECOND = 4;
export const MAX_STATUS_OUTPUT = 2000;

export interface WorkerRegistryOptions {
  settings: () => WorkerSettings;
  /** Session ids that must never be attached (the orchestrator's own session). */
  reservedSessionIds?: () => Array<string | undefined>;
  /** Another live window that runs a worker of this name (workerOwner.ts): the name is taken. */
  elsewhere?: (name: string) => { label: string } | undefined;
  /** Changes of a worker of this name wait for review (a worktree, or tracked in place): the name is taken until settled. */
  hasPendingChanges?: (name: string) => boolean;
  now: () => number;
}

export class WorkerRegistry {
  readonly active = new Map<string, Worker>();
  /** Newest first: KEEP_FINISHED, and those whose changes wait for review (pendingWorkers.ts listedFinished). */
  finished: Worker[] = [];
  private readonly emitter = new Emitter<WorkerInfo[]>();
  readonly onDidChange = this.emitter.event;
  private throttle: NodeJS.Timeout | undefined;
  private lastFire = 0;
  private disposed = false;
  private readonly now: () => number;

  constructor(private readonly opts: WorkerRegistryOptions) {
    this.now = opts.now;
  }

  /** Active workers first (oldest first), then the last finished ones (newest first). */
  list(): WorkerInfo[] {
    return [...[...this.active.values()].map((w) => this.info(w)), ...this.finished.map((w) => this.info(w))];
  }

  /** Active workers only. */
  listActive(): WorkerInfo[] {
    return [...this.active.values()].map((w) => this.info(w));
  }

  /**
   * `replacesEmpty`: a new worker (not an attached session) may take the place of a finished one whose worktree holds
   * no change (it only read, ran, reported): that worktree is discarded first (WorkerPool.place). Refused, the name was
   * blocked "with changes waiting for review" while the panel showed nothing to review or discard.
   */
  checkNewName(raw: string, replacesEmpty = false): string {
    const name = (raw ?? '').trim();
    if (!NAME.test(name)) {
      throw new WorkerError(`Invalid worker name '${raw}': use 1-48 letters, digits, '.', '_' or '-', starting with a letter or digit (e.g. "auth-fix").`);
    }
    const existing = this.active.get(name);
    if (existing) {
      throw new WorkerError(
        `A worker named '${name}' already exists (${existing.state} in ${existing.workingDir}). Send it a follow-up, or pick another name.`,
        'Use send_to_worker to give it more work.',
      );
    }
    const other = this.opts.elsewhere?.(name);
    if (other) throw new WorkerError(`A worker named '${name}' runs in another VS Code window (${other.label || 'no folder'}). Pick another name.`);
    // A new worker of the name would take its change set's place: one tracked in place could no longer be undone.
    if (this.opts.hasPendingChanges?.(name) && !(replacesEmpty && changedNothing(this.lookup(name)))) {
      throw new WorkerError(
        `Worker '${name}' still has changes waiting for review. Apply or discard them first, or pick another name.`,
        '(apply_worker_changes / discard_worker_changes)',
      );
    }
    return name;
  }

  recheck(name: string, sessionId?: string): void {
    this.checkNewName(name);
    if (sessionId) this.assertAttachable(sessionId);
    this.assertCapacity();
  }

  assertAttachable(sessionId: string): void {
    const reserved = (this.opts.reservedSessionIds?.() ?? []).filter(Boolean);
    if (reserved.includes(sessionId)) throw new WorkerError(`Session ${sessionId} is Baton's own orchestrator session; it cannot become a worker.`);
    for (const w of this.active.values()) {
      if (w.sessionId === sessionId)
        throw new WorkerError(`Session ${sessionId} is already worker '${w.name}': send it a follow-up instead.`, 'Use send_to_worker.');
    }
  }

  assertCapacity(): void {
    const max = Math.max(1, Math.floor(Number(this.opts.settings().max) || 5));
    if (this.active.size >= max) {
      throw new WorkerError(
        `Too many workers: ${this.active.size} of ${max} are active (baton.workers.max). ${this.describeActive()} Wait for one to finish or stop one, then try again.`,
        'kill_session stops one.',
      );
    }
  }

  describeActive(): string {
    if (!this.active.size) return 'No workers are active.';
    const parts = [...this.active.values()].map((w) => `'${w.name}' (${w.state}, ${w.workingDir}, ${seconds(this.now() - w.startedAt)})`);
    return `Active workers: ${parts.join('; ')}.`;
  }

  /** Reserved before any await: the name and the slot are taken even while the session is created. */
  reserve(w: Worker): Worker {
    this.active.set(w.name, w);
    const old = this.finished.find((f) => f.name === w.name);
    if (old) {
      this.finished = this.finished.filter((f) => f !== old);
      this.replaced.set(w, old);
    }
    return w;
  }

  /**
   * A reservation that did not become a worker (its placement refused, its session not opened, stopped as it started):
   * its slot is free again and the finished worker of that name it took off the list is listed again, pending changes
   * and all (a refused create of a used name had left no card to Apply or Ask for changes from).
   */
  release(w: Worker): void {
    if (this.active.get(w.name) === w) this.active.delete(w.name);
    const old = this.replaced.get(w);
    this.replaced.delete(w);
    if (old && !this.lookup(old.name)) this.finished = [...this.finished, old].sort((a, b) => (b.finishedAt ?? 0) - (a.finishedAt ?? 0));
    this.fireNow();
  }

  /** The reservation became a worker: the finished one it replaced is gone for good. */
  confirm(w: Worker): void {
    this.replaced.delete(w);
  }

  /** Finished workers a reservation took off the list, until it becomes a worker or is released. */
  private readonly replaced = new Map<Worker, Worker>();

  /** The worker by name, active or finished; undefined when the pool no longer holds it. */
  lookup(name: string): Worker | undefined {
    return this.active.get(name) ?? this.finished.find((f) => f.name === name);
  }

  find(name: string): Worker {
    const w = this.active.get(name) ?? this.finished.find((f) => f.name === name);
    if (!w) throw new WorkerError(`No worker named '${name}'. ${this.describeActive()}`);
    return w;
  }

  info(w: Worker): WorkerInfo {
    return {
      name: w.name,
      workingDir: w.workingDir,
      state: w.state,
      startedAt: w.startedAt,
      lastLine: w.transcript.lastLine,
      sessionId: w.sessionId,
      createdAt: w.createdAt,
      finishedAt: w.finishedAt,
      source: w.source,
      ...(w.session ? { sandbox: { ...w.session.sandbox } } : w.sandbox ? { sandbox: w.sandbox } : {}),
      ...(w.isolation ? { isolation: w.isolation } : {}),
      ...(w.changes ? { changes: w.changes } : {}),
      ...(w.outcome ? { outcome: w.outcome } : {}),
      ...(w.summary ? { summary: w.summary } : {}),
      ...(w.overlaps?.length ? { overlaps: w.overlaps } : {}),
      ...(w.followUp ? { activity: w.followUp.activity } : {}),
      ...(w.conflicts?.length ? { conflicts: w.conflicts } : {}),
      ...(w.verify ? { verify: w.verify } : {}),
    };
  }

  fireSoon(): void {
    if (this.throttle || this.disposed) return;
    // Never longer than the throttle: a clock set back made the wait the size of the jump (no output shown for an hour).
    const wait = Math.min(1000 / OUTPUT_FIRES_PER_SECOND, Math.max(0, this.lastFire + 1000 / OUTPUT_FIRES_PER_SECOND - Date.now()));
    this.throttle = setTimeout(() => this.fireNow(), wait);
  }

  fireNow(): void {
    if (this.throttle) clearTimeout(this.throttle);
    this.throttle = undefined;
    if (this.disposed) return;
    this.lastFire = Date.now();
    this.emitter.fire(this.list());
  }

  status(name: string): WorkerStatus {
    const w = this.find(name);
    const output = w.transcript.taskOutput() || w.transcript.lastLine;
    return {
      ...this.info(w),
      elapsedMs: (w.finishedAt ?? this.now()) - w.startedAt,
      lastOutput: output.length > MAX_STATUS_OUTPUT ? `…${output.slice(-(MAX_STATUS_OUTPUT - 1))}` : output,
      tasks: w.tasks,
    };
  }

  /** The worker's events as readable text, its times where the user is. */
  transcript(name: string): string {
    const w = this.find(name);
    const header = [
      `Worker '${w.name}' — ${w.workingDir}`,
      `State: ${w.state}${w.sessionId ? ` · session ${w.sessionId}` : ''} · ${w.source}`,
      `Created ${stamp(w.createdAt)}${w.finishedAt ? ` · finished ${stamp(w.finishedAt)}` : ''}`,
    ].join('\n');
    return w.transcript.render(header);
  }

  /**
   * A finished worker (not killed) made active again for a follow-up: within the same limit as a
   * new worker, its session not attached elsewhere, its directory checked again by `check`.
   */
  revive(name: string, check: (dir: string) => void): Worker {
    const done = this.finished.find((f) => f.name === name);
    if (!done) throw new WorkerError(`No worker named '${name}'. ${this.describeActive()}`);
    if (done.state === 'killed') throw new WorkerError(`Worker '${name}' was killed. Create a new worker to continue.`);
    if (!done.sessionId && !done.sessionClosed) throw new WorkerError(`Worker '${name}' has no session to continue. Create a new worker.`);
    this.assertCapacity();
    if (done.sessionId) this.assertAttachable(done.sessionId);
    check(done.workingDir);
    this.finished = this.finished.filter((f) => f !== done);
    done.state = 'idle';
    done.finishedAt = undefined;
    this.active.set(name, done);
    return done;
  }

  /** A reset runtime took every session with it: running tasks fail now (not at their timeout), idle workers resume later. */
  loseSessions(reason: string): void {
    for (const w of this.active.values()) {
      w.unsubscribe?.();
      w.unsubscribe = undefined;
      w.session = undefined;
      if (w.task?.hasSession) w.task.abort.abort({ kind: 'lost', error: `the Copilot runtime was restarted (${reason})` } satisfies StopReason);
    }
  }

  dispose(): void {
    this.disposed = true;
    if (this.throttle) clearTimeout(this.throttle);
    this.emitter.dispose();
  }
}

/** "2026-11-29 20:05:09" where the user is. */
function stamp(ms: number): string {
  const d = new Date(ms);
  return `${localDay(d)} ${localClock(d)}`;
}

/** A finished worker whose change set holds nothing: no file, no note (folders left out, a worktree gone), no conflict. */
export function changedNothing(w: Worker | undefined): boolean {
  return (
    !!w &&
    !w.task &&
    (w.state === 'done' || w.state === 'failed' || w.state === 'timed_out' || w.state === 'killed') &&
    w.changes?.files === 0 &&
    !w.changes.note &&
    !w.conflicts?.length
  );
}
