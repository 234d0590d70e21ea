// Baton's public lifecycle events (api/baton.d.ts), derived from the orchestrator's events and the
// worker pool's changes. The Chat view, the language-model tools and other extensions all listen
// here, so they see the same turns and workers the panel does.
// Invariants:
// - one source listener each (orchestrator, pool), so every event has one order for everybody;
//   instance handlers run before per-call handlers;
// - a per-call handler gets each of its events exactly once, and exactly one terminal event;
// - a handler that throws is logged and never breaks the turn or the others.
import type { BatonEvent, BatonReplyChannel, BatonWorkerEndState } from '../../../api/baton';
import type { WorkerCard } from '../../shared/protocol';
import { reportText } from '../workers/workerMessages';
import type { OrchestratorEvent, Origin } from '../orchestrator/events';
import type { Orchestrator } from '../orchestrator/orchestrator';

/** What the events need of the orchestrators: every conversation's events, and a way to queue, stop and withdraw turns. */
export type TurnPort = Pick<Orchestrator, 'onEvent' | 'enqueue' | 'stop' | 'withdraw'>;
import type { BatonStore } from '../store/types';
import { Emitter } from '../util/emitter';
import type { Logger } from '../util/logger';
import { parseReplyTo, type ReplyChannel, type WorkerPool } from '../workers/workerPool';

export type Handler = (event: BatonEvent) => void;

/** A finished worker whose report never reaches the orchestrator (stopped by the orchestrator itself or on shutdown) ends after this. */
const UNREPORTED_END_MS = 1500;

interface TurnCall {
  handler: Handler;
  ended: boolean;
  /** Stop the turn as soon as it starts (the caller cancelled while it was queued). */
  stopOnStart: boolean;
}

interface WorkerSeen {
  state: WorkerCard['state'];
  startedAt: number;
  lastLine: string;
  /** Its task ended and its report has not been seen yet. */
  awaitingReport?: BatonWorkerEndState;
  timer?: NodeJS.Timeout;
}

/** The channel a worker started by this origin's turn reports back to. */
export function replyChannelOf(origin: Origin | undefined): ReplyChannel {
  if (!origin) return 'panel';
  return origin.channel === 'background' ? (origin.replyTo ?? 'panel') : origin.channel;
}

export class BatonEvents {
  private readonly all = new Emitter<BatonEvent>();
  /** Every event, in the one order everybody sees. */
  readonly onEvent = this.all.event;
  private readonly turnCalls = new Map<string, TurnCall>();
  private readonly workerCalls = new Map<string, Handler>();
  /** Worker names a delegate call is creating: not attributed to whatever turn is running. */
  private readonly delegating = new Set<string>();
  private readonly workers = new Map<string, WorkerSeen>();
  private readonly prompts = new Map<string, string>();
  private current: { turnId: string; origin: Origin; text: string; restarted: boolean } | undefined;
  private claim: TurnCall | undefined;
  private readonly unsubscribe: Array<() => void>;

  constructor(
    private readonly orchestrator: TurnPort,
    pool: WorkerPool,
    private readonly store: BatonStore,
    private readonly logger: Logger,
  ) {
    this.unsubscribe = [orchestrator.onEvent((e) => this.onOrchestrator(e)), pool.onDidChange((cards) => this.onWorkers(cards))];
  }

  /** The turn running now, if any. */
  get currentTurn(): { turnId: string; origin: Origin } | undefined {
    return this.current && { turnId: this.current.turnId, origin: this.current.origin };
  }

  /**
   * Queues a message with a per-call handler. The orchestrator may start the turn inside enqueue(),
   * so the handler is bound from the turn's own 'queued' event, before anything else of it fires.
   */
  enqueue(text: string, origin: Origin, handler: Handler): ReturnType<Orchestrator['enqueue']> & { cancel(): void } {
    const call: TurnCall = { handler, ended: false, stopOnStart: false };
    this.claim = call;
    let handle: ReturnType<Orchestrator['enqueue']>;
    try {
      handle = this.orchestrator.enqueue(text, origin);
    } finally {
      this.claim = undefined;
    }
    const turnId = handle.turnId;
    // Closing Baton settles a turn without an orchestrator event: the promise gives the one terminal event then.
    handle.done.then(
      (result) => {
        if (result.status === 'cancelled') this.endCall(turnId, { type: 'turn.cancelled', turnId, origin, partial: result.content });
        else
          this.endCall(turnId, {
            type: 'turn.completed',
            turnId,
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
        if (readable?.kind === 'cancelled') this.endCall(turnId, { type: 'turn.cancelled', turnId, origin, partial });
        else
          this.endCall(turnId, {
            type: 'turn.failed',
            turnId,
            origin,
            error: { kind: 'fatal', message: err instanceof Error ? err.message : String(err) },
            partial,
          });
      },
    );
    return {
      ...handle,
      cancel: () => {
        if (call.ended) return;
        if (this.current?.turnId === turnId) this.orchestrator.stop(turnId);
        // Still queued: taken out before it reaches the session (its done promise gives the one turn.cancelled).
        else if (!this.orchestrator.withdraw(turnId)) call.stopOnStart = true;
      },
    };
  }

  /** Follows one worker a delegate call is about to create: its events go to `handler` until it finishes. */
  followWorker(name: string, handler: Handler): () => void {
    this.delegating.add(name);
    this.workerCalls.set(name, handler);
    return () => {
      this.delegating.delete(name);
      if (this.workerCalls.get(name) === handler) this.workerCalls.delete(name);
    };
  }

  private onOrchestrator(e: OrchestratorEvent): void {
    switch (e.type) {
      case 'turn.queued':
        if (this.claim) {
          this.turnCalls.set(e.turnId, this.claim);
          this.claim = undefined;
        }
        this.prompts.set(e.turnId, e.prompt);
        // A worker's report reaches the orchestrator: that worker's task is over.
        // People (and API callers) get the worker's report alone; the prompt is the model's wrapper around it.
        if (e.origin.channel === 'background' && e.origin.worker) this.workerReported(e.origin.worker, e.workerResult ? reportText(e.workerResult) : e.prompt);
        break;
      case 'turn.started': {
        this.current = { turnId: e.turnId, origin: e.origin, text: '', restarted: false };
        const prompt = this.prompts.get(e.turnId) ?? '';
        this.prompts.delete(e.turnId);
        this.emit({ type: 'turn.starting', turnId: e.turnId, origin: e.origin, prompt });
        // Stopped from inside the start event: the orchestrator has made this turn current already.
        if (this.turnCalls.get(e.turnId)?.stopOnStart) this.orchestrator.stop(e.turnId);
        break;
      }
      case 'turn.routed':
        this.emit({ type: 'turn.routed', turnId: e.turnId, model: e.route.model, tier: e.route.tier, reason: e.route.reason });
        break;
      case 'turn.retrying':
        if (this.current?.turnId === e.turnId) {
          this.current.text = '';
          this.current.restarted = true;
        }
        break;
      case 'turn.delta': {
        const cur = this.current?.turnId === e.turnId ? this.current : undefined;
        const restarted = cur?.restarted ?? false;
        if (cur) {
          cur.text += e.delta;
          cur.restarted = false;
        }
        this.emit({ type: 'turn.streaming', turnId: e.turnId, delta: e.delta, text: cur?.text ?? e.delta, ...(restarted ? { restarted } : {}) });
        break;
      }
      case 'turn.completed':
      case 'turn.cancelled':
      case 'turn.failed':
        this.endTurn(e);
        break;
      case 'turn.withdrawn':
        this.prompts.delete(e.turnId);
        break;
      default:
        break;
    }
  }

  private endTurn(e: Extract<OrchestratorEvent, { type: 'turn.completed' | 'turn.cancelled' | 'turn.failed' }>): void {
    if (this.current?.turnId === e.turnId) this.current = undefined;
    let event: BatonEvent;
    if (e.type === 'turn.completed') {
      const r = e.result;
      event = {
        type: 'turn.completed',
        turnId: e.turnId,
        origin: e.origin,
        text: r.content,
        status: r.status === 'partial' ? 'partial' : 'complete',
        model: r.route.model,
        ...(r.note ? { note: r.note } : {}),
      };
    } else if (e.type === 'turn.cancelled') {
      event = { type: 'turn.cancelled', turnId: e.turnId, origin: e.origin, partial: e.partial };
    } else {
      event = {
        type: 'turn.failed',
        turnId: e.turnId,
        origin: e.origin,
        error: { kind: e.error.kind, message: e.error.message, ...(e.error.action ? { action: e.error.action } : {}) },
        partial: e.partial,
      };
    }
    this.all.fire(event);
    this.endCall(e.turnId, event, false);
  }

  /** Gives a call its one terminal event; `broadcast` when the orchestrator did not announce it itself (Baton closing). */
  private endCall(turnId: string, event: BatonEvent, broadcast = true): void {
    const call = this.turnCalls.get(turnId);
    if (!call || call.ended) return;
    call.ended = true;
    this.turnCalls.delete(turnId);
    this.prompts.delete(turnId);
    if (broadcast) this.all.fire(event);
    this.deliver(call.handler, event);
  }

  private onWorkers(cards: WorkerCard[]): void {
    for (const card of cards) {
      const seen = this.workers.get(card.name);
      if (card.state === 'running') {
        if (!seen || seen.state !== 'running' || seen.startedAt !== card.startedAt) this.workerStarted(card, seen);
        else if (card.lastLine && card.lastLine !== seen.lastLine) this.emit({ type: 'worker.progress', worker: card.name, line: card.lastLine });
      } else if (seen?.state === 'running' && isEnd(card.state)) {
        // The report (the inbox text) follows once the session is disconnected; a task the orchestrator
        // itself stopped, or one cut by shutdown, has none.
        seen.awaitingReport = card.state;
        seen.timer = setTimeout(() => this.workerReported(card.name, `Worker '${card.name}' was stopped before it finished.`), UNREPORTED_END_MS);
        seen.timer.unref?.();
      }
      const next = this.workers.get(card.name) ?? seen;
      if (next) Object.assign(next, { state: card.state, startedAt: card.startedAt, lastLine: card.lastLine });
    }
  }

  private workerStarted(card: WorkerCard, previous: WorkerSeen | undefined): void {
    if (previous?.timer) clearTimeout(previous.timer);
    this.workers.set(card.name, { state: card.state, startedAt: card.startedAt, lastLine: card.lastLine });
    const delegated = this.delegating.delete(card.name);
    const row = this.store.listWorkers().find((r) => r.name === card.name);
    const replyTo: BatonReplyChannel = row ? parseReplyTo(row.origin).channel : replyChannelOf(this.current?.origin);
    const turnId = delegated ? undefined : this.current?.turnId;
    this.emit({ type: 'worker.started', worker: card.name, workingDir: card.workingDir, replyTo, ...(turnId ? { turnId } : {}) });
  }

  private workerReported(name: string, report: string): void {
    const seen = this.workers.get(name);
    if (!seen?.awaitingReport) return;
    const state = seen.awaitingReport;
    seen.awaitingReport = undefined;
    if (seen.timer) clearTimeout(seen.timer);
    seen.timer = undefined;
    this.emit({ type: 'worker.finished', worker: name, state, result: report });
    this.workerCalls.delete(name);
  }

  private emit(event: BatonEvent): void {
    this.all.fire(event);
    const handler = this.callOf(event);
    if (handler) this.deliver(handler, event);
  }

  private callOf(event: BatonEvent): Handler | undefined {
    if (event.type.startsWith('turn.')) {
      const call = this.turnCalls.get((event as { turnId: string }).turnId);
      return call && !call.ended ? call.handler : undefined;
    }
    const worker = (event as { worker: string }).worker;
    const own = this.workerCalls.get(worker);
    if (own) return own;
    // A worker a turn started is that turn's event too (its start only; the rest follows the worker).
    if (event.type === 'worker.started' && event.turnId) {
      const call = this.turnCalls.get(event.turnId);
      return call && !call.ended ? call.handler : undefined;
    }
    return undefined;
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
    for (const w of this.workers.values()) if (w.timer) clearTimeout(w.timer);
    this.all.dispose();
  }
}

function isEnd(state: WorkerCard['state']): state is BatonWorkerEndState {
  return state === 'done' || state === 'failed' || state === 'timed_out' || state === 'killed';
}
