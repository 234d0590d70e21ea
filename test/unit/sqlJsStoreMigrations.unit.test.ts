// SqlJsStore's schema migrations on real sql.js files: an old file is upgraded keeping its rows; a migration that fails
// leaves the file untouched and says so.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import initSqlJs from 'sql.js';
import { LATEST_VERSION } from '../../src/core/store/migrations';
import { eachStoreFolder } from '../support/storeFolder';

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

describe('SqlJsStore: migrations', () => {
  const folder = eachStoreFolder();
  const { openStore, rawDb, writeRaw } = folder;

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
    assert.equal(a.addMemory('preference', 'prefers TYPESCRIPT over javascript!', 'user').duplicate, true, 'old rows got their duplicate key');
    assert.equal(a.addMemory('routine', 'Weekly demo on Fridays', 'user').memory.id, 3);
    await a.flush();
    const raw = await rawDb();
    assert.equal(raw.exec('PRAGMA user_version')[0].values[0][0], LATEST_VERSION);
    raw.close();
    assert.deepEqual(folder.reports, []);
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
    assert.deepEqual(folder.reports, []);
  });

  it('a failed migration leaves the old file untouched, is reported, and the window still works in memory', async () => {
    const SQL = await initSqlJs();
    const db = new SQL.Database();
    // A version-1 file without its memories table: migration 2 (ALTER TABLE memories) cannot run.
    db.exec(V1_SCHEMA.replace(/CREATE TABLE memories[^;]*;/, ''));
    db.exec(`INSERT INTO state(key, value) VALUES ('keep', 'me')`);
    await writeRaw(db);
    const before = await readFile(join(folder.dir, 'baton.sqlite'));

    const a = await openStore({ flushDelayMs: 1 });
    assert.equal(folder.reports.length, 1);
    assert.equal(folder.reports[0].level, 'error');
    assert.deepEqual([folder.reports[0].kind, folder.reports[0].userMustAct], ['not-saving', true]);
    assert.match(folder.reports[0].message, /migration to schema version 2 .* failed/);
    assert.match(folder.reports[0].message, /left untouched/);
    a.setState('new', 'value');
    assert.equal(a.getState('new'), 'value');
    await a.flush();
    await sleep(20);
    await a.close();
    assert.deepEqual(await readFile(join(folder.dir, 'baton.sqlite')), before);
  });
});
