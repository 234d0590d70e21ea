// Two windows in one process (two cores on one storage folder, each its own instance; a disposed core is a window
// that is gone), on the in-memory runtime: the paths of the store-as-queue that the process-level integration test
// (windows.integration.test.ts) does not reach quickly.
import * as assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { BatonCore } from '../../src/core/batonCore';
import { TurnError } from '../../src/core/orchestrator/orchestrator';
import type { ChatMessage, HostMessage } from '../../src/shared/protocol';
import { hangAfter, InMemoryAgentSessions, reply } from '../support/inMemoryAgentSessions';
import { Gate } from '../support/turnScripts';
import { startUnitCore, type UnitCore } from '../support/inMemoryCore';
import { waitFor } from '../support/waitFor';

/** What a panel shows, from the messages its host posted. */
function panelOf(core: BatonCore): ChatMessage[] {
  const shown: ChatMessage[] = [];
  core.chat.onDidPost((m: HostMessage) => {
    if (m.type === 'snapshot') shown.splice(0, shown.length, ...m.snapshot.messages);
    else if (m.type === 'message/append') shown.push({ ...m.message });
    else if (m.type === 'message/update') Object.assign(shown.find((x) => x.id === m.id) ?? {}, m.patch);
  });
  core.chat.receive({ type: 'ready' });
  return shown;
}

describe('one conversation, two windows (in-memory runtime)', () => {
  let one: UnitCore;
  let two: UnitCore;

  beforeEach(async () => {
    const sessions = new InMemoryAgentSessions();
    one = await startUnitCore({ sessions, overrides: { store: { flushDelayMs: 5, pollIntervalMs: 20 } } });
    const otherFolder = join(one.workDir, '..', 'other');
    await mkdir(otherFolder, { recursive: true });
    two = await startUnitCore({
      sessions,
      overrides: { storageDir: one.storageDir, workspaceFolders: () => [otherFolder], store: { flushDelayMs: 5, pollIntervalMs: 20 } },
    });
  });
  afterEach(async () => {
    await two.dispose().catch(() => undefined);
    await one.dispose().catch(() => undefined);
  });

  it('a message sent to the owner is answered there; its handle settles in the sender with the reply', async () => {
    one.sessions.script('orchestrator', reply('first answer'), reply('second answer'));
    const inTwo = panelOf(two.core);
    await one.core.orchestrator.enqueue('first', { channel: 'panel' }).done;
    // Sent once window two has the first answer, as a user would: log ids come from the clock, so a message written in
    // the same millisecond as another window's row it has not read yet may sort before it (CI saw it once, after turns
    // got faster), and the panel rightly shows the log's order.
    await waitFor('the first answer in window two', () => inTwo.some((m) => m.content === 'first answer'), 3000);
    const handle = two.core.orchestrator.enqueue('second', { channel: 'api' });
    const result = await handle.done;
    assert.equal(result.content, 'second answer');
    assert.equal(one.sessions.orchestratorPrompts.length, 2, 'both ran in window one’s session');
    assert.equal(two.core.orchestrator.currentSessionId, undefined, 'window two opened no session');
    await waitFor('the reply in window two', () => inTwo.some((m) => m.content === 'second answer'), 3000);
    assert.deepEqual(
      inTwo.map((m) => [m.role, m.content, m.from]),
      [
        ['user', 'first', 'work'],
        ['assistant', 'first answer', 'work'],
        ['user', 'second', undefined],
        ['assistant', 'second answer', 'work'],
      ],
    );
  });

  it('a message another window sends while the owner answers shows queued in the owner (its Remove offered) until its turn starts', async () => {
    const gate = new Gate();
    one.sessions.script(
      'orchestrator',
      async (ctx) => {
        await ctx.wait(gate.promise);
        await ctx.say('first answer');
      },
      reply('second answer'),
    );
    const inOne = panelOf(one.core);
    const first = one.core.orchestrator.enqueue('first', { channel: 'panel' });
    await waitFor('the first turn running', () => one.sessions.orchestratorPrompts.length === 1, 3000);
    // The owner's panel reads the row before the owner takes it into its queue (its scan runs right after the store
    // reads the other window's write): a sync of the panel's log was due as it arrived (a write of its own just before,
    // and a machine busy for a moment). Once the owner takes it, the panel must show it waiting there; before, it stayed
    // shown as sent until its turn started.
    let arrived = false;
    const off = one.core.store.onDidChange((what, fromOtherWindow) => {
      // The first change of the other window's file read (every kind is told, this one first).
      if (what !== 'conversations' || !fromOtherWindow || arrived || !one.core.store.recentLog(5).some((e) => e.content === 'second')) return;
      arrived = true;
      one.core.store.setState('test.own-write', String(Date.now()));
      const busyUntil = Date.now() + 40;
      while (Date.now() < busyUntil);
    });
    const second = two.core.orchestrator.enqueue('second', { channel: 'panel' });
    await waitFor('the second shown in window one', () => inOne.some((m) => m.content === 'second'), 3000);
    off();
    assert.ok(arrived);
    await waitFor(
      'the second queued in window one',
      () => one.core.orchestrator.waitingMessages.size === 1 && inOne.find((m) => m.content === 'second')?.status === 'pending',
      3000,
    );
    assert.equal(inOne.find((m) => m.content === 'second')?.queuedElsewhere, undefined, 'queued here, where Remove takes it out');
    gate.open();
    assert.equal((await first.done).content, 'first answer');
    assert.equal((await second.done).content, 'second answer');
    await waitFor('the second sent in window one', () => inOne.find((m) => m.content === 'second')?.status === 'complete', 3000);
    assert.deepEqual(one.sessions.orchestratorPrompts, ['[via panel] first', '[via panel] second'], 'each prompt once');
  });

  it('the owner closing mid-turn: the sender’s message is marked interrupted there and its handle says why', async () => {
    one.sessions.script('orchestrator', reply('mine'), hangAfter('half'));
    await one.core.orchestrator.enqueue('claim it', { channel: 'panel' }).done;
    const inTwo = panelOf(two.core);
    const handle = two.core.orchestrator.enqueue('never answered', { channel: 'panel' });
    await waitFor('window one answering it', () => one.events.some((e) => e.type === 'turn.delta' && e.delta === 'half'), 3000);
    await one.core.dispose();
    const err = await handle.done.then(
      () => assert.fail('the handle should reject'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof TurnError && err.readable.kind === 'cancelled');
    await waitFor('Resend offered in window two', () => inTwo.some((m) => m.content === 'never answered' && m.status === 'interrupted'), 3000);
  });
});

describe('a window opened while a reply streams (in-memory runtime)', () => {
  const cores: UnitCore[] = [];
  afterEach(async () => {
    for (const c of cores.splice(0).reverse()) await c.dispose().catch(() => undefined);
  });

  it('gets the rest of the reply streamed from then on (the running window looks for other windows while it runs), then the settled reply', async () => {
    const sessions = new InMemoryAgentSessions();
    const one = await startUnitCore({ sessions, overrides: { store: { flushDelayMs: 5, pollIntervalMs: 20 } } });
    cores.push(one);
    const gate = new Gate();
    one.sessions.script('orchestrator', async (ctx) => {
      ctx.delta('Half of it, ');
      await ctx.wait(gate.promise);
      await ctx.say('and the rest.');
    });
    const handle = one.core.orchestrator.enqueue('a question', { channel: 'panel' });
    await waitFor('the first half in window one', () => one.events.some((e) => e.type === 'turn.delta'), 3000);
    // Window two opens only now: at the turn's start window one was alone.
    const otherFolder = join(one.workDir, '..', 'other');
    await mkdir(otherFolder, { recursive: true });
    const two = await startUnitCore({
      sessions,
      overrides: { storageDir: one.storageDir, workspaceFolders: () => [otherFolder], store: { flushDelayMs: 5, pollIntervalMs: 20 } },
    });
    cores.push(two);
    const inTwo = panelOf(two.core);
    await waitFor(
      'the reply streaming in window two',
      () => inTwo.some((m) => m.role === 'assistant' && m.status === 'streaming' && m.content === 'Half of it, ' && m.from === 'work'),
      3000,
    );
    gate.open();
    assert.equal((await handle.done).content, 'Half of it, and the rest.');
    await waitFor(
      'the settled reply in window two',
      () => inTwo.some((m) => m.role === 'assistant' && m.content === 'Half of it, and the rest.' && m.status === 'complete'),
      3000,
    );
    assert.deepEqual(
      inTwo.map((m) => [m.role, m.content, m.status]),
      [
        ['user', 'a question', 'complete'],
        ['assistant', 'Half of it, and the rest.', 'complete'],
      ],
      'one reply in window two: the streamed one became the settled one',
    );
    assert.deepEqual(one.sessions.orchestratorPrompts, ['[via panel] a question'], 'the model got the prompt once');
  });
});
