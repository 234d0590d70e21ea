// How a worker's last task ended, kept in the store while its changes wait for review: a window that starts again
// (a reload, VS Code restarted) lists such a worker with its card as it was: failed, killed or timed out, when it ran,
// its report. Without it every restored card said "done", with no time, for a task the user had killed or that a
// reload had cut short.
// Bound: one state row per worker whose changes were pending when its task ended; at start, the rows of workers with
// nothing pending any more are swept (pendingWorkers.ts).
import type { WorkerEndState } from '../../shared/protocol';
import type { BatonStore } from '../store/types';

const PREFIX = 'ended:';
const END_STATES: readonly string[] = ['done', 'failed', 'timed_out', 'killed'] satisfies WorkerEndState[];

export interface WorkerEnding {
  state: WorkerEndState;
  startedAt: number;
  finishedAt: number;
  /** The worker's report as its card showed it (bounded there). */
  summary?: string;
}

export function recordEnding(store: BatonStore, name: string, ending: WorkerEnding): void {
  store.setState(PREFIX + name, JSON.stringify(ending));
}

/** Undefined for a worker whose ending was not recorded (an earlier version) or whose row does not parse. */
export function readEnding(store: BatonStore, name: string): WorkerEnding | undefined {
  const raw = store.getState(PREFIX + name);
  if (!raw) return undefined;
  try {
    const e = JSON.parse(raw) as Partial<WorkerEnding>;
    if (typeof e.state !== 'string' || !END_STATES.includes(e.state)) return undefined;
    const time = (t: unknown): number => (typeof t === 'number' && Number.isFinite(t) && t > 0 ? t : 0);
    const startedAt = time(e.startedAt);
    const finishedAt = time(e.finishedAt);
    return {
      state: e.state,
      // A time that does not add up is not shown at all (0: "no time", as for an unrecorded one).
      ...(finishedAt >= startedAt ? { startedAt, finishedAt } : { startedAt: 0, finishedAt: 0 }),
      ...(typeof e.summary === 'string' && e.summary ? { summary: e.summary } : {}),
    };
  } catch {
    return undefined;
  }
}

/** Removes the endings of workers `keep` does not name. */
export function sweepEndings(store: BatonStore, keep: (name: string) => boolean): void {
  for (const key of store.stateKeys(PREFIX)) if (!keep(key.slice(PREFIX.length))) store.deleteState(key);
}
