// A worker's context value in the Workers view: package.json's menus choose its items by it (the test of the menus
// reads both). `.changes`: its changes wait for review; while it runs, only Review and Open folder apply to them.
import type { WorkerInfo } from '../core/workers/workerPool';

export function workerContextValue(w: Pick<WorkerInfo, 'state' | 'changes'>): string {
  const state = w.state === 'running' ? 'worker.running' : w.state === 'idle' ? 'worker.idle' : 'worker.done';
  // Folders left out (repositories of its own) are still a worktree to discard or to ask the worker about.
  return `${state}${w.changes?.files || w.changes?.leftOut ? '.changes' : ''}`;
}
