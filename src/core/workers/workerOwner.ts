// Which window runs a worker. Several VS Code windows share Baton's store and its worker rows, and each runs its own
// workers. A window that opens must not take another live window's worker for one a closed window left (it reported
// it "interrupted", and the orchestrator was told to start it again: the task twice), nor start a second worker under
// its name, nor apply or discard its changes while it works. A row names its window by the claims' stamp (pid, host,
// core instance: conversationClaims.ts); a window whose process is gone owns nothing.
import { processGone, type WindowStamp } from '../orchestrator/conversationClaims';
import type { BatonStore, WorkerRow } from '../store/types';

export type WorkerOwner = Pick<WindowStamp, 'pid' | 'host' | 'instance' | 'label'>;

/** The owner as a row keeps it. */
export function ownerJson(owner: WorkerOwner | undefined): string | null {
  return owner ? JSON.stringify({ pid: owner.pid, host: owner.host, instance: owner.instance, label: owner.label }) : null;
}

/** The live window other than `self` that runs the worker of `row`; undefined when it is this window's or none's. */
export function otherLiveOwner(row: Pick<WorkerRow, 'owner'>, self: WorkerOwner | undefined): WorkerOwner | undefined {
  let owner: Partial<WorkerOwner> | undefined;
  try {
    owner = row.owner ? (JSON.parse(row.owner) as Partial<WorkerOwner>) : undefined;
  } catch {
    return undefined;
  }
  if (typeof owner?.pid !== 'number' || typeof owner.host !== 'string' || typeof owner.instance !== 'string') return undefined;
  if (self && owner.instance === self.instance) return undefined;
  const stamp = { pid: owner.pid, host: owner.host, instance: owner.instance, label: typeof owner.label === 'string' ? owner.label : '' };
  return processGone(stamp) ? undefined : stamp;
}

/** The other live window that runs worker `name`, by its row in the store, and whether its task runs now. */
export function workerElsewhere(
  store: Pick<BatonStore, 'listWorkers'>,
  name: string,
  self: WorkerOwner | undefined,
): { label: string; running: boolean } | undefined {
  const row = store.listWorkers().find((r) => r.name === name);
  const owner = row && otherLiveOwner(row, self);
  return owner && row ? { label: owner.label, running: row.status === 'running' } : undefined;
}
