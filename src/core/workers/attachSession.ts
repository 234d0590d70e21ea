// Bringing a machine session in as a worker: attach it (only when no other process holds it) or
// fork a copy. Invariant: a session held by another process is never written into; the check is
// made again right before the resume, since the other process may have opened it meanwhile.
import type { AgentSession, AgentSessions, SessionSpec } from '../copilot/agentSessions';
import { ForkError } from '../copilot/safeFork';
import type { BatonStore } from '../store/types';
import type { Logger } from '../util/logger';
import { forgetFork, recordFork } from './forkSweep';
import { checkSessionId, listMachineSessions, sessionDir, sessionWorkers, type ListMachineSessions, type MachineSessionPage } from './machineSessions';
import type { WorkerRegistry } from './workerRegistry';
import { SessionInUseError, WorkerError, type MachineSession, type ReplyTo, type Worker, type WorkerInfo } from './workerTypes';

/** What attaching needs from the pool. */
export interface AttachHost {
  sessions: AgentSessions;
  reg: WorkerRegistry;
  logger: Logger;
  /** Where each fork made is recorded, so the sweep at start finds one a closed window left (forkSweep.ts). */
  store: BatonStore;
  assertOpen(): void;
  resolveDir(dir: string): string;
  reserve(name: string, dir: string, replyTo: ReplyTo, source: WorkerInfo['source']): Worker;
  open(w: Worker, make: () => Promise<AgentSession>): Promise<void>;
  spec(w: Worker): SessionSpec;
  /** Where git keeps the repository of `dir`: read-only to the session, which works in its folder in place (workerIsolation.ts). */
  gitFolders(dir: string): Promise<string[]>;
}

/**
 * Brings an existing machine session in as an idle worker (send it a task with send). A session
 * another process holds is never written into: this refuses and offers a fork instead.
 */
export async function attachMachineSession(host: AttachHost, sessionId: string, name: string, opts: { replyTo?: ReplyTo } = {}): Promise<WorkerInfo> {
  host.assertOpen();
  checkSessionId(sessionId);
  const workerName = host.reg.checkNewName(name);
  host.reg.assertAttachable(sessionId);
  host.reg.assertCapacity();
  const meta = await host.sessions.metadata(sessionId);
  if (!meta) throw new WorkerError(`No Copilot session '${sessionId}' on this machine. Use list_machine_sessions to find one.`);
  if (await inUse(host, sessionId)) {
    throw new SessionInUseError(
      `Session ${sessionId} ("${(meta.summary ?? '').trim() || 'no summary'}") is in use by another process (an open Copilot CLI or editor), so I won't write into it. ` +
        'To continue its work in a copy instead, call attach_machine_session again with fork: true (or use Fork in the Copilot Sessions view).',
      sessionId,
    );
  }
  const dir = host.resolveDir(sessionDir(meta.workingDir, sessionId));
  // Checked again after the awaits: another call may have taken the name, the slot or the session.
  host.assertOpen();
  host.reg.recheck(workerName, sessionId);
  const w = host.reserve(workerName, dir, opts.replyTo ?? 'panel', 'attached');
  w.sessionId = sessionId;
  // A finished worker on the same session gives it up, so no two workers can resume one session.
  host.reg.finished = host.reg.finished.filter((f) => f.sessionId !== sessionId);
  await host.open(w, async () => {
    w.sandboxReadonly = await host.gitFolders(dir);
    // Checked again right before the resume: the other process may have opened it meanwhile.
    if (await inUse(host, sessionId))
      throw new SessionInUseError(`Session ${sessionId} was just opened by another process; I won't write into it. Fork it instead.`, sessionId);
    return host.sessions.resume(sessionId, host.spec(w));
  });
  host.logger.info(`Worker '${workerName}' attached to machine session ${sessionId} in ${dir}`);
  host.reg.fireNow();
  return host.reg.info(w);
}

function inUse(host: AttachHost, sessionId: string): Promise<boolean> {
  return host.sessions.inUse([sessionId]).then((ids) => ids.has(sessionId));
}

/** Copies a machine session and brings the copy in as an idle worker; the original is untouched. */
export async function forkMachineSession(host: AttachHost, sessionId: string, name: string, opts: { replyTo?: ReplyTo } = {}): Promise<WorkerInfo> {
  host.assertOpen();
  checkSessionId(sessionId);
  const workerName = host.reg.checkNewName(name);
  host.reg.assertCapacity();
  const meta = await host.sessions.metadata(sessionId);
  if (!meta) throw new WorkerError(`No Copilot session '${sessionId}' on this machine. Use list_machine_sessions to find one.`);
  const dir = host.resolveDir(sessionDir(meta.workingDir, sessionId));
  host.assertOpen();
  host.reg.recheck(workerName);
  const w = host.reserve(workerName, dir, opts.replyTo ?? 'panel', 'forked');
  let forked: string | undefined;
  await host
    .open(w, async () => {
      w.sandboxReadonly = await host.gitFolders(dir);
      try {
        forked = await host.sessions.fork(sessionId, `baton: ${workerName}`);
        recordFork(host.store, host.logger, forked, workerName);
      } catch (err) {
        if (err instanceof ForkError) throw new WorkerError(err.message);
        throw err;
      }
      w.sessionId = forked;
      return host.sessions.resume(forked, host.spec(w));
    })
    .catch(async (err: unknown) => {
      // The copy Baton made never became a worker (a reload as it opened, a resume that failed): it goes, or it stays
      // in the user's session list for good as "baton: <name>", nobody's.
      if (forked)
        await host.sessions.delete(forked).then(
          () => forgetFork(host.store, host.logger, forked!),
          (e: unknown) => host.logger.warn(`Could not delete the fork ${forked}: ${String(e)}`),
        );
      throw err;
    });
  host.logger.info(`Worker '${workerName}' works in a fork (${w.sessionId}) of machine session ${sessionId} in ${dir}`);
  host.reg.fireNow();
  return host.reg.info(w);
}

/** The machine's Copilot sessions as the pool offers them: listed (with the worker bound to each), attached, forked. */
export class MachineSessionDoor {
  constructor(private readonly host: AttachHost & { homeDir: () => string }) {}

  /** The Copilot sessions on this machine, newest first (see machineSessions.ts). */
  async list(args: ListMachineSessions = {}): Promise<MachineSession[]> {
    return (await this.page(args)).sessions;
  }

  /** As list, with how many sessions matched in all (more than listed when the limit cut the list). */
  page(args: ListMachineSessions = {}): Promise<MachineSessionPage> {
    this.host.assertOpen();
    const workers = sessionWorkers([...this.host.reg.finished, ...this.host.reg.active.values()]);
    return listMachineSessions(this.host.sessions, args, { homeDir: this.host.homeDir(), workers, logger: this.host.logger });
  }

  /** Brings a machine session in as an idle worker; one another process holds is refused, with a fork offered. */
  attach(sessionId: string, name: string, opts: { fork?: boolean; replyTo?: ReplyTo } = {}): Promise<WorkerInfo> {
    return opts.fork ? forkMachineSession(this.host, sessionId, name, opts) : attachMachineSession(this.host, sessionId, name, opts);
  }

  /** Copies a machine session and brings the copy in as an idle worker; the original is untouched. */
  fork(sessionId: string, name: string, opts: { replyTo?: ReplyTo } = {}): Promise<WorkerInfo> {
    return forkMachineSession(this.host, sessionId, name, opts);
  }
}
