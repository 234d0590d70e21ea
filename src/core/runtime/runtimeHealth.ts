// One health check for the runtime every conversation and worker shares: every 30 s while Baton is idle, a ping; a
// runtime that does not answer is reset, so the next message starts a new one instead of waiting on a dead one.
// Invariant: never while anything uses the runtime (a turn in any conversation, a worker, an open question), since a
// runtime busy with it may answer a ping late, and a reset would cut that work short.
import type { AgentSessions } from '../copilot/agentSessions';
import type { Logger } from '../util/logger';

export interface RuntimeHealthOptions {
  sessions: AgentSessions;
  logger: Logger;
  /** Nothing uses the runtime now (the recycler's notion of idle). */
  idle: () => boolean;
  /** Between checks; 0: only when asked (tests). */
  intervalMs?: number;
}

export type HealthOutcome = 'idle' | 'ok' | 'restarted' | 'busy';

export class RuntimeHealth {
  private readonly timer: NodeJS.Timeout | undefined;
  private checking: Promise<HealthOutcome> | undefined;

  constructor(private readonly opts: RuntimeHealthOptions) {
    const interval = opts.intervalMs ?? 30_000;
    const tick = () => void this.check().catch((err: unknown) => opts.logger.warn(`Health check failed: ${String(err)}`));
    if (interval > 0) this.timer = setInterval(tick, interval).unref();
  }

  /** Pings the runtime now, unless something uses it; a dead one is reset (every session is dropped: onDidReset). */
  check(): Promise<HealthOutcome> {
    this.checking ??= this.run().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async run(): Promise<HealthOutcome> {
    const { sessions, idle } = this.opts;
    if (!sessions.isStarted) return 'idle';
    if (!idle()) return 'busy';
    if (await sessions.ping()) return 'ok';
    // Whatever started while the ping waited is left alone: its own errors say whether the runtime is gone.
    if (!idle()) return 'busy';
    await sessions.reset('health check: the runtime did not answer a ping');
    return 'restarted';
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
