// The hands: background Copilot sessions, each scoped to one directory, that do the real work
// (edit files, run commands) while the orchestrator stays free to talk.
// Invariants:
// - every worker is a session of the ONE runtime client the orchestrator uses (one process for all);
// - at most `max` workers hold a session at once; a name and a slot are reserved before any await,
//   so concurrent creates cannot overshoot;
// - a worker's directory is realpath'd and checked against the protected paths before it is used,
//   and its permission handler re-checks every path it is asked about;
// - a task's result is written to the store (inbox) BEFORE it is handed to the orchestrator, and
//   marked delivered only after the orchestrator accepted it: a closed window loses nothing;
// - a worker's session is disconnected when its task completes, fails, times out or is killed;
//   Baton never deletes a Copilot session (a finished worker's session can take a follow-up);
// - a session held by another process is never written into: attach refuses and offers a fork,
//   and a fork only reads the source (see safeFork.ts for the runtime bug this avoids).
import * as os from 'node:os';
import * as path from 'node:path';
import type {
  CopilotClient,
  CopilotSession,
  PermissionHandler,
  SessionConfig,
  SessionConfigBase,
  SessionEvent,
} from '@github/copilot-sdk' with { 'resolution-mode': 'require' };
import type { WorkerCard, WorkerState } from '../../shared/protocol';
import type { CopilotRuntime } from '../copilot/copilotRuntime';
import type { Origin } from '../orchestrator/events';
import type { BatonStore, InboxRow, WorkerRow } from '../store/types';
import { withTimeout } from '../util/delay';
import { Emitter } from '../util/emitter';
import type { Logger } from '../util/logger';
import { expandHome, isWithin, ProtectedPaths, realpathNearest, resolveWorkingDir } from './protectedPaths';
import { formatResult, seconds, type TaskOutcome } from './workerMessages';
import { createWorkerPermissionHandler, type PermissionBroker } from './workerPermissions';
import { ForkError, forkWithoutTouching } from './safeFork';
import { WorkerTranscript } from './workerTranscript';

export type { PermissionBroker } from './workerPermissions';

export interface WorkerSettings {
  /** baton.workers.max: workers holding a session at once (default 5). */
  max: number;
  /** baton.workers.timeoutMs: the longest one task may run (default 600000). */
  timeoutMs: number;
  /** User-configured protected paths, on top of the built-in ones. */
  protectedPaths: string[];
  /** Approve shell commands in a worker's own directory without asking (trusted projects). */
  trustWorkingDir: boolean;
}

/** Where the request that started a worker came from; its result is summarised back there. */
export type ReplyChannel = 'panel' | 'command';

export interface WorkerPoolOptions {
  runtime: CopilotRuntime;
  store: BatonStore;
  logger: Logger;
  broker: PermissionBroker;
  /**
   * Feeds a result to the orchestrator (Orchestrator.enqueue). The pool marks the inbox row
   * delivered once this resolves; when it throws, the row waits for deliverPending().
   */
  deliver: (text: string, origin: Origin, inboxId?: number) => Promise<void> | void;
  settings: () => WorkerSettings;
  /** Baton's installation and storage dirs: protected like credentials. */
  ownPaths: string[];
  /** Injectable for tests; defaults to os.homedir(). */
  homeDir?: string;
  /** Baton's own folder for the sessions it creates (the session config's configDirectory). */
  sessionDirectory?: string;
  /**
   * The runtime's Copilot home (where machine sessions live), for forking without touching the
   * source. Defaults to $COPILOT_HOME, else ~/.copilot. Pass what the CopilotRuntime was given.
   */
  copilotHome?: string;
  /** Extra session config (tests: disabledMcpServers). Cannot replace the permission handler. */
  extraSessionConfig?: Partial<SessionConfig>;
  /** The model for new and resumed worker sessions; undefined = the runtime's default (BYOK providers need one). */
  model?: () => string | undefined;
  /** Session ids that must never be attached (the orchestrator's own session). */
  reservedSessionIds?: () => Array<string | undefined>;
  now?: () => number;
}

/** A failure worth telling the model or the user as is (bad name, limit reached, protected path...). */
export class WorkerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkerError';
  }
}

/** A card plus what the views need beyond it. */
export interface WorkerInfo extends WorkerCard {
  sessionId?: string;
  createdAt: number;
  finishedAt?: number;
  /** created: Baton made the session; attached: a machine session brought in; forked: a copy Baton made of one. */
  source: 'created' | 'attached' | 'forked';
}

export interface WorkerStatus extends WorkerInfo {
  elapsedMs: number;
  /** The end of the current (or last) task's output, at most 2,000 characters. */
  lastOutput: string;
  tasks: number;
}

/** A Copilot session on this machine (CLI, editor, or Baton's own). */
export interface MachineSession {
  sessionId: string;
  workingDir?: string;
  summary: string;
  startedAt: number;
  modifiedAt: number;
  /** Held by another running process (undefined when that could not be checked). */
  inUse?: boolean;
  /** The Baton worker currently bound to it, if any. */
  worker?: string;
}

type StopReason = { kind: 'killed'; by: 'user' | 'tool' | 'shutdown' } | { kind: 'timeout' } | { kind: 'lost'; error: string } | { kind: 'settled' };

interface Task {
  abort: AbortController;
  done: Promise<void>;
}

interface Worker {
  name: string;
  workingDir: string;
  sessionId?: string;
  session?: CopilotSession;
  unsubscribe?: () => void;
  state: WorkerState;
  createdAt: number;
  /** When the current (or last) task started; creation time before the first task. */
  startedAt: number;
  finishedAt?: number;
  replyTo: ReplyChannel;
  source: WorkerInfo['source'];
  transcript: WorkerTranscript;
  permissions: PermissionHandler;
  task?: Task;
  /** Settles when the session exists (creation or attach in flight). */
  ready: Promise<void>;
  tasks: number;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,47}$/;
const KEEP_FINISHED = 20;
const MAX_STATUS_OUTPUT = 2000;
const OUTPUT_FIRES_PER_SECOND = 4;
const DEFAULT_TIMEOUT_MS = 600_000;

export class WorkerPool {
  private readonly active = new Map<string, Worker>();
  /** Newest first, at most KEEP_FINISHED. */
  private finished: Worker[] = [];
  private readonly emitter = new Emitter<WorkerInfo[]>();
  /** Fires with every worker (active, then finished) on each state change; output at most 4 times a second. */
  readonly onDidChange = this.emitter.event;
  private throttle: NodeJS.Timeout | undefined;
  private lastFire = 0;
  private readonly delivering = new Set<number>();
  private disposed = false;
  private cleaned = false;
  private readonly disposeReset: () => void;
  private readonly now: () => number;

  constructor(private readonly opts: WorkerPoolOptions) {
    this.now = opts.now ?? Date.now;
    // A reset client takes every session with it: running tasks fail now (not at their timeout),
    // idle workers resume their session on their next task.
    this.disposeReset = opts.runtime.onDidReset((reason) => {
      for (const w of this.active.values()) {
        w.unsubscribe?.();
        w.unsubscribe = undefined;
        w.session = undefined;
        w.task?.abort.abort({ kind: 'lost', error: `the Copilot runtime was restarted (${reason})` } satisfies StopReason);
      }
    });
  }

  // ---- the orchestrator's verbs -----------------------------------------------------------------

  /** Creates a worker in `workingDir`; with a prompt, starts it in the background and returns at once. */
  async create(args: { name: string; workingDir: string; prompt?: string; replyTo?: ReplyChannel }): Promise<WorkerInfo> {
    this.assertOpen();
    const name = this.checkNewName(args.name);
    this.assertCapacity();
    const dir = this.resolveDir(args.workingDir);
    const w = this.reserve(name, dir, args.replyTo ?? 'panel', 'created');
    await this.open(w, async (client) => client.createSession(this.sessionConfig(w) as SessionConfig));
    this.opts.logger.info(`Worker '${name}' created in ${dir} (session ${w.sessionId})`);
    if (args.prompt?.trim()) this.dispatch(w, args.prompt);
    else this.fireNow();
    return this.info(w);
  }

  /**
   * Sends a follow-up, non-blocking. A running worker refuses; a finished one (not killed) has its
   * session resumed, within the same limit as a new worker.
   */
  async send(name: string, prompt: string, replyTo?: ReplyChannel): Promise<WorkerInfo> {
    this.assertOpen();
    if (!prompt.trim()) throw new WorkerError('The prompt is empty.');
    const w = this.active.get(name);
    if (w) {
      await w.ready.catch(() => undefined);
      if (this.active.get(name) !== w) throw new WorkerError(`Worker '${name}' stopped before the task could be sent.`);
      if (w.task || w.state === 'running') {
        throw new WorkerError(`Worker '${name}' is still running (for ${seconds(this.now() - w.startedAt)}). Wait for it to finish, or stop it with kill_session first.`);
      }
      if (replyTo) w.replyTo = replyTo;
      this.dispatch(w, prompt);
      return this.info(w);
    }
    const done = this.finished.find((f) => f.name === name);
    if (!done) throw new WorkerError(`No worker named '${name}'. ${this.describeActive()}`);
    if (done.state === 'killed') throw new WorkerError(`Worker '${name}' was killed. Create a new worker to continue.`);
    if (!done.sessionId) throw new WorkerError(`Worker '${name}' has no session to continue. Create a new worker.`);
    this.assertCapacity();
    this.assertAttachable(done.sessionId);
    // The settings may have changed since: the directory is checked again.
    this.resolveDir(done.workingDir);
    this.finished = this.finished.filter((f) => f !== done);
    done.state = 'idle';
    done.finishedAt = undefined;
    if (replyTo) done.replyTo = replyTo;
    this.active.set(name, done);
    this.dispatch(done, prompt);
    return this.info(done);
  }

  /** Active workers first (oldest first), then the last finished ones (newest first). */
  list(): WorkerInfo[] {
    return [...[...this.active.values()].map((w) => this.info(w)), ...this.finished.map((w) => this.info(w))];
  }

  /** Active workers only. */
  listActive(): WorkerInfo[] {
    return [...this.active.values()].map((w) => this.info(w));
  }

  status(name: string): WorkerStatus {
    const w = this.find(name);
    const output = w.transcript.taskOutput() || w.transcript.lastLine;
    return {
      ...this.info(w),
      elapsedMs: (w.finishedAt ?? this.now()) - w.startedAt,
      lastOutput: output.length > MAX_STATUS_OUTPUT ? `…${output.slice(-(MAX_STATUS_OUTPUT - 1))}` : output,
      tasks: w.tasks,
    };
  }

  /** Aborts a worker's task (if any), disconnects its session and frees its slot. */
  async kill(name: string, by: 'user' | 'tool' = 'user'): Promise<string> {
    const w = this.active.get(name);
    if (!w) {
      const done = this.finished.find((f) => f.name === name);
      if (done) throw new WorkerError(`Worker '${name}' is not active: it already ${pastTense(done.state)}.`);
      throw new WorkerError(`No worker named '${name}'. ${this.describeActive()}`);
    }
    await w.ready.catch(() => undefined);
    if (this.active.get(name) !== w) return `Worker '${name}' had already stopped.`;
    const elapsed = seconds(this.now() - w.startedAt);
    if (w.task) {
      const task = w.task;
      task.abort.abort({ kind: 'killed', by } satisfies StopReason);
      await withTimeout(task.done, 10_000, 'kill timed out').catch((err: unknown) => this.opts.logger.warn(`Worker '${name}': ${String(err)}`));
      return `Killed worker '${name}' after ${elapsed} of work; its session was disconnected.`;
    }
    this.safely(() => this.opts.store.deleteWorker(name), 'remove the worker row');
    await this.retire(w, 'killed');
    this.opts.logger.info(`Worker '${name}' killed while idle (by ${by})`);
    return `Killed idle worker '${name}'; its session was disconnected.`;
  }

  /** The worker's events as readable text. */
  transcript(name: string): string {
    const w = this.find(name);
    const header = [
      `Worker '${w.name}' — ${w.workingDir}`,
      `State: ${w.state}${w.sessionId ? ` · session ${w.sessionId}` : ''} · ${w.source}`,
      `Created ${new Date(w.createdAt).toISOString()}${w.finishedAt ? ` · finished ${new Date(w.finishedAt).toISOString()}` : ''}`,
    ].join('\n');
    return w.transcript.render(header);
  }

  // ---- machine sessions -------------------------------------------------------------------------

  /**
   * The Copilot sessions in the runtime's Copilot home, newest first. `cwdFilter` matches the
   * session's directory as a path prefix (`~/dev` matches `~/dev/app`).
   */
  async listMachineSessions(args: { cwdFilter?: string; limit?: number } = {}): Promise<MachineSession[]> {
    this.assertOpen();
    const limit = Math.min(100, Math.max(1, Math.floor(args.limit ?? 20)));
    const client = await this.opts.runtime.client();
    const all = await client.listSessions();
    let prefixes: string[] | undefined;
    if (args.cwdFilter?.trim()) {
      const spelled = path.resolve(expandHome(args.cwdFilter.trim(), this.protectedPaths().homeDir));
      prefixes = [...new Set([spelled, realpathNearest(spelled)])];
    }
    const rows = all
      .filter((s) => !s.isRemote)
      .map((s) => ({
        sessionId: s.sessionId,
        workingDir: s.context?.workingDirectory,
        summary: (s.summary ?? '').trim() || '(no summary)',
        startedAt: toMs(s.startTime),
        modifiedAt: toMs(s.modifiedTime),
      }))
      .filter((s) => !prefixes || (s.workingDir !== undefined && prefixes.some((p) => isWithin(path.resolve(s.workingDir!), p))))
      .sort((a, b) => b.modifiedAt - a.modifiedAt)
      .slice(0, limit);
    let inUse: Set<string> | undefined;
    if (rows.length) {
      try {
        inUse = new Set((await client.rpc.sessions.checkInUse({ sessionIds: rows.map((r) => r.sessionId) })).inUse);
      } catch (err) {
        this.opts.logger.warn(`Could not check which sessions are in use: ${errorText(err)}`);
      }
    }
    const bySession = new Map<string, string>();
    for (const w of [...this.finished, ...this.active.values()]) if (w.sessionId) bySession.set(w.sessionId, w.name);
    return rows.map((r) => ({ ...r, inUse: inUse?.has(r.sessionId), worker: bySession.get(r.sessionId) }));
  }

  /**
   * Brings an existing machine session in as an idle worker (send it a task with send). A session
   * another process holds is never written into: this refuses and offers a fork instead.
   */
  async attach(sessionId: string, name: string, opts: { fork?: boolean; replyTo?: ReplyChannel } = {}): Promise<WorkerInfo> {
    if (opts.fork) return this.fork(sessionId, name, opts);
    this.assertOpen();
    checkSessionId(sessionId);
    const workerName = this.checkNewName(name);
    this.assertAttachable(sessionId);
    this.assertCapacity();
    const client = await this.opts.runtime.client();
    const meta = await client.getSessionMetadata(sessionId);
    if (!meta) throw new WorkerError(`No Copilot session '${sessionId}' on this machine. Use list_machine_sessions to find one.`);
    if (await this.inUse(client, sessionId)) {
      throw new WorkerError(
        `Session ${sessionId} ("${(meta.summary ?? '').trim() || 'no summary'}") is in use by another process (an open Copilot CLI or editor), so I won't write into it. ` +
          'To continue its work in a copy instead, call attach_machine_session again with fork: true (or use Fork in the Machine Sessions view).',
      );
    }
    const dir = this.resolveDir(this.sessionDir(meta.context?.workingDirectory, sessionId));
    // Checked again after the awaits: another call may have taken the name, the slot or the session.
    this.recheck(workerName, sessionId);
    const w = this.reserve(workerName, dir, opts.replyTo ?? 'panel', 'attached');
    w.sessionId = sessionId;
    // A finished worker on the same session gives it up, so no two workers can resume one session.
    this.finished = this.finished.filter((f) => f.sessionId !== sessionId);
    await this.open(w, async (c) => {
      // Checked again right before the resume: the other process may have opened it meanwhile.
      if (await this.inUse(c, sessionId)) throw new WorkerError(`Session ${sessionId} was just opened by another process; I won't write into it. Fork it instead.`);
      return c.resumeSession(sessionId, this.sessionConfig(w));
    });
    this.opts.logger.info(`Worker '${workerName}' attached to machine session ${sessionId} in ${dir}`);
    this.fireNow();
    return this.info(w);
  }

  /** Copies a machine session (rpc.sessions.fork) and brings the copy in as an idle worker; the original is untouched. */
  async fork(sessionId: string, name: string, opts: { replyTo?: ReplyChannel } = {}): Promise<WorkerInfo> {
    this.assertOpen();
    checkSessionId(sessionId);
    const workerName = this.checkNewName(name);
    this.assertCapacity();
    const client = await this.opts.runtime.client();
    const meta = await client.getSessionMetadata(sessionId);
    if (!meta) throw new WorkerError(`No Copilot session '${sessionId}' on this machine. Use list_machine_sessions to find one.`);
    const dir = this.resolveDir(this.sessionDir(meta.context?.workingDirectory, sessionId));
    this.recheck(workerName);
    const w = this.reserve(workerName, dir, opts.replyTo ?? 'panel', 'forked');
    await this.open(w, async (c) => {
      try {
        w.sessionId = await forkWithoutTouching(c, this.copilotHome(), sessionId, `baton: ${workerName}`);
      } catch (err) {
        if (err instanceof ForkError) throw new WorkerError(err.message);
        throw err;
      }
      return c.resumeSession(w.sessionId, this.sessionConfig(w));
    });
    this.opts.logger.info(`Worker '${workerName}' works in a fork (${w.sessionId}) of machine session ${sessionId} in ${dir}`);
    this.fireNow();
    return this.info(w);
  }

  // ---- start-up and shutdown --------------------------------------------------------------------

  /**
   * Removes worker rows a previous window left (their sessions went with it) and returns them.
   * A task that was running then did not finish: the orchestrator is told so through the inbox.
   * Call once at start to report them; deliverPending() calls it first if nobody did.
   */
  cleanStale(): WorkerRow[] {
    this.cleaned = true;
    const stale = this.opts.store.listWorkers().filter((r) => !this.active.has(r.name));
    for (const r of stale) {
      this.safely(() => this.opts.store.deleteWorker(r.name), 'remove a stale worker row');
      if (r.status !== 'running') continue;
      const content = formatResult(r.name, {
        kind: 'failed',
        error: `its task was interrupted when VS Code closed or reloaded (directory ${r.working_dir}, session ${r.copilot_session_id ?? 'unknown'}). It did not finish; start it again if it is still needed.`,
        output: r.last_output ?? '',
      });
      this.safely(() => this.opts.store.addInbox({ worker_name: r.name, origin: r.origin, kind: 'failed', content }), 'record an interrupted worker');
    }
    if (stale.length) this.opts.logger.warn(`Cleaned ${stale.length} worker(s) left by a previous window: ${stale.map((r) => `'${r.name}' (${r.status})`).join(', ')}`);
    return stale;
  }

  /** Re-sends results the orchestrator has not accepted yet (e.g. the window closed first). Returns how many went out. */
  async deliverPending(): Promise<number> {
    if (this.disposed) return 0;
    if (!this.cleaned) this.cleanStale();
    // Each deliver call enqueues synchronously, so starting them in a loop keeps the rows' order.
    const sends = this.opts.store
      .undeliveredInbox()
      .filter((row) => !this.delivering.has(row.id))
      .map((row) => this.deliverOne(row.id, row.content, originOf(row.worker_name, row.origin)));
    return (await Promise.all(sends)).filter(Boolean).length;
  }

  /**
   * Stops every task without reporting it (rows of running workers stay, so the next start tells
   * the orchestrator they were interrupted) and disconnects every session.
   */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.disposeReset();
    if (this.throttle) clearTimeout(this.throttle);
    const workers = [...this.active.values()];
    const tasks = workers.map((w) => w.task);
    for (const task of tasks) task?.abort.abort({ kind: 'killed', by: 'shutdown' } satisfies StopReason);
    await Promise.all(
      workers.map(async (w, i) => {
        await withTimeout(tasks[i]?.done ?? Promise.resolve(), 5000, 'task did not stop').catch(() => undefined);
        await this.disconnect(w);
      }),
    );
    this.emitter.dispose();
  }

  // ---- internals --------------------------------------------------------------------------------

  private reserve(name: string, dir: string, replyTo: ReplyChannel, source: WorkerInfo['source']): Worker {
    const now = this.now();
    let w!: Worker;
    const transcript = new WorkerTranscript(this.now);
    w = {
      name,
      workingDir: dir,
      state: 'idle',
      createdAt: now,
      startedAt: now,
      replyTo,
      source,
      transcript,
      ready: Promise.resolve(),
      tasks: 0,
      permissions: createWorkerPermissionHandler({
        worker: name,
        workingDir: dir,
        protectedPaths: () => this.protectedPaths(),
        trustWorkingDir: () => this.opts.settings().trustWorkingDir === true,
        broker: this.opts.broker,
        logger: this.opts.logger,
        signal: () => w.task?.abort.signal,
        onDecision: (line) => transcript.add('permission', line),
      }),
    };
    // Reserved before any await: the name and the slot are taken even while the session is created.
    this.active.set(name, w);
    this.finished = this.finished.filter((f) => f.name !== name);
    return w;
  }

  /** Opens the worker's session; on failure the reservation is released and a WorkerError thrown. */
  private async open(w: Worker, make: (client: CopilotClient) => Promise<CopilotSession>): Promise<void> {
    let release!: () => void;
    w.ready = new Promise<void>((r) => (release = r));
    try {
      const client = await this.opts.runtime.client();
      const session = await make(client);
      if (this.disposed || this.active.get(w.name) !== w) {
        await session.disconnect().catch(() => undefined);
        throw new WorkerError(this.disposed ? 'Baton is shutting down.' : `Worker '${w.name}' was stopped while it started.`);
      }
      this.bind(w, session);
      this.persist(w);
    } catch (err) {
      if (this.active.get(w.name) === w) this.active.delete(w.name);
      this.fireNow();
      if (err instanceof WorkerError) throw err;
      this.opts.logger.error(`Worker '${w.name}' could not start`, err);
      throw new WorkerError(`Could not start worker '${w.name}': ${errorText(err)}`);
    } finally {
      release();
    }
  }

  private bind(w: Worker, session: CopilotSession): void {
    w.unsubscribe?.();
    w.session = session;
    w.sessionId = session.sessionId;
    w.unsubscribe = session.on((event) => this.onEvent(w, event));
  }

  private onEvent(w: Worker, event: SessionEvent): void {
    if (w.transcript.onEvent(event)) this.fireSoon();
    // The last words are kept in the row, so a crash still leaves something to report.
    if (event.type === 'assistant.message' && event.data.content?.trim() && w.state === 'running') this.persist(w);
  }

  private dispatch(w: Worker, prompt: string): void {
    w.state = 'running';
    w.startedAt = this.now();
    w.finishedAt = undefined;
    w.tasks++;
    w.transcript.beginTask(prompt);
    const abort = new AbortController();
    const task: Task = { abort, done: Promise.resolve() };
    w.task = task;
    task.done = this.runTask(w, prompt, abort)
      .then((outcome) => this.complete(w, outcome))
      .catch((err: unknown) => this.opts.logger.error(`Worker '${w.name}': completing its task failed`, err));
    this.persist(w);
    this.opts.logger.info(`Worker '${w.name}' started a task (${prompt.length} chars)`);
    this.fireNow();
  }

  /** Sends one prompt and waits for the session to settle: idle, error, timeout, kill or a lost runtime. */
  private async runTask(w: Worker, prompt: string, abort: AbortController): Promise<TaskOutcome> {
    const output = () => w.transcript.taskOutput();
    let session: CopilotSession;
    try {
      session = await this.ensureSession(w);
    } catch (err) {
      return { kind: 'failed', output: '', error: err instanceof WorkerError ? err.message : `its session could not be opened (${errorText(err)})` };
    }
    if (abort.signal.aborted) return this.stopped(w, abort.signal.reason as StopReason, output());
    const configured = Number(this.opts.settings().timeoutMs);
    const limitMs = Number.isFinite(configured) && configured > 0 ? configured : DEFAULT_TIMEOUT_MS;
    return new Promise<TaskOutcome>((resolve) => {
      let settled = false;
      const settle = (outcome: TaskOutcome | Promise<TaskOutcome>): void => {
        if (settled) return;
        settled = true;
        off();
        clearTimeout(timer);
        clearInterval(watchdog);
        abort.signal.removeEventListener('abort', onAbort);
        // Withdraws any permission prompt still open for this task.
        if (!abort.signal.aborted) abort.abort({ kind: 'settled' } satisfies StopReason);
        resolve(outcome);
      };
      const off = session.on((event) => {
        // Registered after the transcript's listener, so the final message is already collected.
        if (event.type === 'session.idle') settle({ kind: 'completed', output: output() });
        else if (event.type === 'session.error') settle({ kind: 'failed', output: output(), error: event.data.message.split('\n')[0] ?? 'session error' });
      });
      const onAbort = (): void => {
        const reason = abort.signal.reason as StopReason;
        settle(
          withTimeout(session.abort(), 3000, 'abort timed out')
            .catch(() => undefined)
            .then(() => this.stopped(w, reason, output(), limitMs)),
        );
      };
      abort.signal.addEventListener('abort', onAbort, { once: true });
      const timer = setTimeout(() => abort.abort({ kind: 'timeout' } satisfies StopReason), limitMs);
      // A dead runtime emits nothing: notice the closed connection instead of waiting for the timeout.
      const watchdog = setInterval(() => {
        if (!this.opts.runtime.isConnected()) abort.abort({ kind: 'lost', error: 'the Copilot runtime stopped' } satisfies StopReason);
      }, 500);
      session.send({ prompt }).catch((err: unknown) => settle({ kind: 'failed', output: output(), error: errorText(err) }));
    });
  }

  private stopped(w: Worker, reason: StopReason, output: string, limitMs = 0): TaskOutcome {
    switch (reason.kind) {
      case 'timeout':
        return { kind: 'timed_out', output, elapsedMs: this.now() - w.startedAt, limitMs };
      case 'lost':
        return { kind: 'failed', output, error: reason.error };
      case 'killed':
        return { kind: 'killed', output, by: reason.by };
      default:
        return { kind: 'failed', output, error: 'stopped' };
    }
  }

  /** Stores the result, retires the worker (session disconnected), then hands the result to the orchestrator. */
  private async complete(w: Worker, outcome: TaskOutcome): Promise<void> {
    const state: WorkerState =
      outcome.kind === 'completed' ? 'done' : outcome.kind === 'failed' ? 'failed' : outcome.kind === 'timed_out' ? 'timed_out' : 'killed';
    const shuttingDown = this.disposed || (outcome.kind === 'killed' && outcome.by === 'shutdown');
    // The orchestrator asked for the kill itself: it knows; a user's kill it must hear about.
    const report = !shuttingDown && !(outcome.kind === 'killed' && outcome.by === 'tool');
    const text = formatResult(w.name, outcome);
    let inboxId: number | undefined;
    if (report) {
      const kind: InboxRow['kind'] = outcome.kind;
      inboxId = this.safely(() => this.opts.store.addInbox({ worker_name: w.name, origin: w.replyTo, kind, content: text }), 'store the result');
    }
    // On shutdown the row stays 'running', so the next start reports the task as interrupted.
    if (!shuttingDown) this.safely(() => this.opts.store.deleteWorker(w.name), 'remove the worker row');
    const log = `Worker '${w.name}' ${pastTense(state)} after ${seconds(this.now() - w.startedAt)}`;
    if (state === 'done') this.opts.logger.info(log);
    else this.opts.logger.warn(outcome.kind === 'failed' ? `${log}: ${outcome.error}` : log);
    await this.retire(w, state);
    // Not awaited: deliver may wait for the orchestrator's whole turn, and a kill must not.
    if (report) void this.deliverOne(inboxId, text, originOf(w.name, w.replyTo));
  }

  private async retire(w: Worker, state: WorkerState): Promise<void> {
    w.state = state;
    w.finishedAt = this.now();
    w.task = undefined;
    if (this.active.get(w.name) === w) this.active.delete(w.name);
    this.finished = [w, ...this.finished.filter((f) => f !== w && f.name !== w.name)].slice(0, KEEP_FINISHED);
    this.fireNow();
    await this.disconnect(w);
  }

  private async disconnect(w: Worker): Promise<void> {
    const session = w.session;
    w.session = undefined;
    w.unsubscribe?.();
    w.unsubscribe = undefined;
    if (session) await withTimeout(session.disconnect(), 5000, 'disconnect timed out').catch((err: unknown) => this.opts.logger.warn(`Worker '${w.name}': ${errorText(err)}`));
  }

  private async deliverOne(inboxId: number | undefined, text: string, origin: Origin): Promise<boolean> {
    if (inboxId !== undefined) this.delivering.add(inboxId);
    try {
      await this.opts.deliver(text, origin, inboxId);
      if (inboxId !== undefined) this.safely(() => this.opts.store.markInboxDelivered(inboxId), 'mark a result delivered');
      return true;
    } catch (err) {
      this.opts.logger.error(`The result of worker '${origin.worker}' could not be delivered now; it will be at the next start`, err);
      return false;
    } finally {
      if (inboxId !== undefined) this.delivering.delete(inboxId);
    }
  }

  /** The worker's session, resumed when it has none (after a finished task or a runtime reset). */
  private async ensureSession(w: Worker): Promise<CopilotSession> {
    await w.ready;
    if (w.session) return w.session;
    if (!w.sessionId) throw new WorkerError(`Worker '${w.name}' has no session.`);
    const client = await this.opts.runtime.client();
    if (await this.inUse(client, w.sessionId)) {
      throw new WorkerError(`its session ${w.sessionId} is now in use by another process, so it was not written into`);
    }
    const session = await client.resumeSession(w.sessionId, this.sessionConfig(w));
    this.bind(w, session);
    return session;
  }

  private sessionConfig(w: Worker): SessionConfigBase {
    const provider = this.opts.runtime.sessionProvider();
    const model = this.opts.model?.();
    // Only sessions Baton creates live in its own folder; attached and forked ones stay in the user's Copilot home.
    const own = w.source === 'created' && this.opts.sessionDirectory ? { configDirectory: this.opts.sessionDirectory } : {};
    return {
      clientName: 'baton-worker',
      streaming: true,
      systemMessage: { mode: 'append', content: workerInstructions(w.name, w.workingDir) },
      ...own,
      ...(model ? { model } : {}),
      ...(provider ? { provider } : {}),
      ...this.opts.extraSessionConfig,
      // Last, so nothing above can widen a worker's reach.
      workingDirectory: w.workingDir,
      onPermissionRequest: w.permissions,
    };
  }

  private persist(w: Worker): void {
    if (this.disposed) return;
    const output = w.transcript.taskOutput();
    this.safely(
      () =>
        this.opts.store.upsertWorker({
          name: w.name,
          copilot_session_id: w.sessionId ?? null,
          working_dir: w.workingDir,
          status: w.state === 'running' ? 'running' : w.state === 'idle' ? 'idle' : 'error',
          last_output: output ? output.slice(-MAX_STATUS_OUTPUT) : null,
          origin: w.replyTo,
        }),
      'save the worker',
    );
  }

  private async inUse(client: CopilotClient, sessionId: string): Promise<boolean> {
    const result = await client.rpc.sessions.checkInUse({ sessionIds: [sessionId] });
    return result.inUse.includes(sessionId);
  }

  private copilotHome(): string {
    return this.opts.copilotHome ?? (process.env.COPILOT_HOME || path.join(os.homedir(), '.copilot'));
  }

  private protectedPaths(): ProtectedPaths {
    return new ProtectedPaths({ homeDir: this.opts.homeDir, extra: this.opts.settings().protectedPaths ?? [], ownPaths: this.opts.ownPaths });
  }

  private resolveDir(input: string): string {
    const result = resolveWorkingDir(input, this.protectedPaths());
    if (!result.ok) throw new WorkerError(result.error);
    return result.dir;
  }

  private sessionDir(dir: string | undefined, sessionId: string): string {
    if (!dir) throw new WorkerError(`Session ${sessionId} records no working directory, so it cannot be scoped; pick another.`);
    return dir;
  }

  private checkNewName(raw: string): string {
    const name = (raw ?? '').trim();
    if (!NAME.test(name)) {
      throw new WorkerError(`Invalid worker name '${raw}': use 1-48 letters, digits, '.', '_' or '-', starting with a letter or digit (e.g. "auth-fix").`);
    }
    const existing = this.active.get(name);
    if (existing) {
      throw new WorkerError(`A worker named '${name}' already exists (${existing.state} in ${existing.workingDir}). Use send_to_worker to give it more work, or pick another name.`);
    }
    return name;
  }

  private recheck(name: string, sessionId?: string): void {
    this.assertOpen();
    this.checkNewName(name);
    if (sessionId) this.assertAttachable(sessionId);
    this.assertCapacity();
  }

  private assertAttachable(sessionId: string): void {
    const reserved = (this.opts.reservedSessionIds?.() ?? []).filter(Boolean);
    if (reserved.includes(sessionId)) throw new WorkerError(`Session ${sessionId} is Baton's own orchestrator session; it cannot become a worker.`);
    for (const w of this.active.values()) {
      if (w.sessionId === sessionId) throw new WorkerError(`Session ${sessionId} is already worker '${w.name}'. Use send_to_worker.`);
    }
  }

  private assertCapacity(): void {
    const max = Math.max(1, Math.floor(Number(this.opts.settings().max) || 5));
    if (this.active.size >= max) {
      throw new WorkerError(
        `Too many workers: ${this.active.size} of ${max} are active (baton.workers.max). ${this.describeActive()} ` +
          'Wait for one to finish or stop one with kill_session, then try again.',
      );
    }
  }

  private describeActive(): string {
    if (!this.active.size) return 'No workers are active.';
    const parts = [...this.active.values()].map((w) => `'${w.name}' (${w.state}, ${w.workingDir}, ${seconds(this.now() - w.startedAt)})`);
    return `Active workers: ${parts.join('; ')}.`;
  }

  private find(name: string): Worker {
    const w = this.active.get(name) ?? this.finished.find((f) => f.name === name);
    if (!w) throw new WorkerError(`No worker named '${name}'. ${this.describeActive()}`);
    return w;
  }

  private info(w: Worker): WorkerInfo {
    return {
      name: w.name,
      workingDir: w.workingDir,
      state: w.state,
      startedAt: w.startedAt,
      lastLine: w.transcript.lastLine,
      sessionId: w.sessionId,
      createdAt: w.createdAt,
      finishedAt: w.finishedAt,
      source: w.source,
    };
  }

  private assertOpen(): void {
    if (this.disposed) throw new WorkerError('Baton is shutting down.');
  }

  private fireSoon(): void {
    if (this.throttle || this.disposed) return;
    const wait = Math.max(0, this.lastFire + 1000 / OUTPUT_FIRES_PER_SECOND - Date.now());
    this.throttle = setTimeout(() => this.fireNow(), wait);
  }

  private fireNow(): void {
    if (this.throttle) clearTimeout(this.throttle);
    this.throttle = undefined;
    if (this.disposed) return;
    this.lastFire = Date.now();
    this.emitter.fire(this.list());
  }

  /** Store failures must not break a worker's lifecycle; they are logged. */
  private safely<T>(fn: () => T, what: string): T | undefined {
    try {
      return fn();
    } catch (err) {
      this.opts.logger.error(`Workers: could not ${what}`, err);
      return undefined;
    }
  }
}

function workerInstructions(name: string, dir: string): string {
  return [
    `You are '${name}', a background worker of Baton (an assistant in VS Code). You work in ${dir}; stay inside it.`,
    'Nobody reads your messages while you work: do the whole task without asking questions, then end with a short report —',
    'what you did, files changed, commands run, and anything left undone or failing. Your final message is passed back as is.',
    'Some actions need the user\u2019s approval; if one is denied, do not retry it: work around it or say what you needed.',
  ].join('\n');
}

function checkSessionId(id: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(id ?? '')) throw new WorkerError(`'${id}' is not a session id. Use list_machine_sessions to find one.`);
}

function originOf(worker: string, replyTo: string): Origin {
  return { channel: 'background', worker, replyTo: replyTo === 'command' ? 'command' : 'panel' };
}

function pastTense(state: WorkerState): string {
  switch (state) {
    case 'done':
      return 'finished';
    case 'failed':
      return 'failed';
    case 'timed_out':
      return 'timed out';
    case 'killed':
      return 'was killed';
    default:
      return state;
  }
}

function toMs(value: unknown): number {
  const ms = value instanceof Date ? value.getTime() : new Date(value as string).getTime();
  return Number.isFinite(ms) ? ms : 0;
}

function errorText(err: unknown): string {
  const raw = err instanceof Error ? err.message : String(err);
  return raw.split('\n')[0]!.slice(0, 300);
}
