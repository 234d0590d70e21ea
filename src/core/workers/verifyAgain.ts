// A verify a closing window stopped (a reload while baton.workers.verifyCommand ran) runs again at the next start, once,
// on the change set still waiting for review. Before, nothing ran it again: the card showed no verdict (or an earlier
// round's) and Apply went ahead as if the change had been verified. It runs as the worker's task, as the first one
// did, so the same rules hold: it takes a slot, the card shows the worker running and verifying, a follow-up is refused
// and Apply waits until it ends, a kill stops it (recorded as stopped), and a closing window leaves it owed again.
import type { AgentSession } from '../copilot/agentSessions';
import { loggedStoreWrite } from '../util/loggedStoreWrite';
import type { TaskEndDeps } from './taskEnd';
import { errorText } from './workerMessages';
import type { WorkerRegistry } from './workerRegistry';
import type { WorkerSetup } from './workerSetup';
import type { StopReason, Task, Worker } from './workerTypes';

export interface VerifyAgainDeps {
  reg: WorkerRegistry;
  /** Checks the worker's directory again, as for a follow-up. */
  setup: Pick<WorkerSetup, 'resolveDir'>;
  ensureSession: () => Promise<AgentSession>;
  /** What a task's end uses: the change watch, retiring the worker, keeping its session (sessionLifecycle.ts). */
  end: Pick<TaskEndDeps, 'watch' | 'retire' | 'lifecycle' | 'disposed' | 'logger' | 'now' | 'store'>;
}

/** The verify record's reason when it cannot run again ("verify not run: …", on the card and in Apply's confirm). */
const notRun = (why: string): string => `it was stopped by the window closing, and when Baton started again ${why}`;

/** Runs the verify owed on finished worker `w`'s change set, as its task; not awaited (the pool's task holds it). */
export function verifyAgain(w: Worker, deps: VerifyAgainDeps): void {
  const { watch, logger } = deps.end;
  if (!watch) return;
  const { state, startedAt, finishedAt } = w;
  // No slot, or the worker not taken up again: the verify still ends in a record ("not run" and why) instead of none.
  const recordNotRun = (why: string): void => {
    logger.warn(`Worker '${w.name}': its verify is not run again (${why})`);
    void watch.verifyAgain(w, notRun(why)).catch((e: unknown) => logger.warn(`Worker '${w.name}': ${errorText(e)}`));
  };
  try {
    deps.reg.assertCapacity();
  } catch {
    recordNotRun('every worker slot was taken (baton.workers.max)');
    return;
  }
  try {
    deps.reg.revive(w.name, (dir) => deps.setup.resolveDir(dir));
  } catch (err) {
    recordNotRun(`the worker could not be taken up again (${errorText(err)})`);
    return;
  }
  w.state = 'running';
  w.startedAt = deps.end.now();
  const abort = new AbortController();
  const task: Task = { abort, done: Promise.resolve() };
  w.task = task;
  deps.reg.fireNow();
  // Stopped before its command started (the session still opening): by the window closing, it stays owed (the next start
  // runs it); by a kill, it is the user's say, as a kill while it runs is: recorded, owed no more, never run again.
  const stoppedFirst = (): Promise<void> | undefined => {
    if (!abort.signal.aborted) return undefined;
    const reason = abort.signal.reason as StopReason | undefined;
    return reason?.kind === 'killed' && reason.by === 'shutdown' ? Promise.resolve() : watch.verifyAgain(w, 'the worker was killed before it could run again');
  };
  task.done = deps
    .ensureSession()
    .then(
      () => {
        task.hasSession = true;
        // A session opened anew is saved with a worker row (workerPool.ensureSession): no task of the worker's runs, so
        // none is left for the next start to report as interrupted ("its task was interrupted…", the card "failed").
        loggedStoreWrite(logger, () => deps.end.store.deleteWorker(w.name), 'remove the worker row');
        return stoppedFirst() ?? watch.verifyAgain(w);
      },
      // A session that cannot open makes the verify's record say so ("not run"): Apply asks, as for any verify not run.
      (err: unknown) => {
        logger.warn(`Worker '${w.name}': its session could not be opened for its verify (${errorText(err)})`);
        return stoppedFirst() ?? watch.verifyAgain(w, notRun(`the worker's session could not be opened (${errorText(err)})`));
      },
    )
    .then(async () => {
      await deps.end.retire(state);
      // The card's times stay the ones of the task that made these changes.
      w.startedAt = startedAt;
      w.finishedAt = finishedAt;
      deps.reg.fireNow();
      if (!deps.end.disposed()) await deps.end.lifecycle.taskEnded(w);
      // Closing meanwhile (the verify owed again): its session is kept for the next start, which resumes it.
      else deps.end.lifecycle.keepAtClose(w);
    })
    .catch((err: unknown) => logger.error(`Worker '${w.name}': verifying its changes again failed`, err));
}
