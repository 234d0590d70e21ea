// Which log rows the panel shows as "Queued": waiting in a conversation's queue, not yet sent to its session.
import { deliveredAt } from '../orchestrator/rewind';
import type { LogEntry } from '../store/types';

/**
 * How a row waits to be sent: in this window's queue (`here`: your message can be removed), in the queue of the
 * window that runs the conversation (`elsewhere`: Remove cancels it there), or not at all.
 */
export type Queued = 'here' | 'elsewhere' | undefined;

/**
 * How each row of a conversation waits. `waiting`: the rows in this window's queue (its word is exact). Another
 * window's queue is read from the log: a message waits there while its row is pending and its prompt has not been
 * delivered to the session (the owner records where it was delivered, `recordDelivered`, as its turn sends it). The
 * row being answered is pending too, so the queue or that record is the only way to tell the two apart. `ownerElsewhere`
 * is asked at most once, and only when a row could wait elsewhere (it reads the conversation's claim file).
 */
export function queuedRows(waiting: ReadonlyMap<number, unknown> | undefined, ownerElsewhere: () => boolean): (row: LogEntry) => Queued {
  let elsewhere: boolean | undefined;
  return (row) => {
    if (waiting?.has(row.id)) return 'here';
    if (row.status !== 'pending' || row.role === 'assistant' || deliveredAt(row)) return undefined;
    elsewhere ??= ownerElsewhere();
    return elsewhere ? 'elsewhere' : undefined;
  };
}
