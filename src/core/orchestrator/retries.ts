// The retry policy of one orchestrator turn, kept apart from the queue in orchestrator.ts.
// Invariant: a prompt the runtime already has is never sent to it again.
import type { UsageInfo } from '../../shared/protocol';
import { wasDelivered, type AgentSessions, type RunResult } from '../copilot/agentSessions';
import type { CallUsage } from '../copilot/callUsage';
import { AgentError, classifyError, isRetryable } from '../copilot/errors';
import { delay } from '../util/delay';
import type { Logger } from '../util/logger';
import type { OrchestratorEventBody } from './events';
import { MAX_REPLY_CHARS } from '../store/bounds';
import { boundedDelta } from './replyBound';
import type { SessionKeeper } from './sessionKeeper';

/** Adds one model call's usage to a turn's. */
export function addCall(usage: UsageInfo, call: CallUsage): void {
  usage.inputTokens = (usage.inputTokens ?? 0) + call.inputTokens;
  usage.outputTokens = (usage.outputTokens ?? 0) + call.outputTokens;
  if (call.premiumRequests || usage.premiumRequests) usage.premiumRequests = (usage.premiumRequests ?? 0) + call.premiumRequests;
}

/** What one turn collects across its attempts. */
export interface Attempt {
  text: string;
  usage: UsageInfo;
  model?: string;
}

export interface RetryHost {
  keeper: SessionKeeper;
  sessions: AgentSessions;
  logger: Logger;
  emit: (event: OrchestratorEventBody) => void;
  delays: readonly number[];
  /**
   * The runtime recorded the turn's prompt as the user message `event` of session `session`; `carried`: recovery or
   * summary context rode on it (taking it back then takes that context too: Orchestrator.rewindTo).
   */
  delivered?: (at: DeliveredAt) => void;
}

/** Where a turn's prompt is in its session: what an edit of the message truncates from. */
export interface DeliveredAt {
  session: string;
  event: string;
  carried: boolean;
}

const RESUME_NUDGE = '[System: your previous reply was interrupted by a connection failure. Answer the last user message now; do not repeat it.]';

/**
 * Retries connection, session and transient failures after 1 s / 3 s / 10 s (not a model service's error the runtime
 * already retried itself: that fails the turn). A prompt the
 * runtime already has is never sent again: after a failure past delivery, the session is
 * resumed and its own record decides: a settled reply is taken as is; a recorded prompt gets a
 * nudge to finish; only a prompt the runtime has no record of is sent again (and the log says so).
 */
export async function runWithRetries(
  host: RetryHost,
  turn: {
    turnId: string;
    /** What is sent: the message and what this attempt adds to it (memories, history). */
    prompt: string;
    /**
     * The part of `prompt` no attempt changes (the tagged message): what the session is asked whether it has. The
     * memories matched again on a resend differ, so the whole prompt would not be found and would go twice.
     */
    message?: string;
    model: string;
    mayHavePrompt?: boolean;
  },
  attempt: Attempt,
  signal: AbortSignal,
): Promise<void> {
  const { keeper, logger, delays } = host;
  // A resend of a message whose window died: its session may have the prompt already (asked, never sent twice).
  let mayHavePrompt = turn.mayHavePrompt === true;
  /** `recovery`: the pending context riding on `prompt`, cleared once the session has it (never sent twice, never lost). */
  const run = async (prompt: string, carried?: { recovery?: string }): Promise<void> => {
    const session = await keeper.ensure(turn.model, { signal });
    const landed = (): void => {
      if (carried?.recovery) keeper.carried(carried.recovery);
    };
    const onDelivered = (event: string): void => {
      landed();
      host.delivered?.({ session: session.id, event, carried: !!carried?.recovery });
    };
    const result: RunResult = await session
      .run(prompt, {
        signal,
        // The nudge (no `carried`) is not the turn's prompt: where that one is was recorded when it was delivered.
        ...(carried ? { onDelivered } : {}),
        onDelta: (streamed) => {
          const delta = boundedDelta(attempt.text, streamed);
          if (delta !== streamed && delta) logger.warn(`Turn ${turn.turnId}: the reply passed ${MAX_REPLY_CHARS} characters; the rest is not kept`);
          if (!delta) return;
          attempt.text += delta;
          host.emit({ type: 'turn.delta', turnId: turn.turnId, delta });
        },
        onTool: (t) =>
          host.emit(
            t.phase === 'start'
              ? { type: 'tool.started', turnId: turn.turnId, toolName: t.toolName, toolCallId: t.toolCallId }
              : { type: 'tool.finished', turnId: turn.turnId, toolName: t.toolName, toolCallId: t.toolCallId, success: t.success === true },
          ),
        // Added call by call, across attempts: a turn that fails or is stopped is counted with what it used.
        onUsage: (call) => addCall(attempt.usage, call),
      })
      .catch((err: unknown) => {
        // Stopped, lost or failed after the session recorded the prompt: the context went with it.
        if (wasDelivered(err)) landed();
        throw err;
      });
    landed();
    attempt.model = result.model;
  };
  for (let i = 0; ; i++) {
    try {
      if (mayHavePrompt) {
        const session = await keeper.ensure(turn.model, { signal });
        const record = await session.inspect(turn.message ?? turn.prompt);
        if (record.kind === 'answered') {
          logger.info(`Turn ${turn.turnId}: the runtime had already answered; taking its reply`);
          attempt.text = boundedDelta('', record.content);
          host.emit({ type: 'turn.delta', turnId: turn.turnId, delta: attempt.text });
          return;
        }
        if (record.kind === 'delivered') {
          logger.info(`Turn ${turn.turnId}: the runtime has the prompt; asking it to finish instead of sending it again`);
          await run(RESUME_NUDGE);
          return;
        }
        logger.warn(`Turn ${turn.turnId}: the runtime has no record of the prompt; sending it again`);
      }
      // ensure() first: opening a recovered or drifted session is what sets the recovery context.
      await keeper.ensure(turn.model, { signal });
      const recovery = keeper.recovery;
      await run(recovery ? `${recovery}\n\n${turn.prompt}` : turn.prompt, { recovery });
      return;
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      const kind = classifyError(err);
      // A model service's error the runtime already retried fails the turn: Baton's retries made each of its tries
      // the runtime's six again (24 requests for one message), and left a nudge in the session after the prompt. The
      // reply's Retry takes the conversation back before the message and sends it once more.
      if (!isRetryable(kind) || i >= delays.length || (err instanceof AgentError && err.details.retriedByRuntime)) throw err;
      const reason = err instanceof Error ? err.message : String(err);
      logger.warn(`Turn ${turn.turnId}: ${kind} error (${reason}); retry ${i + 1}/${delays.length} in ${delays[i]} ms`);
      host.emit({ type: 'turn.retrying', turnId: turn.turnId, attempt: i + 1, delayMs: delays[i]!, reason });
      if (kind === 'connection') await host.sessions.reset(reason);
      else if (kind === 'session') keeper.drop();
      if (wasDelivered(err)) mayHavePrompt = true;
      // Text from a failed attempt is discarded (turn.retrying clears it in the panel): the retry produces the whole reply again.
      attempt.text = '';
      await delay(delays[i]!, signal);
    }
  }
}
