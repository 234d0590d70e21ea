// Whether another window is still open, told by its presence file in the claims folder, which an open window rewrites
// every beat. A pid alone cannot tell: after a crash and a reboot an unrelated process may have the dead window's pid,
// and a macOS machine often changes its host name, so a dead window read as another host's. A process start time would
// catch the reused pid but not the renamed host nor a window on another machine sharing the folder, and costs a spawn of
// `ps` on macOS; a beat is one small write every BEAT_MS, and asking costs one stat.
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** How often an open window rewrites its presence file. */
export const BEAT_MS = 10_000;
/**
 * A presence file older than this is a window that is gone. Six beats: a window busy for seconds (a long synchronous
 * task, a loaded machine) keeps what it holds; a crashed one's conversation goes to the next window within a minute.
 */
export const STALE_MS = 60_000;

export interface PresenceTiming {
  beatMs: number;
  staleMs: number;
}

/** What a presence file is named by. */
export interface PresenceOf {
  pid: number;
  instance?: string;
}

/** A move of the wall clock against the monotonic one larger than this is the machine waking up, or the clock set. */
const CLOCK_JUMP_MS = 2_000;

export class WindowPresence {
  private timer: NodeJS.Timeout | undefined;
  /** The wall clock minus the monotonic clock when last looked at (each beat, each stale file): it moves in a sleep. */
  private clockOffset = Date.now() - performance.now();
  /** Since when (monotonic) the wall clock has not jumped. */
  private steadySince = -Infinity;

  constructor(
    private readonly dir: string,
    private readonly self: PresenceOf,
    private readonly timing: PresenceTiming = { beatMs: BEAT_MS, staleMs: STALE_MS },
  ) {}

  /**
   * Whether the wall clock has run steadily for `settleMs`. After a sleep every presence file is as old as the sleep,
   * and each window rewrites its own within a beat of waking (its timers run on the monotonic clock, which stood
   * still): until then, none is judged by its age. A clock set forward is the same.
   */
  private clockSteady(settleMs: number): boolean {
    const now = performance.now();
    const offset = Date.now() - now;
    if (Math.abs(offset - this.clockOffset) > CLOCK_JUMP_MS) this.steadySince = now;
    this.clockOffset = offset;
    return now - this.steadySince >= settleMs;
  }

  file(of: PresenceOf): string {
    return join(this.dir, `window-${of.pid}-${of.instance}.present`);
  }

  /**
   * Writes this window's presence file, and again every beat until `stop`, calling `onBeat` after each. Rewritten,
   * not touched: a file swept while this window was frozen (a debugger, a suspended process) comes back.
   */
  start(content: string, onBeat: () => void): void {
    writeFileSync(this.file(this.self), content);
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.clockSteady(0);
      try {
        writeFileSync(this.file(this.self), content);
      } catch {
        // the folder is gone (storage removed under an open window): the next beat tries again
      }
      onBeat();
    }, this.timing.beatMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    rmSync(this.file(this.self), { force: true });
  }

  /**
   * What the presence file of `of` says: none (the window closed, or never opened here), fresh, or stale (missed
   * beats for longer than the bound, with the clock running steadily meanwhile).
   */
  state(of: PresenceOf): 'missing' | 'fresh' | 'stale' {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(this.file(of)).mtimeMs;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'fresh';
    }
    if (Date.now() - mtimeMs <= this.timing.staleMs) return 'fresh';
    return this.clockSteady(2 * this.timing.beatMs) ? 'stale' : 'fresh';
  }
}
