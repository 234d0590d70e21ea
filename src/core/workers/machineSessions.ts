// The Copilot sessions on this machine (terminal, editors, Baton's own), as the Copilot Sessions
// view and the list_machine_sessions tool show them.
import * as path from 'node:path';
import type { AgentSessions } from '../copilot/agentSessions';
import type { Logger } from '../util/logger';
import { expandHome, isWithin, realpathNearest } from './protectedPaths';
import { WorkerError, type MachineSession } from './workerTypes';

export interface ListMachineSessions {
  cwdFilter?: string;
  limit?: number;
}

/** The most sessions one listing returns; past it, the newest are shown and the count of all is told. */
export const MACHINE_SESSIONS_MAX = 100;

/** A listing: the newest sessions (at most the limit) and how many matched in all. */
export interface MachineSessionPage {
  sessions: MachineSession[];
  total: number;
}

/**
 * Newest first. `cwdFilter` matches the session's directory as a path prefix (`~/dev` matches
 * `~/dev/app`), spelled or resolved. `workers` maps session ids to the Baton worker bound to them.
 */
export async function listMachineSessions(
  sessions: AgentSessions,
  args: ListMachineSessions,
  ctx: { homeDir: string; workers: Map<string, string>; logger: Logger },
): Promise<MachineSessionPage> {
  const limit = Math.min(MACHINE_SESSIONS_MAX, Math.max(1, Math.floor(args.limit ?? 20)));
  const all = await sessions.list();
  let prefixes: string[] | undefined;
  if (args.cwdFilter?.trim()) {
    const spelled = path.resolve(expandHome(args.cwdFilter.trim(), ctx.homeDir));
    prefixes = [...new Set([spelled, realpathNearest(spelled)])];
  }
  const matching = all
    .filter((s) => !s.isRemote)
    .map((s) => ({ sessionId: s.sessionId, workingDir: s.workingDir, summary: s.summary || '(no summary)', startedAt: s.startedAt, modifiedAt: s.modifiedAt }))
    .filter((s) => !prefixes || (s.workingDir !== undefined && prefixes.some((p) => isWithin(path.resolve(s.workingDir!), p))))
    .sort((a, b) => b.modifiedAt - a.modifiedAt);
  const rows = matching.slice(0, limit);
  let inUse: Set<string> | undefined;
  try {
    inUse = await sessions.inUse(rows.map((r) => r.sessionId));
  } catch (err) {
    ctx.logger.warn(`Could not check which sessions are in use: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { sessions: rows.map((r) => ({ ...r, inUse: inUse?.has(r.sessionId), worker: ctx.workers.get(r.sessionId) })), total: matching.length };
}

/**
 * Session id -> the name of the worker bound to it. A killed worker is no session's worker any more: it cannot be
 * continued (send refuses it), so its session is free to attach or fork again.
 */
export function sessionWorkers(workers: Iterable<{ name: string; sessionId?: string; state: string }>): Map<string, string> {
  const bound = new Map<string, string>();
  for (const w of workers) if (w.sessionId && w.state !== 'killed') bound.set(w.sessionId, w.name);
  return bound;
}

/** Said when a listing leaves sessions out (the newest `shown` of `total`); undefined when it shows them all. */
export function newestOfNote(shown: number, total: number): string | undefined {
  return total > shown ? `The newest ${shown} of ${total} sessions` : undefined;
}

export function checkSessionId(id: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(id ?? '')) throw new WorkerError(`'${id}' is not a session id. Use list_machine_sessions to find one.`);
}

export function sessionDir(dir: string | undefined, sessionId: string): string {
  if (!dir) throw new WorkerError(`Session ${sessionId} records no working directory, so it cannot be scoped; pick another.`);
  return dir;
}
