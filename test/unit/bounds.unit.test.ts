// Every table Baton's database holds stays within its stated bound (src/core/store/bounds.ts, the README's table):
// each is filled past its bound through the store's own API, then counted in the file on disk.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import {
  AUTO_MEMORIES_KEEP,
  USER_MEMORIES_MAX,
  CHECKPOINT_KEEP,
  CONVERSATIONS_KEEP,
  TOOL_CONVERSATION_PREFIX,
  TOOL_CONVERSATIONS_KEEP,
  INBOX_DELIVERED_KEEP,
  LOG_BYTES_KEEP,
  LOG_KEEP,
  LOG_NEWEST_ALWAYS,
  SQUAD_AGENTS_MAX,
  SQUAD_DECISIONS_KEEP,
  SQUAD_TASKS_KEEP,
  SQUADS_MAX,
  USAGE_DAYS_KEEP,
  STATE_CACHE_KEEP,
} from '../../src/core/store/bounds';
import { createMemoryTools } from '../../src/core/memory/memoryTools';
import { SquadService } from '../../src/core/squads/squadService';
import { createSquadTools } from '../../src/core/squads/squadTools';
import { MemoryFullError } from '../../src/core/store/memoryFullError';
import { SquadsFullError } from '../../src/core/store/squadsFullError';
import { SqlJsStore } from '../../src/core/store/sqlJsStore';
import { CONVERSATION_STATE_NAMES, conversationStateKey, MAIN_CONVERSATION } from '../../src/core/store/types';

describe('bounds of the database (real sql.js file)', () => {
  let dir: string;
  let store: SqlJsStore;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-bounds-'));
    store = await SqlJsStore.open({ dir, flushDelayMs: 5, pollIntervalMs: 0 });
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Row counts in the file on disk (after a flush), by SQL. */
  async function count(sql: string): Promise<number> {
    await store.flush();
    const SQL = await initSqlJs();
    const db = new SQL.Database(await readFile(join(dir, 'baton.sqlite')));
    try {
      return Number(db.exec(sql)[0]?.values[0]?.[0] ?? 0);
    } finally {
      db.close();
    }
  }

  it(`the store's cache of state values holds at most ${STATE_CACHE_KEEP} keys, and still answers every key`, () => {
    for (let i = 0; i < STATE_CACHE_KEEP * 3; i++) store.setState(`key-${i}`, `value ${i}`);
    for (let i = 0; i < STATE_CACHE_KEEP * 3; i++) assert.equal(store.getState(`key-${i}`), `value ${i}`);
    for (let i = 0; i < STATE_CACHE_KEEP; i++) assert.equal(store.getState(`absent-${i}`), undefined);
    assert.ok(store.cachedStateKeys <= STATE_CACHE_KEEP, `${store.cachedStateKeys} keys`);
    assert.ok(store.cachedStateKeys > 0);
  });

  it(`conversation_log keeps the newest ${LOG_KEEP} rows`, async () => {
    for (let i = 0; i < LOG_KEEP * 2; i++) store.appendLog({ role: 'user', content: `message ${i}`, source: 'panel', status: 'complete' });
    const rows = await count('SELECT COUNT(*) FROM conversation_log');
    // Pruning runs every few inserts: at most a handful over, never growing with use.
    assert.ok(rows >= LOG_KEEP && rows < LOG_KEEP + 25, `${rows} rows`);
    assert.equal(store.recentLog(1)[0]!.content, `message ${LOG_KEEP * 2 - 1}`);
  });

  it(`conversation_log keeps the newest ${LOG_KEEP} rows per conversation`, async () => {
    for (let i = 0; i < LOG_KEEP + 60; i++) {
      store.appendLog({ role: 'user', content: `a ${i}`, conversation: 'a' });
      store.appendLog({ role: 'user', content: `b ${i}`, conversation: 'b' });
    }
    for (const c of ['a', 'b']) {
      const rows = await count(`SELECT COUNT(*) FROM conversation_log WHERE conversation = '${c}'`);
      assert.ok(rows >= LOG_KEEP && rows < LOG_KEEP + 50, `${c}: ${rows} rows`);
      assert.equal(store.recentLog(1, c)[0]!.content, `${c} ${LOG_KEEP + 59}`);
    }
  });

  it(`conversation_log holds at most ${LOG_BYTES_KEEP / 2 ** 20} MB of text in all: the oldest go first, each conversation keeps its newest ${LOG_NEWEST_ALWAYS}`, async function () {
    this.timeout(30_000);
    // Pasted logs and long replies: 120 messages of 200 KB (24 MB) over three conversations, then one short exchange in
    // a fourth; the first conversation's last two messages are older than everything the budget keeps.
    const big = (tag: string): string => `${tag} ${'é'.repeat(100 * 1024)}`; // 200 KB of UTF-8
    for (let i = 0; i < 2; i++) store.appendLog({ role: 'user', content: big(`old ${i}`), conversation: 'old' });
    for (let i = 0; i < 118; i++) store.appendLog({ role: 'user', content: big(`m ${i}`), conversation: i % 2 ? 'a' : 'b' });
    store.appendLog({ role: 'user', content: 'hello', conversation: 'short' });
    store.appendLog({ role: 'assistant', content: 'hi', conversation: 'short' });
    // The check runs every few inserts and at open: a reopened store is within its bound whatever the last insert was.
    await store.close();
    store = await SqlJsStore.open({ dir, flushDelayMs: 5, pollIntervalMs: 0 });
    const bytes = await count('SELECT SUM(octet_length(content)) FROM conversation_log');
    const kept = LOG_NEWEST_ALWAYS * 200 * 1024 + 100;
    assert.ok(bytes <= LOG_BYTES_KEEP + kept, `${bytes} bytes`);
    assert.ok(bytes > LOG_BYTES_KEEP - 200 * 1024 - 100, `${bytes} bytes: no more went than needed`);
    // The newest stay, the oldest went; the old conversation keeps its last two, the short one everything.
    assert.match(store.recentLog(1, 'a')[0]!.content, /^m 117 /);
    assert.equal(await count("SELECT COUNT(*) FROM conversation_log WHERE content LIKE 'm 0 %'"), 0);
    assert.deepEqual(
      store.recentLog(10, 'old').map((e) => e.content.slice(0, 5)),
      ['old 0', 'old 1'],
    );
    assert.deepEqual(
      store.recentLog(10, 'short').map((e) => e.content),
      ['hello', 'hi'],
    );
    // The file keeps free pages for the next rows until a quarter of it is free (compactIfSparse): bounded with the text.
    for (let i = 0; i < 60; i++) store.appendLog({ role: 'user', content: big(`more ${i}`), conversation: 'b' });
    await store.flush();
    const size = (await stat(join(dir, 'baton.sqlite'))).size;
    assert.ok(size < (LOG_BYTES_KEEP + kept) / 0.75 + 2 ** 20, `the file is ${size} bytes`);
  });

  it(`conversation_log stays within those ${LOG_BYTES_KEEP / 2 ** 20} MB (and a check's worth) at every moment, not only at open: replies grown in place count`, async function () {
    this.timeout(30_000);
    const big = (tag: string): string => `${tag} ${'é'.repeat(100 * 1024)}`; // 200 KB of UTF-8
    // Written to disk once at the end (whole-file writes of 16 MB after each row are not what is measured here).
    await store.close();
    store = await SqlJsStore.open({ dir, flushDelayMs: 60_000, pollIntervalMs: 0 });
    let highest = 0;
    // Two conversations of long exchanges: each reply written as it streams (a row appended, then its text replaced).
    for (let i = 0; i < 70; i++) {
      const conversation = i % 2 ? 'a' : 'b';
      store.appendLog({ role: 'user', content: big(`q ${i}`), conversation });
      const reply = store.appendLog({ role: 'assistant', content: '', conversation });
      store.updateLog(reply, { content: big(`r ${i}`) });
      if (i < 30) continue; // 12 MB so far: within the bound whatever is checked
      // Read in the database in memory (what the next flush writes): reading 16 MB of rows out each time took seconds.
      const tables = (store as unknown as { file: { tables: { number(sql: string): number } } }).file.tables;
      highest = Math.max(highest, tables.number('SELECT SUM(octet_length(content)) FROM conversation_log'));
    }
    // Before, the size was checked once per 50 inserts only: it reached 2.3× the bound between two checks.
    const kept = 2 * LOG_NEWEST_ALWAYS * 200 * 1024 + 100;
    // A check every 2^20 characters written (here of 2 bytes each), and the write that passed it.
    const check = 2 * 2 ** 20 + 200 * 1024;
    assert.ok(highest <= LOG_BYTES_KEEP + kept + check, `${highest} bytes at most`);
  });

  it('the counters of inserts since each conversation was pruned stay bounded however many conversations a window writes to', async () => {
    // asTool's 'fresh' calls: a conversation each. Before, one counter per conversation ever written stayed for good.
    for (let i = 0; i < 500; i++) store.appendLog({ role: 'user', content: `call ${i}`, conversation: `${TOOL_CONVERSATION_PREFIX}call-${i}` });
    const log = (store as unknown as { log: { pruneCounters: number } }).log;
    assert.ok(log.pruneCounters <= 64, `${log.pruneCounters} counters`);
    // A conversation whose counter was forgotten is pruned as it goes: its rows still keep their bound.
    for (let i = 0; i < LOG_KEEP; i++) store.appendLog({ role: 'user', content: `mine ${i}`, conversation: 'c-mine' });
    for (let i = 0; i < 20; i++) {
      store.appendLog({ role: 'user', content: `mine again ${i}`, conversation: 'c-mine' });
      for (let j = 0; j < 65; j++) store.appendLog({ role: 'user', content: `other ${i}`, conversation: `${TOOL_CONVERSATION_PREFIX}other-${j}` });
    }
    assert.ok(log.pruneCounters <= 64, `${log.pruneCounters} counters`);
    assert.equal(store.recentLog(LOG_KEEP + 100, 'c-mine').length, LOG_KEEP);
  });

  it(`within those ${LOG_BYTES_KEEP / 2 ** 20} MB, another agent's conversations (a tool call's own) lose their text before any of the user's goes`, async function () {
    this.timeout(30_000);
    const big = (tag: string): string => `${tag} ${'é'.repeat(100 * 1024)}`; // 200 KB of UTF-8
    // The user's 4 MB first, then 20 MB of an agent's calls, newer than all of it.
    for (let i = 0; i < 20; i++) store.appendLog({ role: 'user', content: big(`mine ${i}`), conversation: 'c-mine' });
    for (let i = 0; i < 100; i++) store.appendLog({ role: 'user', content: big(`agent ${i}`), conversation: `${TOOL_CONVERSATION_PREFIX}${i % 10}` });
    await store.close();
    store = await SqlJsStore.open({ dir, flushDelayMs: 5, pollIntervalMs: 0 });
    assert.equal(store.recentLog(100, 'c-mine').length, 20, "every one of the user's messages is kept");
    const bytes = await count('SELECT SUM(octet_length(content)) FROM conversation_log');
    assert.ok(bytes <= LOG_BYTES_KEEP + 10 * LOG_NEWEST_ALWAYS * 200 * 1024 + 100, `${bytes} bytes`);
    assert.equal(await count("SELECT COUNT(*) FROM conversation_log WHERE content LIKE 'agent 0 %'"), 0, "the agent's oldest went");
    assert.match(store.recentLog(1, `${TOOL_CONVERSATION_PREFIX}9`)[0]!.content, /^agent 99 /);
  });

  it(`conversations keep the ${CONVERSATIONS_KEEP} most recently active, each going with its log and saved session`, async () => {
    store.appendLog({ role: 'user', content: 'the first conversation', conversation: 'c-first' });
    store.setState('orchestrator_session_id@c-first', 'session-of-first');
    for (let i = 0; i < CONVERSATIONS_KEEP + 20; i++) {
      store.appendLog({ role: 'user', content: `hello ${i}`, conversation: `c-${i}` });
      // The first one stays in use for a while: it is among the most recently active, so it is kept.
      if (i === CONVERSATIONS_KEEP - 10) store.appendLog({ role: 'assistant', content: 'still here', conversation: 'c-first' });
    }
    assert.equal(await count('SELECT COUNT(*) FROM conversations'), CONVERSATIONS_KEEP);
    assert.equal(await count('SELECT COUNT(DISTINCT conversation) FROM conversation_log'), CONVERSATIONS_KEEP);
    assert.equal(store.getState('orchestrator_session_id@c-first'), 'session-of-first');
    const ids = new Set(store.listConversations().map((c) => c.id));
    assert.ok(ids.has('c-first') && ids.has(`c-${CONVERSATIONS_KEEP + 19}`) && !ids.has('c-0'), 'the least recently active went');
    const oldest = store.listConversations().at(-1)!.id;
    store.setState(`orchestrator_session_id@${oldest}`, 'session-of-the-oldest');
    store.appendLog({ role: 'user', content: 'one more', conversation: 'one-more' });
    assert.equal(store.getState(`orchestrator_session_id@${oldest}`), undefined, "a dropped conversation's saved session goes with it");
    assert.equal(store.recentLog(10, oldest).length, 0, 'and its log');
    assert.equal(await count('SELECT COUNT(*) FROM conversations'), CONVERSATIONS_KEEP);
  });

  it("a conversation that goes takes exactly its own state: not that of a conversation whose id ends in '@' and its id", async () => {
    for (const id of ['host', 'bob@host']) {
      store.appendLog({ role: 'user', content: `hello from ${id}`, conversation: id });
      for (const name of CONVERSATION_STATE_NAMES) store.setState(conversationStateKey(name, id), `${name} of ${id}`);
    }
    store.deleteConversation('host');
    for (const name of CONVERSATION_STATE_NAMES) {
      assert.equal(store.getState(conversationStateKey(name, 'host')), undefined);
      // Before, every key ending in '@host' went: bob@host lost its saved session, and its next message started anew.
      assert.equal(store.getState(conversationStateKey(name, 'bob@host')), `${name} of bob@host`);
    }
  });

  it(`the first conversation ('main', whose state keys have no suffix) pushed out by the bound goes with its saved session and its other state`, async () => {
    store.appendLog({ role: 'user', content: 'my codeword is PELICAN', conversation: MAIN_CONVERSATION });
    for (const name of CONVERSATION_STATE_NAMES) store.setState(conversationStateKey(name, MAIN_CONVERSATION), `${name} of main`);
    store.setState('active_conversation', 'c-0');
    for (let i = 0; i < CONVERSATIONS_KEEP; i++) store.appendLog({ role: 'user', content: `hello ${i}`, conversation: `c-${i}` });
    assert.ok(!store.listConversations().some((c) => c.id === MAIN_CONVERSATION));
    assert.equal(store.getState('orchestrator_session_id'), undefined, 'its session is not resumed by the next message to "main"');
    assert.equal(await count(`SELECT COUNT(*) FROM state WHERE key IN (${CONVERSATION_STATE_NAMES.map((k) => `'${k}'`).join(', ')})`), 0);
    assert.equal(store.getState('active_conversation'), 'c-0', "the store's own keys stay");
  });

  it(`empty conversations (an API call naming a new id, New Chat) never push out one with messages; a first message does`, async () => {
    for (let i = 0; i < CONVERSATIONS_KEEP; i++) store.appendLog({ role: 'user', content: `mine ${i}`, conversation: `c-${i}` });
    for (let i = 0; i < 50; i++) store.createConversation(`empty-${i}`);
    const kept = store.listConversations();
    assert.equal(kept.filter((c) => c.messages > 0).length, CONVERSATIONS_KEEP, 'every one with messages is kept');
    assert.deepEqual(
      kept.filter((c) => !c.messages).map((c) => c.id),
      ['empty-49'],
      'the newest empty one only: the others went',
    );
    store.appendLog({ role: 'user', content: 'now it counts', conversation: 'empty-49' });
    const ids = store.listConversations().map((c) => c.id);
    assert.equal(ids.length, CONVERSATIONS_KEEP);
    assert.ok(ids.includes('empty-49') && !ids.includes('c-0'), 'its first message pushes out the least recently active');
  });

  it('conversations in use (the one shown, one open or answering) are never pushed out: the oldest others go', async () => {
    store.appendLog({ role: 'user', content: 'shown', conversation: 'c-shown' });
    store.appendLog({ role: 'user', content: 'answering', conversation: 'c-answering' });
    store.keepInUse(() => ['c-shown', 'c-answering']);
    for (let i = 0; i < CONVERSATIONS_KEEP; i++) store.appendLog({ role: 'user', content: `elsewhere ${i}`, conversation: `c-${i}` });
    const ids = store.listConversations().map((c) => c.id);
    assert.ok(ids.includes('c-shown') && ids.includes('c-answering'));
    assert.ok(!ids.includes('c-0') && !ids.includes('c-1') && ids.includes('c-2'));
    // No longer in use: the next conversation brings the count back to the bound.
    store.keepInUse(() => []);
    store.appendLog({ role: 'user', content: 'one more', conversation: 'c-more' });
    assert.equal(await count('SELECT COUNT(*) FROM conversations'), CONVERSATIONS_KEEP);
  });

  it(`conversations a tool call opened for itself keep their own ${TOOL_CONVERSATIONS_KEEP}: they never push out the user's`, async () => {
    for (let i = 0; i < CONVERSATIONS_KEEP; i++) store.appendLog({ role: 'user', content: `mine ${i}`, conversation: `c-${i}` });
    for (let i = 0; i < TOOL_CONVERSATIONS_KEEP + 30; i++) {
      store.appendLog({ role: 'user', content: `from another agent ${i}`, conversation: `${TOOL_CONVERSATION_PREFIX}${i}` });
    }
    const tool = `substr(id, 1, ${TOOL_CONVERSATION_PREFIX.length}) = '${TOOL_CONVERSATION_PREFIX}'`;
    assert.equal(await count(`SELECT COUNT(*) FROM conversations WHERE ${tool}`), TOOL_CONVERSATIONS_KEEP);
    assert.equal(await count(`SELECT COUNT(*) FROM conversations WHERE NOT ${tool}`), CONVERSATIONS_KEEP, "every one of the user's is kept");
    const ids = new Set(store.listConversations().map((c) => c.id));
    assert.ok(ids.has('c-0') && ids.has(`${TOOL_CONVERSATION_PREFIX}${TOOL_CONVERSATIONS_KEEP + 29}`) && !ids.has(`${TOOL_CONVERSATION_PREFIX}0`));
    store.appendLog({ role: 'user', content: 'mine too', conversation: 'c-one-more' });
    assert.ok(!new Set(store.listConversations().map((c) => c.id)).has('c-0'), "a new one of the user's pushes out the user's oldest");
    assert.equal(await count(`SELECT COUNT(*) FROM conversations WHERE ${tool}`), TOOL_CONVERSATIONS_KEEP);
  });

  it(`checkpoints keep the newest ${CHECKPOINT_KEEP} per conversation`, async () => {
    for (const conversation of ['main', 'second'])
      for (let i = 0; i < CHECKPOINT_KEEP + 60; i++) store.addCheckpoint({ conversation, turn_index: i, fingerprint: 'f', route: null, status: 'complete' });
    assert.equal(await count("SELECT COUNT(*) FROM checkpoints WHERE conversation = 'main'"), CHECKPOINT_KEEP);
    assert.equal(await count("SELECT COUNT(*) FROM checkpoints WHERE conversation = 'second'"), CHECKPOINT_KEEP);
  });

  it(`memories Baton noted itself are capped at ${AUTO_MEMORIES_KEEP}; the user's own stay`, async () => {
    for (let i = 0; i < AUTO_MEMORIES_KEEP + 40; i++) store.addMemory('fact', `noted fact number ${i} about thing ${i * 7}`, 'auto');
    store.addMemory('preference', 'Prefers tabs', 'user');
    assert.equal(await count("SELECT COUNT(*) FROM memories WHERE source = 'auto'"), AUTO_MEMORIES_KEEP);
    assert.equal(await count("SELECT COUNT(*) FROM memories WHERE source = 'user'"), 1);
  });

  it(`memories the user asked to keep stop at ${USER_MEMORIES_MAX}: the next is refused, saying so, and none is lost`, async () => {
    for (let i = 0; i < USER_MEMORIES_MAX; i++) store.addMemory('fact', `kept fact number ${i} about thing ${i * 7}`, 'user');
    store.addMemory('fact', 'noted by Baton while full', 'auto');
    assert.throws(() => store.addMemory('preference', 'Prefers tabs', 'user'), MemoryFullError);
    // What the model hears from the remember tool, and a duplicate of one kept is still found.
    const remember = createMemoryTools(store).find((t) => t.name === 'remember')!;
    const told = (await remember.handler!({ category: 'preference', content: 'Prefers spaces' }, { toolCallId: 'c1' } as never)) as {
      textResultForLlm: string;
      resultType: string;
    };
    assert.equal(told.resultType, 'failure');
    assert.match(told.textResultForLlm, /Long-term memory is full: it holds 1000 memories you asked to keep\. Forget one first/);
    assert.equal(store.addMemory('fact', 'kept fact number 3 about thing 21', 'user').duplicate, true);
    // Promoting a noted one would go past the bound: it stays noted (and remembered).
    assert.equal(store.addMemory('fact', 'noted by Baton while full', 'user').memory.source, 'auto');
    assert.equal(await count("SELECT COUNT(*) FROM memories WHERE source = 'user'"), USER_MEMORIES_MAX);
    store.deleteMemory(store.searchMemories({ limit: 5 }).find((m) => m.source === 'user')!.id);
    assert.equal(store.addMemory('preference', 'Prefers tabs', 'user').duplicate, false, 'room again once one is forgotten');
  });

  it(`the inbox keeps undelivered results and the newest ${INBOX_DELIVERED_KEEP} delivered ones`, async () => {
    const ids = Array.from({ length: INBOX_DELIVERED_KEEP + 30 }, (_, i) =>
      store.addInbox({ worker_name: `w${i}`, origin: 'panel', kind: 'completed', content: `result ${i}` }),
    );
    store.addInbox({ worker_name: 'waiting', origin: 'panel', kind: 'completed', content: 'not yet delivered' });
    for (const id of ids) store.markInboxDelivered(id);
    assert.equal(await count('SELECT COUNT(*) FROM inbox WHERE delivered = 1'), INBOX_DELIVERED_KEEP);
    assert.deepEqual(
      store.undeliveredInbox().map((r) => r.worker_name),
      ['waiting'],
    );
  });

  it(`squads keep the newest ${SQUAD_DECISIONS_KEEP} decisions per squad and ${SQUAD_TASKS_KEEP} task records`, async () => {
    store.squads.createSquad({ name: 'shop', project_dir: '/p', universe: 'goonies' });
    for (let i = 0; i < SQUAD_DECISIONS_KEEP + 20; i++) store.squads.logDecision('shop', `decision ${i}`, null);
    for (let i = 0; i < SQUAD_TASKS_KEEP + 20; i++) store.squads.recordTask({ worker: `task-${i}`, squad: 'shop', agent: null, prompt: 'p' });
    assert.equal(await count('SELECT COUNT(*) FROM squad_decisions'), SQUAD_DECISIONS_KEEP);
    assert.equal(store.squads.decisions('shop', 1)[0]!.content, `decision ${SQUAD_DECISIONS_KEEP + 19}`);
    assert.equal(await count('SELECT COUNT(*) FROM squad_tasks'), SQUAD_TASKS_KEEP);
  });

  it(`squads stop at ${SQUADS_MAX} and a squad's agents at ${SQUAD_AGENTS_MAX}: the next is refused, saying so, and none is removed`, async () => {
    for (let i = 0; i < SQUADS_MAX; i++) assert.equal(store.squads.createSquad({ name: `squad-${i}`, project_dir: dir, universe: 'goonies' }), true);
    assert.throws(() => store.squads.createSquad({ name: 'one-more', project_dir: dir, universe: 'goonies' }), SquadsFullError);
    assert.equal(store.squads.createSquad({ name: 'SQUAD-7', project_dir: dir, universe: 'goonies' }), false, 'a name taken is still told as taken');
    for (let i = 0; i < SQUAD_AGENTS_MAX; i++)
      assert.equal(store.squads.addAgent({ squad: 'squad-0', name: `agent-${i}`, role: 'r', charter: 'c'.repeat(4000), tier: 'low' }), true);
    // What the model hears from the squad tools.
    const tools = createSquadTools(
      new SquadService({ store, pool: undefined as never, tiers: () => ({ premium: 'p', standard: 's', fast: 'f' }), homeDir: dir }),
    );
    const call = async (name: string, args: Record<string, unknown>) =>
      (await tools.find((t) => t.name === name)!.handler!(args, { toolCallId: name } as never)) as { textResultForLlm: string; resultType: string };
    const created = await call('squad_create', { name: 'one-more', project_dir: dir });
    assert.deepEqual(
      [created.resultType, created.textResultForLlm],
      ['failure', `Baton holds ${SQUADS_MAX} squads, as many as it keeps. Delete one first (squad_delete, or the Squads view).`],
    );
    const added = await call('squad_add_agent', { squad: 'squad-0', role_title: 'Tester', charter: 'Tests', model_tier: 'low' });
    assert.deepEqual(
      [added.resultType, added.textResultForLlm],
      ['failure', `Squad 'squad-0' has ${SQUAD_AGENTS_MAX} agents, as many as a squad keeps. Remove one first (squad_remove_agent, or the Squads view).`],
    );
    assert.equal(await count('SELECT COUNT(*) FROM squads'), SQUADS_MAX);
    assert.equal(await count("SELECT COUNT(*) FROM squad_agents WHERE squad = 'squad-0'"), SQUAD_AGENTS_MAX);
    store.squads.deleteSquad('squad-99');
    store.squads.removeAgent('squad-0', 'agent-0');
    assert.equal(store.squads.createSquad({ name: 'one-more', project_dir: dir, universe: 'goonies' }), true, 'room again once one is deleted');
    assert.equal(store.squads.addAgent({ squad: 'squad-0', name: 'newcomer', role: 'r', charter: 'c', tier: 'low' }), true);
  });

  it(`usage totals keep ${USAGE_DAYS_KEEP} days`, async () => {
    const day = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);
    for (let n = 0; n < USAGE_DAYS_KEEP + 40; n++) {
      store.usage.add([{ scope: 'orchestrator', key: 'orchestrator', inputTokens: 1, outputTokens: 1, premiumRequests: 0, requests: 1 }], day(n));
    }
    const days = await count('SELECT COUNT(DISTINCT day) FROM usage_totals');
    assert.ok(days <= USAGE_DAYS_KEEP + 1, `${days} days kept`);
  });
});
