// loadSqlJs: the wasm read from a given path (as the bundle ships it) gives a working sql.js, handed over without a copy.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSqlJs, ownArrayBuffer } from '../../src/core/store/loadSqlJs';

describe('loadSqlJs', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'baton-loadsqljs-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('gives a working sql.js from a wasm file at a given path', async () => {
    const wasmPath = join(dir, 'sql-wasm.wasm');
    copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), wasmPath);
    const SQL = await loadSqlJs(wasmPath);
    const db = new SQL.Database();
    try {
      db.exec('CREATE TABLE t(x); INSERT INTO t VALUES (41), (1)');
      assert.deepEqual(db.exec('SELECT sum(x) FROM t')[0]?.values, [[42]]);
    } finally {
      db.close();
    }
  });

  it('fails for a missing wasm file, and a later load of it succeeds once it is there', async () => {
    const wasmPath = join(dir, 'later.wasm');
    await assert.rejects(loadSqlJs(wasmPath), /ENOENT/);
    copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), wasmPath);
    const SQL = await loadSqlJs(wasmPath);
    assert.equal(typeof SQL.Database, 'function');
  });

  describe('ownArrayBuffer', () => {
    it('hands over the buffer itself when the bytes fill it', () => {
      const bytes = new Uint8Array([1, 2, 3]);
      assert.equal(ownArrayBuffer(bytes), bytes.buffer);
    });

    it('copies exactly the bytes of a view into a larger buffer', () => {
      const backing = new Uint8Array([9, 1, 2, 3, 9]);
      const out = ownArrayBuffer(backing.subarray(1, 4));
      assert.notEqual(out, backing.buffer);
      assert.deepEqual([...new Uint8Array(out)], [1, 2, 3]);
    });
  });
});
