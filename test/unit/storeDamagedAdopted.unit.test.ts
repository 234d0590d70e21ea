// A file another writer left with damaged data pages (a sync tool restoring a copy, a window whose write was damaged on
// disk), met by a running window: it must not replace the window's sound copy, nor be written back with a digest that
// makes the next start trust it. A damaged file that already has a matching digest must not stop Baton from starting.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SqlJsStore } from '../../src/core/store/sqlJsStore';
import { eachStoreFolder } from '../support/storeFolder';

describe('SqlJsStore: a damaged file written by another window', () => {
  const folder = eachStoreFolder();
  const { openStore } = folder;
  const dbPath = (): string => join(folder.dir, 'baton.sqlite');

  async function storeWith300Rows(): Promise<SqlJsStore> {
    const a = await openStore({ flushDelayMs: 5, pruneLog: false });
    for (let i = 0; i < 300; i++) a.appendLog({ role: 'user', content: `message number ${i} `.repeat(20) });
    await a.flush();
    return a;
  }

  /** The file as another writer leaves it: a new revision in its header, garbage inside five data pages. */
  async function damageAsAnotherWriter(): Promise<Buffer> {
    const bytes = await readFile(dbPath());
    const pageSize = bytes.readUInt16BE(16);
    bytes.writeInt32BE(12345, 68);
    for (let p = 3; p < 8; p++) bytes.fill(0xa5, p * pageSize + 8, p * pageSize + 200);
    await writeFile(dbPath(), bytes);
    return bytes;
  }

  const asideNames = async (): Promise<string[]> => (await readdir(folder.dir)).filter((n) => n.startsWith('baton.sqlite.corrupt-'));

  for (const pending of [true, false]) {
    it(`keeps this window's rows and moves the damaged file aside (${pending ? 'with' : 'without'} a change of its own to write)`, async () => {
      const a = await storeWith300Rows();
      await damageAsAnotherWriter();
      if (pending) a.setState('after', 'x');
      await a.flush();

      assert.equal(a.recentLog(1000).length, 300, 'the sound copy in memory was kept');
      assert.deepEqual(a.integrityCheck(), ['ok']);
      const aside = await asideNames();
      assert.equal(aside.length, 1, 'the damaged file was kept for inspection');
      assert.deepEqual(
        folder.reports.map((r) => [r.kind, r.userMustAct]),
        [['moved-aside', true]],
      );
      assert.ok(folder.reports[0].message.includes(join(folder.dir, aside[0])), folder.reports[0].message);
      assert.match(folder.reports[0].message, /this window's copy was written in its place/);
      await a.close();

      const b = await openStore({ pruneLog: false });
      assert.equal(b.recentLog(1000).length, 300, 'the next start has every row');
      if (pending) assert.equal(b.getState('after'), 'x');
      assert.deepEqual(b.integrityCheck(), ['ok']);
    });
  }

  it('starts on a damaged file whose digest matches it (as such a file was left behind): moved aside, named, fresh', async () => {
    const a = await storeWith300Rows();
    await a.close();
    const bytes = await damageAsAnotherWriter();
    await writeFile(`${dbPath()}.digest`, createHash('sha256').update(bytes).digest('hex'));

    const b = await openStore();
    assert.equal(b.recentLog(1000).length, 0);
    assert.deepEqual(b.integrityCheck(), ['ok']);
    const aside = await asideNames();
    assert.equal(aside.length, 1);
    const moved = folder.reports.filter((r) => r.kind === 'moved-aside');
    assert.equal(moved.length, 1, folder.reports.map((r) => `${r.kind}: ${r.message}`).join('\n'));
    assert.ok(moved[0].message.includes(join(folder.dir, aside[0])), moved[0].message);
    b.setState('k', 'v');
    await b.close();
    assert.equal((await openStore()).getState('k'), 'v');
  });
});
