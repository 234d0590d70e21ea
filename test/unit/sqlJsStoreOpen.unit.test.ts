// SqlJsStore's open against real sql.js files in temp folders: what it does with the file it finds (its own, untouched
// since it wrote it; damaged, truncated, foreign or unreadable) and with a folder that is not there yet.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';

import { CORRUPT_COPIES_KEEP } from '../../src/core/store/bounds';
import { nodeStoreFileSystem, type StoreFileSystem } from '../../src/core/store/storeFileSystem';
import { eachStoreFolder } from '../support/storeFolder';

describe('SqlJsStore opening a file', () => {
  const folder = eachStoreFolder();
  const { openStore } = folder;

  it('moves a corrupt file aside, reports where, and starts fresh', async () => {
    await writeFile(join(folder.dir, 'baton.sqlite'), 'this is not a database at all, just some text that got here somehow'.repeat(10));
    const a = await openStore();
    const aside = (await readdir(folder.dir)).find((n) => n.startsWith('baton.sqlite.corrupt-'));
    assert.ok(aside, 'the bad file was moved aside');
    assert.equal(folder.reports.length, 1);
    assert.equal(folder.reports[0].level, 'warning');
    assert.equal(folder.reports[0].kind, 'moved-aside');
    assert.equal(folder.reports[0].userMustAct, true, 'a file moved aside is shown to the user');
    assert.ok(folder.reports[0].message.includes(join(folder.dir, aside)), folder.reports[0].message);
    assert.match(await readFile(join(folder.dir, aside), 'utf8'), /^this is not a database/);

    a.setState('k', 'v');
    await a.flush();
    const b = await openStore();
    assert.equal(b.getState('k'), 'v');
  });

  it(`keeps the newest ${CORRUPT_COPIES_KEEP} files moved aside: a damage that keeps coming back does not fill the disk`, async () => {
    for (let i = 0; i < CORRUPT_COPIES_KEEP + 2; i++) {
      await writeFile(join(folder.dir, 'baton.sqlite'), `damaged ${i} `.repeat(100));
      await (await openStore()).close();
      await new Promise((r) => setTimeout(r, 2)); // each copy is named by the millisecond it was moved
    }
    const copies = (await readdir(folder.dir)).filter((n) => n.startsWith('baton.sqlite.corrupt-')).sort();
    assert.equal(copies.length, CORRUPT_COPIES_KEEP);
    const kept = await Promise.all(copies.map(async (n) => (await readFile(join(folder.dir, n), 'utf8')).split(' ')[1]));
    assert.deepEqual(kept, ['2', '3', '4'], 'the newest');
  });

  it('a file damaged while running is moved aside and this window’s copy written in its place', async () => {
    const a = await openStore();
    a.appendLog({ role: 'user', content: 'kept in memory' });
    await a.flush();
    await writeFile(join(folder.dir, 'baton.sqlite'), 'garbage');
    a.setState('k', 'v');
    await a.flush();
    assert.equal(folder.reports.length, 1);
    assert.match(folder.reports[0].message, /moved to .*baton\.sqlite\.corrupt-.*this window's copy was written in its place/);
    const b = await openStore();
    assert.deepEqual(
      b.recentLog(10).map((e) => e.content),
      ['kept in memory'],
    );
    assert.equal(b.getState('k'), 'v');
  });

  it('moves a truncated SQLite file aside', async () => {
    const a = await openStore({ pruneLog: false });
    for (let i = 0; i < 300; i++) a.appendLog({ role: 'user', content: `line ${i} ${'x'.repeat(200)}` });
    await a.close();
    const whole = await readFile(join(folder.dir, 'baton.sqlite'));
    await writeFile(join(folder.dir, 'baton.sqlite'), whole.subarray(0, Math.floor(whole.length / 2)));

    const b = await openStore();
    assert.equal(b.recentLog(10).length, 0);
    assert.ok((await readdir(folder.dir)).some((n) => n.startsWith('baton.sqlite.corrupt-')));
    assert.deepEqual(
      folder.reports.map((r) => [r.kind, r.userMustAct]),
      [['moved-aside', true]],
    );
  });

  it('moves aside a file of the right length whose pages are damaged', async () => {
    const a = await openStore({ pruneLog: false });
    for (let i = 0; i < 300; i++) a.appendLog({ role: 'user', content: `line ${i} ${'x'.repeat(200)}` });
    await a.close();
    const bytes = await readFile(join(folder.dir, 'baton.sqlite'));
    bytes.fill(0xa5, 4096 * 3, 4096 * 6); // three pages of the log's b-tree
    await writeFile(join(folder.dir, 'baton.sqlite'), bytes);

    const b = await openStore();
    assert.equal(b.openCheck, 'pages', 'the bytes differ from what was written: every page is checked');
    assert.equal(b.recentLog(10).length, 0);
    assert.ok((await readdir(folder.dir)).some((n) => n.startsWith('baton.sqlite.corrupt-')));
    assert.equal(folder.reports.length, 1, folder.reports.map((r) => r.message).join('\n'));
  });

  it('opens the file it wrote without the page-by-page check, and checks it again once its bytes change', async () => {
    const a = await openStore({ pruneLog: false });
    // Over 512 KB: the file is read in several pieces (readFileInPieces), and the digest covers where they join.
    for (let i = 0; i < 300; i++) a.appendLog({ role: 'user', content: `line ${i} ${'x'.repeat(1200)}` });
    await a.close();
    assert.ok((await readFile(join(folder.dir, 'baton.sqlite'))).length > 2 * 256 * 1024);
    const b = await openStore({ pruneLog: false });
    assert.equal(b.openCheck, 'digest');
    assert.equal(b.recentLog(1000).length, 300);
    await b.close();
    // Written by something other than Baton (an older version, a copy from another machine): no matching digest.
    const bytes = await readFile(join(folder.dir, 'baton.sqlite'));
    await writeFile(join(folder.dir, 'baton.sqlite.digest'), 'not the digest of these bytes');
    await writeFile(join(folder.dir, 'baton.sqlite'), bytes);
    const c = await openStore({ pruneLog: false });
    assert.equal(c.openCheck, 'pages');
    assert.equal(c.recentLog(1000).length, 300);
    assert.deepEqual(folder.reports, []);
  });
  it('checks every page once any byte differs from what was written, even one no page check would miss', async () => {
    const a = await openStore({ pruneLog: false });
    for (let i = 0; i < 300; i++) a.appendLog({ role: 'user', content: `line ${i} ${'x'.repeat(200)}` });
    a.appendLog({ role: 'user', content: 'the last line, as written' });
    await a.close();
    // One byte inside a row's text: the file stays a sound database, so only the digest can tell it changed.
    const bytes = await readFile(join(folder.dir, 'baton.sqlite'));
    const at = bytes.lastIndexOf(Buffer.from('as written'));
    assert.ok(at > 0);
    bytes[at] = 'A'.charCodeAt(0);
    await writeFile(join(folder.dir, 'baton.sqlite'), bytes);

    const b = await openStore({ pruneLog: false });
    assert.equal(b.openCheck, 'pages');
    assert.equal(b.recentLog(1)[0]?.content, 'the last line, As written');
    assert.deepEqual(folder.reports, []);
  });

  it('reads the database and its digest once at open, synchronously, and writes nothing', async () => {
    const a = await openStore({ pruneLog: false });
    // Over 512 KB: the file is read in several pieces (readFileInPieces), and the digest covers where they join.
    for (let i = 0; i < 300; i++) a.appendLog({ role: 'user', content: `line ${i} ${'x'.repeat(1200)}` });
    await a.close();
    assert.ok((await readFile(join(folder.dir, 'baton.sqlite'))).length > 2 * 256 * 1024);
    const calls: string[] = [];
    const fs: StoreFileSystem = {
      ...nodeStoreFileSystem,
      readFile: (p) => (calls.push(`readFile ${basename(p)}`), nodeStoreFileSystem.readFile(p)),
      readFileNow: (p) => (calls.push(`readFileNow ${basename(p)}`), nodeStoreFileSystem.readFileNow(p)),
      mkdir: (d) => (calls.push('mkdir'), nodeStoreFileSystem.mkdir(d)),
      createFile: (p, d, durable) => (calls.push(`createFile ${basename(p)}`), nodeStoreFileSystem.createFile(p, d, durable)),
    };
    const b = await openStore({ pruneLog: false, fs });
    assert.equal(b.openCheck, 'digest');
    assert.equal(b.recentLog(1000).length, 300);
    // An async read of a 10 MB file is ~25 hand-offs to the thread pool, each a wait on a busy machine.
    assert.deepEqual(calls, ['readFileNow baton.sqlite', 'readFileNow baton.sqlite.digest']);
  });

  it('a database that cannot be read at open is read again under the lease before anything is moved aside', async () => {
    const a = await openStore();
    a.appendLog({ role: 'user', content: 'kept' });
    await a.close();
    let failures = 0;
    const fs: StoreFileSystem = {
      ...nodeStoreFileSystem,
      readFileNow: (p) => {
        if (p.endsWith('baton.sqlite')) {
          failures++;
          throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' });
        }
        return nodeStoreFileSystem.readFileNow(p);
      },
    };
    const b = await openStore({ fs });
    assert.equal(failures, 1);
    assert.deepEqual(
      b.recentLog(10).map((e) => e.content),
      ['kept'],
    );
    assert.deepEqual(await readdir(folder.dir).then((names) => names.filter((n) => n.includes('corrupt'))), []);
    assert.deepEqual(folder.reports, []);
  });

  it('creates its folder when there is none yet', async () => {
    const dir = join(folder.dir, 'not', 'there');
    const a = await openStore({ dir });
    a.setState('k', 'v');
    await a.close();
    assert.ok(existsSync(join(dir, 'baton.sqlite')));
    assert.equal((await openStore({ dir })).getState('k'), 'v');
  });
});
