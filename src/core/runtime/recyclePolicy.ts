// When the Copilot runtime has grown enough to be worth a restart. The runtime's memory grows with the sessions it has
// run and is not given back while it lives (measured in the soak bench: 115 MB fresh, ~195 MB after a warm-up of 100
// turns and 20 worker tasks, 1.76× that after 1,000 more turns and 200 more tasks, the same without Baton); a restart
// gives it back, and costs a resume of the conversation's session. Pure: the recycler feeds it readings.
import type { RuntimeStats } from '../copilot/agentSessions';

export interface RecycleSettings {
  /**
   * Restart once the runtime's RSS exceeds this × the first runtime's RSS after warm-up (the window's reference, so a
   * restarted runtime, which warms up bigger, is held to the same bound); 0 turns the memory trigger off.
   */
  growth: number;
  /**
   * The guard: a runtime is restarted for memory only once it has also grown this × its own RSS after warm-up, so one
   * whose warm size is already near or above the bound (the work itself got bigger) is not restarted at every warm-up.
   */
  guardGrowth: number;
  /** Restart once this many sessions were opened on one runtime (the trigger where RSS cannot be read); 0 = never. */
  maxSessions: number;
  /** Warm-up: the baseline is the RSS once this many sessions were opened ... */
  warmupSessions: number;
  /** ... or once Baton has gone idle this many times on this runtime (a day of chat without workers), whichever first. */
  warmupIdles: number;
}

/**
 * 1.2×: above the run-to-run noise of a warm runtime's RSS (±3%); checked at every idle moment, the runtime stays
 * within about 1.2× of the first one's warm size, and the soak (which is idle only every 25 turns) within 1.3×. A
 * restart is then due every ~250 turns of the soak's mix (~0.15 MB a turn). 1.1× of its own: the noise floor (as for
 * the setting), ~20 MB of growth (~130 turns of that mix), so each restart gives back at least that much. 20 sessions /
 * 100 idles: where the fresh runtime's steep first growth (JIT, module loading, caches: 115 → ~195 MB over 20 worker
 * tasks and 100 turns) flattens. 100 sessions: ~0.8 MB a worker session after warm-up puts the runtime near 1.3× there:
 * the bound where RSS cannot be read.
 */
export const DEFAULT_RECYCLE: RecycleSettings = { growth: 1.2, guardGrowth: 1.1, maxSessions: 100, warmupSessions: 20, warmupIdles: 100 };

/** The floors a nonzero baton.runtime.* setting is raised to: below 1.1× is noise; fewer sessions than the warm-up's. */
export const MIN_RECYCLE = { growth: 1.1, maxSessions: 20 } as const;

/** `held`: the bound was passed, but the guard holds the restart back (the policy's words, for Doctor and the log). */
export type RecycleDecision = { restart: false; baseline?: number; held?: string } | { restart: true; reason: string };

const MB = 1024 * 1024;

/**
 * Holds the window's reference (the first runtime's RSS after warm-up) and the running runtime's own baseline, and
 * decides, each time Baton goes idle, whether to restart it.
 */
export class RecyclePolicy {
  private runtime: number | undefined;
  private idles = 0;
  private baselineBytes: number | undefined;
  private referenceBytes: number | undefined;

  /** The runtime (its pid) the baseline belongs to. */
  get pid(): number | undefined {
    return this.runtime;
  }

  /** The baseline of the runtime last read (undefined during its warm-up). */
  get baseline(): number | undefined {
    return this.baselineBytes;
  }

  /** The first runtime's baseline: every runtime's memory bound is `growth` × this. */
  get reference(): number | undefined {
    return this.referenceBytes;
  }

  /** `rss`: the runtime's resident bytes, undefined where it cannot be read (then only the session count decides). */
  decide(stats: RuntimeStats, rss: number | undefined, settings: RecycleSettings): RecycleDecision {
    if (stats.pid !== this.runtime) {
      this.runtime = stats.pid;
      this.idles = 0;
      this.baselineBytes = undefined;
    }
    this.idles++;
    if (settings.maxSessions > 0 && stats.sessionsOpened >= settings.maxSessions)
      return { restart: true, reason: `it opened ${stats.sessionsOpened} sessions (baton.runtime.restartAfterSessions: ${settings.maxSessions})` };
    if (rss === undefined || !(settings.growth > 0)) return { restart: false };
    if (this.baselineBytes === undefined) {
      if (stats.sessionsOpened < settings.warmupSessions && this.idles < settings.warmupIdles) return { restart: false };
      this.baselineBytes = rss;
      this.referenceBytes ??= rss;
      return { restart: false, baseline: rss };
    }
    const reference = this.referenceBytes ?? this.baselineBytes;
    const own = this.baselineBytes;
    if (!(rss > reference * settings.growth)) return { restart: false, baseline: own };
    const ratio = `${mb(rss)}, ${(rss / reference).toFixed(2)}× the first runtime's ${mb(reference)} after warm-up (baton.runtime.restartAtGrowth: ${settings.growth})`;
    if (!(rss > own * settings.guardGrowth))
      return {
        restart: false,
        baseline: own,
        held: `its memory is ${ratio}, but it was ${mb(own)} already after its own warm-up: held back until it grows past ${settings.guardGrowth}× that, ${mb(own * settings.guardGrowth)}, so a restart gives memory back`,
      };
    return { restart: true, reason: `its memory grew to ${ratio}; ${(rss / own).toFixed(2)}× its own ${mb(own)} after warm-up` };
  }
}

function mb(bytes: number): string {
  return `${(bytes / MB).toFixed(0)} MB`;
}
