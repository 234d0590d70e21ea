// SqlJsStore against real sql.js files in temp folders: restarts, crashes, corruption, several windows, migrations,
// size bounds and bad rows.
import { CHECKPOINT_KEEP } from '../../src/core/store/bounds';
import { LATEST_VERSION } from '../../src/core/store/migrations';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import initSqlJs, { type Database } from 'sql.js';
import { SqlJsStore, type SqlJsStoreOptions } from '../../src/core/store/sqlJsStore';
import { nodeStoreFileSystem, type StoreFileSystem } from '../../src/core/store/storeFileSystem';
import { conversationStateKey, type StoreReport } from '../../src/core/store/types';

const V1_SCHEMA = `
  CREATE TABLE state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE conversation_log (id INTEGER PRIMARY KEY AUTOINCREMENT, role TEXT NOT NULL CHECK(role IN ('user', 'assistant', 'system')),
    content TEXT NOT NULL, source TEXT NOT NULL DEFAULT 'unknown', status TEXT, meta TEXT, ts DATETIME DEFAULT CURRENT_TIMESTAMP);
  CREATE TABLE memories (id INTEGER PRIMARY KEY AUTOINCREMENT, category TEXT NOT NULL, content TEXT NOT NULL,
    source TEXT NOT NULL DEFAULT 'user' CHECK(source IN ('user', 'auto')), created_at DATETIME DEFAULT CURRENT_TIMESTAMP,
    last_accessed DATETIME DEFAULT CURRENT_TIMESTAMP);
  CREATE TABLE worker_sessions (name TEXT NOT NULL UNIQUE, copilot_session_id TEXT, working_dir TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'idle' CHECK(status IN ('idle', 'running', 'error')), last_output TEXT,
    origin TEXT NOT NULL DEFAULT 'unknown', created_at DATETIME DEFAULT CURRENT_TIMESTAMP, updated_at DATETIME DEFAULT CURRENT_TIMESTAMP);
  CREATE TABLE checkpoints (id INTEGER PRIMARY KEY AUTOINCREMENT, turn_index INTEGER NOT NULL, fingerprint TEXT NOT NULL,
    route TEXT, status TEXT NOT NULL, ts DATETIME DEFAULT CURRENT_TIMESTAMP);
  CREATE TABLE inbox (id INTEGER PRIMARY KEY AUTOINCREMENT, worker_name TEXT NOT NULL, origin TEXT NOT NULL,
    kind TEXT NOT NULL CHECK(kind IN ('completed', 'failed', 'timed_out', 'killed')), content TEXT NOT NULL,
    delivered INTEGER NOT NULL DEFAULT 0, ts DATETIME DEFAULT CURRENT_TIMESTAMP);
  PRAGMA user_version = 1;
`;

/** A file system that "dies" at a chosen step: that step and every later call fail, as after a process crash. */
class CrashingFileSystem implements StoreFileSystem {
  crashOnRenameOver: string | undefined;
  dead = false;
  private check(): void {
    if (this.dead) throw Object.assign(new Error('process is gone'), { code: 'EIO' });
  }
  readFile = async (p: string) => (this.check(), nodeStoreFileSystem.readFile(p));
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
  let dir: string;
  let reports: StoreReport[];
  const open: SqlJsStore[] = [];

  async function openStore(extra: Partial<SqlJsStoreOptions> = {}): Promise<SqlJsStore> {
    const store = await SqlJsStore.open({ dir, pollIntervalMs: 0, onReport: (r) => reports.push(r), ...extra });
    open.push(store);
    return store;
  }

  async function rawDb(): Promise<Database> {
    const SQL = await initSqlJs();
    return new SQL.Database(await readFile(join(dir, 'baton.sqlite')));
  }

  async function writeRaw(db: Database): Promise<void> {
    await writeFile(join(dir, 'baton.sqlite'), db.export());
    db.close();
  }

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-store-'));
    reports = [];
  });

  afterEach(async () => {
    for (const store of open.splice(0)) await store.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });

  describe('durability', () => {
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
      assert.deepEqual(reports, []);
    });

    it('flushes on its own, debounced, without close', async () => {
      const a = await openStore({ flushDelayMs: 20 });
      a.setState('k', 'v');
      assert.equal(existsSync(join(dir, 'baton.sqlite')), false, 'nothing is written synchronously');
      await waitFor(() => a.pendingWrites === 0);
      const db = await rawDb();
      assert.deepEqual(db.exec("SELECT value FROM state WHERE key = 'k'")[0].values, [['v']]);
      db.close();
    });

    it('a crash between the temp write and the rename leaves the previous file intact', async () => {
      const fs = new CrashingFileSystem();
      const a = await openStore({ fs });
      a.appendLog({ role: 'user', content: 'before the crash' });
      await a.flush();
      const before = await readFile(join(dir, 'baton.sqlite'));

      fs.crashOnRenameOver = join(dir, 'baton.sqlite');
      a.appendLog({ role: 'user', content: 'lost in the crash' });
      await assert.rejects(a.flush(), /process is gone/);
      assert.deepEqual(await readFile(join(dir, 'baton.sqlite')), before, 'the old file is byte for byte the same');
      assert.ok(
        (await readdir(dir)).some((n) => n.startsWith('baton.sqlite.tmp-')),
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
        (await readdir(dir)).filter((n) => n !== 'baton.sqlite' && n !== 'baton.sqlite.digest'),
        [],
        'temp and lease files are cleaned up',
      );
      assert.deepEqual(b.integrityCheck(), ['ok']);
    });

    it('moves a corrupt file aside, reports where, and starts fresh', async () => {
      await writeFile(join(dir, 'baton.sqlite'), 'this is not a database at all, just some text that got here somehow'.repeat(10));
      const a = await openStore();
      const aside = (await readdir(dir)).find((n) => n.startsWith('baton.sqlite.corrupt-'));
      assert.ok(aside, 'the bad file was moved aside');
      assert.equal(reports.length, 1);
      assert.equal(reports[0].level, 'warning');
      assert.equal(reports[0].kind, 'moved-aside');
      assert.equal(reports[0].userMustAct, true, 'a file moved aside is shown to the user');
      assert.ok(reports[0].message.includes(join(dir, aside)), reports[0].message);
      assert.match(await readFile(join(dir, aside), 'utf8'), /^this is not a database/);

      a.setState('k', 'v');
      await a.flush();
      const b = await openStore();
      assert.equal(b.getState('k'), 'v');
    });

    it('a file damaged while running is moved aside and this window’s copy written in its place', async () => {
      const a = await openStore();
      a.appendLog({ role: 'user', content: 'kept in memory' });
      await a.flush();
      await writeFile(join(dir, 'baton.sqlite'), 'garbage');
      a.setState('k', 'v');
      await a.flush();
      assert.equal(reports.length, 1);
      assert.match(reports[0].message, /moved to .*baton\.sqlite\.corrupt-.*this window's copy was written in its place/);
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
      const whole = await readFile(join(dir, 'baton.sqlite'));
      await writeFile(join(dir, 'baton.sqlite'), whole.subarray(0, Math.floor(whole.length / 2)));

      const b = await openStore();
      assert.equal(b.recentLog(10).length, 0);
      assert.ok((await readdir(dir)).some((n) => n.startsWith('baton.sqlite.corrupt-')));
      assert.deepEqual(
        reports.map((r) => [r.kind, r.userMustAct]),
        [['moved-aside', true]],
      );
    });

    it('moves aside a file of the right length whose pages are damaged', async () => {
      const a = await openStore({ pruneLog: false });
      for (let i = 0; i < 300; i++) a.appendLog({ role: 'user', content: `line ${i} ${'x'.repeat(200)}` });
      await a.close();
      const bytes = await readFile(join(dir, 'baton.sqlite'));
      bytes.fill(0xa5, 4096 * 3, 4096 * 6); // three pages of the log's b-tree
      await writeFile(join(dir, 'baton.sqlite'), bytes);

      const b = await openStore();
      assert.equal(b.openCheck, 'pages', 'the bytes differ from what was written: every page is checked');
      assert.equal(b.recentLog(10).length, 0);
      assert.ok((await readdir(dir)).some((n) => n.startsWith('baton.sqlite.corrupt-')));
      assert.equal(reports.length, 1, reports.map((r) => r.message).join('\n'));
    });

    it('opens the file it wrote without the page-by-page check, and checks it again once its bytes change', async () => {
      const a = await openStore({ pruneLog: false });
      for (let i = 0; i < 300; i++) a.appendLog({ role: 'user', content: `line ${i} ${'x'.repeat(200)}` });
      await a.close();
      const b = await openStore({ pruneLog: false });
      assert.equal(b.openCheck, 'digest');
      assert.equal(b.recentLog(1000).length, 300);
      await b.close();
      // Written by something other than Baton (an older version, a copy from another machine): no matching digest.
      const bytes = await readFile(join(dir, 'baton.sqlite'));
      await writeFile(join(dir, 'baton.sqlite.digest'), 'not the digest of these bytes');
      await writeFile(join(dir, 'baton.sqlite'), bytes);
      const c = await openStore({ pruneLog: false });
      assert.equal(c.openCheck, 'pages');
      assert.equal(c.recentLog(1000).length, 300);
      assert.deepEqual(reports, []);
    });
  });

  describe('several windows on one folder', () => {
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
        if (round % 5 === 0) await delay(3);
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
        reports.filter((r) => r.level !== 'info'),
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
      const same = b.addMemory('preference', 'prefers spaces over tabs?', 'user').memory; // #2 in b
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
      const same = b.addMemory('preference', 'prefers spaces over tabs?', 'user').memory; // #2 in b
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
      await waitFor(() => b.getState('k') === 'from a');
    });

    it('waits for a live lease, gives up after the timeout keeping its changes, then succeeds', async () => {
      const a = await openStore({ leaseTimeoutMs: 150 });
      const lease = join(dir, 'baton.sqlite.lease');
      await writeFile(lease, JSON.stringify({ pid: process.pid, host: require('node:os').hostname(), token: 'someone-else' }));
      a.setState('k', 'v');
      await assert.rejects(a.flush(), /holding the database write lease/);
      assert.equal(a.pendingWrites, 1);
      assert.deepEqual(
        reports.map((r) => [r.kind, r.userMustAct]),
        [['save-failed', true]],
      );
      await rm(lease);
      await a.flush();
      assert.deepEqual(reports.map((r) => [r.kind, r.userMustAct]).slice(1), [['saved-again', false]]);
      assert.equal(a.pendingWrites, 0);
      assert.equal((await openStore()).getState('k'), 'v');
    });

    it('takes over at once a lease whose owner process is dead', async () => {
      const dead = spawnSync(process.execPath, ['-e', '0']).pid;
      await writeFile(join(dir, 'baton.sqlite.lease'), JSON.stringify({ pid: dead, host: require('node:os').hostname(), token: 'crashed' }));
      const a = await openStore({ leaseStaleMs: 60_000, leaseTimeoutMs: 60_000 });
      a.setState('k', 'v');
      const started = Date.now();
      await a.flush();
      assert.ok(Date.now() - started < 2000);
      assert.equal(existsSync(join(dir, 'baton.sqlite.lease')), false);
    });
  });

  describe('state read again', () => {
    it('answers from what it read or wrote, and follows deletes, a deleted conversation and another window’s writes', async () => {
      const a = await openStore();
      const b = await openStore();
      const key = conversationStateKey('session', 'c1');
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

  describe('migrations', () => {
    it('upgrades a version-1 file, keeping its rows and making old memories searchable', async () => {
      const SQL = await initSqlJs();
      const db = new SQL.Database();
      db.exec(V1_SCHEMA);
      db.exec(`INSERT INTO memories(category, content, source) VALUES ('preference', 'Prefers TypeScript over JavaScript', 'user'),
        ('routine', 'Daily standup is at 9:30', 'user')`);
      db.exec(`INSERT INTO conversation_log(role, content, status) VALUES ('user', 'hello', 'complete')`);
      await writeRaw(db);

      const a = await openStore();
      assert.deepEqual(
        a.recentLog(10).map((e) => e.content),
        ['hello'],
      );
      assert.deepEqual(
        a.searchMemories({ keyword: 'typescript' }).map((m) => m.id),
        [1],
      );
      assert.equal(a.addMemory('preference', 'prefers javascript over typescript!', 'user').duplicate, true, 'old rows got their duplicate key');
      assert.equal(a.addMemory('routine', 'Weekly demo on Fridays', 'user').memory.id, 3);
      await a.flush();
      const raw = await rawDb();
      assert.equal(raw.exec('PRAGMA user_version')[0].values[0][0], LATEST_VERSION);
      raw.close();
      assert.deepEqual(reports, []);
    });

    it('gives the log of a file from before conversations to the conversation "main", titled by its first message', async () => {
      const SQL = await initSqlJs();
      const db = new SQL.Database();
      db.exec(V1_SCHEMA);
      db.exec(`INSERT INTO conversation_log(role, content, status, ts) VALUES ('assistant', 'welcome', 'complete', '2026-01-01 10:00:00'),
        ('user', 'Fix the login bug', 'complete', '2026-01-01 10:01:00'), ('assistant', 'done', 'complete', '2026-01-01 10:02:00')`);
      await writeRaw(db);

      const a = await openStore();
      assert.deepEqual(
        a.recentLog(10).map((e) => [e.conversation, e.content]),
        [
          ['main', 'welcome'],
          ['main', 'Fix the login bug'],
          ['main', 'done'],
        ],
      );
      assert.deepEqual(
        a.listConversations().map((c) => [c.id, c.title, c.renamed, c.created_at, c.last_activity, c.messages]),
        [['main', 'Fix the login bug', false, '2026-01-01 10:00:00', '2026-01-01 10:02:00', 3]],
      );
      assert.deepEqual(a.recentLog(10, 'another'), []);
      assert.deepEqual(reports, []);
    });

    it('a failed migration leaves the old file untouched, is reported, and the window still works in memory', async () => {
      const SQL = await initSqlJs();
      const db = new SQL.Database();
      // A version-1 file without its memories table: migration 2 (ALTER TABLE memories) cannot run.
      db.exec(V1_SCHEMA.replace(/CREATE TABLE memories[^;]*;/, ''));
      db.exec(`INSERT INTO state(key, value) VALUES ('keep', 'me')`);
      await writeRaw(db);
      const before = await readFile(join(dir, 'baton.sqlite'));

      const a = await openStore({ flushDelayMs: 1 });
      assert.equal(reports.length, 1);
      assert.equal(reports[0].level, 'error');
      assert.deepEqual([reports[0].kind, reports[0].userMustAct], ['not-saving', true]);
      assert.match(reports[0].message, /migration to schema version 2 .* failed/);
      assert.match(reports[0].message, /left untouched/);
      a.setState('new', 'value');
      assert.equal(a.getState('new'), 'value');
      await a.flush();
      await delay(20);
      await a.close();
      assert.deepEqual(await readFile(join(dir, 'baton.sqlite')), before);
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
      const big = (await stat(join(dir, 'baton.sqlite'))).size;
      const b = await openStore();
      await b.flush();
      const small = (await stat(join(dir, 'baton.sqlite'))).size;
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
      assert.equal(reports.length, 3, reports.map((r) => r.message).join('\n'));
      assert.ok(reports.every((r) => r.level === 'warning' && r.kind === 'bad-row' && !r.userMustAct));
      assert.match(reports[0].message, /conversation_log.*status/);
      assert.match(reports[1].message, /memories.*category/);
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

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await delay(5);
  }
}
