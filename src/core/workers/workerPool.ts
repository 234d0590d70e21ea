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
// - a worker's session is disconnected when its task ends, and deleted once its changes are settled or it made
//   none (sessionLifecycle.ts); Baton never deletes a session it did not create;
// - a session held by another process is never written into: attach refuses and offers a fork,
//   and a fork only reads the source (see safeFork.ts for the runtime bug this avoids).
import type { WorkerState } from '../../shared/protocol';
import { createChangeLifecycle, type ChangeWatch } from '../changes/changeWatch';
import type { WorkerChanges } from '../changes/workerChanges';
import { tracksInPlace } from '../changes/inPlaceChanges';
import type { AgentEvent, AgentSession } from '../copilot/agentSessions';
import { withTimeout } from '../util/delay';
import { MachineSessionDoor } from './attachSession';
import { letGoEmptyWorktrees, listedFinished, restorePendingWorkers } from './pendingWorkers';
import { verifyAgain } from './verifyAgain';
import { runTask } from './taskRunner';
import { WorkerInbox } from './workerInbox';
import { loggedStoreWrite } from '../util/loggedStoreWrite';
import { errorText, type TaskOutcome } from './workerMessages';
import { billUnreported, followUsage, setWorkerExtras, type WorkerCreateExtras, type WorkerPoolHooks } from './workerExtras';
import { otherLiveOwner, ownerJson, workerElsewhere } from './workerOwner';
import { WorkerIsolation } from './workerIsolation';
import { MAX_STATUS_OUTPUT, WorkerRegistry } from './workerRegistry';
import { WorkerSetup } from './workerSetup';
import { endTask, type TaskEndDeps } from './taskEnd';
import { SessionLifecycle } from './sessionLifecycle';
import { assertIdle, assertNotSettling, sendTarget } from './workerTargets';
import { killWorker } from './workerKill';
import {
  WorkerError,
  type ReplyTo,
  type FollowUp,
  type IsolationRequest,
  type StopReason,
  type Task,
  type Worker,
  type WorkerInfo,
  type WorkerPoolOptions,
  type WorkerStatus,
  newWorker,
  workerRow,
} from './workerTypes';

export type { PermissionBroker } from './workerPermissions';
export * from './workerTypes';

export class WorkerPool {
  private readonly reg: WorkerRegistry;
  /** Fires with every worker (active, then finished) on each state change; output at most 4 times a second. */
  readonly onDidChange: WorkerRegistry['onDidChange'];
  private readonly inbox: WorkerInbox;
  private readonly isolation: WorkerIsolation | undefined;
  /**
   * What a worker started now would get: its network, with any setting the runtime would refuse (Doctor), and the
   * protected paths (a conversation's MCP tools are held to them too).
   */
  readonly setup: WorkerSetup;
  /** Pending changes of workers (worktrees, tracked folders): review, apply, discard. */
  readonly changes: WorkerChanges | undefined;
  private disposed = false;
  private restoring: Promise<void> = Promise.resolve();
  private readonly disposeReset: () => void;
  /** Touched files, overlaps and the settled state of each worker's change set, on its card. */
  private readonly watch: ChangeWatch | undefined;
  private readonly now: () => number;
  /** The machine's Copilot sessions: listed, attached as a worker, or forked into one (attachSession.ts). */
  readonly machine: MachineSessionDoor;
  /** When workers' sessions are deleted, and which are kept for pending changes. */
  readonly lifecycle: SessionLifecycle;

  constructor(private readonly opts: WorkerPoolOptions & WorkerPoolHooks) {
    this.now = opts.now ?? Date.now;
    const { settings, reservedSessionIds } = opts;
    const hasPendingChanges = (n: string): boolean => this.changes?.has(n) ?? false;
    this.reg = new WorkerRegistry({ settings, reservedSessionIds, now: this.now, elsewhere: (n) => this.elsewhere(n), hasPendingChanges });
    this.onDidChange = this.reg.onDidChange;
    this.inbox = new WorkerInbox(opts.store, opts.deliver, opts.logger, opts.owner);
    this.setup = new WorkerSetup(opts, () => this.isolation);
    if (opts.storageDir) {
      const life = createChangeLifecycle({
        store: opts.store,
        storageDir: opts.storageDir,
        logger: opts.logger,
        workspaceFolders: opts.workspaceFolders,
        sessions: opts.sessions,
        liveSession: (n) => this.reg.lookup(n)?.session,
        working: (n) => this.reg.active.get(n)?.task !== undefined || this.elsewhere(n)?.running === true,
        send: async (n, prompt, after) => void (await this.send(n, prompt, undefined, { activity: 'resolving conflicts', after })),
        workers: () => [...this.reg.active.values(), ...this.reg.finished],
        fire: () => this.reg.fireNow(),
        // Month's session lifecycle: a settled change (applied, kept as a branch, discarded) lets the session go.
        settled: (n) => void this.lifecycle.settled(n),
        verifySettings: opts.settings,
      });
      this.isolation = new WorkerIsolation(life.pending);
      this.changes = life.changes;
      this.watch = life.watch;
    }
    this.machine = new MachineSessionDoor({
      sessions: opts.sessions,
      reg: this.reg,
      logger: opts.logger,
      store: opts.store,
      homeDir: () => this.setup.protectedPaths().homeDir,
      assertOpen: () => this.assertOpen(),
      resolveDir: (dir) => this.setup.resolveDir(dir),
      reserve: (name, dir, replyTo, source) => this.reserve(name, dir, replyTo, source),
      open: (w, make) => this.open(w, make),
      gitFolders: async (dir) => (await this.isolation?.gitFolders(dir)) ?? [],
      spec: (w) => this.setup.spec(w),
    });
    this.lifecycle = new SessionLifecycle({
      sessions: opts.sessions,
      store: opts.store,
      logger: opts.logger,
      find: (n) => this.reg.lookup(n),
      isActive: (n) => this.reg.active.has(n),
      hasPendingChanges: (n) => this.changes?.has(n) ?? false,
      disconnect: (w) => this.disconnect(w),
    });
    // A reset client takes every session with it: running tasks fail now (not at their timeout),
    // idle workers resume their session on their next task.
    this.disposeReset = opts.sessions.onDidReset((reason) => this.reg.loseSessions(reason));
  }

  /** Creates a worker in `workingDir`; with a prompt, starts it in the background and returns at once. */
  async create(
    args: { name: string; workingDir: string; prompt?: string; replyTo?: ReplyTo; isolation?: IsolationRequest; signal?: AbortSignal } & WorkerCreateExtras,
  ): Promise<WorkerInfo & { note?: string }> {
    this.assertOpen();
    const name = this.reg.checkNewName(args.name, true);
    this.reg.assertCapacity();
    const dir = this.setup.resolveDir(args.workingDir);
    const w = this.reserve(name, dir, args.replyTo ?? 'panel', 'created');
    setWorkerExtras(w, args, this.opts);
    const note = await this.place(w, dir, args.isolation, args.signal);
    try {
      await this.open(w, () => this.opts.sessions.create(this.setup.spec(w)));
    } catch (err) {
      // Nothing was done in the new worktree: it goes, so the name can be used again.
      await this.isolation?.unplace(name).catch((e: unknown) => this.opts.logger.warn(`Worker '${name}': ${errorText(e)}`));
      throw err;
    }
    if (tracksInPlace(w.isolation) && w.sessionId) this.changes?.trackInPlace(name, w.sessionId, w.workingDir);
    this.opts.logger.info(`Worker '${name}' created in ${w.workingDir} (session ${w.sessionId})${note ? `: ${note}` : ''}`);
    if (args.prompt?.trim()) this.dispatch(w, args.prompt);
    else this.reg.fireNow();
    return { ...this.reg.info(w), ...(note ? { note } : {}) };
  }

  /** Sends a follow-up, non-blocking: to an idle worker, or a finished one (not killed) revived (see workerTargets.ts). */
  async send(name: string, prompt: string, replyTo?: ReplyTo, follow?: FollowUp): Promise<WorkerInfo> {
    this.assertOpen();
    await this.restoring.catch(() => undefined);
    const target = await sendTarget(name, prompt, replyTo, {
      reg: this.reg,
      changes: this.changes,
      now: this.now,
      setup: this.setup,
      closeIfGone: (w) => this.lifecycle.closeIfGone(w),
    });
    const { w, preface } = target;
    // No await until the dispatch: an Apply under way may be removing its folder (a conflict resolution sends from inside).
    assertNotSettling(target, this.changes, !!follow);
    // Again, with no await before the dispatch: two sends at once both passed sendTarget's check (the prompt went twice).
    assertIdle(w, this.now());
    this.dispatch(w, prompt, preface, follow);
    return this.reg.info(w);
  }

  /** Active workers first (oldest first), then the last finished ones (newest first). */
  list(): WorkerInfo[] {
    return this.reg.list();
  }

  /** Active workers only. */
  listActive(): WorkerInfo[] {
    return this.reg.listActive();
  }

  status(name: string): WorkerStatus {
    return this.reg.status(name);
  }

  /** Aborts a worker's task (if any), disconnects its session and frees its slot. */
  kill(name: string, by: 'user' | 'tool' = 'user'): Promise<string> {
    const { reg, watch, lifecycle, now } = this;
    return killWorker(name, by, { reg, watch, lifecycle, now, store: this.opts.store, logger: this.opts.logger, retire: (w) => this.retire(w, 'killed') });
  }

  /** The worker's own report of its last task (what a kept branch's commit message starts from). */
  summaryOf(name: string): string | undefined {
    const w = this.reg.active.get(name) ?? this.reg.finished.find((f) => f.name === name);
    return w?.transcript.taskOutput() || undefined;
  }

  /** The window other than this one that runs worker `name` (and whether its task runs now), or undefined. */
  private elsewhere(name: string): ReturnType<typeof workerElsewhere> {
    return this.reg.active.has(name) ? undefined : workerElsewhere(this.opts.store, name, this.opts.owner);
  }

  /** The worker's events as readable text. */
  transcript(name: string): string {
    return this.reg.transcript(name);
  }

  /** Re-sends results the orchestrator has not accepted yet (e.g. the window closed first). Returns how many went out. */
  async deliverPending(): Promise<number> {
    if (this.disposed) return 0;
    return this.inbox.deliverPending((row) => this.reg.active.has(row.name) || !!otherLiveOwner(row, this.opts.owner));
  }

  /** Lists again the workers whose changes wait from before this window started (pendingWorkers.ts); a send waits for it. */
  restorePending(): Promise<void> {
    if (!this.changes || !this.isolation || this.disposed) return this.restoring;
    const isolation = this.isolation;
    this.restoring = restorePendingWorkers(this.reg, this.changes, {
      keptSession: (n) => this.lifecycle.keptId(n),
      closeIfGone: (w) => this.lifecycle.closeIfGone(w),
      elsewhere: (n) => !!this.elsewhere(n),
      gitFolders: (dir) => isolation.gitFolders(dir),
      make: (n, dir) => newWorker({ name: n, dir, replyTo: 'panel', source: 'created', now: this.now }, (w) => this.setup.permissionHandler(n, dir, w)),
      verifyAgain: (w) => verifyAgain(w, { reg: this.reg, setup: this.setup, ensureSession: () => this.ensureSession(w), end: this.endDeps(w) }),
      store: this.opts.store,
      logger: this.opts.logger,
    }).then(() => this.watch?.refreshOverlaps());
    return this.restoring;
  }

  /** Stops every task unreported (rows of running workers stay: the next start says they were interrupted); disconnects all. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.disposeReset();
    this.watch?.dispose();
    const workers = [...this.reg.active.values()];
    const tasks = workers.map((w) => w.task);
    for (const task of tasks) task?.abort.abort({ kind: 'killed', by: 'shutdown' } satisfies StopReason);
    await Promise.all(
      workers.map(async (w, i) => {
        await withTimeout(tasks[i]?.done ?? Promise.resolve(), 5000, 'task did not stop').catch(() => undefined);
        await this.disconnect(w);
      }),
    );
    this.reg.dispose();
  }

  private reserve(name: string, dir: string, replyTo: ReplyTo, source: WorkerInfo['source']): Worker {
    const w = newWorker({ name, dir, replyTo, source, now: this.now }, (worker) => this.setup.permissionHandler(name, dir, worker));
    return this.reg.reserve(w);
  }

  /** Opens the worker's session; on failure the reservation is released and a WorkerError thrown. */
  private async open(w: Worker, make: () => Promise<AgentSession>): Promise<void> {
    let release!: () => void;
    w.ready = new Promise<void>((r) => (release = r));
    try {
      // Stopped while it was placed (a kill as its worktree was made): no session is made for it at all.
      const session = this.reg.active.get(w.name) === w ? await make() : undefined;
      if (!session || this.disposed || this.reg.active.get(w.name) !== w) {
        await session?.disconnect();
        throw new WorkerError(this.disposed ? 'Baton is shutting down.' : `Worker '${w.name}' was stopped while it started.`);
      }
      this.bind(w, session);
      this.reg.confirm(w);
      this.persist(w);
    } catch (err) {
      this.reg.release(w);
      if (err instanceof WorkerError) throw err;
      this.opts.logger.error(`Worker '${w.name}' could not start`, err);
      throw new WorkerError(`Could not start worker '${w.name}': ${errorText(err)}`);
    } finally {
      release();
    }
  }

  private bind(w: Worker, session: AgentSession): void {
    w.unsubscribe?.();
    w.session = session;
    w.sessionId = session.id;
    w.unsubscribe = session.onEvent((event) => this.onEvent(w, event));
  }

  private onEvent(w: Worker, event: AgentEvent): void {
    if (w.transcript.onEvent(event)) this.reg.fireSoon();
    followUsage(w, event, this.opts);
    // A tool may have changed files: the card's touched files (and any overlap) follow within a second.
    if (event.type === 'tool.execution_complete' && w.isolation?.kind === 'worktree') this.watch?.refreshSoon(w);
    // The last words are kept in the row, so a crash still leaves something to report.
    if (event.type === 'assistant.message' && event.data.content?.trim() && w.state === 'running') this.persist(w);
  }

  private dispatch(w: Worker, prompt: string, preface?: string, follow?: FollowUp): void {
    w.followUp = follow;
    w.conflicts = undefined;
    w.state = 'running';
    w.startedAt = this.now();
    w.finishedAt = undefined;
    w.outcome = undefined;
    w.tasks++;
    w.transcript.beginTask(prompt);
    const abort = new AbortController();
    const task: Task = { abort, done: Promise.resolve() };
    w.task = task;
    task.done = this.runTask(w, preface ? `${preface}\n\n${prompt}` : prompt, abort)
      .then((outcome) => endTask(w, outcome, this.endDeps(w)))
      .catch((err: unknown) => this.opts.logger.error(`Worker '${w.name}': completing its task failed`, err));
    this.persist(w);
    this.opts.logger.info(`Worker '${w.name}' started a task (${prompt.length} chars)`);
    this.reg.fireNow();
  }

  private runTask(w: Worker, prompt: string, abort: AbortController): Promise<TaskOutcome> {
    return runTask(w, prompt, abort, {
      ensureSession: () => this.ensureSession(w),
      timeoutMs: this.opts.settings().timeoutMs,
      now: this.now,
    });
  }

  /** What ends a task of `w` (taskEnd.ts): its result stored, the worker retired (session disconnected), the result handed over. */
  private endDeps(w: Worker): TaskEndDeps {
    return {
      disposed: () => this.disposed,
      changes: this.changes,
      watch: this.watch,
      inbox: this.inbox,
      store: this.opts.store,
      logger: this.opts.logger,
      now: this.now,
      retire: (state) => this.retire(w, state),
      lifecycle: this.lifecycle,
    };
  }

  private async retire(w: Worker, state: WorkerState): Promise<void> {
    w.state = state;
    w.finishedAt = this.now();
    w.task = undefined;
    if (state !== 'done') billUnreported(w, this.opts.model?.(), this.opts);
    if (this.reg.active.get(w.name) === w) this.reg.active.delete(w.name);
    const { kept, evicted } = listedFinished([w, ...this.reg.finished.filter((f) => f !== w && f.name !== w.name)], this.changes);
    this.reg.finished = kept;
    void letGoEmptyWorktrees(evicted, this.changes, this.reg, this.opts.logger).catch((err: unknown) =>
      this.opts.logger.warn(`Workers: could not let empty worktrees go (${errorText(err)})`),
    );
    this.reg.fireNow();
    await this.disconnect(w);
  }

  private async disconnect(w: Worker): Promise<void> {
    const session = w.session;
    if (session) w.sandbox = { ...session.sandbox };
    w.session = undefined;
    w.unsubscribe?.();
    w.unsubscribe = undefined;
    await session?.disconnect();
  }

  /** The worker's session: the live one, the saved one resumed, or a new one once its old one was deleted. */
  private async ensureSession(w: Worker): Promise<AgentSession> {
    // After a restart under way: a session held from before it is gone with it (loseSessions), and one opens on the new runtime.
    await Promise.all([w.ready, this.opts.sessions.whenRestarted()]);
    if (w.session) return w.session;
    const { session, fresh } = await this.lifecycle.reopen(w, this.setup.spec(w));
    this.bind(w, session);
    if (fresh && tracksInPlace(w.isolation)) this.changes?.trackInPlace(w.name, session.id, w.workingDir);
    if (fresh) this.persist(w);
    return session;
  }

  /** `signal`: the caller stops waiting (its turn stopped): a question about where the worker goes is withdrawn. */
  private async place(w: Worker, dir: string, mode: IsolationRequest | undefined, signal: AbortSignal | undefined): Promise<string | undefined> {
    try {
      // The empty worktree of the name's last worker, whose place it takes (checkNewName).
      if (this.changes?.has(w.name)) await this.changes.discard(w.name).then(() => (w.outcome = undefined));
      return await this.setup.place(w, dir, mode, signal);
    } catch (err) {
      this.reg.release(w);
      throw err;
    }
  }

  private persist(w: Worker): void {
    if (!this.disposed)
      loggedStoreWrite(this.opts.logger, () => this.opts.store.upsertWorker(workerRow(w, MAX_STATUS_OUTPUT, ownerJson(this.opts.owner))), 'save the worker');
  }

  private assertOpen(): void {
    if (this.disposed) throw new WorkerError('Baton is shutting down.');
  }
}
