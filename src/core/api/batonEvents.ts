// Baton's public lifecycle events (api/baton.d.ts), derived from the orchestrator's events and the
// worker pool's changes. The Chat view, the language-model tools and other extensions all listen
// here, so they see the same turns and workers the panel does.
// Invariants:
// - one source listener each (orchestrator, pool), so every event has one order for everybody;
//   an event reaches instance handlers, then its conversation's handlers, then its call's handler;
// - a per-call handler gets each of its events exactly once, and exactly one terminal event;
// - a handler that throws is logged and never breaks the turn or the others.
import type { BatonEventV2, BatonReplyChannel } from '../../../api/baton';
import type { WorkerCard } from '../../shared/protocol';
import { reportText } from '../workers/workerMessages';
import { MAIN_CONVERSATION } from '../orchestrator/conversationClaims';
import type { OrchestratorEvent, Origin } from '../orchestrator/events';
import { DriftError } from '../orchestrator/driftError';
import type { Orchestrator } from '../orchestrator/orchestrator';

/** What the events need of the orchestrators: every conversation's events, and a way to queue, stop and withdraw turns. */
export type TurnPort = Pick<Orchestrator, 'onEvent' | 'enqueue' | 'stop' | 'withdraw'>;
import type { BatonStore } from '../store/types';
import { Emitter } from '../util/emitter';
import type { Logger } from '../util/logger';
import { parseReplyTo, type WorkerPool } from '../workers/workerPool';
import { isEnd, replyChannelOf, type Handler, type TurnCall } from './batonEventParts';
import { lifecycleEvent } from './lifecycleEvents';
import { WorkerRuns, type WorkerRun } from './workerRuns';

/** Every event is the API's version 2 shape (version 1 callers get the v1 types only, see batonApi.ts). */
export type BatonEvent = BatonEventV2;
export { replyChannelOf, type Handler } from './batonEventParts';

export class BatonEvents {
  private readonly all = new Emitter<BatonEvent>();
  /** Every event, in the one order everybody sees. */
  readonly onEvent = this.all.event;
  private readonly turnCalls = new Map<string, TurnCall>();
  /** The workers followed, one task (run) at a time; a delegate call's handler rides on its run. */
  private readonly runs: WorkerRuns;
  /** What turn.starting tells of each turn queued here, until it starts (or goes). */
  private readonly prompts = new Map<string, string>();
  /** Per conversation handlers (the API's `conversation(id).on`). */
  private readonly byConversation = new Map<string, Set<Handler>>();
  /** The conversation of each turn, until its terminal event. */
  private readonly turnConversation = new Map<string, string>();
  /** The turns running now (one per conversation at most), by id; `current` is the one that started last. */
  private readonly running = new Map<string, { turnId: string; origin: Origin; text: string; restarted: boolean; conversation: string }>();
  private current: { turnId: string; origin: Origin; text: string; restarted: boolean; conversation: string } | undefined;
  private claim: TurnCall | undefined;
  private readonly unsubscribe: Array<() => void>;

  constructor(
    private readonly orchestrator: TurnPort,
    pool: WorkerPool,
    private readonly store: BatonStore,
    private readonly logger: Logger,
  ) {
    this.runs = new WorkerRuns({
      store,
      outputOf: (name) => pool.summaryOf(name),
      finished: (run, state, result) =>
        this.dispatch({ type: 'worker.finished', worker: run.name, conversation: run.conversation, state, result }, run.handler),
    });
    this.unsubscribe = [orchestrator.onEvent((e) => this.onOrchestrator(e)), pool.onDidChange((cards) => this.onWorkers(cards))];
    const ready = pool.changes?.onReady((r) => {
      const run = this.runs.of(r.worker);
      const event = { conversation: run?.conversation ?? MAIN_CONVERSATION, workingDir: r.dir, files: r.files };
      this.dispatch({ type: 'worker.changes-ready', worker: r.worker, ...event }, run?.handler);
    });
    if (ready) this.unsubscribe.push(ready);
  }

  /** Per conversation: `handler` gets the events of `conversation`'s turns and workers, after the instance handlers. */
  onConversation(conversation: string, handler: Handler): () => void {
    let set = this.byConversation.get(conversation);
    if (!set) this.byConversation.set(conversation, (set = new Set()));
    set.add(handler);
    let subscribed = true;
    return () => {
      // Disposed twice (a subscriptions list and by hand): the second must not drop a set a later subscriber made.
      if (!subscribed) return;
      subscribed = false;
      set.delete(handler);
      if (!set.size && this.byConversation.get(conversation) === set) this.byConversation.delete(conversation);
    };
  }

  private ended(turnId: string): void {
    this.running.delete(turnId);
    if (this.current?.turnId === turnId) this.current = [...this.running.values()].at(-1);
  }

  private conversationOf(e: OrchestratorEvent): string {
    return (e as { conversation?: string }).conversation ?? MAIN_CONVERSATION;
  }

  /** Every turn running now (one per conversation at most), the oldest first. */
  get runningTurns(): Array<{ turnId: string; origin: Origin }> {
    return [...this.running.values()].map(({ turnId, origin }) => ({ turnId, origin }));
  }

  /** The turn running now, if any (the one that started last, of whichever conversation). */
  get currentTurn(): { turnId: string; origin: Origin } | undefined {
    return this.current && { turnId: this.current.turnId, origin: this.current.origin };
  }

  /**
   * Queues a message with a per-call handler. The orchestrator may start the turn inside enqueue(),
   * so the handler is bound from the turn's own 'queued' event, before anything else of it fires.
   */
  enqueue(
    text: string,
    origin: Origin,
    handler: Handler,
    extras?: Parameters<Orchestrator['enqueue']>[2],
  ): ReturnType<Orchestrator['enqueue']> & { cancel(): void } {
    const call: TurnCall = { handler, ended: false, stopOnStart: false };
    this.claim = call;
    let handle: ReturnType<Orchestrator['enqueue']>;
    try {
      handle = this.orchestrator.enqueue(text, origin, extras);
    } finally {
      this.claim = undefined;
    }
    const turnId = handle.turnId;
    const conversation = (): string => this.turnConversation.get(turnId) ?? MAIN_CONVERSATION;
    // Closing Baton settles a turn without an orchestrator event: the promise gives the one terminal event then.
    handle.done.then(
      (result) => {
        if (result.status === 'cancelled')
          this.endCall(turnId, { type: 'turn.cancelled', turnId, conversation: conversation(), origin, partial: result.content });
        else
          this.endCall(turnId, {
            type: 'turn.completed',
            turnId,
            conversation: conversation(),
            origin,
            text: result.content,
            status: result.status === 'partial' ? 'partial' : 'complete',
            model: result.route.model,
            ...(result.note ? { note: result.note } : {}),
          });
      },
      (err: unknown) => {
        const readable = (err as { readable?: { kind: string; message: string } }).readable;
        const partial = (err as { partial?: string }).partial ?? '';
        if (readable?.kind === 'cancelled') this.endCall(turnId, { type: 'turn.cancelled', turnId, conversation: conversation(), origin, partial });
        else
          this.endCall(turnId, {
            type: 'turn.failed',
            turnId,
            conversation: conversation(),
            origin,
            error: { kind: err instanceof DriftError ? 'drift' : 'fatal', message: err instanceof Error ? err.message : String(err) },
            partial,
          });
      },
    );
    return {
      ...handle,
      cancel: () => {
        if (call.ended) return;
        // Still queued, or held behind a summary (sent nothing yet, shown as queued): taken out before it reaches the
        // session (its done promise gives the one turn.cancelled), as the d.ts promises; else running (in whichever
        // conversation: the latest turn started may be another's), stopped; else between the two.
        if (!this.orchestrator.withdraw(turnId) && !this.orchestrator.stop(turnId)) call.stopOnStart = true;
      },
    };
  }

  /**
   * Follows the worker a delegate call is about to create: the events of the task it starts go to `handler` until its
   * report. The returned function gives up the wait (the create failed); a task already started keeps its handler.
   */
  followWorker(name: string, handler: Handler): () => void {
    return this.runs.follow(name, handler);
  }

  /** What is held per turn and per worker now; back to nothing once every turn and task has ended (the tests' bound). */
  get held(): { turns: number; workers: number } {
    return { turns: Math.max(this.turnConversation.size, this.prompts.size, this.turnCalls.size), workers: this.runs.size };
  }

  private onOrchestrator(e: OrchestratorEvent): void {
    const conversation = this.conversationOf(e);
    const step = lifecycleEvent(e, conversation);
    if (step) {
      this.emit(step);
      return;
    }
    switch (e.type) {
      case 'turn.queued': {
        // People (and API callers) get a worker's report alone; the prompt is the model's wrapper around it.
        const told = e.workerResult ? reportText(e.workerResult) : e.prompt;
        // Sent to the window that runs the conversation, it starts and ends there: only a call waiting for its answer
        // (its promise gives the terminal event) is kept, or each such turn left its entries here for good.
        if (!e.elsewhere || this.claim) this.turnConversation.set(e.turnId, conversation);
        if (this.claim) {
          this.turnCalls.set(e.turnId, this.claim);
          this.claim = undefined;
        }
        if (!e.elsewhere) this.prompts.set(e.turnId, told);
        // A worker's report reaches the orchestrator: that worker's task is over.
        if (e.origin.channel === 'background' && e.origin.worker) this.runs.reported(e.origin.worker, told);
        break;
      }
      case 'turn.started': {
        this.current = { turnId: e.turnId, origin: e.origin, text: '', restarted: false, conversation };
        this.running.set(e.turnId, this.current);
        this.turnConversation.set(e.turnId, conversation);
        const prompt = this.prompts.get(e.turnId) ?? '';
        this.prompts.delete(e.turnId);
        this.emit({ type: 'turn.starting', turnId: e.turnId, conversation, origin: e.origin, prompt });
        // Stopped from inside the start event: the orchestrator has made this turn current already.
        if (this.turnCalls.get(e.turnId)?.stopOnStart) this.orchestrator.stop(e.turnId);
        break;
      }
      case 'turn.retrying':
        {
          const r = this.running.get(e.turnId);
          if (r) {
            r.text = '';
            r.restarted = true;
          }
        }
        break;
      case 'turn.delta': {
        const cur = this.running.get(e.turnId);
        const restarted = cur?.restarted ?? false;
        if (cur) {
          cur.text += e.delta;
          cur.restarted = false;
        }
        this.emit({ type: 'turn.streaming', turnId: e.turnId, conversation, delta: e.delta, text: cur?.text ?? e.delta, ...(restarted ? { restarted } : {}) });
        break;
      }
      case 'turn.completed':
      case 'turn.cancelled':
      case 'turn.failed':
        this.endTurn(e, conversation);
        break;
      case 'turn.refused':
        this.ended(e.turnId);
        this.endCall(e.turnId, {
          type: 'turn.failed',
          turnId: e.turnId,
          conversation,
          origin: e.origin,
          error: { kind: 'drift', message: e.message },
          partial: '',
        });
        break;
      case 'turn.withdrawn':
        this.prompts.delete(e.turnId);
        // Withdrawn once started (it waited behind a summary, nothing sent): its start ends as a Stop's would.
        if (this.running.delete(e.turnId)) this.endTurn({ ...e, type: 'turn.cancelled', partial: '', usage: {} }, conversation);
        // Withdrawn while queued: a call's promise gives its turn.cancelled; nobody else was told it started.
        else if (!this.turnCalls.has(e.turnId)) this.turnConversation.delete(e.turnId);
        break;
      case 'conversation.rewound':
        this.emit({ type: 'conversation.rewound', conversation, messageId: `log-${e.logId}`, how: e.how });
        break;
      default:
        break;
    }
  }

  private endTurn(e: Extract<OrchestratorEvent, { type: 'turn.completed' | 'turn.cancelled' | 'turn.failed' }>, conversation: string): void {
    this.ended(e.turnId);
    let event: BatonEvent;
    if (e.type === 'turn.completed' && e.result.awaitingInput) {
      const r = e.result;
      event = {
        type: 'turn.awaiting-input',
        turnId: e.turnId,
        conversation,
        origin: e.origin,
        text: r.content,
        model: r.route.model,
        waitingOn: r.awaitingInput ?? 0,
      };
    } else if (e.type === 'turn.completed') {
      const r = e.result;
      event = {
        type: 'turn.completed',
        turnId: e.turnId,
        conversation,
        origin: e.origin,
        text: r.content,
        status: r.status === 'partial' ? 'partial' : 'complete',
        model: r.route.model,
        ...(r.note ? { note: r.note } : {}),
      };
    } else if (e.type === 'turn.cancelled') {
      event = { type: 'turn.cancelled', turnId: e.turnId, conversation, origin: e.origin, partial: e.partial };
    } else {
      event = {
        type: 'turn.failed',
        turnId: e.turnId,
        conversation,
        origin: e.origin,
        error: { kind: e.error.kind, message: e.error.message, ...(e.error.action ? { action: e.error.action } : {}) },
        partial: e.partial,
      };
    }
    this.endCall(e.turnId, event);
  }

  /**
   * A turn's one terminal event, to everybody; to its call once. From the orchestrator's event, or from the call's
   * promise when the orchestrator did not announce it (Baton closing): the second of the two is dropped.
   */
  private endCall(turnId: string, event: BatonEvent): void {
    if (!this.turnConversation.has(turnId)) return;
    this.turnConversation.delete(turnId);
    this.prompts.delete(turnId);
    const call = this.turnCalls.get(turnId);
    this.turnCalls.delete(turnId);
    if (call) call.ended = true;
    this.dispatch(event, call?.handler);
  }

  private onWorkers(cards: WorkerCard[]): void {
    for (const card of cards) {
      const run = this.runs.of(card.name);
      if (card.state === 'running') {
        if (!run || run.state !== 'running' || run.startedAt !== card.startedAt) this.workerStarted(card);
        else if (card.lastLine && card.lastLine !== run.lastLine) {
          run.lastLine = card.lastLine;
          this.dispatch({ type: 'worker.progress', worker: card.name, conversation: run.conversation, line: card.lastLine }, run.handler);
        }
      } else if (run?.state === 'running' && isEnd(card.state)) this.runs.ended(run, card.state);
    }
  }

  private workerStarted(card: WorkerCard): void {
    const delegated = this.runs.followed(card.name);
    const row = this.store.listWorkers().find((r) => r.name === card.name);
    const replyTo: BatonReplyChannel = row ? parseReplyTo(row.origin).channel : replyChannelOf(this.current?.origin);
    // A worker reports to the conversation whose turn started it (a delegate call: the default conversation).
    const conversation = (row ? parseReplyTo(row.origin).conversation : undefined) ?? (delegated ? undefined : this.current?.conversation) ?? MAIN_CONVERSATION;
    const turnId = delegated ? undefined : ([...this.running.values()].find((r) => r.conversation === conversation) ?? this.current)?.turnId;
    const run: WorkerRun = this.runs.start(card, conversation);
    const event: BatonEvent = { type: 'worker.started', worker: card.name, conversation, workingDir: card.workingDir, replyTo, ...(turnId ? { turnId } : {}) };
    // A worker a turn started is that turn's event too (its start only; the rest follows the worker).
    const call = turnId ? this.turnCalls.get(turnId) : undefined;
    this.dispatch(event, run.handler ?? (call && !call.ended ? call.handler : undefined));
  }

  private emit(event: BatonEvent): void {
    this.dispatch(event, this.callOf(event));
  }

  /** The tier order: instance handlers, then the event's conversation's, then its call's. */
  private dispatch(event: BatonEvent, call: Handler | undefined): void {
    this.all.fire(event);
    // A copy (a handler may add one); a handler disposed by one before it in this dispatch gets nothing more.
    const handlers = this.byConversation.get(event.conversation);
    for (const handler of [...(handlers ?? [])]) if (handlers?.has(handler)) this.deliver(handler, event);
    if (call) this.deliver(call, event);
  }

  /** A turn's event goes to its call; a worker's are dispatched with their run's (see onWorkers). */
  private callOf(event: BatonEvent): Handler | undefined {
    const turnId = (event as { turnId?: string }).turnId;
    const call = turnId ? this.turnCalls.get(turnId) : undefined;
    return call && !call.ended ? call.handler : undefined;
  }

  private deliver(handler: Handler, event: BatonEvent): void {
    try {
      handler(event);
    } catch (err) {
      this.logger.warn(`A Baton event handler failed on ${event.type}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  dispose(): void {
    for (const off of this.unsubscribe) off();
    this.runs.dispose();
    this.all.dispose();
  }
}
