// When a worker's Copilot session is deleted: its task has ended AND its changes are settled (applied, kept as a
// branch, discarded) or it made none. While changes wait for review the session stays (a follow-up asking the same
// worker for more changes resumes it), and its id is kept in the store so a reload still knows it. Only Baton's own
// sessions are ever deleted: one it created (in its copilot-sessions/ folder) or a fork it made of a machine session (a
// copy, "baton: <name>", in the user's Copilot home, where the runtime's delete finds it); never an attached one, nor
// the user's own CLI sessions. The worker's transcript is Baton's own and stays (the Workers view, "show transcript").
import type { AgentSession, AgentSessions, SessionSpec } from '../copilot/agentSessions';
import type { BatonStore } from '../store/types';
import type { Logger } from '../util/logger';
import { errorText } from './workerMessages';
import { SessionInUseError, WorkerError, type Worker } from './workerTypes';
import { loggedStoreWrite } from '../util/loggedStoreWrite';
import { changedNothing } from './workerRegistry';
import { forgetFork } from './forkSweep';

/** State key of a finished worker's session kept for its pending changes (one per worker with changes to review). */
export const KEPT_SESSION_PREFIX = 'worker_session:';
/** State key set beside KEPT_SESSION_PREFIX when the kept session is a fork (it lives in the user's Copilot home). */
export const KEPT_FORK_PREFIX = 'worker_fork:';

/** Baton's own session, deleted with the worker's work: one it created or a fork it made; never an attached one. */
function ownedBy(w: Worker): boolean {
  return w.source === 'created' || w.source === 'forked';
}

export interface SessionLifecycleDeps {
  sessions: AgentSessions;
  store: BatonStore;
  logger: Logger;
  /** The worker by name, active or finished, if the pool still holds it. */
  find: (name: string) => Worker | undefined;
  /** True while the worker holds a slot (running or idle): its session is in use. */
  isActive: (name: string) => boolean;
  /** Whether the worker has changes waiting for review. */
  hasPendingChanges: (name: string) => boolean;
  disconnect: (w: Worker) => Promise<void>;
}

export class SessionLifecycle {
  constructor(private readonly deps: SessionLifecycleDeps) {}

  /**
   * A task ended (the worker has left its slot): its session goes now, or is kept while its changes wait. A worktree it
   * left empty stays for a follow-up, but not its session: a follow-up opens a new one told what the worker did, as
   * for a worker in place that changed nothing (a kept session per reading task piled up with the worktrees).
   */
  async taskEnded(w: Worker): Promise<void> {
    if (changedNothing(w) || this.keepWhilePending(w) === false) await this.settled(w.name);
  }

  /**
   * A task ended as Baton closes (a reload while its verify ran): its session is kept while its changes wait, so the next
   * start resumes it (its verify run again, a follow-up) instead of opening a new one; nothing is deleted now.
   */
  keepAtClose(w: Worker): void {
    this.keepWhilePending(w);
  }

  /** Keeps the id of `w`'s session while its changes wait; whether they do (undefined: not Baton's session, or unknown). */
  private keepWhilePending(w: Worker): boolean | undefined {
    if (!ownedBy(w) || !w.sessionId) return undefined;
    let pending: boolean;
    try {
      pending = this.deps.hasPendingChanges(w.name);
    } catch (err) {
      // Not knowing whether changes wait, the session stays (the sweep at a later start decides).
      this.deps.logger.warn(`Worker '${w.name}': its session is kept: ${errorText(err)}`);
      return undefined;
    }
    if (pending) {
      this.safely(() => this.deps.store.setState(KEPT_SESSION_PREFIX + w.name, w.sessionId!), 'keep the session id');
      if (w.source === 'forked') this.safely(() => this.deps.store.setState(KEPT_FORK_PREFIX + w.name, w.sessionId!), 'keep the fork mark');
    }
    return pending;
  }

  /**
   * The worker's change is settled (applied, kept as a branch, discarded), or there was none: its session is deleted
   * from the runtime. A worker busy with another task keeps its session; that task's end decides again.
   */
  async settled(name: string): Promise<void> {
    try {
      await this.settle(name);
    } catch (err) {
      this.deps.logger.warn(`Worker '${name}': settling its session failed: ${errorText(err)}`);
    }
  }

  private async settle(name: string): Promise<void> {
    if (this.deps.isActive(name)) return;
    const w = this.deps.find(name);
    const recorded = this.deps.store.getState(KEPT_SESSION_PREFIX + name);
    const id = w ? (ownedBy(w) ? w.sessionId : undefined) : recorded;
    if (recorded !== undefined) this.safely(() => this.deps.store.deleteState(KEPT_SESSION_PREFIX + name), 'forget the session id');
    if (this.deps.store.getState(KEPT_FORK_PREFIX + name) !== undefined)
      this.safely(() => this.deps.store.deleteState(KEPT_FORK_PREFIX + name), 'forget the fork mark');
    if (w && ownedBy(w)) {
      // Taken from the worker before the first await: a follow-up sent while the session closes starts a new one, told
      // what the worker did before (workerPool.send), instead of resuming the one deleted below under it.
      w.sessionId = undefined;
      w.sessionClosed = true;
      await this.deps.disconnect(w);
    }
    if (!id) return;
    await this.deps.sessions.delete(id).then(
      () => {
        this.deps.logger.info(`Worker '${name}': session ${id} deleted (its work is settled)`);
        forgetFork(this.deps.store, this.deps.logger, id);
      },
      (err: unknown) => this.deps.logger.warn(`Worker '${name}': could not delete session ${id}: ${errorText(err)}`),
    );
  }

  /**
   * A worker's own session with no history on disk (its folder deleted while no window ran, or opened for a verify run
   * again and never sent a prompt, which the runtime does not save) could only fail to resume: it counts as closed, so
   * the next task opens a new one, told what the worker did (previousWork).
   */
  async closeIfGone(w: Worker): Promise<void> {
    const id = w.sessionId;
    // A worker listed again at a start is made as 'created' (pendingWorkers.ts): a fork kept for its changes is told
    // apart here, so it resumes from the user's Copilot home and is deleted there once its changes are settled.
    if (id && w.source === 'created' && this.deps.store.getState(KEPT_FORK_PREFIX + w.name) === id) w.source = 'forked';
    if (w.source !== 'created' || !id || !(await this.deps.sessions.ownSessionGone(id))) return;
    this.deps.logger.warn(`Worker '${w.name}': its session ${id} is gone from disk; a follow-up starts a new one`);
    w.sessionId = undefined;
    w.sessionClosed = true;
  }

  /** A worker without a live session: its saved one resumed, or a new one when the old was deleted (a follow-up). */
  async reopen(w: Worker, spec: SessionSpec): Promise<{ session: AgentSession; fresh: boolean }> {
    if (!w.sessionId && w.sessionClosed) {
      // Its fork deleted, a forked worker goes on in a session of Baton's own (never a new one in the user's Copilot home).
      const session = await this.deps.sessions.create(spec.role === 'worker' ? { ...spec, ownSession: true } : spec);
      w.source = 'created';
      w.sessionClosed = false;
      return { session, fresh: true };
    }
    if (!w.sessionId) throw new WorkerError(`Worker '${w.name}' has no session.`);
    // No history on disk (a worker created idle, never sent a prompt: the runtime saves no such session), it could only
    // fail to resume once its runtime was restarted; a new one opens instead.
    if (w.source === 'created' && (await this.deps.sessions.ownSessionGone(w.sessionId))) {
      this.deps.logger.info(`Worker '${w.name}': its session ${w.sessionId} has no history to resume; a new one opens`);
      return { session: await this.deps.sessions.create(spec), fresh: true };
    }
    if ((await this.deps.sessions.inUse([w.sessionId])).has(w.sessionId)) {
      throw new SessionInUseError(`its session ${w.sessionId} is now in use by another process, so it was not written into`, w.sessionId);
    }
    return { session: await this.deps.sessions.resume(w.sessionId, spec), fresh: false };
  }

  /** The session id kept for `name`'s pending changes, if any. */
  keptId(name: string): string | undefined {
    return this.deps.store.getState(KEPT_SESSION_PREFIX + name);
  }

  /** Session ids kept for pending changes (the sweep at start leaves them). */
  keptIds(): string[] {
    return this.deps.store.stateKeys(KEPT_SESSION_PREFIX).flatMap((k) => {
      const id = this.deps.store.getState(k);
      return id ? [id] : [];
    });
  }

  /** Names of the workers whose sessions are kept for pending changes (a fork of theirs stays at the sweep). */
  keptNames(): string[] {
    return [KEPT_SESSION_PREFIX, KEPT_FORK_PREFIX].flatMap((prefix) => this.deps.store.stateKeys(prefix).map((k) => k.slice(prefix.length)));
  }

  private safely(fn: () => void, what: string): void {
    loggedStoreWrite(this.deps.logger, fn, what);
  }
}

/** What a worker whose session was closed did before, for the new session of its follow-up (bounded). */
export function previousWork(w: Worker): string {
  // A worker listed again at a start has no transcript in memory: its card's summary (the start of its report) stands in.
  const before = (w.transcript.taskOutput() || w.transcript.lastLine || w.summary || '').trim();
  const tail = before.length > 4000 ? `…${before.slice(-4000)}` : before;
  return [
    '[Context: you are continuing earlier work in a new session. Your report at the end of your last task was:]',
    tail || '(no report)',
    '[End of context. The new task follows.]',
  ].join('\n');
}
