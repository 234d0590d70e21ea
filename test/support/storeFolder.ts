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

/** Registers the calling `describe`'s hooks: `use` gets each test's folder before the test runs. */
export function eachStoreFolder(use: (folder: StoreFolder) => void): void {
  let dir = '';
  const open: SqlJsStore[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-store-'));
    const reports: StoreReport[] = [];
    const folderDir = dir;
    use({
      dir: folderDir,
      reports,
      async openStore(extra = {}) {
        const store = await SqlJsStore.open({ dir: folderDir, pollIntervalMs: 0, onReport: (r) => reports.push(r), ...extra });
        open.push(store);
        return store;
      },
      async rawDb() {
        const SQL = await initSqlJs();
        return new SQL.Database(await readFile(join(folderDir, 'baton.sqlite')));
      },
      async writeRaw(db) {
        await writeFile(join(folderDir, 'baton.sqlite'), db.export());
        db.close();
      },
    });
  });
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });
}
