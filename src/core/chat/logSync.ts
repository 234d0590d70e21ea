// Keeps the chat panel in step with the log and live reply other windows write to the shared store.
import type { ChatMessage, HostMessageBody } from '../../shared/protocol';
import type { WindowStamp } from '../orchestrator/conversationClaims';
import { readLiveReply, windowMeta } from '../orchestrator/sharedConversation';
import { MAIN_CONVERSATION, type BatonStore, type LogEntry } from '../store/types';
import type { Queued } from './queuedRows';
import { toChatMessage } from './toChatMessage';

/**
 * A sync of only the rows this window changed adds at most this many rows before the whole visible log is read again,
 * which drops what scrolled out of it: the maps stay within the visible log and this many rows.
 */
const ROWS_BEFORE_FULL_READ = 50;

/** Whether the panel shows a log row at all: a worker result set aside (never handed to the orchestrator) is not. */
export function shownInPanel(entry: LogEntry): boolean {
  return !(entry.role === 'system' && entry.status === 'cancelled');
}

/** A log row as last converted for the panel: kept while the row is in the visible log, so a sync converts only rows that changed. */
interface Converted {
  row: LogEntry;
  message: ChatMessage;
  /** The message as JSON: what the panel was last sent of it is compared with this. */
  state: string;
  /** The message this row replies to (its meta's `for`). */
  answers: number | undefined;
  /** Converted as a message still waiting in a queue, and whose. */
  queued: Queued;
}

/**
 * What the webview shows of the log, and the updates that bring it up to the store. Bounded by the visible log: every
 * map holds entries only for rows the last sync read (or replies streaming now), never one per turn ever run.
 */
export class LogSync {
  /** What the webview shows of the log, by message id: its last state (undefined: shown, as this window built it). */
  private readonly shown = new Map<string, string | undefined>();
  /** This window's replies, shown under their turn's id while they streamed. */
  private readonly ownReplies = new Map<number, string>();
  private syncTimer: NodeJS.Timeout | undefined;
  private logChanged = false;
  /**
   * The rows this window changed since the last sync, when it named them all; undefined once any change did not (or
   * came from another window): the next sync then reads the whole visible log.
   */
  private changedRows: Set<number> | undefined = new Set();
  /** Rows appended by syncs of changed rows only since the last whole read: past ROWS_BEFORE_FULL_READ, one is due. */
  private appendedSinceFullRead = 0;
  /** The newest log row the panel shows: an older one arriving late (from another window) needs a new snapshot. */
  private newestShown = 0;
  /** Replies streaming in another window, shown as `live-<message id>` until their row arrives. */
  private readonly remoteLive = new Set<number>();
  /** Each visible row as last converted, by row id (every log change reads the visible log again). */
  private readonly converted = new Map<number, Converted>();
  private readonly offStore: () => void;

  constructor(
    private readonly store: BatonStore,
    /** The log rows the panel shows. */
    private readonly visibleLog: () => LogEntry[],
    private readonly send: (body: HostMessageBody) => void,
    private readonly postSnapshot: () => void,
    /** This window, so messages from another window sharing the conversation are marked as such. */
    private readonly self?: WindowStamp,
    /** The conversation shown (its live reply streaming in another window). */
    private readonly conversation: () => string = () => MAIN_CONVERSATION,
    /** How the rows of the conversation shown wait to be sent (shown as queued; queuedRows.ts), read once per sync. */
    private readonly queuedNow: () => (row: LogEntry) => Queued = () => () => undefined,
    /** The id this window's reply to message `answers` streams under, while its turn has not ended (liveTurns.ts). */
    private readonly ownLive: (answers: number) => string | undefined = () => undefined,
    /** A reply began or ended streaming in another window (the panel's Stop stops it there: streamingElsewhere). */
    private readonly liveElsewhereChanged: () => void = () => undefined,
  ) {
    // Another window's messages and replies (and a message marked interrupted here) reach the panel as they are written.
    this.offStore = store.onDidChange((what, fromOtherWindow, rows) => {
      if (what !== 'log' && what !== 'state') return;
      // A streaming reply of another window changes only the state: the log is compared again only when it changed.
      if (what === 'log') {
        this.logChanged = true;
        if (rows && !fromOtherWindow) for (const id of rows) this.changedRows?.add(id);
        else this.changedRows = undefined;
      }
      if (this.syncTimer) return;
      this.syncTimer = setTimeout(() => {
        this.syncTimer = undefined;
        const changed = this.changedRows;
        this.changedRows = new Set();
        const streaming = this.streamingElsewhere;
        if (this.logChanged && changed) this.syncRows([...changed]);
        else if (this.logChanged) this.syncFromStore();
        else this.syncLiveReply();
        this.logChanged = false;
        // Its reply row written (a log sync) or its stream gone (a state sync): either way Stop goes.
        if (this.streamingElsewhere !== streaming) this.liveElsewhereChanged();
      }, 20);
    });
  }

  /** Entries held about the panel's messages (its bound is tested: about the visible log, however many turns ran). */
  get tracked(): number {
    return this.shown.size + this.ownReplies.size + this.remoteLive.size + this.converted.size;
  }

  /** The message another window is answering in the conversation shown, as this panel shows it streaming. */
  get streamingElsewhere(): number | undefined {
    return this.remoteLive.values().next().value;
  }

  /** A message this window queued, appended to the panel as it was. */
  queued(logId: number): void {
    this.shown.set(`log-${logId}`, undefined);
    this.newestShown = Math.max(this.newestShown, logId);
  }

  /** How row `logId` waits changed without a change to the row (another window's message joined this window's queue). */
  rowChanged(logId: number): void {
    this.syncRows([logId]);
  }

  /** This window's reply, stored as `logId`, streamed under `liveId`. */
  ownReply(logId: number, liveId: string): void {
    if (this.ownReplies.get(logId) === liveId) return;
    this.ownReplies.set(logId, liveId);
    this.newestShown = Math.max(this.newestShown, logId);
    this.shown.set(liveId, undefined);
  }

  /** A snapshot was taken: the panel shows exactly these rows as these messages. */
  reset(rows: LogEntry[], messages: ChatMessage[]): void {
    this.shown.clear();
    this.ownReplies.clear();
    this.remoteLive.clear();
    for (const m of messages) this.shown.set(m.id, JSON.stringify(m));
    this.newestShown = rows.at(-1)?.id ?? 0;
  }

  dispose(): void {
    this.offStore();
    if (this.syncTimer) clearTimeout(this.syncTimer);
  }

  /** Brings the panel up to the log: new rows appended, changed rows updated, a cleared log as a new snapshot. */
  private syncFromStore(): void {
    let rows: LogEntry[];
    try {
      rows = this.visibleLog();
    } catch {
      return; // the store is closing
    }
    const seen = new Set<string>();
    const pending: HostMessageBody[] = [];
    const read = new Set<number>();
    const queued = this.queuedNow();
    this.appendedSinceFullRead = 0;
    // The log reads in the conversation's order (a reply right after its message, though written after messages queued
    // behind it): a new row before one the panel shows cannot be appended in order.
    let lastShown = -1;
    rows.forEach((row, i) => this.tracks(row.id) && (lastShown = i));
    for (const [i, row] of rows.entries()) {
      read.add(row.id);
      if (i < lastShown && !this.tracks(row.id)) return this.postSnapshot();
      const id = this.bring(row, pending, queued);
      if (id === undefined) return this.postSnapshot();
      seen.add(id);
    }
    // Rows older than the oldest shown were pruned; a newer one gone means the log was cleared (New Chat elsewhere).
    const oldest = rows[0]?.id ?? Number.POSITIVE_INFINITY;
    const gone = [...this.shown.keys()].filter((id) => !seen.has(id) && id.startsWith('log-'));
    if (gone.some((id) => Number(id.slice(4)) >= oldest) || (!rows.length && gone.length)) return this.postSnapshot();
    for (const id of gone) this.shown.delete(id);
    // A reply of this window shown under its turn's id leaves the panel's list with its row (pruned from the log).
    for (const [logId, id] of this.ownReplies) {
      if (seen.has(id)) continue;
      this.ownReplies.delete(logId);
      this.shown.delete(id);
    }
    for (const id of this.converted.keys()) if (!read.has(id)) this.converted.delete(id);
    for (const body of pending) this.send(body);
    this.syncLiveReply();
  }

  /**
   * Brings the panel up to the rows this window changed (their ids known), without reading the whole visible log: the
   * same as syncFromStore for them. Anything it cannot decide from those rows alone is left to syncFromStore: a row
   * gone, hidden or older than the rows shown (deleted, set aside, or outside the visible log), or a whole read due.
   */
  private syncRows(ids: number[]): void {
    let rows: LogEntry[];
    try {
      rows = this.store.logRows(ids).filter((row) => row.conversation === this.conversation());
    } catch {
      return; // the store is closing
    }
    const found = new Set(rows.map((r) => r.id));
    const decidable =
      // Missing: deleted, or of another conversation (then the panel does not show it).
      ids.every((id) => found.has(id) || !this.tracks(id)) &&
      // Shown already (updated in place), or newer than every row shown (appended).
      rows.every((row) => shownInPanel(row) && (this.tracks(row.id) || row.id > this.newestShown)) &&
      this.appendedSinceFullRead + rows.length <= ROWS_BEFORE_FULL_READ;
    if (!decidable) return this.syncFromStore();
    const pending: HostMessageBody[] = [];
    const queued = this.queuedNow();
    for (const row of rows) {
      if (!this.converted.has(row.id)) this.appendedSinceFullRead++;
      if (this.bring(row, pending, queued) === undefined) return this.postSnapshot();
    }
    for (const body of pending) this.send(body);
    this.syncLiveReply();
  }

  /** Whether the panel shows row `id` (as its log message or as this window's reply). */
  private tracks(id: number): boolean {
    return this.converted.has(id) || this.shown.has(`log-${id}`) || this.ownReplies.has(id);
  }

  /**
   * Queues what the panel needs for one visible row (appended, updated or nothing) and returns the message id it is
   * shown under; undefined when it cannot be appended in order (the panel needs a snapshot).
   */
  private bring(row: LogEntry, pending: HostMessageBody[], queued: (row: LogEntry) => Queued): string | undefined {
    const { message, state, answers } = this.convert(row, queued(row));
    // A reply that streamed here from another window takes the place of what streamed.
    const streamed = answers !== undefined && this.remoteLive.delete(answers) ? `live-${answers}` : undefined;
    // This window's reply, written while its turn still runs (a summary after it): it is the message streaming there.
    const live = answers !== undefined && row.role === 'assistant' && !this.ownReplies.has(row.id) ? this.ownLive(answers) : undefined;
    if (live) this.ownReply(row.id, live);
    const id = this.ownReplies.get(row.id) ?? streamed ?? message.id;
    if (streamed) this.ownReplies.set(row.id, streamed);
    if (!this.shown.has(id)) {
      // Written by another window before rows this panel already shows: appended, it would be out of order.
      if (row.id < this.newestShown) return undefined;
      this.newestShown = row.id;
      pending.push({ type: 'message/append', message });
    } else if (this.shown.get(id) !== state) {
      const { id: _id, ...patch } = message;
      pending.push({ type: 'message/update', id, patch });
    } else return id;
    this.shown.set(id, state);
    return id;
  }

  /** The row as the panel shows it, converted again only when the row changed since the last sync. */
  private convert(row: LogEntry, queued: Queued): Converted {
    const known = this.converted.get(row.id);
    if (known && known.queued === queued && sameRow(known.row, row)) return known;
    const message = toChatMessage(row, this.self, queued);
    const converted = { row, message, state: JSON.stringify(message), answers: windowMeta(row.meta).for, queued };
    this.converted.set(row.id, converted);
    return converted;
  }

  /** Another window's reply as it streams there. */
  private syncLiveReply(): void {
    const live = readLiveReply(this.store, this.conversation());
    const remote = live && this.self && live.window.instance !== this.self.instance ? live : undefined;
    for (const f of this.remoteLive) {
      if (remote?.for === f) continue;
      // It stopped streaming without a reply row (its window is gone): what arrived stays, marked partial.
      this.remoteLive.delete(f);
      this.send({ type: 'message/update', id: `live-${f}`, patch: { status: 'partial' } });
    }
    if (!remote || this.answered(remote.for)) return;
    const id = `live-${remote.for}`;
    if (!this.remoteLive.has(remote.for)) {
      // A reply to a message older than the newest shown would be appended out of order: its row, when written, brings
      // a snapshot in log order instead (syncFromStore).
      if (remote.for < this.newestShown) return;
      this.remoteLive.add(remote.for);
      this.shown.set(id, undefined);
      this.send({
        type: 'message/append',
        message: { id, role: 'assistant', content: remote.text, status: 'streaming', source: 'panel', from: remote.window.label, ts: Date.now() },
      });
    } else this.send({ type: 'message/update', id, patch: { content: remote.text } });
  }

  private answered(logId: number): boolean {
    return [...this.ownReplies.values()].includes(`live-${logId}`);
  }
}

function sameRow(a: LogEntry, b: LogEntry): boolean {
  return a.status === b.status && a.content === b.content && a.meta === b.meta && a.role === b.role && a.source === b.source && a.ts === b.ts;
}
