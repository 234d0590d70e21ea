// A first start loads the build's empty database instead of running every migration: the same schema either way,
// and an image that is missing, damaged or of another version falls back to the migrations.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import initSqlJs, { type Database, type SqlJsStatic } from 'sql.js';
import { freshDatabase, freshDatabaseImage } from '../../src/core/store/freshDatabase';
import { LATEST_VERSION, MIGRATIONS, migrate, schemaVersion } from '../../src/core/store/migrations';
import { SqlJsStore } from '../../src/core/store/sqlJsStore';
import type { StoreReport } from '../../src/core/store/types';

function schemaOf(db: Database): unknown[] {
  return [schemaVersion(db), db.exec('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name')[0]?.values];
}

describe('freshDatabase', () => {
  let SQL: SqlJsStatic;
  let dir: string;
  let migrated: unknown[];
  before(async () => {
    SQL = await initSqlJs();
    const db = new SQL.Database();
    migrate(db);
    migrated = schemaOf(db);
    db.close();
  });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-fresh-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a store with no file starts from the image, at the schema the migrations build, and works', async () => {
    // A mark in the image shows the store loaded it rather than running the migrations.
    const marked = new SQL.Database(freshDatabaseImage(SQL));
    marked.exec(`INSERT INTO state(key, value) VALUES ('made by', 'the image')`);
    const image = join(dir, 'fresh.sqlite');
    await writeFile(image, marked.export());
    marked.close();
    const storeDir = join(dir, 'storage');
    const reports: StoreReport[] = [];
    const store = await SqlJsStore.open({ dir: storeDir, freshImagePath: image, onReport: (r) => reports.push(r), pollIntervalMs: 0 });
    assert.equal(store.getState('made by'), 'the image');
    store.addMemory('preference', 'Prefers tabs over spaces', 'user');
    assert.deepEqual(
      store.searchMemories({ keyword: 'tabs' }).map((m) => m.content),
      ['Prefers tabs over spaces'],
      'the full-text index and its triggers came with the image',
    );
    await store.close();
    const onDisk = new SQL.Database(await readFile(join(storeDir, 'baton.sqlite')));
    assert.deepEqual(schemaOf(onDisk), migrated);
    assert.equal(onDisk.exec('SELECT content FROM memories')[0]?.values[0]?.[0], 'Prefers tabs over spaces');
    onDisk.close();
    assert.deepEqual(reports, []);
  });

  it('uses the image only at the newest schema version; otherwise, or without one, the migrations', async () => {
    const older = new SQL.Database();
    migrate(older, MIGRATIONS.slice(0, -1));
    const olderImage = join(dir, 'older.sqlite');
    await writeFile(olderImage, older.export());
    older.close();
    const damaged = join(dir, 'damaged.sqlite');
    await writeFile(damaged, Buffer.from('not a database at all, just text that is long enough to have a header'));
    for (const imagePath of [olderImage, damaged, join(dir, 'missing.sqlite'), undefined]) {
      const db = freshDatabase(SQL, imagePath);
      assert.equal(schemaVersion(db), LATEST_VERSION, String(imagePath));
      assert.deepEqual(schemaOf(db), migrated, String(imagePath));
      db.close();
    }
  });
});
