// Why a worker cannot take a follow-up now, read from what its card shows: what the Workers view's menus and the
// palette check before the user types a task (the task was lost when the pool refused it after). The pool's own checks
// (workerTargets.ts) stay the authority; this is what can be known before asking.
import type { WorkerCard } from '../../shared/protocol';

/** Its change set settled (applied, kept as a branch, discarded): its worktree went with it. */
export function worktreeSettled(w: Pick<WorkerCard, 'isolation' | 'outcome'>): boolean {
  return w.isolation?.kind === 'worktree' && w.outcome !== undefined;
}

export function followUpRefusal(w: Pick<WorkerCard, 'name' | 'state' | 'isolation' | 'outcome'>): string | undefined {
  if (w.state === 'running') return `Worker '${w.name}' is still working: wait for it to finish (or stop it), then ask.`;
  if (w.state === 'killed') return `Worker '${w.name}' was stopped for good: start a new worker to continue.`;
  if (worktreeSettled(w)) return `Worker '${w.name}' has no worktree any more (${w.outcome!.text}): start a new worker to continue.`;
  return undefined;
}
