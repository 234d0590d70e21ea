// The sweep of Baton's own session folder at start (workers/sessionSweep.ts), with everything that still refers to a
// session gathered in one place: the composition root hands over its parts, this names what each one holds.
import * as path from 'node:path';
import type { AgentSessions } from './copilot/agentSessions';
import type { Conversations } from './conversations/conversations';
import type { SessionClaims } from './orchestrator/sessionClaims';
import { savedSessionIds } from './orchestrator/sessionKeeper';
import type { BatonStore } from './store/types';
import type { Logger } from './util/logger';
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

/** Deletes the sessions nothing refers to any more; run after deliverPending's first step (stale worker rows cleaned). */
export function sweepAtStart(p: SweepAtStartParts): Promise<void> {
  return sweepOrphanedSessions({
    sessions: p.sessions,
    logger: p.logger,
    worktrees: path.join(p.storageDir, 'worktrees'),
    referenced: () => [
      ...savedSessionIds(p.store),
      ...p.conversations.all().map((o) => o.currentSessionId),
      ...p.claims.sweep(),
      ...p.store.listWorkers().map((r) => r.copilot_session_id ?? undefined),
      ...p.pool.list().map((w) => w.sessionId),
      ...p.pool.lifecycle.keptIds(),
      ...(p.pool.changes?.trackedSessionIds() ?? []),
    ],
  }).then(
    () => undefined,
    (err: unknown) => p.logger.warn(`Sweeping orphaned sessions failed: ${String(err)}`),
  );
}
