// SqlJsStore with several windows on one folder (one process here, each store as a window): rows from each survive the
// others' saves, a lease says who writes, and a window that crashed gives the lease up.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { conversationStateKey } from '../../src/core/store/types';
import { eachStoreFolder } from '../support/storeFolder';
import { waitFor } from '../support/waitFor';

describe('SqlJsStore: several windows on one folder', () => {
  const folder = eachStoreFolder();
  const { openStore, rawDb, writeRaw } = folder;

  it('loses no row when two stores write in turns', async () => {
    const a = await openStore();
    const b = await openStore();
    a.appendLog({ role: 'user', content: 'a1' });
    b.appendLog({ role: 'user', content: 'b1' });
    a.setState('from-a', '1');
    b.setState('from-b', '1');
    await a.flush();
    await b.flush(); // b must load a's file and put its own rows on top
    a.appendLog({ role: 'user', content: 'a2' });
    await a.flush();
    b.appendLog({ role: 'user', content: 'b2' });
    await b.flush();

    const c = await openStore();
    assert.deepEqual(
      c
        .recentLog(10)
        .map((e) => e.content)
        .sort(),
      ['a1', 'a2', 'b1', 'b2'],
    );
    assert.equal(c.getState('from-a'), '1');
    assert.equal(c.getState('from-b'), '1');
    // Each writer also ends up seeing the other's rows.
    assert.deepEqual(
      b
        .recentLog(10)
        .map((e) => e.content)
        .sort(),
      ['a1', 'a2', 'b1', 'b2'],
    );
  });

  it('loses no row under interleaved writes and concurrent flushes', async function () {
    this.timeout(60_000);
    const a = await openStore({ flushDelayMs: 5 });
    const b = await openStore({ flushDelayMs: 7 });
    const expected: string[] = [];
    const flushes: Promise<void>[] = [];
    for (let round = 0; round < 40; round++) {
      for (const [name, store] of [
        ['a', a],
        ['b', b],
      ] as const) {
        const text = `${name}-${round}`;
        store.appendLog({ role: 'user', content: text });
        store.setState(`${name}-last`, String(round));
        if (round % 10 === 0) store.addMemory('fact', `fact ${text}`, 'auto');
        expected.push(text);
      }
      if (round % 3 === 0) flushes.push(a.flush(), b.flush());
      if (round % 5 === 0) await sleep(3);
    }
    await Promise.all(flushes);
    await Promise.all([a.flush(), b.flush()]);
    await a.flush(); // a has nothing left to write: it picks up b's last file
    assert.equal(a.recentLog(1000).length, expected.length, "each window sees the other's rows");

    const c = await openStore();
    assert.deepEqual(
      c
        .recentLog(1000)
        .map((e) => e.content)
        .sort(),
      expected.sort(),
    );
    assert.equal(c.getState('a-last'), '39');
    assert.equal(c.getState('b-last'), '39');
    assert.equal(c.listMemories().length, 8);
    assert.deepEqual(c.integrityCheck(), ['ok']);
    assert.deepEqual(
      folder.reports.filter((r) => r.level !== 'info'),
      [],
    );
  });

  it('a store with nothing to write picks up another window’s file on flush and says so', async () => {
    const a = await openStore();
    const b = await openStore();
    const seen: string[] = [];
    b.onDidChange((what) => seen.push(what));
    a.addMemory('person', 'Dana leads the auth team', 'user');
    await a.flush();
    assert.equal(b.listMemories().length, 0);
    await b.flush();
    assert.deepEqual(
      b.listMemories().map((m) => m.content),
      ['Dana leads the auth team'],
    );
    assert.ok(seen.includes('memories'));
  });

  it('a memory id two windows both handed out is moved; the issuer still reaches its row until a listing shows another', async () => {
    const a = await openStore();
    const b = await openStore();
    const fromA = a.addMemory('fact', 'The API runs on port 8080', 'user').memory;
    const fromB = b.addMemory('fact', 'The staging database is read-only', 'user').memory;
    assert.equal(fromA.id, fromB.id, 'both windows handed out the same id');
    await a.flush();
    await b.flush();
    const c = await openStore();
    const ids = new Map(c.listMemories().map((m) => [m.content, m.id]));
    assert.equal(ids.get('The API runs on port 8080'), fromA.id);
    const moved = ids.get('The staging database is read-only');
    assert.ok(moved !== undefined && moved !== fromB.id);

    // b's model was told "#1" before the move: that still means b's own memory...
    assert.equal(b.updateMemory(fromB.id, 'The staging database is read-only on weekdays'), true);
    // ...until b lists memories (the tree, a recall) and sees #1 as a's: from then on the listing's meaning wins.
    b.listMemories();
    assert.equal(b.deleteMemory(fromA.id), true);
    await b.flush();
    const d = await openStore();
    assert.deepEqual(
      d.listMemories().map((m) => [m.id, m.content]),
      [[moved, 'The staging database is read-only on weekdays']],
    );
  });

  it('a log entry keeps the id appendLog returned to its writer when replay has to move it', async () => {
    // Seed a row whose id is above anything the clock gives, so both windows compute the same next id (max + 1).
    const seed = await openStore();
    seed.setState('seeded', 'yes');
    await seed.close();
    const db = await rawDb();
    const top = Date.now() * 1000 + 1e12;
    db.exec(`INSERT INTO conversation_log(id, role, content, status) VALUES (${top}, 'system', 'seed', 'complete')`);
    await writeRaw(db);

    const a = await openStore();
    const b = await openStore();
    const idA = a.appendLog({ role: 'user', content: 'from a', status: 'pending' });
    const idB = b.appendLog({ role: 'user', content: 'from b', status: 'pending' });
    assert.equal(idA, idB, 'both windows handed out the same id');
    await a.flush();
    await b.flush();
    b.updateLog(idB, { status: 'complete' });
    a.updateLog(idA, { status: 'failed' });
    await b.flush();
    await a.flush();
    const c = await openStore();
    assert.notEqual(c.recentLog(10).find((e) => e.content === 'from b')?.id, idB, "b's row was moved");
    assert.deepEqual(
      c.recentLog(10).map((e) => [e.content, e.status]),
      [
        ['seed', 'complete'],
        ['from a', 'failed'],
        ['from b', 'complete'],
      ],
    );
  });

  it('two windows remembering the same thing keep one memory, which the second one’s id still reaches', async () => {
    const a = await openStore();
    const b = await openStore();
    const tabs = a.addMemory('preference', 'Prefers tabs over spaces', 'auto').memory; // #1 in a
    const port = b.addMemory('fact', 'The API runs on port 8080', 'user').memory; // #1 in b
    const same = b.addMemory('preference', 'prefers TABS over spaces?', 'user').memory; // #2 in b
    await a.flush();
    await b.flush();
    assert.deepEqual(
      b.listMemories().map((m) => [m.id, m.content, m.source]),
      [
        [tabs.id, 'Prefers tabs over spaces', 'user'], // asked for by the user in b, so it is the user's now
        [2, 'The API runs on port 8080', 'user'],
      ],
    );
    // b's "#2" was its duplicate, now merged into a's #1; b's port memory moved from #1 to #2. b issued both ids,
    // but after listing, "#2" means what the listing showed: the port memory.
    assert.equal(same.id, 2);
    assert.equal(port.id, 1);
    b.listMemories();
    assert.equal(b.updateMemory(2, 'The API runs on port 9090'), true);
    await b.flush();
    assert.deepEqual(
      (await openStore()).listMemories().map((m) => m.content),
      ['Prefers tabs over spaces', 'The API runs on port 9090'],
    );
  });

  it('before it lists memories, a window’s ids keep the meaning it handed out', async () => {
    const a = await openStore();
    const b = await openStore();
    a.addMemory('preference', 'Prefers tabs over spaces', 'auto'); // #1 in a
    b.addMemory('fact', 'The API runs on port 8080', 'user'); // #1 in b
    const same = b.addMemory('preference', 'prefers TABS over spaces?', 'user').memory; // #2 in b
    await a.flush();
    await b.flush();
    // No listing in b yet: "#2" is still the duplicate b handed out, now merged into a's #1.
    assert.equal(b.updateMemory(same.id, 'Prefers tabs, always'), true);
    await b.flush();
    assert.deepEqual(
      (await openStore()).listMemories().map((m) => m.content),
      ['Prefers tabs, always', 'The API runs on port 8080'],
    );
  });

  it('notices another window’s write by itself when polling', async () => {
    const a = await openStore();
    const b = await openStore({ pollIntervalMs: 20 });
    a.setState('k', 'from a');
    await a.flush();
    await waitFor('the other window to read it', () => b.getState('k') === 'from a', 5000);
  });

  it('waits for a live lease, gives up after the timeout keeping its changes, then succeeds', async () => {
    const a = await openStore({ leaseTimeoutMs: 150 });
    const lease = join(folder.dir, 'baton.sqlite.lease');
    await writeFile(lease, JSON.stringify({ pid: process.pid, host: hostname(), token: 'someone-else' }));
    a.setState('k', 'v');
    await assert.rejects(a.flush(), /holding the database write lease/);
    assert.equal(a.pendingWrites, 1);
    assert.deepEqual(
      folder.reports.map((r) => [r.kind, r.userMustAct]),
      [['save-failed', true]],
    );
    await rm(lease);
    await a.flush();
    assert.deepEqual(folder.reports.map((r) => [r.kind, r.userMustAct]).slice(1), [['saved-again', false]]);
    assert.equal(a.pendingWrites, 0);
    assert.equal((await openStore()).getState('k'), 'v');
  });

  it('takes over at once a lease whose owner process is dead', async () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    await writeFile(join(folder.dir, 'baton.sqlite.lease'), JSON.stringify({ pid: dead, host: hostname(), token: 'crashed' }));
    const a = await openStore({ leaseStaleMs: 60_000, leaseTimeoutMs: 60_000 });
    a.setState('k', 'v');
    const started = Date.now();
    await a.flush();
    assert.ok(Date.now() - started < 2000);
    assert.equal(existsSync(join(folder.dir, 'baton.sqlite.lease')), false);
  });

  it('a state value read again comes from what was read or written, and follows deletes, a deleted conversation and another window’s writes', async () => {
    const a = await openStore();
    const b = await openStore();
    const key = conversationStateKey('orchestrator_session_id', 'c1');
    a.appendLog({ role: 'user', content: 'hello', conversation: 'c1' });
    assert.equal(a.getState(key), undefined);
    a.setState(key, 'one');
    assert.equal(a.getState(key), 'one');
    a.deleteState(key);
    assert.equal(a.getState(key), undefined);
    a.setState(key, 'two');
    assert.equal(a.getState(key), 'two');
    // Its keys go with the conversation (one DELETE for all of them).
    a.deleteConversation('c1');
    assert.equal(a.getState(key), undefined);
    // Another window's write, once its file is loaded here; this window's own unflushed write stays on top of it.
    a.setState('mine', 'a');
    assert.equal(a.getState('theirs'), undefined);
    assert.equal(b.getState('mine'), undefined);
    b.setState('theirs', 'b');
    await b.flush();
    await a.flush();
    assert.equal(a.getState('theirs'), 'b');
    assert.equal(a.getState('mine'), 'a');
    await b.flush();
    assert.equal(b.getState('mine'), 'a');
    // And after a restart, from the file.
    await a.close();
    const c = await openStore();
    assert.equal(c.getState('theirs'), 'b');
    assert.equal(c.getState(key), undefined);
  });
});
