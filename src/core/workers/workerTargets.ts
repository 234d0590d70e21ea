// Which worker a send or a kill acts on (the send check: idle active or finished and revived; the kill check), or why none.
import type { WorkerChanges } from '../changes/workerChanges';
import { previousWork } from './sessionLifecycle';
import { pastTense, seconds } from './workerMessages';
import type { WorkerRegistry } from './workerRegistry';
import type { WorkerSetup } from './workerSetup';
import { WorkerError, type ReplyTo, type Worker } from './workerTypes';

export interface SendTargetDeps {
  reg: WorkerRegistry;
  changes: WorkerChanges | undefined;
  now: () => number;
  /** Checks a revived worker's directory again (the settings may have changed since). */
  setup: Pick<WorkerSetup, 'resolveDir'>;
  /** Marks a finished worker's session closed when its history is gone from disk (SessionLifecycle.closeIfGone). */
  closeIfGone(w: Worker): Promise<void>;
}

/** The worker a follow-up goes to. */
export interface SendTarget {
  w: Worker;
  /** What its new session is told first (its earlier work, when its session was deleted). */
  preface?: string;
  /**
   * Gives back what choosing it changed, for a send refused after all: its reply channel, and for a revived worker
   * its slot and its finished card as they were (else it stayed idle, holding a slot nobody would free).
   */
  giveBack(): void;
}

/**
 * The worker a follow-up is dispatched to, with the preface its new session needs (if any). A running worker
 * refuses; a finished one (not killed) is revived, within the same limit as a new worker.
 */
export async function sendTarget(name: string, prompt: string, replyTo: ReplyTo | undefined, deps: SendTargetDeps): Promise<SendTarget> {
  const { reg } = deps;
  if (!prompt.trim()) throw new WorkerError('The prompt is empty.');
  const known = reg.active.get(name) ?? reg.finished.find((f) => f.name === name);
  // A worker whose change set was settled has no worktree left to continue in.
  if (known?.isolation?.kind === 'worktree' && deps.changes && !deps.changes.has(name)) {
    throw new WorkerError(`Worker '${name}' has no worktree any more (${known.outcome?.text ?? 'its changes were settled'}). Create a new worker to continue.`);
  }
  const w = reg.active.get(name);
  if (w) {
    await w.ready.catch(() => undefined);
    if (reg.active.get(name) !== w) throw new WorkerError(`Worker '${name}' stopped before the task could be sent.`);
    // Reserved, its worktree still being made (a create in flight): no session to send to yet. Dispatched, the task
    // failed ('has no session') and took the worker out of the pool under its own create.
    if (!w.session && !w.sessionId && !w.sessionClosed)
      throw new WorkerError(`Worker '${name}' is still starting (its folder is being prepared): send it the task once it has started.`);
    assertIdle(w, deps.now());
    const was = w.replyTo;
    if (replyTo) w.replyTo = replyTo;
    return { w, giveBack: () => (w.replyTo = was) };
  }
  const finished = reg.finished.find((f) => f.name === name);
  if (finished) await deps.closeIfGone(finished);
  const index = reg.finished.findIndex((f) => f.name === name);
  const was = finished && { state: finished.state, finishedAt: finished.finishedAt, replyTo: finished.replyTo };
  // The settings may have changed since: the directory is checked again.
  const done = reg.revive(name, (dir) => deps.setup.resolveDir(dir));
  if (replyTo) done.replyTo = replyTo;
  // Its session was deleted once its work was settled: a new one is told what the worker did before.
  return { w: done, preface: done.sessionClosed ? previousWork(done) : undefined, giveBack: () => was && unrevive(reg, done, index, was) };
}

/** A revived worker back among the finished ones, where it was; unless something took it up meanwhile (a send, a kill). */
function unrevive(reg: WorkerRegistry, w: Worker, index: number, was: Pick<Worker, 'state' | 'finishedAt' | 'replyTo'>): void {
  if (reg.active.get(w.name) !== w || w.task || w.state !== 'idle') return;
  reg.active.delete(w.name);
  Object.assign(w, was);
  reg.finished.splice(Math.min(index, reg.finished.length), 0, w);
  reg.fireNow();
}

/**
 * Refuses a follow-up while the worker's changes are applied, kept or discarded (the folder it would work in may be
 * going), giving back what choosing the worker changed. A follow-up the settling itself sends (a conflict resolution) passes.
 */
export function assertNotSettling(target: SendTarget, changes: WorkerChanges | undefined, followUp: boolean): void {
  if (followUp || !changes?.settling(target.w.name)) return;
  target.giveBack();
  throw new WorkerError(`The changes of worker '${target.w.name}' are being applied, kept or discarded right now; ask again once that is done.`);
}

/** Refuses a worker that runs a task now. */
export function assertIdle(w: Worker, now: number): void {
  if (w.task || w.state === 'running') {
    throw new WorkerError(
      `Worker '${w.name}' is still running (for ${seconds(now - w.startedAt)}). Wait for it to finish, or stop it first.`,
      '(kill_session stops it.)',
    );
  }
}

/**
 * The active worker a kill stops, once it has started; or what the kill says when there is none to stop: it stopped
 * meanwhile, or it was still being placed (its worktree made), which it now gives up. A finished or unknown one refuses.
 */
export async function killTarget(name: string, reg: WorkerRegistry): Promise<Worker | string> {
  const w = reg.active.get(name);
  if (!w) {
    const done = reg.finished.find((f) => f.name === name);
    if (done) throw new WorkerError(`Worker '${name}' is not active: it already ${pastTense(done.state)}.`);
    throw new WorkerError(`No worker named '${name}'. ${reg.describeActive()}`);
  }
  await w.ready.catch(() => undefined);
  if (reg.active.get(name) !== w) return `Worker '${name}' had already stopped.`;
  if (w.session || w.sessionId) return w;
  // It never ran: listed as killed it would hide the card of the name's last task. Its create sees the release and stops.
  w.placing.abort();
  reg.release(w);
  return `Stopped worker '${name}' before it started: nothing ran.`;
}
