// Many conversations against the REAL Copilot runtime and a scripted model server, built as the extension builds them
// (createBatonCore): each conversation its own log, session and queue, on one runtime; the panel shows one and badges
// the others.
import * as assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { HostMessage } from '../../src/shared/protocol';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { waitFor } from '../support/waitFor';
import { afterEachCore } from '../support/afterEachCore';
import { ofType } from '../support/orchestratorEvents';
import { CONVERSATIONS_KEEP } from '../../src/core/store/bounds';

describe('conversations (real runtime, scripted model, production wiring)', function () {
  this.timeout(90_000);
  let core: CoreFixture;
  let posted: HostMessage[];

  beforeEach(async () => {
    core = await startCore();
    posted = [];
    core.chat.onDidPost((m) => posted.push(m));
  });
  afterEachCore(() => core);

  const send = (text: string) => core.conversations.active.enqueue(text, { channel: 'panel' }).done;
  const texts = (conversation: string) => core.store.recentLog(50, conversation).map((e) => [e.role, e.content]);

  it('New Chat keeps the first conversation; reopening it shows its history and continues its own session, also after a reload', async () => {
    core.server.on({ lastUserIncludes: '[via panel] my project is called zebra' }, { text: 'Noted: zebra.' });
    core.server.on({ lastUserIncludes: '[via panel] something else entirely' }, { text: 'Sure, something else.' });
    core.server.on({ lastUserIncludes: '[via panel] what is my project called?' }, { text: 'It is called zebra.' });
    core.server.on({ lastUserIncludes: '[via panel] and after a reload?' }, { text: 'Still zebra.' });

    const first = core.conversations.activeId;
    await send('my project is called zebra');
    const firstSession = core.conversations.active.currentSessionId!;

    // New Chat, as the panel's + button sends it: a second conversation, shown empty; the first is in the list.
    core.chat.receive({ type: 'chat/new' });
    const second = core.conversations.activeId;
    assert.notEqual(second, first);
    assert.deepEqual(core.chat.snapshot().messages, [], 'the new conversation starts empty');
    await send('something else entirely');
    const secondSession = core.conversations.active.currentSessionId!;
    assert.notEqual(secondSession, firstSession, 'each conversation has its own Copilot session');
    assert.deepEqual(
      core.conversations.list().map((c) => [c.id, c.title, c.messages, c.active]),
      [
        [second, 'something else entirely', 2, true],
        [first, 'my project is called zebra', 2, false],
      ],
    );

    // Open the first again: its history is what the panel shows, and its next turn goes into its own session.
    core.chat.receive({ type: 'conversation/open', id: first });
    const snapshot = posted.filter((m) => m.type === 'snapshot').at(-1);
    assert.ok(snapshot?.type === 'snapshot');
    assert.equal(snapshot.snapshot.conversation, first);
    assert.deepEqual(
      snapshot.snapshot.messages.map((m) => [m.role, m.content]),
      [
        ['user', 'my project is called zebra'],
        ['assistant', 'Noted: zebra.'],
      ],
    );
    assert.equal((await send('what is my project called?')).content, 'It is called zebra.');
    const asked = core.server.chatRequests().at(-1)!;
    assert.equal(asked.sessionId, firstSession, "the first conversation's session, not the second's");
    assert.ok(!asked.messages.some((m) => JSON.stringify(m.content).includes('something else entirely')), "nothing of the second conversation's");
    assert.deepEqual(texts(second), [
      ['user', 'something else entirely'],
      ['assistant', 'Sure, something else.'],
    ]);

    // A reload shows the same conversation, and its session is resumed from the runtime's store.
    await core.restart();
    assert.equal(core.conversations.activeId, first);
    assert.equal(core.conversations.list().length, 2);
    await send('and after a reload?');
    assert.equal(core.server.chatRequests().at(-1)!.sessionId, firstSession);
    const ready = ofType(core.events, 'session.ready').at(-1)!;
    assert.deepEqual([ready.conversation, ready.how], [first, 'resumed']);
  });

  it('delete removes the log, the saved session (gone from the runtime store) and the list entry; the panel then shows another', async () => {
    core.server.on({ lastUserIncludes: '[via panel] keep me' }, { text: 'kept' });
    core.server.on({ lastUserIncludes: '[via panel] delete me' }, { text: 'soon gone' });
    const keep = core.conversations.activeId;
    await send('keep me');
    const doomed = core.conversations.create();
    await send('delete me');
    const session = core.conversations.active.currentSessionId!;
    assert.ok(
      (await core.sessions.ownSessions()).some((s) => s.id === session),
      'the session is in the runtime store first',
    );

    await core.conversations.delete(doomed);
    assert.ok(!(await core.sessions.ownSessions()).some((s) => s.id === session), 'its Copilot session is deleted');
    assert.deepEqual(texts(doomed), []);
    assert.deepEqual(
      core.conversations.list().map((c) => c.id),
      [keep],
    );
    assert.equal(core.conversations.activeId, keep, 'the panel shows the remaining conversation');
    assert.ok(!core.store.stateKeys('orchestrator_session_id').some((k) => k.endsWith(doomed)), 'no saved session id is left');
    await assert.rejects(core.conversations.delete(doomed), { name: 'ConversationError', kind: 'not-found' });
  });

  it("the first conversation ('main') pushed out by the bound takes its saved session: asked again, the model sees none of its old history", async () => {
    core.server.on({ lastUserIncludes: '[via panel] my secret codeword is PELICAN-42' }, { text: 'noted' });
    core.server.on({ lastUserIncludes: '[via panel] something else' }, { text: 'sure' });
    core.server.on({ lastUserIncludes: '[via api] what is my codeword?' }, { text: 'I do not know it.' });
    const first = core.conversations.activeId;
    assert.equal(first, 'main', 'a new store starts in the first conversation, whose state keys have no suffix');
    await send('my secret codeword is PELICAN-42');
    const pruned = core.conversations.active.currentSessionId!;
    core.chat.receive({ type: 'chat/new' });
    await send('something else');
    // After a reload 'main' is neither shown nor open; then the user's other conversations (in another window, the
    // Chat view) outnumber the bound and it is the least recently active.
    await core.restart();
    for (let i = 0; i < CONVERSATIONS_KEEP; i++)
      core.store.appendLog({ role: 'user', content: `elsewhere ${i}`, source: 'chat', conversation: `c-other-${i}` });
    assert.ok(!core.store.listConversations().some((c) => c.id === first));
    assert.equal(core.store.getState('orchestrator_session_id'), undefined, 'no saved session is left for it');
    await core.conversations.enqueue('what is my codeword?', { channel: 'api', conversation: first }).done;
    const asked = core.server.chatRequests().at(-1)!;
    assert.notEqual(asked.sessionId, pruned, 'a new session');
    assert.ok(!JSON.stringify(asked.messages).includes('PELICAN-42'), "the pruned conversation's history never reaches the model");
    assert.deepEqual(texts(first), [
      ['user', 'what is my codeword?'],
      ['assistant', 'I do not know it.'],
    ]);
  });

  it('two conversations answer at once, each reply in its own log', async () => {
    // The first reply waits: with one queue for both, the second request would only come after it.
    core.server.on({ lastUserIncludes: '[via panel] slow alpha' }, { text: 'alpha answer', delayMs: 3000 });
    core.server.on({ lastUserIncludes: '[via panel] quick beta' }, { text: 'beta answer' });
    const a = core.conversations.activeId;
    // A second conversation by id, as the API and the Chat view open one (New Chat would reuse the empty one shown).
    const b = 'second-conversation';
    // Both sessions exist before the race, so the requests below are the turns themselves.
    await Promise.all([core.conversations.get(a).prewarm(), core.conversations.get(b).prewarm()]);
    const alpha = core.conversations.get(a).enqueue('slow alpha', { channel: 'panel' });
    const beta = core.conversations.get(b).enqueue('quick beta', { channel: 'panel' });
    await waitFor('both requests at the model', () => core.server.chatRequests().length === 2);
    assert.equal((await beta.done).content, 'beta answer');
    assert.ok(core.conversations.get(a).busy, 'alpha is still answering while beta has finished');
    assert.deepEqual(core.conversations.list().find((c) => c.id === a)?.busy, true);
    assert.equal((await alpha.done).content, 'alpha answer');
    assert.deepEqual(texts(a), [
      ['user', 'slow alpha'],
      ['assistant', 'alpha answer'],
    ]);
    assert.deepEqual(texts(b), [
      ['user', 'quick beta'],
      ['assistant', 'beta answer'],
    ]);
    const [ra, rb] = [core.conversations.get(a).currentSessionId, core.conversations.get(b).currentSessionId];
    assert.equal(core.server.chatRequests().find((r) => r.lastUserText?.includes('slow alpha'))?.sessionId, ra);
    assert.equal(core.server.chatRequests().find((r) => r.lastUserText?.includes('quick beta'))?.sessionId, rb);
    assert.equal(core.sessions.runtimePid() !== undefined, true, 'one runtime process serves both');
  });

  it('a worker started from conversation A reports into A while the panel shows B, and the panel badges A', async () => {
    const project = join(core.home, 'dev', 'app');
    await mkdir(project, { recursive: true });
    core.server.on(
      { lastUserIncludes: '[via panel] fix the bug in A', afterToolResult: false },
      { toolCalls: [{ name: 'create_worker_session', arguments: { name: 'fixer', working_dir: '~/dev/app', initial_prompt: 'TASK-fix: fix it' } }] },
    );
    core.server.on({ lastUserIncludes: '[via panel] fix the bug in A', afterToolResult: true }, { text: 'A worker is on it.' });
    // The worker takes a while: the user has switched to B by the time it reports.
    core.server.on({ lastUserIncludes: 'TASK-fix' }, { text: 'Fixed it.', delayMs: 1500 });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'fixer'" }, { text: 'The bug in A is fixed.' });
    core.server.on({ lastUserIncludes: '[via panel] meanwhile in B' }, { text: 'B here.' });

    const a = core.conversations.activeId;
    await send('fix the bug in A');
    const aSession = core.conversations.active.currentSessionId;
    const b = core.conversations.create();
    await send('meanwhile in B');

    const done = await waitFor('the worker result turn', () =>
      ofType(core.events, 'turn.completed').find((e) => e.origin.channel === 'background' && e.origin.worker === 'fixer'),
    );
    assert.equal(done.conversation, a, 'the result went to the conversation that started the worker');
    assert.equal(core.server.chatRequests().find((r) => r.lastUserText?.includes('[Background task completed]'))?.sessionId, aSession);
    assert.ok(texts(a).some(([role, content]) => role === 'system' && content.startsWith("[Background task completed] Worker 'fixer'")));
    assert.deepEqual(texts(a).at(-1), ['assistant', 'The bug in A is fixed.']);
    assert.ok(!texts(b).some(([, content]) => content.includes('fixer')), 'nothing of it in B');
    assert.equal(core.conversations.activeId, b, 'the panel still shows B');
    assert.ok(!core.chat.snapshot().messages.some((m) => m.content.includes('fixed')), "B's panel does not show A's result");
    // The panel's list badges A.
    const list = await waitFor('the list update with the badge', () =>
      posted
        .filter((m): m is Extract<HostMessage, { type: 'conversations/update' }> => m.type === 'conversations/update')
        .find((m) => m.conversations.find((c) => c.id === a)?.unread),
    );
    assert.equal(list.active, b);
    assert.equal(list.conversations.find((c) => c.id === b)?.unread, false);
    // Opening A clears its badge and shows the result.
    core.chat.receive({ type: 'conversation/open', id: a });
    const snap = core.chat.snapshot();
    assert.equal(snap.conversations?.find((c) => c.id === a)?.unread, false);
    assert.ok(snap.messages.some((m) => m.role === 'background' && m.workerResult?.worker === 'fixer'));
  });

  it('a reply whose turn then summarizes the conversation (summarize after every turn) shows once in the panel, and once after a reload meanwhile', async () => {
    core.orchestrator.setSummarizePolicy({ afterTurns: 1, keep: 2 });
    core.server.on({ lastUserIncludes: '[via panel] first question' }, { text: 'First answer.' });
    await send('first question');
    await waitFor('idle', () => !core.orchestrator.answering && !core.orchestrator.busy);
    core.server.on({ lastUserIncludes: '[via panel] second question' }, { text: 'Second answer.' });
    core.server.on({ systemIncludes: 'You summarize the earlier part of a conversation', name: 'the slow summary' }, { text: 'SUMMARY two.', delayMs: 1500 });
    const appended = () => posted.filter((m) => m.type === 'message/append' && m.message.role === 'assistant').length;
    const before = appended();
    const second = send('second question');
    await waitFor(
      'the reply written, its summary asked',
      () => core.store.recentLog(10).some((e) => e.content === 'Second answer.') && core.server.chatRequests().some((r) => r.ruleName === 'the slow summary'),
    );
    await new Promise((r) => setTimeout(r, 300));
    const once = (messages: Array<{ content: string }>) => messages.filter((m) => m.content === 'Second answer.').length;
    assert.equal(once(core.chat.snapshot().messages), 1, 'a reload during the summary shows it once');
    await second;
    await waitFor('idle', () => !core.orchestrator.answering && !core.orchestrator.busy);
    assert.equal(appended() - before, 1, 'the panel was given one reply (the one that streamed)');
    assert.equal(once(core.chat.snapshot().messages), 1);
  });
});
