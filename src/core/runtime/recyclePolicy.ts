// When the Copilot runtime has grown enough to be worth a restart. The runtime's memory grows with the sessions it has
// run and is not given back while it lives (measured in the soak bench: 115 MB fresh, ~195 MB after a warm-up of 100
// turns and 20 worker tasks, 1.76× that after 1,000 more turns and 200 more tasks, the same without Baton); a restart
// gives it back, and costs a resume of the conversation's session. Pure: the recycler feeds it readings.
import type { RuntimeStats } from '../copilot/agentSessions';

export interface RecycleSettings {
  /** Restart once the runtime's RSS exceeds this × its RSS after warm-up; 0 turns the memory trigger off. */
  growth: number;
  /** Restart once this many sessions were opened on one runtime (the trigger where RSS cannot be read); 0 = never. */
  maxSessions: number;
  /** Warm-up: the baseline is the RSS once this many sessions were opened ... */
  warmupSessions: number;
  /** ... or once Baton has gone idle this many times on this runtime (a day of chat without workers), whichever first. */
  warmupIdles: number;
}

/**
 * 1.2×: above the run-to-run noise of a warm runtime's RSS (±3%); checked at every idle moment, the runtime stays
 * within about 1.2× of its warm size, and the soak (which is idle only every 100 turns) within 1.3×. A restart is then
 * due every ~250 turns of the soak's mix (~0.15 MB a turn). 20 sessions / 100 idles: where the fresh runtime's steep
 * first growth (JIT, module loading, caches: 115 → ~195 MB over 20 worker tasks and 100 turns) flattens. 100
 * sessions: ~0.8 MB a worker session after warm-up puts the runtime near 1.3× there: the bound where RSS cannot be read.
 */
export const DEFAULT_RECYCLE: RecycleSettings = { growth: 1.2, maxSessions: 100, warmupSessions: 20, warmupIdles: 100 };

/** The floors a nonzero baton.runtime.* setting is raised to: below 1.1× is noise; fewer sessions than the warm-up's. */
export const MIN_RECYCLE = { growth: 1.1, maxSessions: 20 } as const;

export type RecycleDecision = { restart: false; baseline?: number } | { restart: true; reason: string };

const MB = 1024 * 1024;

/** Holds one runtime's baseline (its RSS after warm-up) and decides, each time Baton goes idle, whether to restart it. */
export class RecyclePolicy {
  private runtime: number | undefined;
  private idles = 0;
  private baselineBytes: number | undefined;

  /** The runtime (its pid) the baseline belongs to. */
  get pid(): number | undefined {
    return this.runtime;
  }

  /** The baseline of the runtime last read (undefined during its warm-up). */
  get baseline(): number | undefined {
    return this.baselineBytes;
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
      return { restart: false, baseline: rss };
    }
    if (rss > this.baselineBytes * settings.growth)
      return {
        restart: true,
        reason: `its memory grew to ${(rss / MB).toFixed(0)} MB, ${(rss / this.baselineBytes).toFixed(2)}× its ${(this.baselineBytes / MB).toFixed(0)} MB after warm-up (baton.runtime.restartAtGrowth: ${settings.growth})`,
      };
    return { restart: false, baseline: this.baselineBytes };
  }
}
