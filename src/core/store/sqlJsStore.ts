// BatonStore on sql.js: the table API (state, conversation log, memories, workers, inbox, checkpoints) over a
// DatabaseFile, which holds the database in memory and writes it out (see databaseFile.ts for the file's rules).
//
// Invariants:
// - every write is one StoreOp, applied here and journaled by the DatabaseFile; an op carries everything it needs to
//   be applied again on another window's file with the same meaning (timestamps, issued ids, frozen row references);
// - an id handed to a caller keeps reaching its row after a replay moved it (IssuedIds), until a listing shows
//   that id for another row (memories and inbox only);
// - reads never throw for a bad row or a failed query: they report it and leave it out.
import { AUTO_MEMORIES_KEEP, CHECKPOINT_KEEP } from './bounds';
import type { SqlJsStatic, SqlValue } from 'sql.js';
import { Emitter } from '../util/emitter';
import { DatabaseFile } from './databaseFile';
import { IssuedIds } from './issuedIds';
import { loadSqlJs } from './loadSqlJs';
import { checkpointRowSchema, inboxRowSchema, sqliteTimestamp, workerRowSchema } from './rowSchemas';
import { applyOp, changeKind, issuedBy, logRowsOf, type IssuingTable, type StoreOp } from './storeOps';
import { errorMessage, nodeStoreFileSystem } from './storeFileSystem';
import { SqlJsConversationLog } from './sqlJsConversationLog';
import { SqlJsMemories, type TableAccess } from './sqlJsMemories';
import { SqlJsSquads } from './sqlJsSquads';
import { SqlJsUsage } from './sqlJsUsage';
import { SqlJsWikiIndex } from './sqlJsWikiIndex';
import { StoreReporter } from './storeReporter';
import type { BatonStore, CheckpointInput, CheckpointRow, ConversationRow, InboxRow, LogEntry, LogHead, LogRole, LogStatus } from './types';
import type { Memory, MemoryCategory, MemorySource, StoreChange, WorkerRow } from './types';

export type { FlushStats } from './databaseFile';
export type { SqlJsStoreOptions } from './sqlJsStoreOptions';
import type { SqlJsStoreOptions } from './sqlJsStoreOptions';
import { SqlJsState } from './sqlJsState';
import { FreshIds } from './freshIds';

const ALL_KINDS: readonly StoreChange[] = ['conversations', 'log', 'memories', 'workers', 'state', 'inbox', 'checkpoints', 'squads', 'wiki', 'usage'];

export class SqlJsStore implements BatonStore {
  /** Opens (or creates) the database in `opts.dir`. Never throws for a bad file: it is reported and moved aside. */
  static async open(opts: SqlJsStoreOptions): Promise<SqlJsStore> {
    const SQL = await loadSqlJs(opts.wasmPath);
    const store = new SqlJsStore(SQL, opts);
    await store.file.load();
    await store.file.runStartStep(() => {
      if (store.pruneLog) store.log.prune();
      store.file.compactIfSparse();
    });
    store.file.startPolling();
    return store;
  }

  private readonly file: DatabaseFile<StoreOp>;
  private readonly reporter: StoreReporter;
  private readonly pruneLog: boolean;
  private readonly freshIds = new FreshIds(() => this.file.tables);
  private readonly ids: Record<IssuingTable, IssuedIds> = {
    conversation_log: new IssuedIds(false),
    memories: new IssuedIds(true),
    inbox: new IssuedIds(true),
  };
  // The state table with its cache of values read again (sqlJsState.ts); built before the file's hooks can run.
  private readonly state = new SqlJsState({
    tables: () => this.file.tables,
    assertOpen: () => this.file.assertOpen(),
    read: (query, fallback) => this.read(query, fallback),
    reportBadRow: (table, row, problem) => this.reportBadRow(table, row, problem),
  });
  private readonly changes = new Emitter<{ what: StoreChange; fromOtherWindow: boolean; rows?: readonly number[] }>();
  private readonly log: SqlJsConversationLog;
  private readonly memories: SqlJsMemories;
  readonly squads: SqlJsSquads;
  readonly wikiIndex: SqlJsWikiIndex;
  readonly usage: SqlJsUsage;

  private constructor(SQL: SqlJsStatic, opts: SqlJsStoreOptions) {
    this.pruneLog = opts.pruneLog ?? true;
    this.reporter = new StoreReporter(opts.onReport);
    this.file = new DatabaseFile<StoreOp>(
      SQL,
      {
        dir: opts.dir,
        fileName: opts.fileName ?? 'baton.sqlite',
        fs: opts.fs ?? nodeStoreFileSystem,
        flushDelayMs: opts.flushDelayMs ?? 250,
        pollIntervalMs: opts.pollIntervalMs ?? 2000,
        leaseStaleMs: opts.leaseStaleMs ?? 10_000,
        leaseTimeoutMs: opts.leaseTimeoutMs ?? 15_000,
        reporter: this.reporter,
        onBadRow: (table, row, problem) => this.reportBadRow(table, row, problem),
        onFlush: opts.onFlush,
        freshImagePath: opts.freshImagePath,
      },
      {
        apply: (op, replaying) => {
          applyOp(
            { tables: this.file.tables, ids: this.ids, replaying, freshId: (table) => this.freshIds.next(table), stateDropped: () => this.state.dropAll() },
            op,
          );
          // Kept in step with the table only once the op is in: a rejected op changed nothing. Another window's file
          // (installed, then this window's journal replayed on it) starts the cache over.
          if (replaying) this.state.dropAll();
          else if (op.op === 'setState') this.state.written(op.key, op.value);
          else if (op.op === 'deleteState') this.state.written(op.key, undefined);
        },
        journaled: (op) => {
          const issued = issuedBy(op);
          if (issued) this.ids[issued.table].issue(issued.id);
        },
        settled: (op) => {
          const issued = issuedBy(op);
          if (issued) this.ids[issued.table].settle(issued.id);
        },
        installed: () => {
          this.freshIds.forget();
          this.state.dropAll();
        },
        reloaded: () => {
          for (const kind of ALL_KINDS) this.changes.fire({ what: kind, fromOtherWindow: true });
        },
      },
    );
    const file = this.file;
    const access: TableAccess = {
      get tables() {
        return file.tables;
      },
      commit: (op) => this.commit(op),
      read: (query, fallback) => this.read(query, fallback),
      freshId: (table) => this.freshIds.next(table),
      compactIfSparse: () => file.compactIfSparse(),
    };
    this.log = new SqlJsConversationLog(access, this.ids.conversation_log, this.pruneLog);
    this.memories = new SqlJsMemories(access, this.ids.memories, opts.maxAutoMemories ?? AUTO_MEMORIES_KEEP);
    this.squads = new SqlJsSquads(access);
    this.wikiIndex = new SqlJsWikiIndex(access);
    this.usage = new SqlJsUsage(access);
  }

  /** The database file. */
  get path(): string {
    return this.file.path;
  }

  /** The revision of the file this store's data was loaded from or last written as (diagnostics and tests). */
  get revision(): number | undefined {
    return this.file.revision;
  }

  /** Writes not yet on disk. */
  get pendingWrites(): number {
    return this.file.pendingWrites;
  }

  // ---------------------------------------------------------------- state

  stateKeys(prefix: string): string[] {
    return this.state.keys(prefix);
  }

  getState(key: string): string | undefined {
    return this.state.get(key);
  }

  /** Keys the state cache holds (its bound is tested). */
  get cachedStateKeys(): number {
    return this.state.cachedKeys;
  }

  setState(key: string, value: string): void {
    this.commit({ op: 'setState', key, value });
  }

  deleteState(key: string): void {
    this.commit({ op: 'deleteState', key });
  }

  // ---------------------------------------------------------------- conversation log (see sqlJsConversationLog.ts)

  appendLog(entry: { role: LogRole; content: string; source?: string; status?: LogStatus | null; meta?: string | null; conversation?: string }): number {
    return this.log.append(entry);
  }

  updateLog(id: number, patch: { content?: string; status?: LogStatus; meta?: string | null }): void {
    this.log.update(id, patch);
  }

  deleteLog(id: number): void {
    this.log.remove(id);
  }

  recentLog(limit: number, conversation?: string): LogEntry[] {
    return this.log.recent(limit, conversation);
  }

  logRows(ids: readonly number[]): LogEntry[] {
    return this.log.rows(ids);
  }

  searchLog(text: string, limit: number): LogEntry[] {
    return this.log.search(text, limit);
  }

  logHeads(limit: number, conversation?: string): LogHead[] {
    return this.log.heads(limit, conversation);
  }

  markInterrupted(which?: (entry: LogEntry) => boolean, conversation?: string): LogEntry[] {
    return this.log.markInterrupted(which, conversation);
  }

  clearLog(conversation?: string): void {
    this.log.clear(conversation);
  }

  // ---------------------------------------------------------------- conversations (see sqlJsConversationLog.ts)

  createConversation(id: string): void {
    this.log.createConversation(id);
  }

  listConversations(): ConversationRow[] {
    return this.log.listConversations();
  }

  renameConversation(id: string, title: string): boolean {
    return this.log.renameConversation(id, title);
  }

  deleteConversation(id: string): void {
    this.log.deleteConversation(id);
  }

  keepInUse(inUse: () => Iterable<string>): void {
    this.log.inUse = inUse;
  }

  // ---------------------------------------------------------------- checkpoints

  addCheckpoint(row: CheckpointInput): void {
    this.commit({
      op: 'addCheckpoint',
      ...row,
      input_tokens: row.input_tokens ?? null,
      output_tokens: row.output_tokens ?? null,
      ts: sqliteTimestamp(),
      keep: CHECKPOINT_KEEP,
    });
  }

  /** The newest `limit` checkpoints of `conversation`, oldest first. */
  recentCheckpoints(conversation: string, limit: number): CheckpointRow[] {
    return this.read(
      () =>
        this.file.tables.rows(
          'checkpoints',
          `SELECT id, conversation, turn_index, fingerprint, route, status, input_tokens, output_tokens, ts
           FROM (SELECT * FROM checkpoints WHERE conversation = ? ORDER BY id DESC LIMIT ?) ORDER BY id`,
          [conversation, limit],
          checkpointRowSchema,
        ),
      [],
    );
  }

  // ---------------------------------------------------------------- long-term memory (see sqlJsMemories.ts)

  addMemory(category: MemoryCategory, content: string, source: MemorySource): { memory: Memory; duplicate: boolean } {
    return this.memories.add(category, content, source);
  }

  searchMemories(query: { keyword?: string; category?: MemoryCategory; limit?: number }): Memory[] {
    return this.memories.search(query);
  }

  relevantMemories(text: string, limit: number): Memory[] {
    return this.memories.relevant(text, limit);
  }

  updateMemory(id: number, content: string): boolean {
    return this.memories.update(id, content);
  }

  deleteMemory(id: number): boolean {
    return this.memories.delete(id);
  }

  listMemories(): Memory[] {
    return this.memories.list();
  }

  // ---------------------------------------------------------------- workers

  upsertWorker(row: Parameters<BatonStore['upsertWorker']>[0]): void {
    this.commit({ op: 'upsertWorker', row: { ...row }, ts: sqliteTimestamp() });
  }

  deleteWorker(name: string): void {
    this.commit({ op: 'deleteWorker', name });
  }

  listWorkers(): WorkerRow[] {
    return this.read(
      () =>
        this.file.tables.rows(
          'worker_sessions',
          'SELECT name, copilot_session_id, working_dir, status, last_output, origin, owner, created_at, updated_at FROM worker_sessions ORDER BY created_at, name',
          [],
          workerRowSchema,
        ),
      [],
    );
  }

  // ---------------------------------------------------------------- inbox

  addInbox(row: { worker_name: string; origin: string; kind: InboxRow['kind']; content: string; result?: string }): number {
    const id = this.freshIds.next('inbox');
    this.commit({ op: 'addInbox', issued: id, ...row, ts: sqliteTimestamp() });
    return id;
  }

  markInboxDelivered(id: number): void {
    this.commit({ op: 'markInboxDelivered', target: this.ids.inbox.ref(id) });
  }

  undeliveredInbox(): InboxRow[] {
    const rows = this.read(
      () =>
        this.file.tables.rows(
          'inbox',
          'SELECT id, worker_name, origin, kind, content, result, delivered, ts FROM inbox WHERE delivered = 0 ORDER BY id',
          [],
          inboxRowSchema,
        ),
      [],
    );
    for (const r of rows) this.ids.inbox.listed(r.id);
    return rows;
  }

  // ---------------------------------------------------------------- lifetime

  /** Writes pending changes now; with none, picks up another window's newer file. Rejects if the write failed. */
  flush(): Promise<void> {
    return this.file.flush();
  }

  /** How the file was checked at open: 'digest' (the bytes Baton last wrote), 'pages' (quick_check), 'none' (no file). */
  get openCheck(): 'digest' | 'pages' | 'none' {
    return this.file.openCheck;
  }

  /** PRAGMA integrity_check's answer: ['ok'] when the database is sound, otherwise the problems it found. */
  integrityCheck(): string[] {
    this.file.assertOpen();
    return (this.file.tables.db.exec('PRAGMA integrity_check')[0]?.values ?? []).map((row) => String(row[0]));
  }

  onDidChange(listener: (what: StoreChange, fromOtherWindow: boolean, rows?: readonly number[]) => void): () => void {
    return this.changes.event((c) => listener(c.what, c.fromOtherWindow, c.rows));
  }

  async close(): Promise<void> {
    await this.file.close();
    this.changes.dispose();
  }

  // ---------------------------------------------------------------- writing

  private commit(op: StoreOp): void {
    this.file.commit(op);
    const what = changeKind(op);
    const rows = what === 'log' ? logRowsOf(op, this.ids) : undefined;
    this.changes.fire({ what, fromOtherWindow: false, ...(rows ? { rows } : {}) });
  }

  // ---------------------------------------------------------------- reading and reporting

  private read<T>(query: () => T, fallback: T): T {
    this.file.assertOpen();
    try {
      return query();
    } catch (err) {
      const message = errorMessage(err);
      this.reporter.reportOnce(`read:${message}`, 'read-failed', 'error', `Baton could not read its database: ${message}`);
      return fallback;
    }
  }

  private reportBadRow(table: string, row: Record<string, SqlValue>, problem: string): void {
    const key = String(row.id ?? row.name ?? row.key ?? '?');
    this.reporter.reportOnce(`row:${table}:${key}`, 'bad-row', 'warning', `Skipped a bad row in ${table} (${key}): ${problem}`);
  }
}
