// Restarts the Copilot runtime when Baton is idle and the runtime has grown (RecyclePolicy decides), so a month of
// daily use does not keep the memory a thousand sessions left behind. Checked when Baton goes idle, never on a timer
// that keeps running.
// Invariants:
// - never while anything uses the runtime: a turn running or queued in any open conversation, a compaction, a worker
//   starting or running (an attached CLI session's task included), a permission question open;
// - every open conversation's queue is held across the restart, so a message sent meanwhile waits and is then answered
//   once, on the conversation's session resumed on the new runtime; the runtime itself makes every other caller wait;
// - a restart that fails leaves Baton as a dead runtime would: the next call starts a new one.
import type { AgentSessions } from '../copilot/agentSessions';
import { Emitter } from '../util/emitter';
import type { Logger } from '../util/logger';
import { residentBytes, rssSupport } from '../util/processMemory';
import { holdAll, type HeldQueue } from '../conversations/holdAll';
import { DEFAULT_RECYCLE, RecyclePolicy, type RecycleSettings } from './recyclePolicy';

export interface RuntimeRecyclerOptions {
  sessions: AgentSessions;
  logger: Logger;
  settings?: () => Partial<RecycleSettings>;
  /** Every open conversation: idle when no turn runs or waits and no compaction runs; held through its queue. */
  conversations: () => readonly HeldConversation[];
  /** Nothing else uses the runtime: no worker starting or running, no permission question open. */
  othersIdle: () => boolean;
  /** After the restart, the shown conversation's session made ready again (resumed), unless a turn does it. */
  resume: () => Promise<void>;
  /** How long Baton must stay idle before the check (a worker's result is delivered just after it ends); 0: never by itself. */
  quietMs?: number;
  /** The runtime's resident bytes (tests); default /proc (Linux) or ps (macOS, BSD), none on Windows. */
  readRss?: (pid: number) => Promise<number | undefined>;
}

/** What the recycler needs of a conversation (an Orchestrator). */
export interface HeldConversation extends HeldQueue {
  readonly idle: boolean;
}

export type RecycleOutcome = 'busy' | 'not-started' | 'kept' | 'restarted';

export class RuntimeRecycler {
  private readonly policy = new RecyclePolicy();
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<RecycleOutcome> | undefined;
  private disposed = false;
  private readonly rss: (pid: number) => Promise<number | undefined>;
  /** Idle restarts so far, the runtime's RSS at the last check and how long the last restart took (Doctor). */
  restarts = 0;
  lastRss: number | undefined;
  lastRestartMs: number | undefined;
  /** Why the last idle restart happened (the policy's words). */
  lastRestartReason: string | undefined;
  /** The running runtime passed the memory bound but the guard held its restart back: why (Doctor), with its pid. */
  private held: { pid: number; why: string } | undefined;
  private restartingNow = false;
  private readonly restartingChanged = new Emitter<boolean>();
  /** Told when a restart begins (true) and ends (false), so the panel and the status bar can say so. */
  readonly onRestarting = this.restartingChanged.event;

  constructor(private readonly opts: RuntimeRecyclerOptions) {
    const support = rssSupport();
    if (!opts.readRss && !support.available) opts.logger.info(`Runtime restarts: ${support.reason}`);
    this.rss = opts.readRss ?? (support.available ? (pid) => residentBytes(pid) : async () => undefined);
  }

  get settings(): RecycleSettings {
    return { ...DEFAULT_RECYCLE, ...this.opts.settings?.() };
  }

  /** The baseline of the running runtime (its RSS after warm-up), once taken. */
  get baseline(): number | undefined {
    return this.policy.baseline;
  }

  /** Something settled (a turn, a worker, a question): when Baton stays idle for quietMs, the runtime is checked. */
  poke(): void {
    if (this.disposed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const quietMs = this.opts.quietMs ?? 1000;
    if (quietMs <= 0 || !this.idle() || !this.opts.sessions.isStarted) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.check().catch((err: unknown) => this.opts.logger.warn(`Runtime restart check failed: ${String(err)}`));
    }, quietMs);
    this.timer.unref?.();
  }

  /** The runtime is being restarted now (a message sent meanwhile waits for it). */
  get restarting(): boolean {
    return this.restartingNow;
  }

  /** A check (and so maybe a restart) is under way. */
  get checkInProgress(): boolean {
    return this.checking !== undefined;
  }

  /** Checks now (poke's timer, tests): restarts the runtime when it is idle and has grown. */
  check(): Promise<RecycleOutcome> {
    this.checking ??= this.run().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async run(): Promise<RecycleOutcome> {
    const { sessions, logger } = this.opts;
    const stats = sessions.runtimeStats();
    if (!stats) return 'not-started';
    if (!this.idle()) return 'busy';
    const rss = await this.rss(stats.pid);
    this.lastRss = rss;
    const decision = this.policy.decide(stats, rss, this.settings);
    if (!decision.restart) {
      if (decision.held && this.held?.pid !== stats.pid) logger.info(`Not restarting the Copilot runtime yet: ${decision.held}`);
      this.held = decision.held ? { pid: stats.pid, why: decision.held } : undefined;
      return 'kept';
    }
    // Checked again with no await before the holds are placed: no turn can start in between.
    if (this.disposed || !this.idle()) return 'busy';
    const release = await holdAll(this.opts.conversations(), 5000);
    if (!release) return 'busy';
    const started = performance.now();
    try {
      // A worker or a question may have started while the holds were placed (they do not go through the queues).
      if (this.disposed || !this.opts.othersIdle()) return 'busy';
      logger.info(`Restarting the Copilot runtime while idle: ${decision.reason}`);
      this.setRestarting(true);
      await sessions.restart(`idle restart: ${decision.reason}`);
      this.restarts++;
      this.lastRestartReason = decision.reason;
    } finally {
      this.setRestarting(false);
      release();
    }
    this.lastRestartMs = performance.now() - started;
    logger.info(`Copilot runtime restarted while idle in ${this.lastRestartMs.toFixed(0)} ms (pid ${sessions.runtimePid() ?? '?'}, restart ${this.restarts})`);
    // The queues run what waited first; the shown conversation's session is resumed ahead of the next message otherwise.
    await new Promise((r) => setImmediate(r));
    await this.opts.resume().catch((err: unknown) => logger.warn(`Resuming the conversation after the runtime restart failed: ${String(err)}`));
    return 'restarted';
  }

  /** Doctor's line: the runtime's memory now and after warm-up, its bound, and the idle restarts so far. */
  async describe(): Promise<string> {
    const stats = this.opts.sessions.runtimeStats();
    const rss = stats ? await this.rss(stats.pid) : undefined;
    const support = rssSupport();
    const { growth, maxSessions } = this.settings;
    const baseline = stats && stats.pid === this.policy.pid ? this.policy.baseline : undefined;
    const reference = this.policy.reference;
    const now = stats
      ? `${rss !== undefined ? mb(rss) : 'RSS unknown'} (${baseline ? `${mb(baseline)} after warm-up` : 'warming up'}), ${stats.sessionsOpened} session(s) opened since it started`
      : 'not started';
    const memory = `${growth}× the first runtime's size after warm-up${reference ? ` (${mb(reference * growth)})` : ''}`;
    const bounds = [growth > 0 && support.available ? memory : '', maxSessions > 0 ? `${maxSessions} sessions` : ''].filter(Boolean);
    const last = this.lastRestartMs !== undefined ? ` (the last took ${this.lastRestartMs.toFixed(0)} ms)` : '';
    const held = this.held && stats?.pid === this.held.pid ? `; the guard holds a restart back: ${this.held.why}` : '';
    return `${now}; restarted when idle at ${bounds.join(' or ') || 'never (baton.runtime.* turned off)'}; ${this.restarts} idle restart(s) in this window${last}${held}${support.available ? '' : `; ${support.reason}`}`;
  }

  private setRestarting(on: boolean): void {
    if (this.restartingNow === on) return;
    this.restartingNow = on;
    this.restartingChanged.fire(on);
  }

  /** Nothing uses the runtime: no conversation's turn, task or compaction, no worker, no open question (the health check too). */
  idle(): boolean {
    return this.opts.othersIdle() && this.opts.conversations().every((c) => c.idle);
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.restartingChanged.dispose();
  }
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}
