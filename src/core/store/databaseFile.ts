// The file engine under the store: one sql.js database held in memory, and the file on disk it is written to.
// It knows nothing of tables; writes reach it as opaque ops that its owner knows how to apply (see DatabaseFileHooks).
//
// Invariants:
// - a write changes the in-memory database at once and goes into the journal; a flush (debounced, and on close)
//   exports the database and replaces the file atomically (temp file, fsync, rename), so the file is never torn;
// - an op leaves the journal only once a file holding it has been renamed into place, so a crash at any point loses
//   nothing a flush has resolved for, and a failed flush keeps everything for the next try;
// - only the holder of the lease file writes, and before writing it compares the file's revision (kept in the
//   SQLite header's application_id, readable from the first 100 bytes) with the one its database came from; if
//   another window wrote in between, it loads that file and applies its journal again on top, so no window's rows
//   are overwritten by another's;
// - the file is only ever moved aside (corrupt) or replaced by a newer revision, never rewritten by a window that
//   failed to migrate it;
// - a file is taken in only once every page was checked, or (at start) its digest says it is what a window exported;
//   it is moved aside only when its bytes were read and failed to load: a read error never makes a file corrupt.
import { randomInt, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Database, SqlJsStatic } from 'sql.js';
import { atomicWrite } from './atomicWrite';
import { readDatabase, readDatabaseNow, renameAside, sweepLeftovers } from './databaseFileDisk';
import { digestNow, digestOf, readDigest, writeDigest } from './fileDigest';
import { FlushScheduler } from './flushScheduler';
import { HEADER_BYTES, loadDatabaseFile, nextRevision, readRevision, type LoadedFile } from './loadDatabaseFile';
import { freshDatabase } from './freshDatabase';
import { SqlJsTables } from './sqlJsTables';
import { errorMessage } from './storeFileSystem';
import { FolderNotWritableError, WriteLease, type HeldLease } from './writeLease';

// The options and hooks are in databaseFileOptions.ts; re-exported for the store's callers.
export type { DatabaseFileHooks, DatabaseFileOptions, FlushStats } from './databaseFileOptions';
import type { DatabaseFileHooks, DatabaseFileOptions } from './databaseFileOptions';

export class DatabaseFile<Op extends { op: string }> {
  /** The database file. */
  readonly path: string;
  private readonly lease: WriteLease;
  private readonly token = randomUUID().slice(0, 8);
  private readonly journal: Op[] = [];
  private current!: SqlJsTables;
  /** Revision of the file the in-memory database came from or was last written as; undefined before any file. */
  private baseRevision: number | undefined;
  /** Bumped by changes that must reach disk but need no replay (migration, recovery, VACUUM). */
  private dirtyGeneration = 0;
  private writtenGeneration = 0;
  /** False once writing could harm the file (it could not be migrated): changes then stay in memory. */
  private persistent = true;
  private closing = false;
  private closed = false;
  private readonly scheduler: FlushScheduler;
  private tempCounter = 0;
  private leftoversSwept = false;
  /** How the file was checked when this store opened it: its digest matched what was last written, or every page. */
  openCheck: 'digest' | 'pages' | 'none' = 'none';

  constructor(
    private readonly SQL: SqlJsStatic,
    private readonly opts: DatabaseFileOptions,
    private readonly hooks: DatabaseFileHooks<Op>,
  ) {
    this.path = join(opts.dir, opts.fileName);
    this.lease = new WriteLease({ fs: opts.fs, path: `${this.path}.lease`, staleMs: opts.leaseStaleMs, timeoutMs: opts.leaseTimeoutMs });
    this.scheduler = new FlushScheduler({
      delayMs: opts.flushDelayMs,
      pollIntervalMs: opts.pollIntervalMs,
      run: () => this.syncWithDisk(),
      hasPending: () => this.pendingWrites > 0,
      writable: () => this.persistent,
      reporter: opts.reporter,
    });
  }

  /** The database as it is now. Replaced whole when another window's file is loaded: never keep it across an await. */
  get tables(): SqlJsTables {
    return this.current;
  }

  get revision(): number | undefined {
    return this.baseRevision;
  }

  /** Writes not yet on disk. */
  get pendingWrites(): number {
    return this.journal.length + (this.dirtyGeneration !== this.writtenGeneration ? 1 : 0);
  }

  assertOpen(): void {
    if (this.closed) throw new Error('the Baton store is closed');
  }

  /** Applies `op` now and journals it for the next flush (unless this window no longer writes). */
  commit(op: Op): void {
    this.assertOpen();
    this.hooks.apply(op, false);
    if (!this.persistent) return;
    this.hooks.journaled(op);
    this.journal.push(op);
    this.scheduler.schedule();
  }

  /** The database changed outside the journal (VACUUM) and must be written, but never replayed. */
  markDirty(): void {
    this.dirtyGeneration++;
    if (this.persistent) this.scheduler.schedule();
  }

  // sql.js writes every page, free ones included, so a database that shrank a lot is compacted before it is written.
  /** VACUUMs the database if most of it is free pages (after a large delete). */
  compactIfSparse(): void {
    const pages = this.current.number('PRAGMA page_count');
    const free = this.current.number('PRAGMA freelist_count');
    if (free < 64 || free * 4 < pages) return;
    this.current.db.exec('VACUUM');
    this.markDirty();
  }

  /** Writes pending changes now; with none, picks up another window's newer file. Rejects if the write failed. */
  flush(): Promise<void> {
    return this.scheduler.flush();
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.scheduler.stop();
    try {
      await this.flush();
    } catch (err) {
      this.opts.reporter.report('save-failed', 'error', `Baton could not save its database on close: ${errorMessage(err)}`);
    }
    this.closed = true;
    this.current.close();
  }

  // ---------------------------------------------------------------- writing

  private async syncWithDisk(): Promise<void> {
    if (this.closed || !this.persistent) return;
    this.scheduler.cancel();
    if (!this.pendingWrites) {
      const head = await this.opts.fs.readHead(this.path, HEADER_BYTES);
      if (!head || !this.changedOnDisk(head)) return;
      // Another window wrote; take its file if it is sound, otherwise fall through and write ours over it. Every page is
      // checked (40-60 ms for 20 MB, only when another window wrote): a damaged file taken in unchecked would be written
      // back with a matching digest, and trusted on it at every start after.
      const read = await readDatabase(this.opts.fs, this.path);
      if ('error' in read) throw read.error;
      if ('bytes' in read) {
        const loaded = this.tryLoad(read.bytes, true);
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
      if (!this.leftoversSwept) {
        this.leftoversSwept = true;
        await sweepLeftovers(this.opts.fs, this.opts.dir, this.opts.fileName);
      }
      const head = await this.opts.fs.readHead(this.path, HEADER_BYTES);
      let diskRevision = head ? readRevision(head) : undefined;
      if (head && this.changedOnDisk(head)) {
        const read = await readDatabase(this.opts.fs, this.path);
        // A file that cannot be read now is not a damaged one: neither moved aside nor written over; the flush is retried.
        if ('error' in read) throw read.error;
        const t0 = performance.now();
        const loaded = 'bytes' in read ? this.tryLoad(read.bytes, true) : { kind: 'corrupt' as const, reason: 'it is missing' };
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
      this.current.db.exec(`PRAGMA application_id = ${revision}`);
      const data = this.current.db.export();
      const written = this.journal.length;
      const generation = this.dirtyGeneration;
      blockingMs += performance.now() - t1;
      // Hashed off-thread while the file is written; recorded only once the file is in place.
      const digest = digestOf(data).catch(() => undefined);
      await atomicWrite(this.opts.fs, this.path, data, {
        tempSuffix: `${this.token}-${++this.tempCounter}`,
        beforeCommit: () => lease.assertHeld(),
      });
      const recorded = await digest;
      if (recorded) await writeDigest(this.opts.fs, this.path, recorded).catch(() => undefined);
      this.opts.onFlush?.({ bytes: data.length, blockingMs, totalMs: performance.now() - started, merged });
      this.baseRevision = revision;
      this.writtenGeneration = generation;
      for (const op of this.journal.splice(0, written)) this.hooks.settled(op);
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

  /**
   * Loads the file (or starts a fresh database), never throwing for a bad file: it is reported and moved aside. A file
   * that cannot be read is reported and left in place, and this window saves nothing.
   */
  async load(): Promise<void> {
    // Read and checked on this thread: the open waits for the bytes and their digest anyway (see readFileNow).
    let read = readDatabaseNow(this.opts.fs, this.path);
    // The folder is made only for a first start: one hand-off to the thread pool less on every other open.
    if ('missing' in read) {
      try {
        await this.opts.fs.mkdir(this.opts.dir);
      } catch (err) {
        read = { error: err };
      }
    }
    // A read can fail for a moment (a lock another program holds, too many open files): once more before giving up.
    if ('error' in read) read = await readDatabase(this.opts.fs, this.path);
    if ('missing' in read) return this.install(this.freshDatabase());
    if ('error' in read) {
      // Only bytes that fail to load make a file corrupt: a sound file that cannot be read now must not be moved aside.
      this.install(this.freshDatabase());
      return this.degrade(`Baton could not read its database file (${errorMessage(read.error)})`);
    }
    const thorough = this.needsPageCheck(read.bytes);
    this.openCheck = thorough ? 'pages' : 'digest';
    const loaded = this.tryLoad(read.bytes, thorough);
    if (loaded.kind === 'ok') return this.adopt(loaded);
    if (loaded.kind === 'corrupt') return this.recoverFromCorrupt(loaded.reason);
    this.install(this.freshDatabase());
    this.degrade(loaded.error.message);
  }

  // The bytes this store last wrote need no page-by-page check; anything else does (see fileDigest.ts).
  private needsPageCheck(bytes: Uint8Array): boolean {
    const recorded = readDigest(this.opts.fs, this.path);
    return recorded === undefined || recorded !== digestNow(bytes);
  }

  /**
   * Runs a start-up step (pruning, compacting) on the database just loaded. A file whose digest matched skipped the
   * page check, so damage may first show here: then the file is recovered as a damaged one at start is, and the step
   * runs on what took its place. Any other failure is the step's own and is thrown.
   */
  async runStartStep(step: () => void): Promise<void> {
    try {
      return step();
    } catch (err) {
      if (this.passesQuickCheck()) throw err;
      await this.recoverFromCorrupt(errorMessage(err));
    }
    step();
  }

  private passesQuickCheck(): boolean {
    try {
      return this.current.db.exec('PRAGMA quick_check(1)')[0]?.values[0]?.[0] === 'ok';
    } catch {
      return false;
    }
  }

  /** Starts looking for other windows' writes every `pollIntervalMs`. */
  startPolling(): void {
    this.scheduler.startPolling();
  }

  private tryLoad(bytes: Uint8Array, thorough: boolean): LoadedFile {
    const loaded = loadDatabaseFile(this.SQL, bytes, { thorough });
    if (loaded.kind === 'ok' && loaded.newerSchema !== undefined) {
      const message = `The database was written by a newer Baton (schema ${loaded.newerSchema}); this window keeps using it.`;
      this.opts.reporter.reportOnce('newer', 'newer-schema', 'info', message);
    }
    return loaded;
  }

  /** Makes a loaded file this store's database and applies the journal on top of it. */
  private adopt(loaded: Extract<LoadedFile, { kind: 'ok' }>): void {
    this.install(loaded.db);
    this.baseRevision = loaded.revision;
    if (loaded.migrated) this.markDirty();
    if (this.journal.length) this.replayJournal();
    this.hooks.reloaded();
  }

  private replayJournal(): void {
    const kept: Op[] = [];
    this.current.db.exec('BEGIN');
    for (const op of this.journal) {
      try {
        this.current.atomic(() => this.hooks.apply(op, true));
        kept.push(op);
      } catch (err) {
        this.hooks.settled(op);
        const message = `A change (${op.op}) could not be applied on top of another window's writes and was dropped: ${errorMessage(err)}`;
        this.opts.reporter.report('change-dropped', 'warning', message);
      }
    }
    this.current.db.exec('COMMIT');
    this.journal.splice(0, this.journal.length, ...kept);
  }

  private install(db: Database): void {
    // The database is already in memory, so its rollback journal may be too (halves the cost of a write); a page
    // cache as large as a big database lets export() copy cached pages instead of re-reading each one (4-8x faster).
    // No other connection ever opens this in-memory file (other windows read the file on disk that export() writes),
    // so the lock is taken once and kept: in the default mode every statement's transaction takes and drops it and
    // looks for a hot journal, a failed lookup in sql.js's file system that cost ~25 us per statement (measured), more
    // than most of a turn's statements themselves.
    db.exec('PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA cache_size = -16384; PRAGMA locking_mode = EXCLUSIVE');
    this.current?.close();
    this.current = new SqlJsTables(db, this.opts.onBadRow);
    this.hooks.installed();
  }

  private freshDatabase(): Database {
    return freshDatabase(this.SQL, this.opts.freshImagePath);
  }

  private async recoverFromCorrupt(reason: string): Promise<void> {
    // Under the lease, so a file another window has just replaced (and that is fine) is never moved aside.
    // If the lease cannot be had (a stuck window, a read-only folder) go on without it: the file is re-checked below.
    let lease: HeldLease | undefined;
    let unwritable: FolderNotWritableError | undefined;
    try {
      lease = await this.lease.acquire();
    } catch (err) {
      if (err instanceof FolderNotWritableError) unwritable = err;
    }
    try {
      const again = await readDatabase(this.opts.fs, this.path);
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
      if ('error' in again) return this.degrade(`Baton could not read its database file (${errorMessage(again.error)})`);
      if (unwritable) return this.degrade(`Baton's database is unreadable (${reason}) and ${unwritable.message}, so it could not be moved aside`);
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
    const aside = await renameAside(this.opts.fs, this.opts.dir, this.opts.fileName);
    this.baseRevision = undefined;
    this.opts.reporter.report('moved-aside', 'warning', `Baton's database was unreadable (${reason}). It was moved to ${aside}; ${outcome}.`);
  }

  private degrade(reason: string): void {
    this.persistent = false;
    for (const op of this.journal.splice(0)) this.hooks.settled(op);
    this.scheduler.cancel();
    const message = `${reason}. The file ${this.path} was left untouched; changes made in this window will not be saved.`;
    this.opts.reporter.report('not-saving', 'error', message);
  }
}
