// When the database is written: debounced after a write, one flush at a time, retried with a growing delay after a
// failure, and on a timer that looks for other windows' writes. How a flush is done is the DatabaseFile's business.
import { errorMessage } from './storeFileSystem';
import type { StoreReporter } from './storeReporter';

export interface FlushSchedulerOptions {
  delayMs: number;
  /** 0 turns polling off. */
  pollIntervalMs: number;
  /** Does one flush; rejects when nothing could be written. */
  run: () => Promise<void>;
  /** Whether a failed flush left something to write (then it is retried). */
  hasPending: () => boolean;
  /** False once writing is off for good: the poll stops asking. */
  writable: () => boolean;
  reporter: StoreReporter;
}

export class FlushScheduler {
  private timer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private current: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  private retryDelayMs = 0;
  private stopped = false;

  constructor(private readonly opts: FlushSchedulerOptions) {}

  /** A flush within `delayMs` (the default delay), unless one is already due. */
  schedule(delayMs = this.opts.delayMs): void {
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush().catch(() => undefined); // reported in failed()
    }, delayMs);
    this.timer.unref?.();
  }

  /** Forgets a due flush (one is starting now, or there is nothing to write any more). */
  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Flushes now, after the running flush; callers arriving while one waits to start share it. */
  flush(): Promise<void> {
    if (!this.next) {
      const previous = this.current ?? Promise.resolve();
      const next: Promise<void> = previous
        .catch(() => undefined)
        .then(() => {
          this.next = undefined;
          this.current = next;
          return this.opts.run();
        })
        .finally(() => {
          if (this.current === next) this.current = undefined;
        });
      next.then(
        () => this.succeeded(),
        (err: unknown) => this.failed(err),
      );
      this.next = next;
    }
    return this.next;
  }

  startPolling(): void {
    if (this.opts.pollIntervalMs <= 0 || this.pollTimer || this.stopped) return;
    this.pollTimer = setInterval(() => {
      if (this.current || this.next || !this.opts.writable()) return;
      this.flush().catch(() => undefined); // reported in failed()
    }, this.opts.pollIntervalMs);
    this.pollTimer.unref?.();
  }

  /** No more timers; an explicit flush() still runs (close() does one last), and its failure is the caller's to report. */
  stop(): void {
    this.stopped = true;
    this.cancel();
    clearInterval(this.pollTimer);
  }

  private succeeded(): void {
    if (this.retryDelayMs) this.opts.reporter.report('saved-again', 'info', 'Baton saved its database again.');
    this.retryDelayMs = 0;
  }

  // Whoever asked for the flush (timer, poll, a caller) the changes are still pending: report the first failure of a
  // streak, then keep retrying quietly with a growing delay.
  private failed(err: unknown): void {
    if (this.stopped) return;
    if (!this.retryDelayMs) {
      this.opts.reporter.report('save-failed', 'warning', `Baton could not save its database (${errorMessage(err)}); it will keep trying.`);
    }
    this.retryDelayMs = Math.min(Math.max(this.retryDelayMs * 2, 1000), 30_000);
    if (this.opts.hasPending()) this.schedule(this.retryDelayMs);
  }
}
