// A verify a closing window stopped (a reload while baton.workers.verifyCommand ran) runs again at the next start, once,
// on the change set still waiting for review. Before, nothing ran it again: the card showed no verdict (or an earlier
// round's) and Apply went ahead as if the change had been verified. It runs as the worker's task, as the first one
// did, so the same rules hold: it takes a slot, the card shows the worker running and verifying, a follow-up is refused
// and Apply waits until it ends, a kill stops it (recorded as stopped), and a closing window leaves it owed again.
import type { AgentSession } from '../copilot/agentSessions';
import type { TaskEndDeps } from './taskEnd';
import { errorText } from './workerMessages';
import type { WorkerRegistry } from './workerRegistry';
import type { WorkerSetup } from './workerSetup';
import type { Worker } from './workerTypes';

export interface VerifyAgainDeps {
  reg: WorkerRegistry;
  /** Checks the worker's directory again, as for a follow-up. */
  setup: Pick<WorkerSetup, 'resolveDir'>;
  ensureSession: () => Promise<AgentSession>;
  /** What a task's end uses: the change watch, retiring the worker, keeping its session (sessionLifecycle.ts). */
  end: Pick<TaskEndDeps, 'watch' | 'retire' | 'lifecycle' | 'disposed' | 'logger' | 'now'>;
}

/** Runs the verify owed on finished worker `w`'s change set, as its task; not awaited (the pool's task holds it). */
export function verifyAgain(w: Worker, deps: VerifyAgainDeps): void {
  const { watch, logger } = deps.end;
  if (!watch) return;
  const { state, startedAt, finishedAt } = w;
  try {
    deps.reg.revive(w.name, (dir) => deps.setup.resolveDir(dir));
  } catch (err) {
    // No slot, or its session taken: the verify still ends in a record ("not run" and why) instead of none.
    logger.warn(`Worker '${w.name}': its verify runs without its session (${errorText(err)})`);
    void watch.verifyAgain(w).catch((e: unknown) => logger.warn(`Worker '${w.name}': ${errorText(e)}`));
    return;
  }
  w.state = 'running';
  w.startedAt = deps.end.now();
  const abort = new AbortController();
  const task = { abort, done: Promise.resolve() };
  w.task = task;
  deps.reg.fireNow();
  task.done = deps
    .ensureSession()
    // A session that cannot open makes the verify's record say so ("not run"): Apply asks, as for any verify not run.
    .catch((err: unknown) => logger.warn(`Worker '${w.name}': its session could not be opened for its verify (${errorText(err)})`))
    // Killed before it started: still owed (the next start runs it).
    .then(() => (abort.signal.aborted ? undefined : watch.verifyAgain(w)))
    .then(async () => {
      await deps.end.retire(state);
      // The card's times stay the ones of the task that made these changes.
      w.startedAt = startedAt;
      w.finishedAt = finishedAt;
      deps.reg.fireNow();
      if (!deps.end.disposed()) await deps.end.lifecycle.taskEnded(w);
    })
    .catch((err: unknown) => logger.error(`Worker '${w.name}': verifying its changes again failed`, err));
}
