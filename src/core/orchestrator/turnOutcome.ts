// How a turn's end is written down (log rows, checkpoint, event, the queuer's promise), for each way a turn ends.
import type { RouteInfo, UsageInfo } from '../../shared/protocol';
import type { AgentSessions } from '../copilot/agentSessions';
import { classifyError, toReadableError, TurnCancelledError, TurnTimeoutError } from '../copilot/errors';
import type { BatonStore } from '../store/types';
import type { Logger } from '../util/logger';
import type { CheckpointWriter } from './checkpoints';
import type { DriftError } from './driftError';
import { withNote, type OrchestratorEventBody, type TurnResult } from './events';
import type { Attempt } from './retries';
import type { SharedConversation, WindowMeta } from './sharedConversation';
import { BatonClosingError, TurnError, type QueuedTurn } from './turn';

export interface TurnOutcomeDeps {
  store: BatonStore;
  logger: Logger;
  sessions: AgentSessions;
  checkpoints: CheckpointWriter;
  shared?: SharedConversation;
  emit: (event: OrchestratorEventBody) => void;
  /** Questions to the user still open (permissions, apply confirms): a turn ending with some awaits input. */
  waitingOnUser?: () => number;
  onInterrupted?: (usage: UsageInfo) => void;
}

export class TurnOutcome {
  constructor(private readonly deps: TurnOutcomeDeps) {}

  /** Ends a turn that threw or was aborted; `reason` is the abort's reason when it was aborted. */
  fail(turn: QueuedTurn, reason: unknown, attempt: Attempt, route: RouteInfo): void {
    const { store, logger } = this.deps;
    if (reason instanceof BatonClosingError) {
      // Closing (a reload, a quit) is not the user's stop: the message stays offered for resending,
      // and what streamed so far is kept beside it.
      store.updateLog(turn.logId, { status: turn.origin.channel === 'background' ? 'cancelled' : 'interrupted' });
      if (attempt.usage.inputTokens || attempt.usage.outputTokens || attempt.usage.premiumRequests) this.deps.onInterrupted?.(attempt.usage);
      if (attempt.text)
        store.appendLog({
          role: 'assistant',
          content: withNote(attempt.text, 'Interrupted when Baton closed.'),
          source: turn.origin.channel,
          status: 'partial',
          meta: JSON.stringify({ route, usage: attempt.usage, ...this.replyMeta(turn) }),
        });
      turn.reject(new TurnError({ kind: 'cancelled', message: reason.message }, attempt.text));
    } else if (reason instanceof TurnTimeoutError) {
      // IO keeps partial replies on timeout: the user sees what arrived, with a note.
      const note = `Timed out after ${Math.round(reason.limitMs / 1000)}s (limit: baton.turnTimeoutMs).`;
      logger.warn(`Turn ${turn.turnId} timed out; keeping ${attempt.text.length} chars`);
      this.settle(turn, { turnId: turn.turnId, content: attempt.text, status: 'partial', route, usage: attempt.usage, note });
    } else if (reason instanceof TurnCancelledError || classifyError(reason) === 'cancelled') {
      this.settle(turn, { turnId: turn.turnId, content: attempt.text, status: 'cancelled', route, usage: attempt.usage });
    } else {
      const readable = toReadableError(reason, this.deps.sessions.provider.type);
      logger.error(`Turn ${turn.turnId} failed (${readable.kind})`, reason);
      store.updateLog(turn.logId, { status: 'failed' });
      const logId = store.appendLog({
        role: 'assistant',
        content: attempt.text ? `${attempt.text}\n\n${readable.message}` : readable.message,
        source: turn.origin.channel,
        status: 'failed',
        meta: JSON.stringify({ route, error: readable, ...this.replyMeta(turn) }),
      });
      this.persist(turn, route, 'failed', attempt.usage);
      this.deps.emit({
        type: 'turn.failed',
        turnId: turn.turnId,
        origin: turn.origin,
        error: readable,
        partial: attempt.text,
        logId,
        usage: attempt.usage,
      });
      turn.reject(new TurnError(readable, attempt.text));
    }
  }

  settle(turn: QueuedTurn, result: TurnResult): void {
    this.announce(turn, result, this.write(turn, result));
  }

  /** Writes a settled turn down (its reply row and its checkpoint) and returns the reply's log id. */
  write(turn: QueuedTurn, result: TurnResult): number {
    const { store } = this.deps;
    store.updateLog(turn.logId, { status: result.status === 'complete' ? 'complete' : result.status === 'cancelled' ? 'cancelled' : 'complete' });
    const logId = store.appendLog({
      role: 'assistant',
      content: withNote(result.content, result.note),
      source: turn.origin.channel,
      status: result.status,
      meta: JSON.stringify({ route: result.route, usage: result.usage, origin: turn.origin, ...this.replyMeta(turn) }),
    });
    this.persist(turn, result.route, result.status, result.usage);
    return logId;
  }

  /** Tells everybody how a written turn ended, and settles its caller's promise. */
  announce(turn: QueuedTurn, result: TurnResult, logId: number): void {
    const waiting = result.status === 'cancelled' ? 0 : (this.deps.waitingOnUser?.() ?? 0);
    if (waiting > 0) result = { ...result, awaitingInput: waiting };
    if (result.status === 'cancelled') {
      this.deps.emit({ type: 'turn.cancelled', turnId: turn.turnId, origin: turn.origin, partial: result.content, logId, usage: result.usage ?? {} });
    } else {
      this.deps.emit({ type: 'turn.completed', turnId: turn.turnId, origin: turn.origin, result, logId });
    }
    turn.resolve(result);
  }

  private persist(turn: QueuedTurn, route: RouteInfo, status: string, usage: TurnResult['usage']): void {
    const turnIndex = this.deps.checkpoints.record(route, status, usage);
    if (turnIndex !== undefined) this.deps.emit({ type: 'checkpoint.persisted', turnId: turn.turnId, turnIndex });
  }

  /** Ends a turn taken out of the queue before it started: its log row goes. */
  withdrawn(turn: QueuedTurn): void {
    this.deps.store.deleteLog(turn.logId);
    const withdrawn = new TurnError({ kind: 'cancelled', message: 'The message was withdrawn before it was sent.' }, '');
    turn.abandon(withdrawn);
    turn.reject(withdrawn);
    this.deps.emit({ type: 'turn.withdrawn', turnId: turn.turnId, origin: turn.origin, logId: turn.logId });
  }

  /** Ends a turn refused before anything ran (its definition drifted and the caller asked for an error): its log row goes. */
  refused(turn: QueuedTurn, err: DriftError): void {
    this.deps.store.deleteLog(turn.logId);
    this.deps.emit({
      type: 'turn.refused',
      turnId: turn.turnId,
      origin: turn.origin,
      reason: 'drift',
      message: err.message,
      signature: err.signature,
      previous: err.previous,
    });
    turn.reject(err);
  }

  /** Ends a turn still queued when Baton closes. */
  closedUnsent(turn: QueuedTurn): void {
    const closed = new TurnError({ kind: 'cancelled', message: 'Baton was closed before this message was sent.' }, '');
    // A worker result that never reached the session stays in the inbox and comes again at the next
    // start; its row here is set aside so it is not shown twice. (A user's row stays pending: resend.)
    if (turn.origin.channel === 'background') this.deps.store.updateLog(turn.logId, { status: 'cancelled' });
    turn.abandon(closed);
    turn.reject(closed);
  }

  /** A reply names its message, and the window that wrote it, so a window that sent it to the owner finds it. */
  private replyMeta(turn: QueuedTurn): WindowMeta {
    return this.deps.shared ? { for: turn.logId, window: this.deps.shared.self } : {};
  }
}
