// A worker's context value in the Workers view: package.json's menus choose its items by it (the test of the menus
// reads both). `.changes`: its changes wait for review; while it runs, only Review and Open folder apply to them.
import type { WorkerInfo } from '../core/workers/workerPool';

export function workerContextValue(w: Pick<WorkerInfo, 'state' | 'changes'>): string {
  const state = w.state === 'running' ? 'worker.running' : w.state === 'idle' ? 'worker.idle' : 'worker.done';
  // Nothing counted but a note (folders left out, a worktree gone) is still a change set to discard or to ask about.
  return `${state}${w.changes?.files || w.changes?.note ? '.changes' : ''}`;
}
