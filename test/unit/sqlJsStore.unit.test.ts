// SqlJsStore against real sql.js files in temp folders: restarts, crashes, size bounds and bad rows (what open does with
// the file it finds, several windows and migrations have files of their own).
import { CHECKPOINT_KEEP } from '../../src/core/store/bounds';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

import { nodeStoreFileSystem, type StoreFileSystem } from '../../src/core/store/storeFileSystem';
import { eachStoreFolder } from '../support/storeFolder';
import { waitFor } from '../support/waitFor';

/** A file system that "dies" at a chosen step: that step and every later call fail, as after a process crash. */
class CrashingFileSystem implements StoreFileSystem {
  crashOnRenameOver: string | undefined;
  dead = false;
  private check(): void {
    if (this.dead) throw Object.assign(new Error('process is gone'), { code: 'EIO' });
  }
  readFile = async (p: string) => (this.check(), nodeStoreFileSystem.readFile(p));
  readFileNow = (p: string) => (this.check(), nodeStoreFileSystem.readFileNow(p));
  readHead = async (p: string, n: number) => (this.check(), nodeStoreFileSystem.readHead(p, n));
  stat = async (p: string) => (this.check(), nodeStoreFileSystem.stat(p));
  createFile = async (p: string, d: Uint8Array, durable: boolean) => (this.check(), nodeStoreFileSystem.createFile(p, d, durable));
  touch = async (p: string) => (this.check(), nodeStoreFileSystem.touch(p));
  rename = async (from: string, to: string) => {
    this.check();
    if (to === this.crashOnRenameOver) {
      this.dead = true;
      this.check();
    }
    return nodeStoreFileSystem.rename(from, to);
  };
  unlink = async (p: string) => (this.check(), nodeStoreFileSystem.unlink(p));
  readdir = async (d: string) => (this.check(), nodeStoreFileSystem.readdir(d));
  mkdir = async (d: string) => (this.check(), nodeStoreFileSystem.mkdir(d));
  syncDir = async (d: string) => (this.check(), nodeStoreFileSystem.syncDir(d));
}

describe('SqlJsStore', () => {
  const folder = eachStoreFolder();
  const { openStore, rawDb, writeRaw } = folder;

  describe('durability', () => {
    it('opening a conversation that exists writes nothing (each start opens the one the panel shows); a new one is written', async () => {
      const a = await openStore({ flushDelayMs: 5 });
      a.createConversation('main');
      await a.close();
      const flushes: number[] = [];
      const b = await openStore({ flushDelayMs: 5, onFlush: (stats) => flushes.push(stats.bytes) });
      const before = b.listConversations();
      b.createConversation('main');
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(flushes, [], 'no write for a conversation that was already there');
      assert.deepEqual(b.listConversations(), before);
      b.createConversation('second');
      await waitFor('the new conversation written', () => flushes.length === 1);
      await b.close();
      const c = await openStore();
      assert.deepEqual(
        c
          .listConversations()
          .map((r) => r.id)
          .sort(),
        ['main', 'second'],
      );
    });

    it('keeps every kind of row across a restart', async () => {
      const a = await openStore();
      a.setState('session', 'abc');
      a.setState('gone', 'x');
      a.deleteState('gone');
      const userId = a.appendLog({ role: 'user', content: 'fix the bug', source: 'panel', status: 'pending' });
      a.updateLog(userId, { status: 'complete' });
      a.appendLog({ role: 'assistant', content: 'done', source: 'panel', status: 'complete', meta: '{"model":"x"}' });
      a.addCheckpoint({ conversation: 'main', turn_index: 1, fingerprint: 'fp', route: 'fast', status: 'complete', input_tokens: 12, output_tokens: 3 });
      const { memory } = a.addMemory('preference', 'Prefers TypeScript', 'user');
      a.upsertWorker({ name: 'auth-fix', copilot_session_id: 's1', working_dir: '/w', status: 'running', last_output: null, origin: 'panel' });
      const inboxId = a.addInbox({ worker_name: 'auth-fix', origin: 'panel', kind: 'completed', content: 'ok' });
      a.addInbox({ worker_name: 'auth-fix', origin: 'panel', kind: 'failed', content: 'boom' });
      a.markInboxDelivered(inboxId);
      await a.close();

      const b = await openStore();
      assert.equal(b.getState('session'), 'abc');
      assert.equal(b.getState('gone'), undefined);
      assert.deepEqual(
        b.recentLog(10).map((e) => [e.role, e.content, e.source, e.status, e.meta]),
        [
          ['user', 'fix the bug', 'panel', 'complete', null],
          ['assistant', 'done', 'panel', 'complete', '{"model":"x"}'],
        ],
      );
      assert.equal(b.recentLog(10)[0].id, userId);
      assert.deepEqual(
        b.recentCheckpoints('main', 5).map((c) => [c.turn_index, c.fingerprint, c.route, c.input_tokens, c.output_tokens]),
        [[1, 'fp', 'fast', 12, 3]],
      );
      assert.deepEqual(b.listMemories(), [memory]);
      assert.deepEqual(
        b.listWorkers().map((w) => [w.name, w.status, w.copilot_session_id]),
        [['auth-fix', 'running', 's1']],
      );
      assert.deepEqual(
        b.undeliveredInbox().map((r) => [r.kind, r.content, r.delivered]),
        [['failed', 'boom', 0]],
      );
      assert.deepEqual(b.integrityCheck(), ['ok']);
      assert.deepEqual(folder.reports, []);
    });

    it('flushes on its own, debounced, without close', async () => {
      const a = await openStore({ flushDelayMs: 20 });
      a.setState('k', 'v');
      assert.equal(existsSync(join(folder.dir, 'baton.sqlite')), false, 'nothing is written synchronously');
      await waitFor('the write to be saved', () => a.pendingWrites === 0, 5000);
      const db = await rawDb();
      assert.deepEqual(db.exec("SELECT value FROM state WHERE key = 'k'")[0].values, [['v']]);
      db.close();
    });

    it('a crash between the temp write and the rename leaves the previous file intact', async () => {
      const fs = new CrashingFileSystem();
      const a = await openStore({ fs });
      a.appendLog({ role: 'user', content: 'before the crash' });
      await a.flush();
      const before = await readFile(join(folder.dir, 'baton.sqlite'));

      fs.crashOnRenameOver = join(folder.dir, 'baton.sqlite');
      a.appendLog({ role: 'user', content: 'lost in the crash' });
      await assert.rejects(a.flush(), /process is gone/);
      assert.deepEqual(await readFile(join(folder.dir, 'baton.sqlite')), before, 'the old file is byte for byte the same');
      assert.ok(
        (await readdir(folder.dir)).some((n) => n.startsWith('baton.sqlite.tmp-')),
        'the crash left its temp file',
      );

      // The dead window never released its lease: the next one takes it over once the heartbeat is stale.
      const b = await openStore({ leaseStaleMs: 150 });
      assert.deepEqual(
        b.recentLog(10).map((e) => e.content),
        ['before the crash'],
      );
      b.appendLog({ role: 'user', content: 'after the crash' });
      await b.flush();
      assert.deepEqual(
        (await readdir(folder.dir)).filter((n) => n !== 'baton.sqlite' && n !== 'baton.sqlite.digest'),
        [],
        'temp and lease files are cleaned up',
      );
      assert.deepEqual(b.integrityCheck(), ['ok']);
    });
  });

  describe('size bounds', () => {
    it('prunes the log to the newest 200 every 50 inserts and at open', async () => {
      const a = await openStore();
      for (let i = 1; i <= 260; i++) a.appendLog({ role: 'user', content: `m${i}` });
      const log = a.recentLog(1000);
      // Pruned after insert 250 (to 200), then 10 more.
      assert.equal(log.length, 210);
      assert.equal(log[0].content, 'm51');
      assert.equal(log[log.length - 1].content, 'm260');
      await a.close();
      const b = await openStore();
      const reopened = b.recentLog(1000);
      assert.equal(reopened.length, 200);
      assert.equal(reopened[0].content, 'm61');
    });

    it(`keeps the newest ${CHECKPOINT_KEEP} checkpoints per conversation; another conversation's stay`, async () => {
      const a = await openStore();
      a.addCheckpoint({ conversation: 'other', turn_index: 1, fingerprint: 'f', route: null, status: 'complete' });
      for (let i = 1; i <= CHECKPOINT_KEEP + 30; i++)
        a.addCheckpoint({ conversation: 'main', turn_index: i, fingerprint: 'f', route: null, status: 'complete' });
      const rows = a.recentCheckpoints('main', CHECKPOINT_KEEP * 2);
      assert.equal(rows.length, CHECKPOINT_KEEP);
      assert.equal(rows[0].turn_index, 31);
      assert.deepEqual(
        a.recentCheckpoints('main', 2).map((r) => r.turn_index),
        [CHECKPOINT_KEEP + 29, CHECKPOINT_KEEP + 30],
      );
      assert.deepEqual(
        a.recentCheckpoints('other', 5).map((r) => [r.conversation, r.turn_index]),
        [['other', 1]],
      );
    });

    it('vacuums when pruning frees most of the file', async () => {
      const a = await openStore({ pruneLog: false });
      for (let i = 0; i < 2000; i++) a.appendLog({ role: 'assistant', content: `${i} ${'y'.repeat(2000)}` });
      await a.close();
      const big = (await stat(join(folder.dir, 'baton.sqlite'))).size;
      const b = await openStore();
      await b.flush();
      const small = (await stat(join(folder.dir, 'baton.sqlite'))).size;
      assert.equal(b.recentLog(1000).length, 200);
      assert.ok(small < big / 5, `${small} should be far below ${big}`);
      assert.deepEqual(b.integrityCheck(), ['ok']);
    });
  });

  describe('rows read back', () => {
    it('skips a bad row and reports it once', async () => {
      const a = await openStore();
      a.appendLog({ role: 'user', content: 'good' });
      a.addMemory('fact', 'good memory', 'user');
      await a.close();
      const db = await rawDb();
      db.exec(`INSERT INTO conversation_log(role, content, status) VALUES ('user', 'bad status', 'weird')`);
      db.exec(`INSERT INTO memories(category, content, source) VALUES ('bogus', 'bad category', 'user')`);
      db.exec(`INSERT INTO state(key, value) VALUES ('blob', x'00ff')`);
      await writeRaw(db);

      const b = await openStore();
      assert.deepEqual(
        b.recentLog(10).map((e) => e.content),
        ['good'],
      );
      assert.deepEqual(
        b.recentLog(10).map((e) => e.content),
        ['good'],
      );
      assert.deepEqual(
        b.listMemories().map((m) => m.content),
        ['good memory'],
      );
      assert.equal(b.getState('blob'), undefined);
      assert.equal(folder.reports.length, 3, folder.reports.map((r) => r.message).join('\n'));
      assert.ok(folder.reports.every((r) => r.level === 'warning' && r.kind === 'bad-row' && !r.userMustAct));
      assert.match(folder.reports[0].message, /conversation_log.*status/);
      assert.match(folder.reports[1].message, /memories.*category/);
    });
  });

  describe('conversation log', () => {
    it('marks pending user entries interrupted once, and patches keep unspecified fields', async () => {
      const a = await openStore();
      const pending = a.appendLog({ role: 'user', content: 'q', status: 'pending', meta: '{"a":1}' });
      a.appendLog({ role: 'assistant', content: 'partial', status: 'pending' });
      assert.deepEqual(
        a.markInterrupted().map((e) => [e.id, e.status]),
        [[pending, 'interrupted']],
      );
      assert.deepEqual(a.markInterrupted(), []);
      a.updateLog(pending, { content: 'q (edited)' });
      assert.deepEqual(a.recentLog(1).length, 1);
      const entry = a.recentLog(2)[0];
      assert.deepEqual([entry.content, entry.status, entry.meta], ['q (edited)', 'interrupted', '{"a":1}']);
      a.updateLog(pending, { meta: null });
      assert.equal(a.recentLog(2)[0].meta, null);
      a.clearLog();
      assert.deepEqual(a.recentLog(10), []);
    });

    it('heads are the recent rows of a conversation without their content, oldest first', async () => {
      const a = await openStore();
      for (let i = 0; i < 5; i++)
        a.appendLog({ role: i % 2 ? 'assistant' : 'user', content: `m${i}`, status: i === 4 ? 'pending' : 'complete', meta: `{"n":${i}}` });
      a.appendLog({ role: 'user', content: 'elsewhere', conversation: 'other' });
      const heads = a.logHeads(3);
      assert.deepEqual(
        heads,
        a.recentLog(3).map(({ id, role, status, meta }) => ({ id, role, status, meta })),
      );
      assert.deepEqual(
        heads.map((h) => [h.role, h.status, h.meta]),
        [
          ['user', 'complete', '{"n":2}'],
          ['assistant', 'complete', '{"n":3}'],
          ['user', 'pending', '{"n":4}'],
        ],
      );
      assert.deepEqual(
        a.logHeads(10, 'other').map((h) => h.role),
        ['user'],
      );
    });

    it('search finds your messages and replies in every conversation, newest first, in either case, with % and _ as themselves', async () => {
      const a = await openStore();
      a.appendLog({ role: 'user', content: 'Plan the Zebra migration' });
      a.appendLog({ role: 'assistant', content: 'Zebra plan: three steps.' });
      a.appendLog({ role: 'system', content: 'zebra notice (not a message of yours or a reply)' });
      a.appendLog({ role: 'user', content: 'zebra rollout at 100% by friday', conversation: 'other' });
      a.appendLog({ role: 'user', content: 'nothing here', conversation: 'other' });
      const found = (text: string, limit = 10) => a.searchLog(text, limit).map((e) => [e.conversation, e.content]);
      assert.deepEqual(found('ZEBRA'), [
        ['other', 'zebra rollout at 100% by friday'],
        ['main', 'Zebra plan: three steps.'],
        ['main', 'Plan the Zebra migration'],
      ]);
      assert.deepEqual(found('zebra', 1), [['other', 'zebra rollout at 100% by friday']], 'at most the limit');
      assert.deepEqual(found('100%'), [['other', 'zebra rollout at 100% by friday']]);
      assert.deepEqual(found('_'), [], 'LIKE would have matched every row');
      assert.deepEqual(found('%'), [['other', 'zebra rollout at 100% by friday']]);
      assert.deepEqual(found(''), []);
    });

    it('ids grow in insertion order', async () => {
      const a = await openStore();
      const ids = Array.from({ length: 20 }, (_, i) => a.appendLog({ role: 'user', content: String(i) }));
      assert.deepEqual(
        [...ids].sort((x, y) => x - y),
        ids,
      );
      assert.ok(ids.every(Number.isSafeInteger));
    });
  });
});
