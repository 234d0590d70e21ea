// Stop names the reply the panel showed streaming when it was pressed (chat/stop's `id`): the host stops that reply
// only while it still runs. Before, each chat/stop stopped whatever ran when it arrived, so a double click on Stop with
// a message queued stopped the answer and then the queued message's answer too, after its prompt had gone to the model.
// Production wiring on the in-memory runtime; the panel is read from what its host posts.
import * as assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { BatonCore } from '../../src/core/batonCore';
import type { ChatMessage, HostMessage } from '../../src/shared/protocol';
import { hangAfter, InMemoryAgentSessions, reply } from '../support/inMemoryAgentSessions';
import { startUnitCore, until, type UnitCore } from '../support/inMemoryCore';
import { Gate } from '../support/turnScripts';
import { waitFor } from '../support/waitFor';

/** What a panel shows, from the messages its host posted. */
function panelOf(core: BatonCore): { shown: ChatMessage[]; posts: HostMessage[] } {
  const shown: ChatMessage[] = [];
  const posts: HostMessage[] = [];
  core.chat.onDidPost((m: HostMessage) => {
    posts.push(m);
    if (m.type === 'snapshot') shown.splice(0, shown.length, ...m.snapshot.messages.map((x) => ({ ...x })));
    else if (m.type === 'message/append') shown.push({ ...m.message });
    else if (m.type === 'message/update') Object.assign(shown.find((x) => x.id === m.id) ?? {}, m.patch);
    else if (m.type === 'message/delta') {
      const x = shown.find((y) => y.id === m.id);
      if (x) x.content += m.delta;
    }
  });
  core.chat.receive({ type: 'ready' });
  return { shown, posts };
}

/** The reply the panel shows streaming with `content`, as the Stop button names it. */
function streaming(shown: ChatMessage[], content: string): ChatMessage | undefined {
  return shown.find((m) => m.role === 'assistant' && m.status === 'streaming' && m.content === content);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('Stop stops the reply the panel showed (a double click)', () => {
  let fixture: UnitCore;
  const others: UnitCore[] = [];
  beforeEach(async () => {
    fixture = await startUnitCore();
  });
  afterEach(async function () {
    for (const other of others.splice(0)) await other.dispose().catch(() => undefined);
    await fixture.dispose();
    if (this.currentTest?.state === 'passed') fixture.sessions.assertScriptDone();
  });

  it('a second Stop of the stopped reply leaves the queued message’s answer running', async () => {
    const { core, sessions } = fixture;
    sessions.script('orchestrator', hangAfter('answer one...'), hangAfter('answer two...'));
    const { shown } = panelOf(core);
    core.chat.receive({ type: 'chat/send', text: 'M1' });
    await until(() => !!streaming(shown, 'answer one...'), 'the first reply streaming');
    core.chat.receive({ type: 'chat/send', text: 'M2' });
    await until(() => shown.some((m) => m.content === 'M2' && m.status === 'pending'), 'M2 queued');
    const first = streaming(shown, 'answer one...')!.id;

    core.chat.receive({ type: 'chat/stop', id: first });
    // The second click's message arrives once the queued message's turn has sent its prompt (the worst case).
    await until(() => !!streaming(shown, 'answer two...'), 'the second reply streaming');
    core.chat.receive({ type: 'chat/stop', id: first });
    await sleep(100);
    assert.equal(shown.find((m) => m.id === first)?.status, 'cancelled', 'the reply stopped is shown stopped');
    const second = streaming(shown, 'answer two...');
    assert.ok(second, `the queued message's answer still streams: ${JSON.stringify(shown.map((m) => [m.id, m.status]))}`);
    assert.equal(core.chat.state().busy, true, 'Stop is still offered for it');
    assert.ok(
      fixture.logger.lines.some((l) => l.includes(`Stop of ${first}`)),
      'the ignored Stop is logged',
    );

    // Its own Stop stops it.
    core.chat.receive({ type: 'chat/stop', id: second.id });
    await until(() => shown.find((m) => m.id === second.id)?.status === 'cancelled', 'the second reply stopped');
    assert.deepEqual(sessions.orchestratorPrompts, ['[via panel] M1', '[via panel] M2']);
  });

  it('a Stop that names no reply stops the answer running when it arrives, as before (the Stop command, an older panel)', async () => {
    const { core, sessions } = fixture;
    sessions.script('orchestrator', hangAfter('answer one...'), reply('answer two.'));
    const { shown } = panelOf(core);
    core.chat.receive({ type: 'chat/send', text: 'M1' });
    await until(() => !!streaming(shown, 'answer one...'), 'the first reply streaming');
    core.chat.receive({ type: 'chat/stop' });
    await until(() => shown.some((m) => m.content === 'answer one...' && m.status === 'cancelled'), 'the reply stopped');
    core.chat.receive({ type: 'chat/send', text: 'M2' });
    await until(() => shown.some((m) => m.content === 'answer two.' && m.status === 'complete'), 'the next answer');
  });

  it('a Stop naming something that is no reply is refused by the protocol and stops nothing', async () => {
    const { core, sessions } = fixture;
    sessions.script('orchestrator', hangAfter('answer one...'));
    const { shown } = panelOf(core);
    core.chat.receive({ type: 'chat/send', text: 'M1' });
    await until(() => !!streaming(shown, 'answer one...'), 'the reply streaming');
    core.chat.receive({ type: 'chat/stop', id: 'log-1; drop table' });
    await sleep(50);
    assert.ok(streaming(shown, 'answer one...'), 'still streaming');
    assert.ok(
      fixture.logger.lines.some((l) => l.includes('Ignored a bad message from the chat panel') && l.includes('id')),
      'the bad message is logged with why',
    );
    core.chat.receive({ type: 'chat/stop', id: streaming(shown, 'answer one...')!.id });
    await until(() => shown.some((m) => m.content === 'answer one...' && m.status === 'cancelled'), 'the reply stopped');
  });

  it('Stop on a reply streaming in another window names it there, and stops it', async () => {
    const sessions = new InMemoryAgentSessions();
    await fixture.dispose();
    fixture = await startUnitCore({ sessions, overrides: { store: { flushDelayMs: 5, pollIntervalMs: 20 } } });
    const one = fixture;
    const gate = new Gate();
    one.sessions.script('orchestrator', async (ctx) => {
      ctx.delta('Half of it, ');
      await ctx.wait(gate.promise);
      await ctx.hang();
    });
    const handle = one.core.orchestrator.enqueue('a question', { channel: 'panel' });
    await waitFor('the first half in window one', () => one.events.some((e) => e.type === 'turn.delta'), 3000);
    const otherFolder = join(one.workDir, '..', 'other');
    await mkdir(otherFolder, { recursive: true });
    const two = await startUnitCore({
      sessions,
      overrides: { storageDir: one.storageDir, workspaceFolders: () => [otherFolder], store: { flushDelayMs: 5, pollIntervalMs: 20 } },
    });
    others.push(two);
    const inTwo = panelOf(two.core).shown;
    await waitFor('the reply streaming in window two', () => !!streaming(inTwo, 'Half of it, '), 3000);
    const live = streaming(inTwo, 'Half of it, ')!.id;
    two.core.chat.receive({ type: 'chat/stop', id: live });
    const result = await handle.done.then(
      (r) => r.status,
      (err: unknown) => `failed: ${String(err)}`,
    );
    assert.equal(result, 'cancelled', 'stopped in the window that runs it');
    gate.open();
  });

  it('Stop on your message held behind a summary takes it back, and a second Stop leaves the next one', async () => {
    const { core, sessions } = fixture;
    const o = core.conversations.active;
    for (const n of ['one', 'two', 'three']) {
      sessions.script('orchestrator', reply(`Answer ${n}.`));
      await o.enqueue(`question ${n}`, { channel: 'panel' }).done;
    }
    await waitFor('the answers settled', () => !o.busy);
    const release = new Gate();
    sessions.script('summarizer', async (ctx) => {
      await ctx.wait(release.promise);
      await ctx.say('SUMMARY of one and two.');
    });
    const compacting = o.summarizeNow(2);
    await waitFor('the summary started', () => sessions.runs.some((r) => r.role === 'summarizer'));
    const { shown, posts } = panelOf(core);
    sessions.script('orchestrator', hangAfter('answer after...'));
    core.chat.receive({ type: 'chat/send', text: 'held' });
    await until(() => fixture.events.some((e) => e.type === 'lock.waiting'), 'the message held behind the summary');
    const held = shown.find((m) => m.role === 'assistant' && m.status === 'streaming');
    assert.ok(held, 'its reply is shown streaming');
    core.chat.receive({ type: 'chat/send', text: 'next' });
    await until(() => shown.some((m) => m.content === 'next' && m.status === 'pending'), 'the next message queued');

    core.chat.receive({ type: 'chat/stop', id: held.id });
    await until(() => posts.some((p) => p.type === 'chat/withdrawn' && p.text === 'held'), 'the held message given back');
    release.open();
    await compacting;
    await until(() => !!streaming(shown, 'answer after...'), 'the next message answered');
    core.chat.receive({ type: 'chat/stop', id: held.id });
    await sleep(50);
    assert.ok(streaming(shown, 'answer after...'), 'the next answer still streams');
    assert.ok(!sessions.orchestratorPrompts.some((p) => p.includes('held')), 'the model never got the held message');
    o.stop();
  });
});
