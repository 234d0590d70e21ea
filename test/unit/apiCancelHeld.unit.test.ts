// An API ask waiting behind a summary (messages() shows it queued), cancelled: taken out as the d.ts promises
// ("cancelling its ask takes it out"), as the panel's Remove does; it was kept as a stopped turn, with an empty
// cancelled reply and a checkpoint, for a message the model never saw. Production wiring, in-memory runtime.
import * as assert from 'node:assert/strict';
import { createBatonApi } from '../../src/core/api/batonApi';
import { reply } from '../support/inMemoryAgentSessions';
import { startUnitCore, type UnitCore } from '../support/inMemoryCore';
import { waitFor } from '../support/waitFor';

describe('an API ask cancelled while it waits behind a summary', () => {
  let fixture: UnitCore;
  beforeEach(async () => {
    fixture = await startUnitCore();
  });
  afterEach(async () => {
    fixture.sessions.assertScriptDone();
    await fixture.dispose();
  });

  it('is taken out: no reply row, no checkpoint; the summary is still made', async () => {
    const { core, sessions } = fixture;
    const conv = createBatonApi(() => Promise.resolve(core.access))
      .getApi(2)
      .conversation('held');
    for (const n of ['one', 'two', 'three']) {
      sessions.script('orchestrator', reply(`Answer ${n}.`));
      await conv.ask(`question ${n}`);
    }
    const checkpoints = (await conv.checkpoints()).length;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    sessions.script('summarizer', async (ctx) => {
      await ctx.wait(gate);
      await ctx.say('SUMMARY.');
    });
    const compacting = conv.compact(2);
    await waitFor('the summary started', () => sessions.runs.some((r) => r.role === 'summarizer'));
    const abort = new AbortController();
    const seen: string[] = [];
    const asked = conv.ask('the held question', { signal: abort.signal, on: (e) => seen.push(e.type) });
    await waitFor('it waits behind the summary', () => seen.includes('lock.waiting'));
    assert.deepEqual(
      (await conv.messages()).filter((m) => m.text === 'the held question').map((m) => m.status),
      ['queued'],
    );
    abort.abort();
    assert.equal((await asked).status, 'cancelled');
    release();
    await compacting;
    await waitFor('idle', () => !core.conversations.get('held').answering);
    const messages = await conv.messages();
    assert.ok(!messages.some((m) => m.text === 'the held question'), 'its message is gone');
    assert.deepEqual(
      messages.filter((m) => m.role === 'assistant').map((m) => m.status),
      ['complete', 'complete', 'complete'],
      'no empty cancelled reply',
    );
    assert.equal((await conv.checkpoints()).length, checkpoints, 'no checkpoint for a turn the model never saw');
    assert.ok(!sessions.orchestratorPrompts.some((p) => p.includes('the held question')));
  });
});
