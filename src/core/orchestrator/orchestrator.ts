// The brain of one conversation: one long-lived Copilot session that every message of the conversation flows through,
// one at a time. Each conversation has its own Orchestrator (src/core/conversations/conversations.ts builds them), all
// on the one runtime; two conversations answer at once.
// Invariants:
// - one turn at a time per conversation (a FIFO queue): concurrent sends to one SDK session corrupt it;
// - it reads and writes only its own conversation's log (conversationScope) and session state keys;
// - the user's side is logged before it is sent, the reply when it settles;
// - a prompt that may have reached the session is never sent again (see runWithRetries);
// - a partial reply is kept on stop and on timeout.
import type { WorkerResultCard } from '../../shared/protocol';
import { TurnCancelledError } from '../copilot/errors';
import { MAIN_CONVERSATION, type LogEntry } from '../store/types';
import { conversationScope } from '../store/conversationScope';
import { withTimeout } from '../util/delay';
import { Emitter } from '../util/emitter';
import type { Compaction, Origin, OrchestratorEvent, OrchestratorEventBody, TurnOptions } from './events';
import { CheckpointWriter } from './checkpoints';
import type { SummarizePolicy } from './conversationCompactor';
import { TurnLifecycle } from './turnLifecycle';
import { SharedConversation, type WindowMeta } from './sharedConversation';
import { SessionKeeper } from './sessionKeeper';
import { rewindConversation, RewindError } from './rewind';
import { routerStateKey, runTurn, type TurnParts } from './runTurn';
import { ModelRouter, parseRouterState } from './router';
import type { OrchestratorOptions } from './orchestratorOptions';
import { orchestratorSpec } from './orchestratorSpec';
import { BatonClosingError, TurnError, TurnWithdrawnError, type QueuedTurn, type TurnHandle } from './turn';
import { TurnQueue } from './turnQueue';
import { TurnOutcome } from './turnOutcome';
import { usageConversationId } from './usageConversation';
import { adoptedTurn, localTurn, newTurnId, promptOf, remoteTurn } from './queuedTurns';

export { TurnError, type TurnHandle } from './turn';
export type { OrchestratorOptions, OrchestratorSettings } from './orchestratorOptions';

const LOG_SCAN = 200;

export class Orchestrator {
  private readonly emitter = new Emitter<OrchestratorEvent>();
  readonly onEvent = this.emitter.event;

  private readonly keeper: SessionKeeper;
  private readonly queue = new TurnQueue(
    (turn) => this.processTurn(turn),
    (busy, queued) => this.fire({ type: 'busy', busy, queued }),
  );
  private current: { turnId: string; logId: number; abort: AbortController; origin: Origin } | undefined;
  private readonly router: ModelRouter;
  private readonly checkpoints: CheckpointWriter;
  private readonly outcome: TurnOutcome;
  private readonly lifecycle: TurnLifecycle;
  private readonly turnParts: TurnParts;
  private disposed = false;
  private readonly disposeReset: () => void;

  private readonly opts: OrchestratorOptions;
  readonly conversation: string;

  constructor(options: OrchestratorOptions) {
    this.conversation = options.conversation ?? MAIN_CONVERSATION;
    // Every part below sees only this conversation's log.
    const opts = { ...options, store: conversationScope(options.store, this.conversation) };
    this.opts = opts;
    this.router = new ModelRouter(parseRouterState(this.opts.store.getState(routerStateKey(this.conversation))));
    this.keeper = new SessionKeeper({
      sessions: opts.sessions,
      store: opts.store,
      logger: opts.logger,
      version: opts.version,
      tools: opts.tools,
      claims: opts.claims,
      conversation: this.conversation,
      spec: (model, tools) => orchestratorSpec(opts, model, tools),
      emit: (event) => this.fire(event),
    });
    this.checkpoints = new CheckpointWriter(
      opts.store,
      opts.logger,
      () => this.keeper.fingerprint,
      () => this.conversation,
    );
    this.outcome = new TurnOutcome({ ...opts, checkpoints: this.checkpoints, emit: (e) => this.fire(e) });
    this.lifecycle = new TurnLifecycle({
      store: opts.store,
      sessions: opts.sessions,
      logger: opts.logger,
      keeper: this.keeper,
      checkpoints: this.checkpoints,
      emit: (e) => this.fire(e),
      model: () => this.currentModel,
      settings: opts.settings,
      conversation: () => this.conversation,
      closing: () => this.disposed,
      onUsage: opts.onUsage,
    });
    this.turnParts = {
      opts,
      keeper: this.keeper,
      router: this.router,
      lifecycle: this.lifecycle,
      outcome: this.outcome,
      emit: (e) => this.fire(e),
      ended: () => (this.current = undefined),
      // Ahead of any queued turn, so the next one finds the move to a new session begun (and waits on its lock).
      afterComplete: (turnId) => void this.queue.first(() => this.lifecycle.boundHistory(turnId)),
    };
    // A reset client takes every session with it; the next turn creates or resumes a new one.
    this.disposeReset = opts.sessions.onDidReset(() => void this.keeper.drop());
  }

  private fire(event: OrchestratorEventBody): void {
    this.emitter.fire({ ...event, conversation: this.conversation } as OrchestratorEvent);
  }

  /** Marks turns a crash or reload interrupted. Does not start the runtime. */
  start(): LogEntry[] {
    const interrupted = SharedConversation.markGone(this.opts.store, LOG_SCAN);
    this.opts.shared?.start(
      (row, meta) => this.adopt(row, meta),
      (logId) => this.cancelledElsewhere(logId),
    );
    if (interrupted.length) this.opts.logger.warn(`${interrupted.length} turn(s) were interrupted by a reload or crash`);
    return interrupted;
  }

  /** Something runs in this conversation's queue: a turn, or work between turns (opening its session ahead, say). */
  get busy(): boolean {
    return this.queue.busy;
  }

  /**
   * A turn is running or waiting: what the panel and the status bar show as answering (Stop, "thinking"). Work between
   * turns is not: opening the session ahead of the first message asks the model nothing, and Stop could not stop it.
   */
  get answering(): boolean {
    return this.queue.hasTurns;
  }

  /** Nothing of this conversation uses the runtime: no turn running or queued, no task, no compaction (the idle restart). */
  get idle(): boolean {
    return !this.queue.busy && !this.lifecycle.isCompacting;
  }

  get queuedCount(): number {
    return this.queue.length;
  }

  /**
   * The messages waiting in this window's queue, by log row: the turn each is (withdraw takes it back). The running
   * turn first while it waits behind a summary: it has sent nothing yet (TurnLifecycle.heldTurn).
   */
  get waitingMessages(): Map<number, string> {
    const held = this.current && this.lifecycle.heldTurn === this.current.turnId ? [this.current] : [];
    return new Map([...held, ...this.queue.waiting].map((turn) => [turn.logId, turn.turnId]));
  }

  get currentModel(): string {
    const s = this.opts.settings().routing;
    return this.keeper.currentModel ?? (s.auto ? s.tiers[this.router.current.tier] : s.model);
  }

  /** The origin of the running turn: a tool it calls (a worker it starts) replies there. */
  get currentOrigin(): Origin | undefined {
    return this.current?.origin;
  }

  /** The running turn's abort signal: a question it raised goes when it stops. */
  get turnSignal(): AbortSignal | undefined {
    return this.current?.abort.signal;
  }

  get currentSessionId(): string | undefined {
    return this.keeper.current?.id;
  }

  /**
   * Queues a message, tagged with its channel (not background results); `extras.context` goes in the prompt only,
   * `extras.meta` in the log; `extras.workerResult` (a worker's result card, what people read) in the log and the queued
   * event; `extras.resend`: the session may already have it (see runWithRetries).
   */
  enqueue(
    text: string,
    origin: Origin,
    extras?: { context?: string; meta?: Record<string, unknown>; workerResult?: WorkerResultCard; resend?: boolean; options?: TurnOptions },
  ): TurnHandle {
    // After dispose the store is closed: refuse in words (a worker result then waits in the inbox for the next start).
    if (this.disposed) throw new TurnError({ kind: 'cancelled', message: 'Baton was closed before this message was sent.' }, '');
    const turnId = newTurnId();
    const prompt = promptOf(text, origin, extras?.context);
    // Another live window runs this conversation: the message goes to it through the store, never into a second session.
    const owner = this.opts.shared?.ownerElsewhere();
    const shared: WindowMeta = this.opts.shared
      ? { ...this.opts.shared.stamp(owner), ...(owner && extras?.context ? { context: extras.context } : {}), ...(extras?.resend ? { resend: true } : {}) }
      : {};
    const card = extras?.workerResult ? { workerResult: extras.workerResult } : {};
    const meta = { ...extras?.meta, ...card, ...shared };
    // Logged before anything is sent: a crash from here on leaves a 'pending' row that start() marks interrupted.
    const logId = this.opts.store.appendLog({
      role: origin.channel === 'background' ? 'system' : 'user',
      content: text,
      source: origin.channel === 'background' ? `background:${origin.worker ?? ''}` : origin.channel,
      status: 'pending',
      ...(Object.keys(meta).length ? { meta: JSON.stringify(meta) } : {}),
    });
    const queued = { type: 'turn.queued' as const, turnId, prompt: text, origin, logId, ...card };
    if (owner && this.opts.shared) {
      this.fire({ ...queued, elsewhere: true });
      this.opts.logger.info(`Message ${logId} sent to the window that runs this conversation (${owner.label}, pid ${owner.pid})`);
      return remoteTurn(this.opts.shared, turnId, logId);
    }
    const { turn, handle } = localTurn({ turnId, prompt, origin, logId, resend: extras?.resend, text, options: extras?.options });
    this.queue.push(turn, () => this.fire(queued));
    return handle;
  }

  /** Runs a message another window wrote to the store for this window (the conversation's owner) to run. */
  private adopt(row: LogEntry, meta: WindowMeta): void {
    if (this.disposed) return;
    const turnId = newTurnId();
    this.opts.logger.info(`Running message ${row.id} from the window ${meta.window?.label ?? '?'} (pid ${meta.window?.pid ?? '?'})`);
    this.queue.push(adoptedTurn(row, meta, turnId), () => this.fire({ type: 'turn.adopted', turnId, logId: row.id }));
  }

  /**
   * Takes a turn that has not started out of the queue: it never reaches the session or the classifier, and its
   * log row goes. False when it is not waiting (already running, or settled): then stop() is what ends it. A message
   * sent to the window that runs the conversation is cancelled there (SharedConversation.cancel).
   */
  withdraw(turnId: string): boolean {
    if (this.queue.take(turnId, (turn) => this.outcome.withdrawn(turn))) return true;
    // Started but held behind a summary, it has sent nothing: its wait ends and runTurn ends it as withdrawn.
    const held = this.current?.turnId === turnId && this.lifecycle.heldTurn === turnId ? this.current.abort : undefined;
    if (!held || held.signal.aborted) return this.cancelElsewhere(this.opts.shared?.sentAs(turnId));
    held.abort(new TurnWithdrawnError());
    return true;
  }

  /** Cancels message `logId`, queued (or running) in the window that runs this conversation (SharedConversation.cancel). */
  cancelElsewhere(logId: number | undefined): boolean {
    return logId !== undefined && (this.opts.shared?.cancel(logId) ?? false);
  }

  /** Another window cancelled message `logId` (its Remove, an API cancel): out of the queue here, or stopped if it runs. */
  private cancelledElsewhere(logId: number): void {
    const waiting = this.waitingMessages.get(logId);
    if (waiting) this.withdraw(waiting);
    else if (this.current?.logId === logId && !this.current.abort.signal.aborted) this.stop();
  }

  /**
   * Takes the conversation back to just before your message `logId`, so an edited one can be sent in its place: the
   * session forgets it and everything after it, and the log drops them (rewind.ts). Only while nothing is answering
   * (whenAnswered waits for that); rejects with a RewindError otherwise. What workers did meanwhile stays done.
   */
  rewindTo(logId: number): Promise<'truncated' | 'replaced'> {
    if (this.answering) return Promise.reject(new RewindError('busy', 'Stop the answer first: the conversation cannot be taken back while Baton answers.'));
    if (this.lifecycle.isCompacting) return Promise.reject(SUMMARIZING());
    const owner = this.opts.shared?.ownerElsewhere();
    if (owner) return Promise.reject(new RewindError('elsewhere', `This conversation runs in another window (${owner.label}); take it back there.`));
    const { store, logger } = this.opts;
    const through = store.recentLog(1)[0]?.id;
    const rewound = this.queue.task(async () => {
      // A summary started since the check above reads the log this would cut: its summary would bring the messages back.
      if (this.lifecycle.isCompacting) throw SUMMARIZING();
      const how = await rewindConversation({ store, keeper: this.keeper, logger, logScan: LOG_SCAN }, logId, this.currentModel, through);
      // Whoever shows the conversation (the panel, for one taken back from the Chat view or the API) shows it shorter.
      this.fire({ type: 'conversation.rewound', logId, how });
      return how;
    });
    this.rewinding = rewound.catch(() => undefined);
    return rewound;
  }

  /** The last rewind, settled: a summary made now waits for it (it reads the log a rewind cuts). */
  private rewinding: Promise<unknown> = Promise.resolve();

  /**
   * Resolves true once no turn runs or waits (told by the queue's busy changes), false after `ms` or when `signal`
   * aborts first. A stopped turn takes a moment to settle (the runtime's abort): a chat request retried right after
   * its Stop waits for that before taking the conversation back.
   */
  whenAnswered(ms: number, signal?: AbortSignal): Promise<boolean> {
    return this.queue.whenNoTurns(ms, signal);
  }

  /** The running turn's id, if one runs. */
  get currentTurnId(): string | undefined {
    return this.current?.turnId;
  }

  /** Aborts the running turn (only if it is `turnId`, when given): what streamed is kept, nothing else leaves the queue. */
  stop(turnId?: string): boolean {
    if (!this.current || (turnId !== undefined && this.current.turnId !== turnId)) return false;
    this.current.abort.abort(new TurnCancelledError());
    return true;
  }

  /**
   * Makes the session ready ahead of the first message (the panel was opened): created or resumed as a turn would,
   * between turns, with no model request. Nothing to do when a session is live or work is queued (that work will).
   */
  prewarm(): Promise<void> {
    if (this.keeper.current || this.disposed || this.queue.busy) return Promise.resolve();
    // Another live window runs this conversation: its session is not opened here too (messages go to that window).
    if (this.opts.shared?.ownerElsewhere()) return Promise.resolve();
    return this.queue.task(async () => {
      // The runtime's own first-message setup too (warmUp), so the first reply waits for neither.
      if (!this.keeper.current) await (await this.keeper.ensure(this.currentModel, { ahead: true })).warmUp(this.currentModel);
    });
  }

  /** The key usage is totalled under: when this conversation was first started. */
  get conversationId(): string {
    return usageConversationId(this.opts.store, this.conversation);
  }

  /** The summarize policy in force for this conversation, and setting its own (undefined: back to the setting's). */
  get summarizePolicy(): SummarizePolicy {
    return this.lifecycle.policy;
  }

  setSummarizePolicy(policy: SummarizePolicy | undefined): void {
    this.lifecycle.setPolicy(policy);
  }

  /**
   * Summarizes the conversation's older messages now, keeping the newest `keep` verbatim (the compact command).
   * Holds the conversation's lock at once: a turn starting meanwhile waits (lock.waiting), the running one goes on (it is
   * what the summary waits for: holding it too, neither would end). Undefined: nothing to fold.
   */
  summarizeNow(keep?: number): Promise<Compaction | undefined> {
    return this.lifecycle.compact(keep ?? this.lifecycle.policy.keep, { idle: Promise.all([this.queue.running, this.rewinding]), after: this.current?.turnId });
  }

  /** Asks the session to compact now (between turns), and reports what was freed. */
  compact(): Promise<{ tokensRemoved: number; messagesRemoved: number }> {
    return this.queue.task(async () => (await this.keeper.ensure(this.currentModel)).compact());
  }

  /**
   * Ends this conversation for good, between turns: its session is forgotten and deleted from the runtime's store,
   * its claim released; returns the id of the deleted session. The caller deletes the log and disposes.
   */
  forgetSession(): Promise<string | undefined> {
    // Nothing waiting in a conversation being deleted runs: its queued turns are withdrawn, the running one stopped.
    for (const turn of this.queue.waiting) this.withdraw(turn.turnId);
    this.stop();
    return this.queue.task(async () => {
      // A summary being made writes the conversation's mark and moves it to a new session when done: it ends first, or
      // it would write them for a conversation deleted (and bring its messages back under the same id).
      await this.lifecycle.whenCompacted();
      const id = this.keeper.current?.id ?? this.keeper.savedId;
      const old = this.keeper.forget();
      this.opts.claims?.release(id);
      await old?.disconnect().catch(() => undefined);
      if (id) await this.opts.sessions.delete(id);
      return id;
    });
  }

  /** Drops the session (not the log), e.g. after a model or provider change; the next turn resumes or recreates it. */
  invalidateSession(reason: string): void {
    this.opts.logger.info(`Session invalidated: ${reason}`);
    void this.keeper.invalidate(reason)?.disconnect();
  }

  /**
   * Runs `fn` before any turn still queued (and after the running one): a change that must be in place for the
   * next turn (a restarted runtime, a renewed session) holds the queue until it is done.
   */
  beforeNextTurn(fn: () => Promise<void> | void): Promise<void> {
    return this.queue.first(fn);
  }

  // runTurn's own promise, not one awaiting it: the queue goes idle in the same tick as before the split, right after
  // the turn's outcome was announced (an extra await let the panel's last state read busy after the reply ended).
  private processTurn(turn: QueuedTurn): Promise<void> {
    const abort = new AbortController();
    this.current = { turnId: turn.turnId, logId: turn.logId, abort, origin: turn.origin };
    return runTurn(this.turnParts, turn, abort);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    // The queue is emptied before the running turn is stopped, so nothing starts in between.
    for (const turn of this.queue.close()) this.outcome.closedUnsent(turn);
    this.current?.abort.abort(new BatonClosingError());
    // The running turn writes its outcome before the store closes.
    await withTimeout(this.queue.running ?? Promise.resolve(), 3000, 'turn did not settle').catch(() => undefined);
    this.disposeReset();
    const old = this.keeper.drop();
    await old?.disconnect();
    this.opts.claims?.release(old?.id);
    this.opts.shared?.dispose();
    this.emitter.dispose();
  }
}

const SUMMARIZING = (): RewindError =>
  new RewindError('busy', 'Wait for the summary being made first: the conversation cannot be taken back while its older messages are summarized.');
