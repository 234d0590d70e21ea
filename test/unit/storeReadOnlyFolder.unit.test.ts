// A storage folder that cannot be written (a read-only mount, permissions a tool changed): Baton says so at once, naming
// the folder, instead of waiting out the lease timeout and blaming another window.
// Root ignores a folder's mode but not the immutable flag, so as root (CI) the folder is made immutable (chattr +i,
// which needs a file system that has the flag: ext4 here and in CI), otherwise it is made mode 555.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FolderNotWritableError } from '../../src/core/store/writeLease';
import { eachStoreFolder } from '../support/storeFolder';

const root = process.getuid?.() === 0;

function setReadOnly(dir: string, readOnly: boolean): void {
  if (root) execFileSync('chattr', [readOnly ? '+i' : '-i', dir]);
  else chmodSync(dir, readOnly ? 0o555 : 0o755);
}

describe('SqlJsStore: a storage folder that cannot be written', () => {
  const folder = eachStoreFolder();
  const { openStore } = folder;

  it('a flush says at once that the folder cannot be written, keeps the change, and saves it once the folder can be', async () => {
    const a = await openStore({ flushDelayMs: 5 });
    a.setState('a', '1');
    await a.flush();
    setReadOnly(folder.dir, true);
    try {
      a.setState('b', '2');
      const started = Date.now();
      await assert.rejects(a.flush(), (err) => err instanceof FolderNotWritableError && err.folder === folder.dir);
      assert.ok(Date.now() - started < 2000, `gave up after ${Date.now() - started} ms, not at once`);
      assert.deepEqual(
        folder.reports.map((r) => [r.kind, r.userMustAct]),
        [['save-failed', true]],
      );
      assert.ok(folder.reports[0].message.includes(`the folder ${folder.dir} cannot be written`), folder.reports[0].message);
      assert.doesNotMatch(folder.reports[0].message, /another window/);
    } finally {
      setReadOnly(folder.dir, false);
    }
    await a.flush();
    assert.equal(folder.reports.at(-1)?.kind, 'saved-again');
    await a.close();
    assert.equal((await openStore()).getState('b'), '2');
  });

  it('a corrupt file in a folder that cannot be written: opens at once, leaves the file in place and says why', async () => {
    const garbage = 'this is not a database at all, just garbage bytes '.repeat(10);
    await writeFile(join(folder.dir, 'baton.sqlite'), garbage);
    setReadOnly(folder.dir, true);
    try {
      const started = Date.now();
      const a = await openStore();
      assert.ok(Date.now() - started < 2000, `the open took ${Date.now() - started} ms`);
      assert.deepEqual(
        folder.reports.map((r) => [r.kind, r.userMustAct]),
        [['not-saving', true]],
      );
      const message = folder.reports[0].message;
      assert.ok(message.includes(`the folder ${folder.dir} cannot be written`), message);
      assert.match(message, /not an SQLite database/);
      assert.doesNotMatch(message, /another window/);
      a.setState('k', 'v');
      assert.equal(a.getState('k'), 'v', 'the window still works, in memory');
      await a.close();
      assert.equal(await readFile(join(folder.dir, 'baton.sqlite'), 'utf8'), garbage, 'the file was left untouched');
      assert.deepEqual(await readdir(folder.dir), ['baton.sqlite']);
    } finally {
      setReadOnly(folder.dir, false);
    }
  });
});
