// A sound database file that cannot be read for now (permissions, a lock another program holds, too many open files, a
// disk error) is not a corrupt one: it is never moved aside, and the user is told the actual error. The read errors are
// injected through the store's file-system seam, as root (CI) reads a mode-000 file anyway; the files are real.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { nodeStoreFileSystem, type StoreFileSystem } from '../../src/core/store/storeFileSystem';
import { eachStoreFolder } from '../support/storeFolder';

const CODES = { EACCES: 'permission denied', EBUSY: 'resource busy or locked', EMFILE: 'too many open files', EIO: 'i/o error' } as const;

/** Node's file system, whose reads of the database file fail with `code` while `failing.on` is set. */
function unreadable(code: keyof typeof CODES, failing: { on: boolean }): StoreFileSystem {
  const fail = (path: string): Error => Object.assign(new Error(`${code}: ${CODES[code]}, open '${path}'`), { code });
  return {
    ...nodeStoreFileSystem,
    readFile: (p) => (failing.on && p.endsWith('baton.sqlite') ? Promise.reject(fail(p)) : nodeStoreFileSystem.readFile(p)),
    readFileNow: (p) => {
      if (failing.on && p.endsWith('baton.sqlite')) throw fail(p);
      return nodeStoreFileSystem.readFileNow(p);
    },
  };
}

describe('SqlJsStore: a database file that cannot be read', () => {
  const folder = eachStoreFolder();
  const { openStore } = folder;
  const dbPath = (): string => join(folder.dir, 'baton.sqlite');
  const asideNames = async (): Promise<string[]> => (await readdir(folder.dir)).filter((n) => n.includes('corrupt'));

  for (const code of Object.keys(CODES) as (keyof typeof CODES)[]) {
    it(`at open (${code}): leaves the file in place, saves nothing meanwhile, says the actual error; the rows are there next time`, async () => {
      const a = await openStore();
      a.appendLog({ role: 'user', content: 'a year of history' });
      await a.close();
      const before = await readFile(dbPath());

      const b = await openStore({ fs: unreadable(code, { on: true }) });
      assert.deepEqual(await asideNames(), [], 'nothing was moved aside');
      assert.deepEqual(
        folder.reports.map((r) => [r.kind, r.level, r.userMustAct]),
        [['not-saving', 'error', true]],
      );
      const message = folder.reports[0].message;
      assert.ok(message.includes(`${code}: ${CODES[code]}`), message);
      assert.doesNotMatch(message, /unreadable \(|moved|corrupt/);
      b.setState('meanwhile', 'x');
      await b.close();
      assert.deepEqual(await readFile(dbPath()), before, 'nothing was written over it');

      const c = await openStore();
      assert.deepEqual(
        c.recentLog(10).map((e) => e.content),
        ['a year of history'],
      );
      assert.equal(folder.reports.length, 1);
    });
  }

  it("while running: another window's file that cannot be read is left in place, the flush fails and is retried", async () => {
    const failing = { on: false };
    const a = await openStore({ fs: unreadable('EBUSY', failing) });
    const b = await openStore();
    b.appendLog({ role: 'user', content: 'from b' });
    await b.flush();
    failing.on = true;
    a.appendLog({ role: 'user', content: 'from a' });
    await assert.rejects(a.flush(), (err) => (err as { code?: string }).code === 'EBUSY');
    assert.deepEqual(await asideNames(), [], 'nothing was moved aside');
    assert.deepEqual(
      folder.reports.map((r) => r.kind),
      ['save-failed'],
    );
    assert.ok(folder.reports[0].message.includes('EBUSY: resource busy or locked'), folder.reports[0].message);

    failing.on = false;
    await a.flush();
    const c = await openStore();
    assert.deepEqual(
      c
        .recentLog(10)
        .map((e) => e.content)
        .sort(),
      ['from a', 'from b'],
    );
  });
});
