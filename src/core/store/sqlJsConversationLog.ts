// The conversation log on the store's tables. Ids come from the clock (see SqlJsStore.freshId), so they sort in time
// order across windows; the log is pruned to its newest LOG_KEEP rows unless pruning is turned off.
import { LOG_KEEP } from './bounds';
import type { IssuedIds } from './issuedIds';
import { logRowSchema, sqliteTimestamp } from './rowSchemas';
import type { TableAccess } from './sqlJsMemories';
import type { LogEntry, LogRole, LogStatus } from './types';

// Pruning looks for rows past LOG_KEEP; doing it once per this many inserts keeps that query off most turns.
const LOG_PRUNE_EVERY = 50;
const COLUMNS = 'id, role, content, source, status, meta, ts';

export class SqlJsConversationLog {
  private insertsSincePrune = 0;

  constructor(
    private readonly access: TableAccess,
    private readonly ids: IssuedIds,
    private readonly pruneLog: boolean,
  ) {}

  append(entry: { role: LogRole; content: string; source?: string; status?: LogStatus | null; meta?: string | null }): number {
    const id = this.access.freshId('conversation_log');
    this.access.commit({
      op: 'appendLog',
      issued: id,
      role: entry.role,
      content: entry.content,
      source: entry.source ?? 'unknown',
      status: entry.status ?? null,
      meta: entry.meta ?? null,
      ts: sqliteTimestamp(),
    });
    if (this.pruneLog && ++this.insertsSincePrune >= LOG_PRUNE_EVERY) this.prune();
    return id;
  }

  update(id: number, patch: { content?: string; status?: LogStatus; meta?: string | null }): void {
    this.access.commit({ op: 'updateLog', target: this.ids.ref(id), ...patch });
  }

  remove(id: number): void {
    this.access.commit({ op: 'deleteLog', target: this.ids.ref(id) });
  }

  recent(limit: number): LogEntry[] {
    const sql = `SELECT ${COLUMNS} FROM (SELECT * FROM conversation_log ORDER BY id DESC LIMIT ?) ORDER BY id`;
    return this.access.read(() => this.access.tables.rows('conversation_log', sql, [limit], logRowSchema), []);
  }

  markInterrupted(which: (entry: LogEntry) => boolean = () => true): LogEntry[] {
    const sql = `SELECT ${COLUMNS} FROM conversation_log WHERE role = 'user' AND status = 'pending' ORDER BY id`;
    const pending = this.access.read(() => this.access.tables.rows('conversation_log', sql, [], logRowSchema), []).filter(which);
    if (!pending.length) return [];
    // The ids are frozen now: a replay must not mark entries another window is still waiting on.
    this.access.commit({ op: 'markInterrupted', targets: pending.map((e) => this.ids.ref(e.id)) });
    return pending.map((e) => ({ ...e, status: 'interrupted' as const }));
  }

  clear(): void {
    this.access.commit({ op: 'clearLog' });
    this.access.compactIfSparse();
  }

  /** Drops all but the newest LOG_KEEP rows, if there are more. */
  prune(): void {
    this.insertsSincePrune = 0;
    const over = this.access.tables.first('SELECT id FROM conversation_log ORDER BY id DESC LIMIT 1 OFFSET ?', [LOG_KEEP]);
    if (!over) return;
    this.access.commit({ op: 'pruneLog', keep: LOG_KEEP });
    this.access.compactIfSparse();
  }
}
