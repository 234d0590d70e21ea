// The orchestrator's typed lifecycle events (after Warlock). The panel, the log and the status bar
// are only subscribers: nothing in core knows who listens.
import type { RouteInfo, UsageInfo, WorkerResultCard } from '../../shared/protocol';
import type { ReadableError } from '../copilot/errors';

/**
 * Where a message entered Baton: its panel, a palette command, VS Code's Chat view (@baton), a
 * language-model tool call (baton_ask / baton_delegate), the public API of another extension, or a
 * worker's result (background). The orchestrator tags a prompt with it ("[via chat] ...").
 */
export type Channel = 'panel' | 'command' | 'chat' | 'tool' | 'api' | 'background';

/** Every channel a reply (or a worker's result) can go back to. */
export const REPLY_CHANNELS = ['panel', 'command', 'chat', 'tool', 'api'] as const satisfies readonly Exclude<Channel, 'background'>[];

/** Where a message came from, so its reply (and any worker result it causes) goes back there. */
export interface Origin {
  channel: Channel;
  /** For background results: the worker that produced it. */
  worker?: string;
  /** The channel of the request that started the worker, so its summary goes back there. */
  replyTo?: Exclude<Channel, 'background'>;
  /**
   * The conversation the message goes to (Conversations.enqueue; default the one the panel shows). For background
   * results: the conversation of the request that started the worker, so its result goes back there.
   */
  conversation?: string;
}

export type TurnStatus = 'complete' | 'partial' | 'cancelled' | 'failed';

export interface TurnResult {
  turnId: string;
  content: string;
  status: TurnStatus;
  route: RouteInfo;
  usage?: UsageInfo;
  /** Why a reply is partial (timeout), in words. */
  note?: string;
}

/** An event as the parts of one conversation's orchestrator raise it; the orchestrator adds its conversation. */
export type OrchestratorEventBody =
  /** `workerResult`: a finished worker's card, for what people read (the prompt is the model's wrapper). */
  | { type: 'turn.queued'; turnId: string; prompt: string; origin: Origin; logId: number; workerResult?: WorkerResultCard }
  | { type: 'turn.started'; turnId: string; origin: Origin; logId: number }
  | { type: 'turn.routed'; turnId: string; route: RouteInfo }
  | { type: 'turn.delta'; turnId: string; delta: string }
  | { type: 'turn.retrying'; turnId: string; attempt: number; delayMs: number; reason: string }
  | { type: 'tool.started'; turnId: string; toolName: string; toolCallId: string }
  | { type: 'tool.finished'; turnId: string; toolName: string; toolCallId: string; success: boolean }
  | { type: 'turn.completed'; turnId: string; origin: Origin; result: TurnResult; logId: number }
  /** `usage`: what the turn used before it failed or was stopped (counted like a completed turn's). */
  | { type: 'turn.failed'; turnId: string; origin: Origin; error: ReadableError; partial: string; logId: number; usage: UsageInfo }
  | { type: 'turn.cancelled'; turnId: string; origin: Origin; partial: string; logId: number; usage: UsageInfo }
  /** A queued turn taken back before it started: it never reached the session, and its log row is gone. */
  | { type: 'turn.withdrawn'; turnId: string; origin: Origin; logId: number }
  | { type: 'session.ready'; sessionId: string; how: 'created' | 'resumed' | 'recovered' | 'drifted'; reason?: string }
  | { type: 'busy'; busy: boolean; queued: number }
  | { type: 'model.changed'; model: string };

/** Every event names the conversation it happened in (several answer at once; the panel shows one). */
export type OrchestratorEvent = OrchestratorEventBody & { conversation: string };

export type OrchestratorEventType = OrchestratorEvent['type'];

/** A partial reply's note (why it stopped) goes under what arrived. */
export function withNote(content: string, note?: string): string {
  return note ? `${content}${content ? '\n\n' : ''}_${note}_` : content;
}
