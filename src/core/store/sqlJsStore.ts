// BatonStore on sql.js: the database lives in memory and is written out whole, in the background.
//
// Invariants:
// - a write changes the in-memory database at once and goes into the journal; a flush (debounced, and on close)
//   exports the database and replaces the file atomically (temp file, fsync, rename), so the file is never torn;
// - only the holder of the lease file writes, and before writing it compares the file's revision (kept in the
//   SQLite header's application_id, readable from the first 100 bytes) with the one its database came from; if
//   another window wrote in between, it loads that file and applies its journal again on top, so no window's rows
//   are overwritten by another's;
// - the file is only ever moved aside (corrupt) or replaced by a newer revision, never rewritten by a window that
//   failed to migrate it.
import { randomInt, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Database, SqlJsStatic, SqlValue } from 'sql.js';
import { Emitter } from '../util/emitter';
import { atomicWrite } from './atomicWrite';
import { IssuedIds } from './issuedIds';
import { loadSqlJs } from './loadSqlJs';
import { memoryKey, ftsQuery } from './memoryKey';
import { HEADER_BYTES, loadDatabaseFile, nextRevision, readRevision, type LoadedFile } from './loadDatabaseFile';
import { migrate } from './migrations';
import { checkpointRowSchema, inboxRowSchema, logRowSchema, memoryRowSchema, sqliteTimestamp, workerRowSchema } from './rowSchemas';
import { SqlJsTables } from './sqlJsTables';
import { applyOp, changeKind, issuedBy, type IssuingTable, type OpContext, type StoreOp } from './storeOps';
import { errorCode, errorMessage, nodeStoreFileSystem, type StoreFileSystem } from './storeFileSystem';
import {
  MEMORY_CATEGORIES,
  type BatonStore,
  type CheckpointRow,
  type InboxRow,
  type LogEntry,
  type LogRole,
  type LogStatus,
  type Memory,
  type MemoryCategory,
  type MemorySource,
  type StoreChange,
  type StoreReport,
  type WorkerRow,
} from './types';
import { WriteLease } from './writeLease';

/** How to open a SqlJsStore. */
export interface SqlJsStoreOptions {
  /** The folder that holds the database (the extension's globalStorage). Created if missing. */
  dir: string;
  /** sql-wasm.wasm; the bundle ships it as dist/sql-wasm.wasm. Default: next to sql.js's own script. */
  wasmPath?: string;
  /** Default 'baton.sqlite'. */
  fileName?: string;
  /** At most this long between a write and its flush. Default 250 ms. */
  flushDelayMs?: number;
  /** Problems the store survived (a bad row, a corrupt file moved aside, a failed flush). */
  onReport?: (r: StoreReport) => void;
  /** File access (tests inject faults). Default: node:fs. */
  fs?: StoreFileSystem;
  /** False keeps every conversation_log row (benchmarks need 10 k+ rows). Default true: the newest 200. */
  pruneLog?: boolean;
  /** How often to look for another window's writes; 0 turns it off. Default 2000 ms. */
  pollIntervalMs?: number;
  /** A lease whose heartbeat is older than this is taken over. Default 10 s. */
  leaseStaleMs?: number;
  /** How long a flush waits for another window's lease before retrying later. Default 15 s. */
  leaseTimeoutMs?: number;
  /** Memories Baton saved on its own ('auto') beyond this many are dropped, least recently used first. Default 200. */
  maxAutoMemories?: number;
  /** Called after every write to disk (diagnostics, benchmarks). */
  onFlush?: (stats: FlushStats) => void;
}

/** What one write to disk cost. */
export interface FlushStats {
  /** Size of the file written. */
  bytes: number;
  /** Time the extension host's thread was blocked: loading another window's file, replaying, exporting. */
  blockingMs: number;
  /** From the start of the flush to the rename, waiting for the lease and the disk included. */
  totalMs: number;
  /** Whether another window had written, so its file was loaded and this window's changes applied on top. */
  merged: boolean;
}

const LOG_KEEP = 200;
const LOG_PRUNE_EVERY = 50;
const CHECKPOINT_KEEP = 200;
const ALL_KINDS: readonly StoreChange[] = ['log', 'memories', 'workers', 'state', 'inbox', 'checkpoints'];

type ReadResult = { bytes: Uint8Array } | { missing: true } | { error: unknown };

export class SqlJsStore implements BatonStore {
  /** Opens (or creates) the database in `opts.dir`. Never throws for a bad file: it is reported and moved aside. */
  static async open(opts: SqlJsStoreOptions): Promise<SqlJsStore> {
    const SQL = await loadSqlJs(opts.wasmPath);
    const store = new SqlJsStore(SQL, opts);
    await store.load();
    return store;
  }

  /** The database file. */
  readonly path: string;
  private readonly fs: StoreFileSystem;
  private readonly lease: WriteLease;
  private readonly flushDelayMs: number;
  private readonly pruneLog: boolean;
  private readonly maxAutoMemories: number;
  private readonly token = randomUUID().slice(0, 8);
  private tables!: SqlJsTables;
  private readonly journal: StoreOp[] = [];
  /** The highest log / inbox id this database holds, once known (see freshId). */
  private readonly highestId = new Map<IssuingTable, number>();
  private readonly ids: Record<IssuingTable, IssuedIds> = {
    conversation_log: new IssuedIds(false),
    memories: new IssuedIds(true),
    inbox: new IssuedIds(true),
  };
  private readonly changes = new Emitter<StoreChange>();
  private readonly reportedKeys = new Set<string>();
  /** Revision of the file the in-memory database came from or was last written as; undefined before any file. */
  private baseRevision: number | undefined;
  /** Bumped by changes that must reach disk but need no replay (migration, recovery, VACUUM). */
  private dirtyGeneration = 0;
  private writtenGeneration = 0;
  /** False once writing could harm the file (it could not be migrated): changes then stay in memory. */
  private persistent = true;
  private closing = false;
  private closed = false;
  private flushTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private currentFlush: Promise<void> | undefined;
  private nextFlush: Promise<void> | undefined;
  private retryDelayMs = 0;
  private logInsertsSincePrune = 0;
  private tempCounter = 0;
  private leftoversSwept = false;

  private constructor(
    private readonly SQL: SqlJsStatic,
    private readonly opts: SqlJsStoreOptions,
  ) {
    this.path = join(opts.dir, opts.fileName ?? 'baton.sqlite');
    this.fs = opts.fs ?? nodeStoreFileSystem;
    this.flushDelayMs = opts.flushDelayMs ?? 250;
    this.pruneLog = opts.pruneLog ?? true;
    this.maxAutoMemories = opts.maxAutoMemories ?? 200;
    this.lease = new WriteLease({
      fs: this.fs,
      path: `${this.path}.lease`,
      staleMs: opts.leaseStaleMs ?? 10_000,
      timeoutMs: opts.leaseTimeoutMs ?? 15_000,
    });
  }

  /** The revision of the file this store's data was loaded from or last written as (diagnostics and tests). */
  get revision(): number | undefined {
    return this.baseRevision;
  }

  /** Writes not yet on disk. */
  get pendingWrites(): number {
    return this.journal.length + (this.dirtyGeneration !== this.writtenGeneration ? 1 : 0);
  }

  // ---------------------------------------------------------------- state

  getState(key: string): string | undefined {
    const value = this.read(() => this.tables.first('SELECT value FROM state WHERE key = ?', [key])?.[0], undefined);
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    this.reportBadRow('state', { key, value }, 'value: expected a string');
    return undefined;
  }

  setState(key: string, value: string): void {
    this.commit({ op: 'setState', key, value });
  }

  deleteState(key: string): void {
    this.commit({ op: 'deleteState', key });
  }

  // ---------------------------------------------------------------- conversation log

  appendLog(entry: { role: LogRole; content: string; source?: string; status?: LogStatus | null; meta?: string | null }): number {
    const id = this.freshId('conversation_log');
    this.commit({
      op: 'appendLog',
      issued: id,
      role: entry.role,
      content: entry.content,
      source: entry.source ?? 'unknown',
      status: entry.status ?? null,
      meta: entry.meta ?? null,
      ts: sqliteTimestamp(),
    });
    if (this.pruneLog && ++this.logInsertsSincePrune >= LOG_PRUNE_EVERY) this.pruneLogNow();
    return id;
  }

  updateLog(id: number, patch: { content?: string; status?: LogStatus; meta?: string | null }): void {
    this.commit({ op: 'updateLog', target: this.ids.conversation_log.ref(id), ...patch });
  }

  recentLog(limit: number): LogEntry[] {
    return this.read(
      () =>
        this.tables.rows(
          'conversation_log',
          'SELECT id, role, content, source, status, meta, ts FROM (SELECT * FROM conversation_log ORDER BY id DESC LIMIT ?) ORDER BY id',
          [limit],
          logRowSchema,
        ),
      [],
    );
  }

  markInterrupted(): LogEntry[] {
    const pending = this.read(
      () =>
        this.tables.rows(
          'conversation_log',
          "SELECT id, role, content, source, status, meta, ts FROM conversation_log WHERE role = 'user' AND status = 'pending' ORDER BY id",
          [],
          logRowSchema,
        ),
      [],
    );
    if (!pending.length) return [];
    // The ids are frozen now: a replay must not mark entries another window is still waiting on.
    this.commit({ op: 'markInterrupted', targets: pending.map((e) => this.ids.conversation_log.ref(e.id)) });
    return pending.map((e) => ({ ...e, status: 'interrupted' as const }));
  }

  clearLog(): void {
    this.commit({ op: 'clearLog' });
    this.vacuumIfSparse();
  }

  // ---------------------------------------------------------------- checkpoints

  addCheckpoint(row: { turn_index: number; fingerprint: string; route: string | null; status: string }): void {
    this.commit({ op: 'addCheckpoint', ...row, ts: sqliteTimestamp(), keep: CHECKPOINT_KEEP });
  }

  /** The newest `limit` checkpoints, oldest first. */
  recentCheckpoints(limit: number): CheckpointRow[] {
    return this.read(
      () =>
        this.tables.rows(
          'checkpoints',
          'SELECT id, turn_index, fingerprint, route, status, ts FROM (SELECT * FROM checkpoints ORDER BY id DESC LIMIT ?) ORDER BY id',
          [limit],
          checkpointRowSchema,
        ),
      [],
    );
  }

  // ---------------------------------------------------------------- long-term memory

  addMemory(category: MemoryCategory, content: string, source: MemorySource): { memory: Memory; duplicate: boolean } {
    if (!MEMORY_CATEGORIES.includes(category)) throw new TypeError(`unknown memory category "${String(category)}"`);
    if (source !== 'user' && source !== 'auto') throw new TypeError(`unknown memory source "${String(source)}"`);
    const text = content.trim();
    if (!text) throw new TypeError('a memory needs some text');
    const existing = this.read(
      () =>
        this.tables.rows(
          'memories',
          'SELECT id, category, content, source, created_at, last_accessed FROM memories WHERE category = ? AND norm = ? ORDER BY id LIMIT 1',
          [category, memoryKey(text)],
          memoryRowSchema,
        ),
      [],
    )[0];
    const ts = sqliteTimestamp();
    if (existing) {
      this.ids.memories.listed(existing.id);
      // Asked by the user to keep what Baton had only noted: it becomes the user's, safe from the auto cap.
      const promote = source === 'user' && existing.source === 'auto';
      this.commit({ op: 'touchMemories', targets: [this.ids.memories.ref(existing.id)], ts, promoteToUser: promote });
      return { memory: { ...existing, source: promote ? 'user' : existing.source, last_accessed: ts }, duplicate: true };
    }
    const id = this.freshId('memories');
    this.commit({ op: 'addMemory', issued: id, category, content: text, source, ts, autoCap: this.maxAutoMemories });
    return { memory: { id, category, content: text, source, created_at: ts, last_accessed: ts }, duplicate: false };
  }

  /** Matching memories, most recently used first; counts as a use (last_accessed is bumped). */
  searchMemories(query: { keyword?: string; category?: MemoryCategory; limit?: number }): Memory[] {
    const where: string[] = [];
    const params: SqlValue[] = [];
    if (query.category) {
      where.push('category = ?');
      params.push(query.category);
    }
    const keyword = query.keyword?.trim();
    if (keyword) {
      // Word-prefix search through FTS, plus a substring match so "script" still finds "TypeScript".
      const like = `%${keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const match = ftsQuery(keyword);
      if (match) {
        where.push("(id IN (SELECT docid FROM memories_fts WHERE memories_fts MATCH ?) OR content LIKE ? ESCAPE '\\')");
        params.push(match, like);
      } else {
        where.push("content LIKE ? ESCAPE '\\'");
        params.push(like);
      }
    }
    params.push(query.limit ?? 50);
    const found = this.read(
      () =>
        this.tables.rows(
          'memories',
          `SELECT id, category, content, source, created_at, last_accessed FROM memories ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY last_accessed DESC, id DESC LIMIT ?`,
          params,
          memoryRowSchema,
        ),
      [],
    );
    if (!found.length) return [];
    for (const m of found) this.ids.memories.listed(m.id);
    const ts = sqliteTimestamp();
    this.commit({ op: 'touchMemories', targets: found.map((m) => this.ids.memories.ref(m.id)), ts, promoteToUser: false });
    return found.map((m) => ({ ...m, last_accessed: ts }));
  }

  updateMemory(id: number, content: string): boolean {
    const text = content.trim();
    const target = this.ids.memories.ref(id);
    if (!text || !this.exists('memories', this.ids.memories.resolve(target))) return false;
    this.commit({ op: 'updateMemory', target, content: text });
    return true;
  }

  deleteMemory(id: number): boolean {
    const target = this.ids.memories.ref(id);
    if (!this.exists('memories', this.ids.memories.resolve(target))) return false;
    this.commit({ op: 'deleteMemory', target });
    return true;
  }

  listMemories(): Memory[] {
    const all = this.read(
      () =>
        this.tables.rows('memories', 'SELECT id, category, content, source, created_at, last_accessed FROM memories ORDER BY id', [], memoryRowSchema),
      [],
    );
    for (const m of all) this.ids.memories.listed(m.id);
    return all;
  }

  // ---------------------------------------------------------------- workers

  upsertWorker(row: Omit<WorkerRow, 'created_at' | 'updated_at'>): void {
    this.commit({ op: 'upsertWorker', row: { ...row }, ts: sqliteTimestamp() });
  }

  deleteWorker(name: string): void {
    this.commit({ op: 'deleteWorker', name });
  }

  listWorkers(): WorkerRow[] {
    return this.read(
      () =>
        this.tables.rows(
          'worker_sessions',
          'SELECT name, copilot_session_id, working_dir, status, last_output, origin, created_at, updated_at FROM worker_sessions ORDER BY created_at, name',
          [],
          workerRowSchema,
        ),
      [],
    );
  }

  // ---------------------------------------------------------------- inbox

  addInbox(row: { worker_name: string; origin: string; kind: InboxRow['kind']; content: string }): number {
    const id = this.freshId('inbox');
    this.commit({ op: 'addInbox', issued: id, ...row, ts: sqliteTimestamp() });
    return id;
  }

  markInboxDelivered(id: number): void {
    this.commit({ op: 'markInboxDelivered', target: this.ids.inbox.ref(id) });
  }

  undeliveredInbox(): InboxRow[] {
    const rows = this.read(
      () =>
        this.tables.rows(
          'inbox',
          'SELECT id, worker_name, origin, kind, content, delivered, ts FROM inbox WHERE delivered = 0 ORDER BY id',
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
    // Flushes run one at a time; callers arriving while one waits to start share it.
    if (!this.nextFlush) {
      const previous = this.currentFlush ?? Promise.resolve();
      const next: Promise<void> = previous
        .catch(() => undefined)
        .then(() => {
          this.nextFlush = undefined;
          this.currentFlush = next;
          return this.syncWithDisk();
        })
        .finally(() => {
          if (this.currentFlush === next) this.currentFlush = undefined;
        });
      next.then(
        () => this.flushSucceeded(),
        (err: unknown) => this.flushFailed(err),
      );
      this.nextFlush = next;
    }
    return this.nextFlush;
  }

  /** PRAGMA integrity_check's answer: ['ok'] when the database is sound, otherwise the problems it found. */
  integrityCheck(): string[] {
    this.assertOpen();
    return (this.tables.db.exec('PRAGMA integrity_check')[0]?.values ?? []).map((row) => String(row[0]));
  }

  onDidChange(listener: (what: StoreChange) => void): () => void {
    return this.changes.event(listener);
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    clearTimeout(this.flushTimer);
    clearInterval(this.pollTimer);
    try {
      await this.flush();
    } catch (err) {
      this.report('error', `Baton could not save its database on close: ${errorMessage(err)}`);
    }
    this.closed = true;
    this.tables.close();
    this.changes.dispose();
  }

  // ---------------------------------------------------------------- writing

  private commit(op: StoreOp): number {
    this.assertOpen();
    const changed = applyOp(this.opContext(false), op);
    if (this.persistent) {
      const issued = issuedBy(op);
      if (issued) this.ids[issued.table].issue(issued.id);
      this.journal.push(op);
      this.scheduleFlush(this.flushDelayMs);
    }
    this.changes.fire(changeKind(op));
    return changed;
  }

  private opContext(replaying: boolean): OpContext {
    return { tables: this.tables, ids: this.ids, replaying, freshId: (table) => this.freshId(table) };
  }

  // Log and inbox ids come from the clock (microsecond-sized, with a random tail), so two windows writing in the same
  // moment almost never hand out the same id, and ids still sort in time order across windows. Memory ids are the
  // small counters users see ("#12"); a clash there is resolved by replay (see IssuedIds).
  private freshId(table: IssuingTable): number {
    if (table === 'memories') {
      const max = this.tables.number(`SELECT max(id) FROM ${table}`);
      return Math.max(max, this.tables.number("SELECT seq FROM sqlite_sequence WHERE name = 'memories'")) + 1;
    }
    // The highest id is remembered between inserts (a query costs more than the insert itself on the
    // hot path of a turn); install() forgets it whenever another database takes this one's place.
    const max = this.highestId.get(table) ?? this.tables.number(`SELECT max(id) FROM ${table}`);
    const id = Math.max(Date.now() * 1000 + randomInt(1000), max + 1);
    this.highestId.set(table, id);
    return id;
  }

  private pruneLogNow(): void {
    this.logInsertsSincePrune = 0;
    const over = this.tables.first('SELECT id FROM conversation_log ORDER BY id DESC LIMIT 1 OFFSET ?', [LOG_KEEP]);
    if (!over) return;
    this.commit({ op: 'pruneLog', keep: LOG_KEEP });
    this.vacuumIfSparse();
  }

  // sql.js writes every page, free ones included, so a database that shrank a lot is compacted before it is written.
  private vacuumIfSparse(): void {
    const pages = this.tables.number('PRAGMA page_count');
    const free = this.tables.number('PRAGMA freelist_count');
    if (free < 64 || free * 4 < pages) return;
    this.tables.db.exec('VACUUM');
    this.markDirty();
  }

  private markDirty(): void {
    this.dirtyGeneration++;
    if (this.persistent) this.scheduleFlush(this.flushDelayMs);
  }

  private scheduleFlush(delayMs: number): void {
    if (this.flushTimer || this.closing) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      this.flush().catch(() => undefined); // handled in flushFailed
    }, delayMs);
    this.flushTimer.unref?.();
  }

  private flushSucceeded(): void {
    if (this.retryDelayMs) this.report('info', 'Baton saved its database again.');
    this.retryDelayMs = 0;
  }

  // Whoever asked for the flush (timer, poll, a caller) the changes are still in the journal: report the first
  // failure of a streak, then keep retrying quietly with a growing delay.
  private flushFailed(err: unknown): void {
    if (this.closing) return; // close() reports it
    if (!this.retryDelayMs) this.report('warning', `Baton could not save its database (${errorMessage(err)}); it will keep trying.`);
    this.retryDelayMs = Math.min(Math.max(this.retryDelayMs * 2, 1000), 30_000);
    if (this.pendingWrites) this.scheduleFlush(this.retryDelayMs);
  }

  private async syncWithDisk(): Promise<void> {
    if (this.closed || !this.persistent) return;
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (!this.pendingWrites) {
      const head = await this.fs.readHead(this.path, HEADER_BYTES);
      if (!head || !this.changedOnDisk(head)) return;
      // Another window wrote; take its file if it is sound, otherwise fall through and write ours over it.
      const read = await this.readFile();
      if ('bytes' in read) {
        const loaded = this.tryLoad(read.bytes);
        if (loaded.kind === 'ok') return this.adopt(loaded);
        if (loaded.kind === 'migrationFailed') return this.degrade(loaded.error.message);
      }
    }
    await this.writeUnderLease();
  }

  private async writeUnderLease(): Promise<void> {
    const started = performance.now();
    let blockingMs = 0;
    let merged = false;
    const lease = await this.lease.acquire();
    try {
      await this.sweepLeftovers();
      const head = await this.fs.readHead(this.path, HEADER_BYTES);
      let diskRevision = head ? readRevision(head) : undefined;
      if (head && this.changedOnDisk(head)) {
        const read = await this.readFile();
        const t0 = performance.now();
        const loaded = 'bytes' in read ? this.tryLoad(read.bytes) : { kind: 'corrupt' as const, reason: describeReadError(read) };
        switch (loaded.kind) {
          case 'ok':
            this.adopt(loaded);
            diskRevision = loaded.revision;
            merged = true;
            break;
          case 'migrationFailed':
            return this.degrade(loaded.error.message);
          case 'corrupt':
            // Our copy is sound: keep the damaged file for inspection and write ours in its place.
            if (!('missing' in read)) await this.moveAside(loaded.reason, "this window's copy was written in its place");
            diskRevision = undefined;
            break;
        }
        blockingMs += performance.now() - t0;
      }
      // Everything from here to export() is synchronous, so no write can slip between the replay and the snapshot.
      const t1 = performance.now();
      const revision = nextRevision(diskRevision, randomInt);
      this.tables.db.exec(`PRAGMA application_id = ${revision}`);
      const data = this.tables.db.export();
      const written = this.journal.length;
      const generation = this.dirtyGeneration;
      blockingMs += performance.now() - t1;
      await atomicWrite(this.fs, this.path, data, {
        tempSuffix: `${this.token}-${++this.tempCounter}`,
        beforeCommit: () => lease.assertHeld(),
      });
      this.opts.onFlush?.({ bytes: data.length, blockingMs, totalMs: performance.now() - started, merged });
      this.baseRevision = revision;
      this.writtenGeneration = generation;
      for (const op of this.journal.splice(0, written)) {
        const issued = issuedBy(op);
        if (issued) this.ids[issued.table].settle(issued.id);
      }
    } finally {
      await lease.release();
    }
  }

  /** Whether the file is no longer the one our database came from (another window wrote it, or it was damaged). */
  private changedOnDisk(head: Uint8Array): boolean {
    const revision = readRevision(head);
    return revision === undefined || revision !== this.baseRevision;
  }

  // ---------------------------------------------------------------- loading

  private async load(): Promise<void> {
    let read: ReadResult;
    try {
      await this.fs.mkdir(this.opts.dir);
      read = await this.readFile();
    } catch (err) {
      read = { error: err };
    }
    if ('missing' in read) {
      this.install(this.freshDatabase());
    } else {
      const loaded = 'bytes' in read ? this.tryLoad(read.bytes, true) : { kind: 'corrupt' as const, reason: describeReadError(read) };
      if (loaded.kind === 'ok') {
        this.adopt(loaded);
      } else if (loaded.kind === 'migrationFailed') {
        this.install(this.freshDatabase());
        this.degrade(loaded.error.message);
      } else {
        await this.recoverFromCorrupt(loaded.reason);
      }
    }
    if (this.pruneLog) this.pruneLogNow();
    this.vacuumIfSparse();
    const interval = this.opts.pollIntervalMs ?? 2000;
    if (interval > 0) {
      this.pollTimer = setInterval(() => {
        if (this.currentFlush || this.nextFlush || !this.persistent) return;
        this.flush().catch(() => undefined); // handled in flushFailed
      }, interval);
      this.pollTimer.unref?.();
    }
  }

  private tryLoad(bytes: Uint8Array, thorough = false): LoadedFile {
    const loaded = loadDatabaseFile(this.SQL, bytes, { thorough });
    if (loaded.kind === 'ok' && loaded.newerSchema !== undefined) {
      this.reportOnce('newer', 'info', `The database was written by a newer Baton (schema ${loaded.newerSchema}); this window keeps using it.`);
    }
    return loaded;
  }

  /** Makes a loaded file this store's database and applies the journal on top of it. */
  private adopt(loaded: Extract<LoadedFile, { kind: 'ok' }>): void {
    this.install(loaded.db);
    this.baseRevision = loaded.revision;
    if (loaded.migrated) this.markDirty();
    if (this.journal.length) this.replayJournal();
    for (const kind of ALL_KINDS) this.changes.fire(kind);
  }

  private replayJournal(): void {
    const ctx = this.opContext(true);
    const kept: StoreOp[] = [];
    this.tables.db.exec('BEGIN');
    for (const op of this.journal) {
      try {
        this.tables.atomic(() => applyOp(ctx, op));
        kept.push(op);
      } catch (err) {
        const issued = issuedBy(op);
        if (issued) this.ids[issued.table].settle(issued.id);
        this.report('warning', `A change (${op.op}) could not be applied on top of another window's writes and was dropped: ${errorMessage(err)}`);
      }
    }
    this.tables.db.exec('COMMIT');
    this.journal.splice(0, this.journal.length, ...kept);
  }

  private install(db: Database): void {
    this.highestId.clear();
    // The database is already in memory, so its rollback journal may be too (halves the cost of a write); a page
    // cache as large as a big database lets export() copy cached pages instead of re-reading each one (4-8x faster).
    db.exec('PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA cache_size = -16384');
    this.tables?.close();
    this.tables = new SqlJsTables(db, (table, row, problem) => this.reportBadRow(table, row, problem));
  }

  private freshDatabase(): Database {
    const db = new this.SQL.Database();
    migrate(db);
    return db;
  }

  private async recoverFromCorrupt(reason: string): Promise<void> {
    // Under the lease, so a file another window has just replaced (and that is fine) is never moved aside.
    // If the lease cannot be had (a stuck window, a read-only folder) go on without it: the file is re-checked below.
    const lease = await this.lease.acquire().catch(() => undefined);
    try {
      const again = await this.readFile();
      if ('bytes' in again) {
        const loaded = this.tryLoad(again.bytes, true);
        if (loaded.kind === 'ok') return this.adopt(loaded);
        if (loaded.kind === 'migrationFailed') {
          this.install(this.freshDatabase());
          return this.degrade(loaded.error.message);
        }
      }
      this.install(this.freshDatabase());
      if ('missing' in again) return;
      await this.moveAside(reason, 'a fresh database was started');
      this.markDirty();
    } catch (err) {
      this.install(this.freshDatabase());
      this.degrade(`The database file could not be read or moved aside (${errorMessage(err)})`);
    } finally {
      await lease?.release();
    }
  }

  private async moveAside(reason: string, outcome: string): Promise<void> {
    const aside = `${this.path}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    await this.fs.rename(this.path, aside);
    this.baseRevision = undefined;
    this.report('warning', `Baton's database was unreadable (${reason}). It was moved to ${aside}; ${outcome}.`);
  }

  private degrade(reason: string): void {
    this.persistent = false;
    this.journal.length = 0;
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.report(
      'error',
      `${reason}. The file ${this.path} was left untouched; changes made in this window will not be saved.`,
    );
  }

  private async readFile(): Promise<ReadResult> {
    try {
      return { bytes: await this.fs.readFile(this.path) };
    } catch (err) {
      return errorCode(err) === 'ENOENT' ? { missing: true } : { error: err };
    }
  }

  // Temp files and broken-lease files are only ever created under the lease, so whoever holds it may delete any
  // that a crashed window left behind.
  private async sweepLeftovers(): Promise<void> {
    if (this.leftoversSwept) return;
    this.leftoversSwept = true;
    const base = this.opts.fileName ?? 'baton.sqlite';
    const names = await this.fs.readdir(this.opts.dir).catch(() => [] as string[]);
    for (const name of names) {
      if (name.startsWith(`${base}.tmp-`) || name.startsWith(`${base}.lease.stale-`)) {
        await this.fs.unlink(join(this.opts.dir, name)).catch(() => undefined);
      }
    }
  }

  // ---------------------------------------------------------------- reading and reporting

  private read<T>(query: () => T, fallback: T): T {
    this.assertOpen();
    try {
      return query();
    } catch (err) {
      this.reportOnce(`read:${errorMessage(err)}`, 'error', `Baton could not read its database: ${errorMessage(err)}`);
      return fallback;
    }
  }

  private exists(table: IssuingTable, id: number): boolean {
    return this.read(() => this.tables.number(`SELECT count(*) FROM ${table} WHERE id = ?`, [id]) > 0, false);
  }

  private reportBadRow(table: string, row: Record<string, SqlValue>, problem: string): void {
    const key = row.id ?? row.name ?? row.key ?? '?';
    this.reportOnce(`row:${table}:${String(key)}`, 'warning', `Skipped a bad row in ${table} (${String(key)}): ${problem}`);
  }

  private reportOnce(key: string, level: StoreReport['level'], message: string): void {
    if (this.reportedKeys.has(key)) return;
    this.reportedKeys.add(key);
    this.report(level, message);
  }

  private report(level: StoreReport['level'], message: string): void {
    if (this.opts.onReport) this.opts.onReport({ level, message });
    else console.warn(`[baton store] ${level}: ${message}`);
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the Baton store is closed');
  }
}

function describeReadError(read: ReadResult): string {
  return 'error' in read ? `it could not be read: ${errorMessage(read.error)}` : 'it is missing';
}
