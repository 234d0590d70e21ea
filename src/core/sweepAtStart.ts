// The sweep of Baton's own session folder at start (workers/sessionSweep.ts) and of the forks it made of machine
// sessions (workers/forkSweep.ts), with everything that still refers to a session gathered in one place: the
// composition root hands over its parts, this names what each one holds. Then again every hour while Baton runs: a
// conversation pushed out by the store's bound (a tool call's fresh one each call) leaves a session folder nothing
// refers to from then on, which would otherwise stay until the next start.
import * as path from 'node:path';
import type { AgentSessions } from './copilot/agentSessions';
import type { Conversations } from './conversations/conversations';
import type { SessionClaims } from './orchestrator/sessionClaims';
import { savedSessionIds } from './orchestrator/sessionKeeper';
import type { BatonStore } from './store/types';
import type { Logger } from './util/logger';
import { sweepForks } from './workers/forkSweep';
import { sweepOrphanedSessions } from './workers/sessionSweep';
import type { WorkerPool } from './workers/workerPool';

export interface SweepAtStartParts {
  sessions: AgentSessions;
  logger: Logger;
  storageDir: string;
  store: BatonStore;
  conversations: Conversations;
  claims: SessionClaims;
  pool: WorkerPool;
}

/** How often the sweep runs again while Baton runs. */
export const SESSION_SWEEP_EVERY_MS = 60 * 60_000;

/** Sweeps now (`first`), then every `everyMs` until disposed; dispose waits for a sweep under way. */
export function keepSessionsSwept(p: SweepAtStartParts, everyMs = SESSION_SWEEP_EVERY_MS): { first: Promise<void>; dispose(): Promise<void> } {
  let running: Promise<void> | undefined = sweepAtStart(p).finally(() => (running = undefined));
  const first = running;
  const timer = setInterval(() => {
    running ??= sweepAtStart(p).finally(() => (running = undefined));
  }, everyMs);
  timer.unref();
  return {
    first,
    dispose: async () => {
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * Deletes the sessions nothing refers to any more; run after deliverPending's first step (stale worker rows cleaned).
 * Baton's own folder first, then the forks Baton made in the user's Copilot home that a closed window left (forkSweep.ts).
 */
export async function sweepAtStart(p: SweepAtStartParts): Promise<void> {
  const referenced = (): Array<string | undefined> => [
    ...savedSessionIds(p.store),
    ...p.conversations.all().map((o) => o.currentSessionId),
    ...p.claims.sweep(),
    ...p.store.listWorkers().map((r) => r.copilot_session_id ?? undefined),
    ...p.pool.list().map((w) => w.sessionId),
    ...p.pool.lifecycle.keptIds(),
    ...(p.pool.changes?.trackedSessionIds() ?? []),
  ];
  await sweepOrphanedSessions({ sessions: p.sessions, logger: p.logger, worktrees: path.join(p.storageDir, 'worktrees'), referenced }).catch((err: unknown) =>
    p.logger.warn(`Sweeping orphaned sessions failed: ${String(err)}`),
  );
  await sweepForks({
    sessions: p.sessions,
    store: p.store,
    logger: p.logger,
    referenced,
    // A worker row is this window's or another live one's (a closed window's rows are cleaned before the sweep).
    workerNames: () => [
      ...p.store.listWorkers().map((r) => r.name),
      ...p.pool.list().map((w) => w.name),
      ...(p.pool.changes?.list().map((c) => c.worker) ?? []),
      ...p.pool.lifecycle.keptNames(),
    ],
  }).catch((err: unknown) => p.logger.warn(`Sweeping Baton's forks of machine sessions failed: ${String(err)}`));
}
