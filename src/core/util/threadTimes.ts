// How long the calling thread has run on a CPU and waited for one, as the kernel counts it. On a busy machine the wall
// time of start-up work stretches while its CPU stays put: the two together say which of the two a figure measured.
import { readFileSync } from 'node:fs';

export interface ThreadTimes {
  /** Time this thread has spent on a CPU, in ms. */
  onCpuMs: number;
  /** Time this thread was ready to run but waited for a CPU (the run queue), in ms. */
  waitingMs: number;
}

/**
 * The calling thread's times since it started (Linux's schedstat, nanoseconds; one small read of about 20 us), or
 * undefined where the kernel does not say (other platforms, or schedstats compiled out).
 */
export function threadTimes(platform: NodeJS.Platform = process.platform): ThreadTimes | undefined {
  if (platform !== 'linux') return undefined;
  try {
    const [onCpu, waiting] = readFileSync('/proc/thread-self/schedstat', 'utf8').trim().split(/\s+/).map(Number);
    if (!Number.isFinite(onCpu) || !Number.isFinite(waiting)) return undefined;
    return { onCpuMs: onCpu! / 1e6, waitingMs: waiting! / 1e6 };
  } catch {
    return undefined;
  }
}

/** What the thread did between `before` and now; undefined when either reading is missing. */
export function threadTimesSince(before: ThreadTimes | undefined): ThreadTimes | undefined {
  const now = before && threadTimes();
  return now && before ? { onCpuMs: now.onCpuMs - before.onCpuMs, waitingMs: now.waitingMs - before.waitingMs } : undefined;
}
