// The conversation log on the store's tables, one log per conversation. Ids come from the clock (see
// SqlJsStore.freshId), so they sort in time order across windows and conversations; each conversation's log is pruned
// to its newest LOG_KEEP rows unless pruning is turned off. The conversations themselves (their titles, the bound on
// how many are kept) are in the same ops (storeOps.ts), so a row and its conversation are always written together.
import { inConversationOrder } from './conversationOrder';
import { CONVERSATIONS_KEEP, LOG_BYTES_KEEP, LOG_KEEP, LOG_NEWEST_ALWAYS } from './bounds';
import { titleFrom } from './conversationTitle';
import type { IssuedIds } from './issuedIds';
import { conversationRowSchema, logHeadSchema, logRowSchema, sqliteTimestamp, sqliteTimestampMs } from './rowSchemas';
import type { TableAccess } from './sqlJsMemories';
import { MAIN_CONVERSATION, type ConversationRow, type LogEntry, type LogHead, type LogRole, type LogStatus } from './types';

// Pruning looks for rows past LOG_KEEP; doing it once per this many inserts keeps that query off most turns.
const LOG_PRUNE_EVERY = 50;
// The text's size is checked again once this many characters were written since (appended, or a row's text replaced):
// fifty inserts of pasted logs and long replies wrote tens of MB past LOG_BYTES_KEEP between two checks.
const LOG_BYTES_CHECK_CHARS = 2 ** 20;
// Conversations whose inserts since their last prune are counted (the most recently written): past it the one written
// longest ago is pruned now and forgotten. One counter per conversation ever written (asTool's 'fresh' calls) grew for
// the life of the window.
const PRUNE_COUNTERS_KEEP = 64;
const COLUMNS = 'id, conversation, role, content, source, status, meta, ts';

export class SqlJsConversationLog {
  private readonly insertsSincePrune = new Map<string, number>();
  private insertsSinceBytes = 0;
  private charsSinceBytes = 0;
  /** The last activity time this window wrote (ms): the next is later, so two in one millisecond still sort as they came. */
  private lastAt = 0;
  /** The conversations this window uses (BatonStore.keepInUse): frozen into each op that may push some out. */
  inUse: () => Iterable<string> = () => [];

  constructor(
    private readonly access: TableAccess,
    private readonly ids: IssuedIds,
    private readonly pruneLog: boolean,
  ) {}

  append(entry: { role: LogRole; content: string; source?: string; status?: LogStatus | null; meta?: string | null; conversation?: string }): number {
    const id = this.access.freshId('conversation_log');
    const conversation = entry.conversation ?? MAIN_CONVERSATION;
    this.access.commit({
      op: 'appendLog',
      issued: id,
      role: entry.role,
      content: entry.content,
      source: entry.source ?? 'unknown',
      status: entry.status ?? null,
      meta: entry.meta ?? null,
      ts: sqliteTimestamp(),
      at: this.nextAt(),
      conversation,
      title: entry.role === 'user' ? titleFrom(entry.content) : '',
      keepConversations: CONVERSATIONS_KEEP,
      ...this.inUseNow(),
    });
    const inserts = (this.insertsSincePrune.get(conversation) ?? 0) + 1;
    // Re-inserted, so the map's order is the order conversations were last written in.
    this.insertsSincePrune.delete(conversation);
    this.insertsSincePrune.set(conversation, inserts);
    if (this.pruneLog && inserts >= LOG_PRUNE_EVERY) this.prune(conversation);
    this.forgetCountersPastBound();
    this.charsSinceBytes += entry.content.length;
    if (this.pruneLog && (++this.insertsSinceBytes >= LOG_PRUNE_EVERY || this.charsSinceBytes >= LOG_BYTES_CHECK_CHARS)) this.pruneBytes();
    return id;
  }

  update(id: number, patch: { content?: string; status?: LogStatus; meta?: string | null }): void {
    this.access.commit({ op: 'updateLog', target: this.ids.ref(id), ...patch });
    this.charsSinceBytes += patch.content?.length ?? 0;
    if (this.pruneLog && this.charsSinceBytes >= LOG_BYTES_CHECK_CHARS) this.pruneBytes();
  }

  /** Conversations whose inserts are counted now (bounded by PRUNE_COUNTERS_KEEP; tests). */
  get pruneCounters(): number {
    return this.insertsSincePrune.size;
  }

  private forgetCountersPastBound(): void {
    while (this.insertsSincePrune.size > PRUNE_COUNTERS_KEEP) {
      const oldest = this.insertsSincePrune.keys().next().value as string;
      if (this.pruneLog) this.prune(oldest);
      this.insertsSincePrune.delete(oldest);
    }
  }

  remove(id: number): void {
    this.access.commit({ op: 'deleteLog', target: this.ids.ref(id) });
  }

  /** The newest `limit` rows, in the conversation's order: each reply after the message it answers (conversationOrder.ts). */
  recent(limit: number, conversation = MAIN_CONVERSATION): LogEntry[] {
    const sql = `SELECT ${COLUMNS} FROM (SELECT * FROM conversation_log WHERE conversation = ? ORDER BY id DESC LIMIT ?) ORDER BY id`;
    return inConversationOrder(this.access.read(() => this.access.tables.rows('conversation_log', sql, [conversation, limit], logRowSchema), []));
  }

  heads(limit: number, conversation = MAIN_CONVERSATION): LogHead[] {
    const sql =
      'SELECT id, role, status, meta FROM (SELECT id, role, status, meta FROM conversation_log WHERE conversation = ? ORDER BY id DESC LIMIT ?) ORDER BY id';
    return this.access.read(() => this.access.tables.rows('conversation_log', sql, [conversation, limit], logHeadSchema), []);
  }

  /** The rows with these ids that exist (of any conversation), by id. */
  rows(ids: readonly number[]): LogEntry[] {
    if (!ids.length) return [];
    // One statement per count of ids (a turn writes one or two rows at a time), so few are ever prepared.
    const sql = `SELECT ${COLUMNS} FROM conversation_log WHERE id IN (${ids.map(() => '?').join(', ')}) ORDER BY id`;
    return this.access.read(() => this.access.tables.rows('conversation_log', sql, [...ids], logRowSchema), []);
  }

  /** See BatonStore.searchLog. instr, not LIKE: the text's % and _ are matched as themselves. */
  search(text: string, limit: number): LogEntry[] {
    if (!text) return [];
    const sql = `SELECT ${COLUMNS} FROM conversation_log WHERE role IN ('user', 'assistant') AND instr(lower(content), lower(?)) > 0 ORDER BY id DESC LIMIT ?`;
    return this.access.read(() => this.access.tables.rows('conversation_log', sql, [text, limit], logRowSchema), []);
  }

  markInterrupted(which: (entry: LogEntry) => boolean = () => true, conversation = MAIN_CONVERSATION): LogEntry[] {
    const sql = `SELECT ${COLUMNS} FROM conversation_log WHERE conversation = ? AND role = 'user' AND status = 'pending' ORDER BY id`;
    const pending = this.access.read(() => this.access.tables.rows('conversation_log', sql, [conversation], logRowSchema), []).filter(which);
    if (!pending.length) return [];
    // The ids are frozen now: a replay must not mark entries another window is still waiting on.
    this.access.commit({ op: 'markInterrupted', targets: pending.map((e) => this.ids.ref(e.id)) });
    return pending.map((e) => ({ ...e, status: 'interrupted' as const }));
  }

  clear(conversation = MAIN_CONVERSATION): void {
    this.access.commit({ op: 'clearLog', conversation });
    this.access.compactIfSparse();
  }

  /** Drops all but the newest LOG_KEEP rows of `conversation` (of every conversation when undefined), if there are more. */
  prune(conversation?: string): void {
    const over = conversation
      ? this.access.tables.first('SELECT 1 FROM conversation_log WHERE conversation = ? ORDER BY id DESC LIMIT 1 OFFSET ?', [conversation, LOG_KEEP])
        ? [conversation]
        : []
      : this.access.tables.column('SELECT conversation FROM conversation_log GROUP BY conversation HAVING count(*) > ?', [LOG_KEEP]).map(String);
    if (conversation) this.insertsSincePrune.set(conversation, 0);
    for (const c of over) this.access.commit({ op: 'pruneLog', keep: LOG_KEEP, conversation: c });
    const pruned = !conversation && this.pruneBytes(false);
    if (over.length || pruned) this.access.compactIfSparse();
  }

  /** Drops the oldest rows, of whichever conversation, while the log's text passes LOG_BYTES_KEEP (bounds.ts). */
  private nextAt(): string {
    this.lastAt = Math.max(Date.now(), this.lastAt + 1);
    return sqliteTimestampMs(new Date(this.lastAt));
  }

  private pruneBytes(compact = true): boolean {
    this.insertsSinceBytes = 0;
    this.charsSinceBytes = 0;
    // One pass over the rows' sizes (about 11 ms for 20 MB): at open, and once in LOG_PRUNE_EVERY inserts.
    if (this.access.tables.number('SELECT SUM(octet_length(content)) FROM conversation_log') <= LOG_BYTES_KEEP) return false;
    this.access.commit({ op: 'pruneLogBytes', keep: LOG_BYTES_KEEP, newestAlways: LOG_NEWEST_ALWAYS });
    if (compact) this.access.compactIfSparse();
    return true;
  }

  // ---------------------------------------------------------------- conversations

  createConversation(id: string): void {
    // Opening one that exists changes nothing, so it is no op: every start opens the conversation the panel shows, and
    // an op would write the whole file again a moment later (and be replayed on another window's file).
    if (this.access.tables.first('SELECT 1 FROM conversations WHERE id = ?', [id])) return;
    this.access.commit({ op: 'createConversation', id, ts: this.nextAt(), keep: CONVERSATIONS_KEEP, ...this.inUseNow() });
  }

  private inUseNow(): { inUse?: string[] } {
    const inUse = [...this.inUse()];
    return inUse.length ? { inUse } : {};
  }

  listConversations(): ConversationRow[] {
    const sql = `SELECT c.id, c.title, c.renamed, c.created_at, c.last_activity,
        (SELECT count(*) FROM conversation_log l WHERE l.conversation = c.id) AS messages
      FROM conversations c ORDER BY c.last_activity DESC, c.created_at DESC, c.id DESC`;
    return this.access.read(() => this.access.tables.rows('conversations', sql, [], conversationRowSchema), []);
  }

  renameConversation(id: string, title: string): boolean {
    if (!this.access.tables.first('SELECT 1 FROM conversations WHERE id = ?', [id])) return false;
    this.access.commit({ op: 'renameConversation', id, title });
    return true;
  }

  deleteConversation(id: string): void {
    this.access.commit({ op: 'deleteConversation', id });
    this.insertsSincePrune.delete(id);
    this.access.compactIfSparse();
  }
}
