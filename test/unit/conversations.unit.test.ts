// The conversations manager as createBatonCore builds it, with only the runtime in memory: what the panel, the palette
// and the API rely on (an unknown id creates a conversation, bad input is refused in words and changes nothing, the
// conversation shown survives a reload, the 200-row log bound holds per conversation).
import * as assert from 'node:assert/strict';
import { ConversationError } from '../../src/core/conversations/conversationError';
import { join } from 'node:path';
import { LIVE_KEEP } from '../../src/core/conversations/conversations';
import { ConversationClaims, newInstance, retireInstance } from '../../src/core/orchestrator/conversationClaims';
import { describeConversations } from '../../src/core/conversations/conversationsReport';
import { CONVERSATIONS_KEEP } from '../../src/core/store/bounds';
import { MAIN_CONVERSATION } from '../../src/core/store/types';
import { createBatonApi } from '../../src/core/api/batonApi';
import type { BatonApiV2, BatonError } from '../../api/baton';
import { hangAfter, reply, type TurnScript } from '../support/inMemoryAgentSessions';
import { eachUnitCore, until, type UnitCore } from '../support/inMemoryCore';

describe('Conversations (in-memory runtime)', () => {
  let f: UnitCore;

  eachUnitCore((core) => (f = core));

  it('an unknown id passed to get() (the API, the Chat view) creates that conversation; the panel keeps showing its own', async () => {
    f.sessions.script('orchestrator', reply('hello from elsewhere'));
    const shown = f.core.conversations.activeId;
    const result = await f.core.conversations.enqueue('hi there', { channel: 'api', conversation: 'from-api' }).done;
    assert.equal(result.content, 'hello from elsewhere');
    assert.equal(f.core.conversations.activeId, shown);
    const listed = f.core.conversations.list().find((c) => c.id === 'from-api');
    assert.deepEqual([listed?.title, listed?.messages], ['hi there', 2]);
    assert.deepEqual(
      f.core.store.recentLog(10).map((e) => e.content),
      [],
      'nothing in the conversation shown',
    );
    assert.ok(f.events.every((e) => e.type === 'busy' || e.conversation === 'from-api'));
  });

  it('refuses bad ids, bad names and unknown conversations with a ConversationError whose kind says which, changing nothing', async () => {
    const before = f.core.conversations.list();
    assert.throws(
      () => f.core.conversations.get('../etc'),
      (e: unknown) => e instanceof ConversationError && e.kind === 'bad-id',
    );
    assert.throws(
      () => f.core.conversations.get(''),
      (e: unknown) => e instanceof ConversationError && e.kind === 'bad-id',
    );
    assert.throws(
      () => f.core.conversations.open('nope'),
      (e: unknown) => e instanceof ConversationError && e.kind === 'not-found',
    );
    assert.throws(
      () => f.core.conversations.rename(f.core.conversations.activeId, '   '),
      (e: unknown) => e instanceof ConversationError && e.kind === 'bad-title',
    );
    assert.throws(
      () => f.core.conversations.rename(f.core.conversations.activeId, 'x'.repeat(81)),
      (e: unknown) => e instanceof ConversationError && e.kind === 'bad-title',
    );
    assert.throws(
      () => f.core.conversations.rename('nope', 'fine'),
      (e: unknown) => e instanceof ConversationError && e.kind === 'not-found',
    );
    await assert.rejects(f.core.conversations.delete('nope'), (e: unknown) => e instanceof ConversationError && e.kind === 'not-found');
    assert.deepEqual(
      f.core.conversations.list().map((c) => [c.id, c.title]),
      before.map((c) => [c.id, c.title]),
    );
  });

  it('a renamed conversation keeps its name when messages come, and the conversation shown survives a reload', async () => {
    f.sessions.script('orchestrator', reply('zero'), reply('one'), reply('two'));
    const first = f.core.conversations.activeId;
    assert.equal(f.core.conversations.create(), first, 'New Chat on an empty conversation stays in it');
    await f.core.conversations.active.enqueue('hello first', { channel: 'panel' }).done;
    const second = f.core.conversations.create();
    assert.notEqual(second, first);
    f.core.conversations.rename(second, '  Release   notes ');
    await f.core.conversations.active.enqueue('draft them', { channel: 'panel' }).done;
    f.core.conversations.open(first);
    await f.core.conversations.active.enqueue('back here', { channel: 'panel' }).done;
    f.core.conversations.open(second);
    await f.restart();
    assert.equal(f.core.conversations.activeId, second);
    assert.deepEqual(
      f.core.conversations.list().map((c) => [c.id, c.title, c.renamed, c.messages]),
      [
        [first, 'hello first', false, 4],
        [second, 'Release notes', true, 2],
      ],
      'most recently active first: opening one is not activity in it',
    );
  });

  it('deleting a conversation that is answering stops its turn, withdraws what waits, and deletes its session', async () => {
    f.sessions.script('orchestrator', hangAfter('half an answer'));
    const doomed = f.core.conversations.active;
    const running = doomed.enqueue('a long question', { channel: 'panel' });
    const waiting = doomed.enqueue('never sent', { channel: 'panel' });
    await until(() => f.events.some((e) => e.type === 'turn.delta'), 'the answer to start');
    const session = doomed.currentSessionId!;
    await f.core.conversations.delete(doomed.conversation);
    await assert.rejects(waiting.done, /withdrawn before it was sent/);
    assert.equal((await running.done).status, 'cancelled');
    assert.ok(!(await f.sessions.ownSessions()).some((s) => s.id === session), 'its session is deleted');
    assert.ok(!f.events.some((e) => e.type === 'turn.started' && e.turnId === waiting.turnId), 'the waiting message never started');
    assert.notEqual(f.core.conversations.activeId, doomed.conversation);
    assert.deepEqual(f.core.store.recentLog(10, doomed.conversation), []);
  });

  it(`keeps at most ${LIVE_KEEP} conversations open; one closed while idle resumes its own session when used again`, async () => {
    f.sessions.script('orchestrator', reply('first'), reply('again'));
    await f.core.conversations.enqueue('hello', { channel: 'api', conversation: 'c-old' }).done;
    const session = f.core.conversations.peek('c-old')!.currentSessionId;
    await until(() => !f.core.conversations.peek('c-old')!.busy, 'the first turn to settle');
    for (let i = 0; i < LIVE_KEEP + 2; i++) f.core.conversations.get(`c-${i}`);
    assert.ok(f.core.conversations.all().length <= LIVE_KEEP, `${f.core.conversations.all().length} open`);
    assert.equal(f.core.conversations.peek('c-old'), undefined, 'the least recently used idle one was closed');
    assert.ok(f.core.conversations.peek(f.core.conversations.activeId), 'never the one shown');
    await f.core.conversations.enqueue('still there?', { channel: 'api', conversation: 'c-old' }).done;
    const ready = f.events.filter((e) => e.type === 'session.ready' && e.conversation === 'c-old').at(-1);
    assert.ok(ready?.type === 'session.ready');
    assert.deepEqual([ready.how, ready.sessionId], ['resumed', session]);
  });

  it("the Doctor's line counts the kept and open conversations against their bounds and names the one answering", async () => {
    f.sessions.script('orchestrator', reply('done'), hangAfter('still going'));
    await f.core.conversations.enqueue('a finished question', { channel: 'api', conversation: 'c-done' }).done;
    const running = f.core.conversations.enqueue('a question that takes its time', { channel: 'api', conversation: 'c-busy' });
    await until(() => f.events.some((e) => e.type === 'turn.delta' && e.conversation === 'c-busy'), 'the answer to start');
    const { conversations } = f.core;
    assert.equal(
      describeConversations(conversations.list(), conversations.openCount, LIVE_KEEP),
      `3 of ${CONVERSATIONS_KEEP} kept; 3 of ${LIVE_KEEP} open in this window; shown: "${conversations.activeId}" (0 messages); answering: "a question that takes its time"`,
    );
    conversations.stop(running.turnId);
    assert.equal((await running.done).status, 'cancelled');
  });

  it('refuses to delete a conversation another open window runs, saying which window; it is deleted once that window is gone', async () => {
    f.sessions.script('orchestrator', reply('answered here'));
    await f.core.conversations.enqueue('a question', { channel: 'api', conversation: 'c-theirs' }).done;
    await until(() => !f.core.conversations.peek('c-theirs')!.busy, 'the turn to settle');
    // Another window of this machine (its own core in a live process) takes the conversation over.
    const mine = f.core.conversationClaims.self;
    f.core.conversationClaims.release('c-theirs');
    const instance = newInstance();
    const other = new ConversationClaims(join(f.storageDir, 'claims'), { ...mine, instance, key: 'other-workspace', label: 'other-workspace' });
    assert.equal(other.claim('c-theirs'), undefined);
    const error = await f.core.conversations.delete('c-theirs').then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(error instanceof ConversationError && error.kind === 'held-elsewhere', String(error));
    assert.match(error.message, /open in another VS Code window \(other-workspace\)/);
    assert.equal(f.core.store.recentLog(10, 'c-theirs').length, 2, 'nothing was deleted');
    retireInstance(instance);
    await f.core.conversations.delete('c-theirs');
    assert.equal(f.core.store.recentLog(10, 'c-theirs').length, 0);
  });

  /** The user's own conversations written by another window (or the Chat view): each a message, newer than any here. */
  const othersWrite = (n: number): void => {
    for (let i = 0; i < n; i++) f.core.store.appendLog({ role: 'user', content: `elsewhere ${i}`, source: 'chat', conversation: `c-other-${i}` });
  };
  /** A reply that waits for `gate` before it says `text`. */
  const gated =
    (gate: Promise<void>, text: string): TurnScript =>
    async (ctx) => {
      await gate;
      await ctx.say(text);
    };

  it(`more than ${LIVE_KEEP} conversations asked at once through the API are all answered, none refused as closed`, async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const n = LIVE_KEEP + 4;
    for (let i = 0; i < n; i++) f.sessions.scriptWhen('orchestrator', (p) => p.includes(`hello ${i}.`), gated(gate, `answer ${i}`));
    const api = createBatonApi(() => Promise.resolve(f.core.access));
    const v2 = api.getApi(2);
    let refused = 0;
    const asked = Array.from({ length: n }, (_, i) =>
      v2
        .conversation(`ext-conv-${i}`)
        .ask(`hello ${i}.`)
        .then(
          (r) => `${r.status}: ${r.text}`,
          (e: unknown) => `refused ${++refused}: ${String(e)}`,
        ),
    );
    const started = () => f.events.filter((e) => e.type === 'turn.started').length;
    await until(() => started() + refused === n, 'every ask to start or be refused');
    open();
    assert.deepEqual(
      await Promise.all(asked),
      Array.from({ length: n }, (_, i) => `complete: answer ${i}`),
    );
    api.dispose();
  });

  it('the bound on conversations never pushes out the one answering nor the one shown: the question stays with its reply', async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    f.sessions.script('orchestrator', reply('shown reply'), gated(gate, 'the slow answer'));
    const shown = f.core.conversations.activeId;
    await f.core.conversations.active.enqueue('a message in the shown one', { channel: 'panel' }).done;
    const running = f.core.conversations.enqueue('slow question', { channel: 'api', conversation: 'c-answering' });
    await until(() => f.events.some((e) => e.type === 'turn.started' && e.conversation === 'c-answering'), 'the answer to start');
    othersWrite(CONVERSATIONS_KEEP);
    open();
    assert.equal((await running.done).content, 'the slow answer');
    const rows = (id: string) => f.core.store.recentLog(10, id).map((e) => [e.role, e.content]);
    assert.deepEqual(rows('c-answering'), [
      ['user', 'slow question'],
      ['assistant', 'the slow answer'],
    ]);
    assert.deepEqual(rows(shown), [
      ['user', 'a message in the shown one'],
      ['assistant', 'shown reply'],
    ]);
    assert.equal(f.core.conversations.list().find((c) => c.id === shown)?.messages, 2, 'the panel still shows its messages');
    // The oldest others went instead; the count comes back to the bound once these two are no longer in use.
    assert.ok(!f.core.store.listConversations().some((c) => c.id === 'c-other-0'));
  });

  it("a conversation the bound pushes out, 'main' too, takes its saved session: a later message there starts a new session", async () => {
    f.sessions.script('orchestrator', reply('noted'), reply('the next one'), reply('hello again'));
    await f.core.conversations.enqueue('my codeword is PELICAN', { channel: 'api', conversation: MAIN_CONVERSATION }).done;
    const pruned = f.core.conversations.peek(MAIN_CONVERSATION)!.currentSessionId;
    f.core.conversations.create();
    await f.core.conversations.active.enqueue('the next one', { channel: 'panel' }).done;
    await f.restart();
    assert.notEqual(f.core.conversations.activeId, MAIN_CONVERSATION);
    othersWrite(CONVERSATIONS_KEEP);
    assert.ok(!f.core.store.listConversations().some((c) => c.id === MAIN_CONVERSATION), "'main' was the least recently active");
    await f.core.conversations.enqueue('what is my codeword?', { channel: 'api', conversation: MAIN_CONVERSATION }).done;
    const ready = f.events.filter((e) => e.type === 'session.ready' && e.conversation === MAIN_CONVERSATION).at(-1);
    assert.ok(ready?.type === 'session.ready');
    assert.equal(ready.how, 'created', 'the pruned session is not resumed');
    assert.notEqual(ready.sessionId, pruned);
    assert.equal(f.core.conversations.list().find((c) => c.id === MAIN_CONVERSATION)?.messages, 2);
  });

  it("the API's summarize and compact on ids that do not exist create nothing, and never push out the user's conversations", async () => {
    f.sessions.script('orchestrator', reply('kept'));
    const mine = f.core.conversations.activeId;
    await f.core.conversations.active.enqueue('my important conversation', { channel: 'panel' }).done;
    // Another conversation is shown now, and this window has none open: only the bound could take the user's.
    f.core.conversations.create();
    await f.restart();
    const api = createBatonApi(() => Promise.resolve(f.core.access));
    const v2: BatonApiV2 = api.getApi(2);
    for (let i = 0; i < CONVERSATIONS_KEEP; i++) {
      await assert.rejects(
        v2.conversation(`ext-${i}`).summarize({ afterTurns: 10, keep: 4 }),
        (e: BatonError) => e.kind === 'invalid-input' && /no conversation "ext-\d+"/.test(e.message),
      );
      assert.equal(await v2.conversation(`ext-c-${i}`).compact(), undefined, 'nothing to fold');
    }
    assert.deepEqual(
      f.core.store
        .listConversations()
        .map((c) => c.id)
        .filter((id) => id.startsWith('ext-')),
      [],
    );
    assert.deepEqual(
      (await v2.conversation(mine).messages()).map((m) => m.text),
      ['my important conversation', 'kept'],
    );
    api.dispose();
  });
});
