// The orchestrator's typed lifecycle events (after Warlock). The panel, the log and the status bar
// are only subscribers: nothing in core knows who listens.
import type { RouteInfo, UsageInfo, WorkerResultCard } from '../../shared/protocol';
import type { ReadableError } from '../copilot/errors';
import type { CallUsage } from '../copilot/callUsage';

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
  /** Questions to the user (permissions, apply confirms) still open when the turn ended: it awaits their input. */
  awaitingInput?: number;
}

/** An event as the parts of one conversation's orchestrator raise it; the orchestrator adds its conversation. */
export type OrchestratorEventBody =
  /**
   * `workerResult`: a finished worker's card, for what people read (the prompt is the model's wrapper). `elsewhere`:
   * sent to the window that runs this conversation, so it waits in that window's queue, not this one's.
   */
  | { type: 'turn.queued'; turnId: string; prompt: string; origin: Origin; logId: number; workerResult?: WorkerResultCard; elsewhere?: true }
  /**
   * A message another window sent to this one (the window running the conversation) joined this window's queue: its
   * row, written there and read here already, is shown as waiting here now (turn.queued told the window that sent it).
   */
  | { type: 'turn.adopted'; turnId: string; logId: number }
  | { type: 'turn.started'; turnId: string; origin: Origin; logId: number }
  /** `classified`: the classifier's answer, when it was asked. */
  | { type: 'turn.routed'; turnId: string; route: RouteInfo; classified?: string }
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
  // The turn lifecycle after Warlock's orchestrator (see turnLifecycle.ts), each at most once per turn, in this order.
  /** The session the turn found: the live or saved one (resumed), a new one (created), or one replaced with context (recovered). */
  | { type: 'session.loaded'; turnId: string; sessionId?: string; how: 'resumed' | 'created' | 'recovered'; reason: string }
  /** The definition signature (version, model, tools and their schemas) compared with the session's. */
  | { type: 'drift.checked'; turnId: string; drifted: boolean; signature: string; previous?: string; action: DriftAction }
  /** A compaction holds the conversation: the turn waits for it. */
  | { type: 'lock.waiting'; turnId: string; holder: 'compaction' }
  /** What the turn sends besides the message: recovery or summary context, caller history, relevant memories. */
  | { type: 'history.windowed'; turnId: string; window: HistoryWindow }
  | { type: 'checkpoint.persisted'; turnId: string; turnIndex: number }
  | { type: 'compaction.suggested'; turnId?: string; turns: number; afterTurns: number; keep: number }
  /** `usage`: the runtime's own compaction's model call (Baton's summary reports its own through onUsage). */
  | { type: 'compaction.applied'; turnId?: string; compaction: Compaction; usage?: CallUsage }
  /** Refused before anything reached the model: the definition drifted and the caller asked for an error. */
  | { type: 'turn.refused'; turnId: string; origin: Origin; reason: 'drift'; message: string; signature: string; previous?: string }
  /** Taken back to just before message `logId` (an edit, a retry; the panel, the Chat view or the API): the log lost it and what followed. */
  | { type: 'conversation.rewound'; logId: number; how: 'truncated' | 'replaced' }
  | { type: 'busy'; busy: boolean; queued: number }
  | { type: 'model.changed'; model: string };

/** Every event names the conversation it happened in (several answer at once; the panel shows one). */
export type OrchestratorEvent = OrchestratorEventBody & { conversation: string };

/** none: no drift; renewed: a fresh session with recovery context; refused: the turn failed; forced: run anyway. */
export type DriftAction = 'none' | 'renewed' | 'refused' | 'forced';

export interface HistoryWindow {
  /** A recovery context (a replaced session) or a compaction's summary rides on the prompt. */
  context: 'none' | 'recovery' | 'summary';
  /** Messages of caller-given history sent (a new conversation only). */
  history: number;
  /** The memories matched to the message and sent with it, best first. */
  memories: Array<{ id: number; category: string }>;
  /** Characters of the prompt as sent (message, tag and context). */
  promptChars: number;
}

/** A summarize step's result (Warlock's compact command). Indices count the conversation's messages, oldest 0. */
export interface Compaction {
  summary: string;
  replacesFromIndex: number;
  replacesToIndex: number;
  /** Messages kept verbatim after the summary. */
  kept: number;
  /** Estimated tokens the session no longer carries (4 characters a token). */
  tokensFreed: number;
  how: 'baton' | 'runtime';
}

/** What a caller may ask of one turn. */
export interface TurnOptions {
  /** 'error': a drifted definition fails the turn before anything runs; default 'renew' (a fresh session with context). */
  onDrift?: 'renew' | 'error';
  /** Runs on the session even when the definition drifted. */
  force?: boolean;
  /** Prior messages the caller holds, sent when the conversation has none of its own yet. */
  history?: Array<{ role: 'user' | 'assistant'; content: string }>;
}

export type OrchestratorEventType = OrchestratorEvent['type'];

/** A partial reply's note (why it stopped) goes under what arrived. */
export function withNote(content: string, note?: string): string {
  return note ? `${content}${content ? '\n\n' : ''}_${note}_` : content;
}
