// Sweeps Baton's own session folder (copilot-sessions/) at start: sessions left by earlier versions (which never
// deleted a worker's session) or by a crash. Only that folder is looked at, so the user's own CLI sessions and
// attached ones (both in the user's Copilot home) are never touched. A session is kept when anything still refers
// to it: the orchestrator's saved session, a session another live window claims, a worker row, a finished worker's
// session kept for its pending changes, a worker this window holds; and a folder changed in the last minutes is left
// alone (another window may be creating it before its row is written).
import type { AgentSessions } from '../copilot/agentSessions';
import type { Logger } from '../util/logger';

export const SWEEP_MIN_AGE_MS = 10 * 60_000;

export interface SessionSweepDeps {
  sessions: Pick<AgentSessions, 'ownSessions' | 'delete'>;
  /** Every session id something still refers to. */
  referenced: () => Iterable<string | undefined>;
  logger: Logger;
  now?: () => number;
  minAgeMs?: number;
}

/** Deletes the orphaned sessions of Baton's folder; returns their ids. */
export async function sweepOrphanedSessions(deps: SessionSweepDeps): Promise<string[]> {
  const now = deps.now?.() ?? Date.now();
  const minAge = deps.minAgeMs ?? SWEEP_MIN_AGE_MS;
  // Read before any await: the store may close while the folder is listed.
  const keep = new Set([...deps.referenced()].filter((id): id is string => Boolean(id)));
  const found = await deps.sessions.ownSessions();
  const orphans = found.filter((s) => !keep.has(s.id) && now - s.modifiedAt >= minAge).map((s) => s.id);
  const swept: string[] = [];
  for (const id of orphans) {
    try {
      await deps.sessions.delete(id);
      swept.push(id);
    } catch (err) {
      deps.logger.warn(`Could not remove the orphaned session ${id}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (swept.length) deps.logger.info(`Removed ${swept.length} orphaned session folder(s) from Baton's copilot-sessions/`);
  return swept;
}
