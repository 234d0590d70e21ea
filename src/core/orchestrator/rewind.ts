// Taking a conversation back to just before one of your messages, so an edited one can be sent in its place: the
// session forgets that message and everything after it, and the log drops them. Where the runtime recorded each
// prompt (its user message event) is kept in the message's log row when it is delivered; the session is truncated
// there. A message the live session does not have as it was sent (sent to an earlier session, or with recovery or
// summary context riding on it) cannot be cut out of it: the session is replaced instead by a new one that starts
// from the log's turns before the message, as a lost session is recovered.
import { parseLogMeta } from '../store/logMeta';
import type { BatonStore, LogEntry } from '../store/types';
import type { Logger } from '../util/logger';
import type { DeliveredAt } from './retries';
import type { SessionKeeper } from './sessionKeeper';

/** Why a conversation could not be taken back; `message` is written for people. */
export class RewindError extends Error {
  constructor(
    readonly reason: 'busy' | 'not-found' | 'elsewhere',
    message: string,
  ) {
    super(message);
    this.name = 'RewindError';
  }
}

/** Keeps where the runtime recorded row `logId`'s prompt, in the row's meta (`delivered`). */
export function recordDelivered(store: BatonStore, logId: number, at: DeliveredAt): void {
  const row = store.logRows([logId])[0];
  if (!row) return;
  store.updateLog(logId, { meta: JSON.stringify({ ...parseLogMeta(row.meta), delivered: at }) });
}

/** Where the row's prompt is in its session, if it was delivered and recorded. */
export function deliveredAt(row: LogEntry): DeliveredAt | undefined {
  const d = parseLogMeta(row.meta).delivered as Partial<DeliveredAt> | undefined;
  return d && typeof d.session === 'string' && typeof d.event === 'string' ? { session: d.session, event: d.event, carried: d.carried === true } : undefined;
}

export interface RewindParts {
  /** The conversation's own view of the store. */
  store: BatonStore;
  keeper: SessionKeeper;
  logger: Logger;
  /** The conversation's log as far back as it is kept. */
  logScan: number;
}

/**
 * Runs between turns. Returns how the session was taken back: 'truncated' (the live or saved session cut at the
 * message) or 'replaced' (a new one from the log before it, at the next message).
 */
export async function rewindConversation(parts: RewindParts, logId: number, model: string, throughId = Infinity): Promise<'truncated' | 'replaced'> {
  const { store, keeper, logger } = parts;
  // Up to the last row when the take-back was asked: a message sent since waits behind it in the queue, its row
  // written, and goes after it (it was deleted, and still sent to the model).
  const log = store.recentLog(parts.logScan).filter((e) => e.id <= throughId);
  const index = log.findIndex((e) => e.id === logId);
  const row = log[index];
  if (!row || row.role !== 'user') throw new RewindError('not-found', 'That message is no longer in this conversation.');
  const at = deliveredAt(row);
  const sessionId = keeper.current?.id ?? keeper.savedId;
  let how: 'truncated' | 'replaced' = 'replaced';
  if (at && !at.carried && at.session === sessionId) {
    try {
      // Resumed if it is not live; a resume that opened another session (Baton was updated meanwhile) has no such event.
      const session = await keeper.ensure(model);
      if (session.id !== at.session) throw new Error(`the session now open is ${session.id}`);
      await session.truncateFrom(at.event);
      how = 'truncated';
    } catch (err) {
      logger.warn(
        `Edit: the session could not be cut at message ${logId} (${err instanceof Error ? err.message : String(err)}); starting a new one from the log`,
      );
    }
  }
  // Newest first, so a crash part-way leaves a log that ends earlier, never one with a hole.
  for (const e of log.slice(index).reverse()) store.deleteLog(e.id);
  keeper.takenBackTo(logId);
  if (how === 'replaced') {
    const old = keeper.restartFromLog('the user edited an earlier message; what came after it was taken back');
    // The saved one, and one the attempt above opened instead: neither is left behind as an orphan.
    await keeper.retire(old, [sessionId]);
  }
  logger.info(`Edit: conversation taken back to before message ${logId} (${log.length - index} message(s); session ${how})`);
  return how;
}
