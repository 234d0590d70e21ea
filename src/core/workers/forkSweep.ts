// The forks Baton made of machine sessions ("baton: <name>", in the user's Copilot home) are recorded in the store when
// made (FORK_RECORD_PREFIX + id -> worker and time), so the sweep at start can delete the ones a closed or crashed
// window left behind with nothing referring to them: sessionSweep.ts reads only Baton's own folder, and forks live in
// the user's Copilot home. Invariants: only a session recorded here is ever deleted (the user's own sessions, attached
// ones included, never are); a fork something still refers to (a worker of its name here or in another live window, its
// changes waiting, a kept session id, a claim), one in use by another process, or one recorded in the last minutes
// (another window forking it before its worker row is written) stays. A record goes with its fork, or once its session
// is gone; at most FORK_RECORDS_MAX are kept (the oldest go first: their forks then stay, as before records).
import type { AgentSessions } from '../copilot/agentSessions';
import type { BatonStore } from '../store/types';
import type { Logger } from '../util/logger';
import { loggedStoreWrite } from '../util/loggedStoreWrite';
import { SWEEP_MIN_AGE_MS } from './sessionSweep';

/** State key of a fork Baton made: FORK_RECORD_PREFIX + session id -> JSON {worker, at}. */
export const FORK_RECORD_PREFIX = 'fork:';
/** The most fork records kept; forks are deleted with their worker's work, so only live or waiting ones are recorded. */
export const FORK_RECORDS_MAX = 200;

type ForkStore = Pick<BatonStore, 'getState' | 'setState' | 'deleteState' | 'stateKeys'>;

interface ForkRecord {
  id: string;
  worker?: string;
  at: number;
}

function readRecords(store: ForkStore): ForkRecord[] {
  return store.stateKeys(FORK_RECORD_PREFIX).map((key) => {
    const id = key.slice(FORK_RECORD_PREFIX.length);
    let value: unknown;
    try {
      value = JSON.parse(store.getState(key) ?? '');
    } catch {
      /* a row read back unparsable: a fork of unknown worker and age, still Baton's by its key */
    }
    const v = (typeof value === 'object' && value !== null ? value : {}) as { worker?: unknown; at?: unknown };
    return { id, worker: typeof v.worker === 'string' ? v.worker : undefined, at: typeof v.at === 'number' ? v.at : 0 };
  });
}

/** Records a fork Baton just made for worker `worker`; past FORK_RECORDS_MAX, the oldest records go. */
export function recordFork(store: ForkStore, logger: Logger, id: string, worker: string, now = Date.now()): void {
  loggedStoreWrite(
    logger,
    () => {
      const old = readRecords(store).sort((a, b) => a.at - b.at);
      for (const r of old.slice(0, Math.max(0, old.length - FORK_RECORDS_MAX + 1))) store.deleteState(FORK_RECORD_PREFIX + r.id);
      store.setState(FORK_RECORD_PREFIX + id, JSON.stringify({ worker, at: now }));
    },
    'record a fork',
  );
}

/** Forgets the record of a fork deleted (or of any session id: nothing happens when it is none). */
export function forgetFork(store: ForkStore, logger: Logger, id: string): void {
  loggedStoreWrite(logger, () => store.getState(FORK_RECORD_PREFIX + id) !== undefined && store.deleteState(FORK_RECORD_PREFIX + id), 'forget a fork');
}

export interface ForkSweepDeps {
  sessions: Pick<AgentSessions, 'inUse' | 'metadata' | 'delete'>;
  store: ForkStore;
  logger: Logger;
  /** Every session id something still refers to (the same list the sweep of Baton's own folder keeps). */
  referenced: () => Iterable<string | undefined>;
  /** Worker names still in use, here or in another live window: rows, cards, change sets or kept sessions waiting. */
  workerNames: () => Iterable<string>;
  now?: () => number;
  minAgeMs?: number;
}

/** Deletes the recorded forks nothing refers to any more, and drops their records; returns the ids deleted. */
export async function sweepForks(deps: ForkSweepDeps): Promise<string[]> {
  const now = deps.now?.() ?? Date.now();
  const minAge = deps.minAgeMs ?? SWEEP_MIN_AGE_MS;
  // Read before any await: the store may close meanwhile.
  const keep = new Set([...deps.referenced()].filter((id): id is string => Boolean(id)));
  const names = new Set(deps.workerNames());
  const orphans = readRecords(deps.store).filter((r) => !keep.has(r.id) && !(r.worker && names.has(r.worker)) && now - r.at >= minAge);
  if (!orphans.length) return [];
  let busy: Set<string>;
  try {
    busy = await deps.sessions.inUse(orphans.map((r) => r.id));
  } catch (err) {
    deps.logger.warn(`Could not check which of Baton's forks are in use; none is deleted now: ${errorText(err)}`);
    return [];
  }
  const swept: string[] = [];
  for (const { id } of orphans.filter((r) => !busy.has(r.id))) {
    try {
      if (await deps.sessions.metadata(id)) {
        await deps.sessions.delete(id);
        swept.push(id);
      }
      forgetFork(deps.store, deps.logger, id);
    } catch (err) {
      deps.logger.warn(`Could not remove Baton's fork ${id}: ${errorText(err)}`);
    }
  }
  if (swept.length) deps.logger.info(`Removed ${swept.length} fork(s) of machine sessions no worker refers to any more`);
  return swept;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
