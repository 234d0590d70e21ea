// One prompt on one session: the event loop of a turn, kept apart from the queue and retry logic
// in orchestrator.ts. Invariants: deltas are forwarded as they arrive (never the whole text again);
// an idle from an earlier, aborted turn never ends this one; a dead runtime is noticed, not waited on.
import type { CopilotSession, SessionEvent } from '@github/copilot-sdk';
import type { UsageInfo } from '../../shared/protocol';
import { SessionFailure } from '../copilot/errors';
import type { OrchestratorEvent } from './events';

/** What one attempt at a turn collects from the session's events. */
export interface AttemptState {
  delivered: boolean;
  text: string;
  usage: UsageInfo;
  lastMessageId?: string;
  /** The model that actually answered (the runtime may fall back from the one asked for). */
  model?: string;
  /** Set once this attempt's turn has begun, so a late idle from an earlier, aborted turn is not taken for ours. */
  began?: boolean;
}

/** What a turn needs from its orchestrator. */
export interface TurnHost {
  emit(event: OrchestratorEvent): void;
  isConnected(): boolean;
}

/** After a failure past delivery: did the session get the prompt, and did it answer? */
export async function inspectAfterFailure(session: CopilotSession, prompt: string): Promise<{ kind: 'answered'; content: string } | { kind: 'delivered' } | { kind: 'absent' }> {
  const events = await session.getEvents().catch(() => [] as SessionEvent[]);
  let userIndex = -1;
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (e.type === 'user.message' && typeof e.data.content === 'string' && e.data.content.includes(prompt.slice(-200))) {
      userIndex = i;
      break;
    }
  }
  if (userIndex < 0) return { kind: 'absent' };
  const after = events.slice(userIndex + 1);
  const idle = after.some((e) => e.type === 'assistant.turn_end');
  const messages = after.filter((e): e is Extract<SessionEvent, { type: 'assistant.message' }> => e.type === 'assistant.message' && !e.data.parentToolCallId);
  const last = messages.at(-1);
  if (idle && last && last.data.content) return { kind: 'answered', content: last.data.content };
  return { kind: 'delivered' };
}

/**
 * Sends one prompt and waits for the session to go idle, streaming deltas as they arrive. Rejects with
 * a SessionFailure (session.error), the signal's reason (stop, timeout), or a connection error.
 */
export function sendOnce(session: CopilotSession, prompt: string, turnId: string, attempt: AttemptState, signal: AbortSignal, host: TurnHost): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    // Declared first: finish() may run before the timer exists (a turn aborted before it was sent).
    let watchdog: NodeJS.Timeout | undefined;
    const finish = (err?: unknown) => {
      if (settled) return;
      settled = true;
      unsubscribe();
      if (watchdog) clearInterval(watchdog);
      signal.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve();
    };
    const unsubscribe = session.on((event) => {
      switch (event.type) {
        case 'user.message':
        case 'assistant.turn_start':
          attempt.delivered = true;
          attempt.began = true;
          break;
        case 'assistant.message_delta': {
          if (event.data.parentToolCallId) break;
          let delta = event.data.deltaContent;
          // A second assistant message in one turn (after a tool call) starts a new paragraph.
          if (attempt.lastMessageId && attempt.lastMessageId !== event.data.messageId && attempt.text) delta = `\n\n${delta}`;
          attempt.lastMessageId = event.data.messageId;
          attempt.text += delta;
          host.emit({ type: 'turn.delta', turnId, delta });
          break;
        }
        case 'assistant.message': {
          if (event.data.parentToolCallId) break;
          // Without streaming deltas (or when some were missed), the final message is the source of truth.
          if (attempt.lastMessageId !== event.data.messageId && event.data.content) {
            const delta = attempt.text ? `\n\n${event.data.content}` : event.data.content;
            attempt.text += delta;
            attempt.lastMessageId = event.data.messageId;
            host.emit({ type: 'turn.delta', turnId, delta });
          }
          break;
        }
        case 'assistant.usage':
          if (event.data.model) attempt.model = event.data.model;
          attempt.usage = {
            inputTokens: (attempt.usage.inputTokens ?? 0) + (event.data.inputTokens ?? 0),
            outputTokens: (attempt.usage.outputTokens ?? 0) + (event.data.outputTokens ?? 0),
          };
          break;
        case 'tool.execution_start':
          host.emit({ type: 'tool.started', turnId, toolName: event.data.toolName, toolCallId: event.data.toolCallId });
          break;
        case 'tool.execution_complete':
          host.emit({ type: 'tool.finished', turnId, toolName: (event.data as { toolName?: string }).toolName ?? '', toolCallId: event.data.toolCallId, success: event.data.success });
          break;
        case 'session.error':
          finish(new SessionFailure(event.data.message, event.data.errorType, event.data.statusCode));
          break;
        case 'session.idle':
          if (attempt.began) finish();
          break;
        default:
          break;
      }
    });
    const onAbort = () => {
      // Wait (bounded) for the aborted turn to settle, so its idle cannot end the next turn early.
      const settledOrLate = new Promise<void>((res) => {
        const off = session.on((e) => {
          if (e.type === 'session.idle' || e.type === 'abort') {
            off();
            res();
          }
        });
        setTimeout(() => {
          off();
          res();
        }, 2000);
      });
      void Promise.all([session.abort().catch(() => undefined), settledOrLate]).then(() => finish(signal.reason));
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    // A killed runtime emits nothing: notice the dead connection instead of waiting for the timeout.
    watchdog = setInterval(() => {
      if (!host.isConnected()) finish(new Error('Copilot runtime connection closed'));
    }, 250);
    session.send({ prompt }).then(
      () => {
        attempt.delivered = true;
      },
      (err) => finish(err),
    );
  });
}
