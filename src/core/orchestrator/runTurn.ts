// One turn of a conversation, from the queue handing it over to its outcome written and announced. The Orchestrator
// keeps what outlives a turn (the queue, the session keeper, the router); this is what happens inside one, in
// Warlock's order: the session and its drift, the compaction lock, what the turn sends, routing, then the model.
import type { RouteInfo } from '../../shared/protocol';
import { TurnTimeoutError } from '../copilot/errors';
import { conversationStateKey, MAIN_CONVERSATION } from '../store/types';
import { classifyMessage } from './classifier';
import { DriftError } from './driftError';
import type { OrchestratorEventBody } from './events';
import type { OrchestratorOptions } from './orchestratorOptions';
import { promptOf } from './queuedTurns';
import { recordDelivered } from './rewind';
import { addCall, runWithRetries, type Attempt } from './retries';
import type { ModelRouter } from './router';
import type { SessionKeeper } from './sessionKeeper';
import { TurnWithdrawnError, type QueuedTurn } from './turn';
import type { TurnLifecycle } from './turnLifecycle';
import type { TurnOutcome } from './turnOutcome';

/** The state key a conversation's router tier is kept under between turns (and restarts). */
export const routerStateKey = (conversation = MAIN_CONVERSATION): string => conversationStateKey('router_state', conversation);
const DEFAULT_RETRY_DELAYS = [1000, 3000, 10000] as const;

export interface TurnParts {
  /** The conversation's options, its store already scoped to the conversation. */
  readonly opts: OrchestratorOptions;
  readonly keeper: SessionKeeper;
  readonly router: ModelRouter;
  readonly lifecycle: TurnLifecycle;
  readonly outcome: TurnOutcome;
  readonly emit: (event: OrchestratorEventBody) => void;
  /**
   * Called as the turn ends, in the same tick as its outcome is announced: whoever awaits the turn's handle finds it
   * no longer running (the health check, a New Chat asked meanwhile).
   */
  readonly ended: () => void;
  /** Called once a complete turn is announced: what must happen before the next turn starts, off this turn's path. */
  readonly afterComplete: (turnId: string) => void;
}

/**
 * Runs `turn` to its outcome; `abort` is the turn's own (Stop, the timeout set here, Baton closing). Never throws:
 * every ending, a refusal for drift included, is written to the log and announced by TurnOutcome.
 */
export async function runTurn(parts: TurnParts, turn: QueuedTurn, abort: AbortController): Promise<void> {
  const { opts, keeper, router, lifecycle, outcome, emit } = parts;
  const settings = opts.settings();
  emit({ type: 'turn.started', turnId: turn.turnId, origin: turn.origin, logId: turn.logId });
  turn.markStarted();
  const timer = setTimeout(() => abort.abort(new TurnTimeoutError(settings.turnTimeoutMs)), settings.turnTimeoutMs);
  const attempt: Attempt = { text: '', usage: {} };
  opts.toolJournal?.begin(turn.turnId);
  let route: RouteInfo = { tier: 'fixed', model: settings.routing.model, reason: 'disabled' };
  try {
    await lifecycle.load(turn, abort.signal);
    await lifecycle.waitForLock(turn, abort.signal);
    const prompt = lifecycle.window(turn);
    let classified: string | undefined;
    // Routed on what the user typed: the channel tag hid a short follow-up from the anchored check, and keywords were
    // found in attached files' paths and contents.
    route = await router.route(turn.text ?? turn.prompt, {
      settings: settings.routing,
      background: turn.origin.channel === 'background',
      // The classifier's request is billed too: the turn it routes counts it (its tokens, its premium requests).
      classify: async (p) => (classified = await classifyMessage(p, settings.routing, { ...opts, onUsage: (call) => addCall(attempt.usage, call) })),
    });
    // With routing off the router state never changes: nothing to persist on the hot path.
    if (settings.routing.auto) opts.store.setState(routerStateKey(opts.conversation), JSON.stringify(router.current));
    emit({ type: 'turn.routed', turnId: turn.turnId, route, ...(classified ? { classified } : {}) });
    await runWithRetries(
      {
        keeper,
        sessions: opts.sessions,
        logger: opts.logger,
        emit: (e) => {
          // The calls the next attempt makes may be ones the runtime lost the results of: the journal answers those.
          if (e.type === 'turn.retrying') opts.toolJournal?.retrying(turn.turnId);
          emit(e);
        },
        delays: opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS,
        // History a caller gave the first turn rides on its prompt like recovery context (lifecycle.window).
        delivered: (at) => recordDelivered(opts.store, turn.logId, { ...at, carried: at.carried || !!turn.options?.history?.length }),
      },
      { turnId: turn.turnId, prompt, message: messageOf(turn), model: route.model, mayHavePrompt: turn.resend },
      attempt,
      abort.signal,
    );
    // The runtime's idle can beat abort() back: a stopped or timed-out turn is never "complete".
    if (abort.signal.aborted) throw abort.signal.reason;
    const note = attempt.model && attempt.model !== route.model ? otherModelNote(route, attempt.model) : undefined;
    if (attempt.model) route = { ...route, model: attempt.model };
    const result = { turnId: turn.turnId, content: attempt.text, status: 'complete' as const, route, usage: attempt.usage, ...(note ? { note } : {}) };
    const logId = outcome.write(turn, result);
    clearTimeout(timer);
    await lifecycle.afterSettled(turn.turnId);
    outcome.announce(turn, result, logId);
    parts.afterComplete(turn.turnId);
  } catch (err) {
    if (err instanceof DriftError) outcome.refused(turn, err);
    // Withdrawn before anything was sent (it waited behind a summary): no reply row, the message's row goes.
    else if (abort.signal.reason instanceof TurnWithdrawnError) outcome.withdrawn(turn);
    else outcome.fail(turn, abort.signal.aborted ? abort.signal.reason : err, attempt, route);
  } finally {
    clearTimeout(timer);
    opts.toolJournal?.end(turn.turnId);
    parts.ended();
  }
}

/**
 * The part of the prompt no attempt changes: the tagged message. A resend reads the attached references again and
 * matches the memories again, so neither identifies the message the session may already have.
 */
function messageOf(turn: QueuedTurn): string {
  return turn.text === undefined ? turn.prompt : promptOf(turn.text, turn.origin, undefined);
}

/**
 * The runtime answered on another model than the one asked for: it takes a model it does not offer (a typo in
 * baton.model, one retired) silently and answers with its default, so the reply says so and where to choose.
 */
function otherModelNote(route: RouteInfo, used: string): string {
  const setting = route.tier === 'fixed' ? 'baton.model' : `baton.routing.tiers (${route.tier})`;
  return `${setting} names "${route.model}", which Copilot does not offer here: ${used} answered instead. Choose a model with Baton: Switch Model.`;
}
