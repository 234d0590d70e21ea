// The store tests' fixture: a temp folder for each test, with the SqlJsStores the test opens on it closed and the folder
// removed after the test, whatever happened.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import initSqlJs, { type Database } from 'sql.js';
import { SqlJsStore, type SqlJsStoreOptions } from '../../src/core/store/sqlJsStore';
import type { StoreReport } from '../../src/core/store/types';

export interface StoreFolder {
  /** The test's folder. */
  readonly dir: string;
  /** What the stores openStore() opened reported, in order. */
  readonly reports: StoreReport[];
  /** A store on the folder (no polling: tests step it), closed after the test. */
  openStore(extra?: Partial<SqlJsStoreOptions>): Promise<SqlJsStore>;
  /** The database file as sql.js reads it, outside any store. */
  rawDb(): Promise<Database>;
  /** Writes `db` over the database file, then closes it. */
  writeRaw(db: Database): Promise<void>;
}

/**
 * Registers the calling `describe`'s hooks and returns its folder: one object for the whole describe, whose `dir` and
 * `reports` are those of the test running (so its methods can be taken apart once, at the top of the describe).
 */
export function eachStoreFolder(): StoreFolder {
  let dir = '';
  let reports: StoreReport[] = [];
  const open: SqlJsStore[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-store-'));
    reports = [];
  });
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return dir;
    },
    get reports() {
      return reports;
    },
    async openStore(extra = {}) {
      const store = await SqlJsStore.open({ dir, pollIntervalMs: 0, onReport: (r) => reports.push(r), ...extra });
      open.push(store);
      return store;
    },
    async rawDb() {
      const SQL = await initSqlJs();
      return new SQL.Database(await readFile(join(dir, 'baton.sqlite')));
    },
    async writeRaw(db) {
      await writeFile(join(dir, 'baton.sqlite'), db.export());
      db.close();
    },
  };
}
