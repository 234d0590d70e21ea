// Settling a worker's change set (apply, discard, keep as a branch, a conflict resolution's first step) rewrites or
// removes its worktree, or rewinds the files it changed in place. Two rules keep that safe:
// - never while the worker's task runs (a follow-up, a conflict resolution, its verify): its worktree is in use, and an
//   Apply then took only what was there and removed the folder under the running worker, whose work was lost;
// - one at a time per worker: an Apply from the palette and the orchestrator's apply tool never interleave; the second
//   runs after the first, and finds the change set as the first left it (gone: a clear "no pending changes").
import { ChangeError } from './changeError';

/** The worker's task runs now: settling its changes waits until it ends. */
export class WorkerAtWork extends ChangeError {}

export class SettleGate {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** `working(name)`: the worker's task runs now (checked when the operation's turn comes). */
  constructor(private readonly working: (name: string) => boolean) {}

  /** Throws WorkerAtWork while the worker's task runs. `what`: what waits for it ("apply them"). */
  assertIdle(name: string, what: string): void {
    if (this.working(name)) throw new WorkerAtWork(`Worker '${name}' is still working on its changes: wait for it to finish (or stop it), then ${what}.`);
  }

  /** An operation on `name`'s changes runs or waits. */
  busy(name: string): boolean {
    return this.tails.has(name);
  }

  /** Runs `fn` after any settling of `name` already under way, unless the worker is at work then. */
  run<T>(name: string, what: string, fn: () => Promise<T>): Promise<T> {
    const before = this.tails.get(name) ?? Promise.resolve();
    // Let go in the operation's own promise, so its caller resumes with `busy` already false.
    const result = before
      .then(() => {
        this.assertIdle(name, what);
        return fn();
      })
      .finally(() => {
        if (this.tails.get(name) === tail) this.tails.delete(name);
      });
    const tail: Promise<unknown> = result.catch(() => undefined);
    this.tails.set(name, tail);
    return result;
  }
}
