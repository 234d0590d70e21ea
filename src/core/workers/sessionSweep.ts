// Sweeps Baton's own session folder (copilot-sessions/) at start: sessions left by earlier versions (which never
// deleted a worker's session) or by a crash. Only that folder is looked at for sessions, so the user's own CLI sessions
// and attached ones (both in the user's Copilot home) are never touched; in the Copilot home, only the file snapshots
// the runtime left for sessions gone everywhere, all of whose files were in Baton's worktrees. A session is kept when
// anything still refers to it: the orchestrator's saved session, a session another live window claims, a worker row, a
// finished worker's session kept for its pending changes, a worker this window holds; and a folder changed in the last
// minutes is left alone (another window may be creating it before its row is written).
import { realpath } from 'node:fs/promises';
import * as path from 'node:path';
import type { AgentSessions } from '../copilot/agentSessions';
import type { Logger } from '../util/logger';

export const SWEEP_MIN_AGE_MS = 10 * 60_000;

export interface SessionSweepDeps {
  sessions: Pick<AgentSessions, 'ownSessions' | 'delete' | 'leftFileSnapshots' | 'removeFileSnapshots'>;
  /**
   * Baton's worktrees folder: file snapshots the runtime left in the user's Copilot home for sessions gone everywhere
   * are deleted when every file they copied was in it (a worker's worktree, so Baton's; left before Baton deleted them
   * with the session). Any other such folder (a worker that changed the user's own folder, or another program's) stays.
   */
  worktrees?: string;
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
  if (deps.worktrees) await sweepLeftSnapshots(deps.sessions, deps.worktrees, deps.logger);
  return swept;
}

async function sweepLeftSnapshots(sessions: SessionSweepDeps['sessions'], worktrees: string, logger: Logger): Promise<void> {
  // Resolved, as the runtime resolved the paths it recorded; no worktrees folder: no worker of Baton's left any.
  const root = await realpath(worktrees).catch(() => undefined);
  if (!root) return;
  const inside = (file: string): boolean => {
    const rel = path.relative(root, file);
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  };
  let removed = 0;
  for (const left of await sessions.leftFileSnapshots()) {
    if (left.files.length === 0 || !left.files.every(inside)) continue;
    await sessions.removeFileSnapshots(left.id);
    removed++;
  }
  if (removed) logger.info(`Removed the file snapshots ${removed} earlier worker session(s) left in the Copilot home`);
}
