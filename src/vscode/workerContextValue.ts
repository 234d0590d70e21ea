// A worker's context value in the Workers view: package.json's menus choose its items by it (the test of the menus
// reads both). `.changes`: its changes wait for review; while it runs, only Review and Open folder apply to them.
// `.changes.copy`: they wait in a copy of a folder without git, where there is no branch of the user's to keep them on.
// `.changes.inplace`: the worker changed the folder itself (no isolation, a folder too big to copy): no worktree to keep
// as a branch or to move onto the user's tree, so neither Keep as Branch nor either Resolve applies; Apply keeps them.
// `worker.killed` (stopped for good) and `worker.settled` (its worktree gone with its changes) take no follow-up
// (followUpRefusal.ts); a killed worker's changes can still be applied, kept or discarded.
import type { WorkerInfo } from '../core/workers/workerPool';
import { worktreeSettled } from '../core/workers/followUpRefusal';

export function workerContextValue(w: Pick<WorkerInfo, 'state' | 'changes' | 'isolation' | 'outcome'>): string {
  const state =
    w.state === 'running'
      ? 'worker.running'
      : w.state === 'idle'
        ? 'worker.idle'
        : w.state === 'killed'
          ? 'worker.killed'
          : worktreeSettled(w)
            ? 'worker.settled'
            : 'worker.done';
  // Nothing counted but a note (folders left out, a worktree gone) is still a change set to discard or to ask about.
  if (!w.changes?.files && !w.changes?.note) return state;
  const where = w.isolation?.kind === 'in-place' ? '.inplace' : w.isolation?.kind === 'worktree' && w.isolation.copy ? '.copy' : '';
  return `${state}.changes${where}`;
}
