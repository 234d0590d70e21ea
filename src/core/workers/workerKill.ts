// A kill: a running task is stopped (its end is reported as killed, by the task's own end); an idle worker leaves its
// slot at once, its row removed and its session let go as at a task's end.
import type { ChangeWatch } from '../changes/changeWatch';
import type { BatonStore } from '../store/types';
import { withTimeout } from '../util/delay';
import { loggedStoreWrite } from '../util/loggedStoreWrite';
import type { Logger } from '../util/logger';
import type { SessionLifecycle } from './sessionLifecycle';
import { seconds } from './workerMessages';
import type { WorkerRegistry } from './workerRegistry';
import { killTarget } from './workerTargets';
import type { StopReason, Worker } from './workerTypes';

export interface KillDeps {
  reg: WorkerRegistry;
  watch: ChangeWatch | undefined;
  lifecycle: SessionLifecycle;
  store: BatonStore;
  logger: Logger;
  now: () => number;
  retire: (w: Worker) => Promise<void>;
}

/** Aborts worker `name`'s task (if any), disconnects its session and frees its slot; what the kill did, in words. */
export async function killWorker(name: string, by: 'user' | 'tool', deps: KillDeps): Promise<string> {
  const w = await killTarget(name, deps.reg);
  if (typeof w === 'string') return w;
  const elapsed = seconds(deps.now() - w.startedAt);
  if (w.task) {
    const task = w.task;
    deps.watch?.stopVerify(name);
    task.abort.abort({ kind: 'killed', by } satisfies StopReason);
    await withTimeout(task.done, 10_000, 'kill timed out').catch((err: unknown) => deps.logger.warn(`Worker '${name}': ${String(err)}`));
    return `Killed worker '${name}' after ${elapsed} of work; its session was disconnected.`;
  }
  loggedStoreWrite(deps.logger, () => deps.store.deleteWorker(name), 'remove the worker row');
  await deps.retire(w);
  await deps.lifecycle.taskEnded(w);
  deps.logger.info(`Worker '${name}' killed while idle (by ${by})`);
  return `Killed idle worker '${name}'; its session was disconnected.`;
}
