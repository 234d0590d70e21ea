// How a message becomes a turn: queued in this window, adopted from another window, or run by the window that owns it.
import type { RouteInfo } from '../../shared/protocol';
import type { ReadableError } from '../copilot/errors';
import type { LogEntry } from '../store/types';
import { REPLY_CHANNELS, type Channel, type Origin, type TurnResult } from './events';
import type { SharedConversation, WindowMeta } from './sharedConversation';
import { TurnError, type QueuedTurn, type TurnHandle } from './turn';

/** Turns numbered in this process, across every conversation (newTurnId). */
let turnsNumbered = 0;

/**
 * A turn's id, unique in the window: the API's calls, Stop and withdraw find a turn by it alone, whatever its
 * conversation. A counter per conversation gave two conversations' turns asked in one millisecond the same id: one's
 * events went to the other's caller, and cancelling one stopped the other.
 */
export function newTurnId(): string {
  return `t${Date.now().toString(36)}-${(++turnsNumbered).toString(36)}`;
}

export function promptOf(text: string, origin: Origin, context: string | undefined): string {
  return `${origin.channel === 'background' ? text : `[via ${origin.channel}] ${text}`}${context ? `\n\n${context}` : ''}`;
}

function toChannel(source: string): Exclude<Channel, 'background'> {
  return (REPLY_CHANNELS as readonly string[]).includes(source) ? (source as Exclude<Channel, 'background'>) : 'panel';
}

/** A turn this window queues for its own session, and the handle its caller waits on. */
export function localTurn(fields: Pick<QueuedTurn, 'turnId' | 'prompt' | 'origin' | 'logId' | 'resend' | 'text' | 'options'>): {
  turn: QueuedTurn;
  handle: TurnHandle;
} {
  let resolve!: (r: TurnResult) => void;
  let reject!: (e: unknown) => void;
  const done = new Promise<TurnResult>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  let markStarted!: () => void;
  let abandon!: (e: unknown) => void;
  const started = new Promise<void>((res, rej) => {
    markStarted = res;
    abandon = rej;
  });
  // Callers that only listen to events must not trigger unhandled-rejection warnings.
  done.catch(() => undefined);
  started.catch(() => undefined);
  const { turnId, prompt, origin, logId, resend, text, options } = fields;
  return { turn: { turnId, prompt, origin, logId, resolve, reject, markStarted, abandon, resend, text, options }, handle: { turnId, logId, started, done } };
}

/** A turn for a message another window wrote to the store for this window (the conversation's owner) to run. */
export function adoptedTurn(row: LogEntry, meta: WindowMeta, turnId: string): QueuedTurn {
  const background = row.role === 'system';
  const origin: Origin = background ? { channel: 'background', worker: row.source.replace(/^background:/, '') } : { channel: toChannel(row.source) };
  const ignore = (): void => undefined;
  return {
    turnId,
    prompt: promptOf(row.content, origin, meta.context),
    text: row.content,
    origin,
    logId: row.id,
    resolve: ignore,
    reject: ignore,
    markStarted: ignore,
    abandon: ignore,
    resend: meta.resend,
  };
}

/** The handle of a message another window runs: it left this window when its row was written. */
export function remoteTurn(shared: SharedConversation, turnId: string, logId: number): TurnHandle {
  const done = shared.awaitRemote(logId, turnId).then(({ reply, ended, removed, cancelled }): TurnResult => {
    if (!reply) {
      const message = cancelled
        ? 'The message was cancelled.'
        : removed
          ? 'The message was removed from the queue in the window running this conversation, before it was sent.'
          : ended?.status === 'interrupted'
            ? 'The window running this conversation closed before answering.'
            : 'Baton was closed before this message was answered.';
      throw new TurnError({ kind: 'cancelled', message }, '');
    }
    const meta = JSON.parse(reply.meta ?? '{}') as { route?: RouteInfo; usage?: TurnResult['usage']; error?: ReadableError };
    if (reply.status === 'failed') throw new TurnError(meta.error ?? { kind: 'fatal', message: reply.content }, '');
    const status = reply.status === 'partial' || reply.status === 'cancelled' ? reply.status : 'complete';
    return { turnId, content: reply.content, status, route: meta.route ?? { tier: 'fixed', model: '', reason: 'disabled' }, usage: meta.usage };
  });
  done.catch(() => undefined);
  return { turnId, logId, started: Promise.resolve(), done };
}
