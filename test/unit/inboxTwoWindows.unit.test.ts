// A worker's result waiting to be handed over (its window's orchestrator busy with a turn) while another window opens:
// it is delivered once. The waiting result is undelivered in the shared store for the whole turn, and the window that
// opened delivered it too (rows named no window), so the model answered the same report twice. Two cores over one
// storage folder (two windows), the production wiring, in-memory runtimes.
import * as assert from 'node:assert/strict';
import type { BatonCore } from '../../src/core/batonCore';
import { Gate, InMemoryAgentSessions, reply } from '../support/inMemoryAgentSessions';
import { startUnitCore, until, type UnitCore } from '../support/inMemoryCore';

const RESULT = "[Background task completed] Worker 'w'";

describe("a worker's result on its way while another window opens", () => {
  let fixture: UnitCore;
  let other: BatonCore | undefined;
  let otherSessions: InMemoryAgentSessions;
  beforeEach(async () => {
    fixture = await startUnitCore({ overrides: { store: { flushDelayMs: 5, pollIntervalMs: 50 } } });
    otherSessions = new InMemoryAgentSessions();
  });
  afterEach(async () => {
    await other?.dispose();
    other = undefined;
    fixture.sessions.assertScriptDone();
    otherSessions.assertScriptDone();
    await fixture.dispose();
  });

  it('is delivered once, by the window whose worker it is', async () => {
    const { core, sessions } = fixture;
    const gate = new Gate();
    sessions.scriptWhen(
      'orchestrator',
      (p) => p.includes('a long question'),
      async (ctx) => {
        await ctx.wait(gate.promise);
        await ctx.say('the long answer');
      },
    );
    sessions.script('worker', reply('the report'));
    sessions.scriptWhen('orchestrator', (p) => p.startsWith(RESULT), reply('noted'));
    core.orchestrator.enqueue('a long question', { channel: 'panel' });
    await until(() => sessions.orchestratorPrompts.some((p) => p.includes('a long question')), 'the turn runs');
    await core.pool.create({ name: 'w', workingDir: fixture.workDir, prompt: 'do it' });
    await until(() => core.pool.list()[0]?.state === 'done', 'the worker done', 5000);
    assert.equal(core.store.undeliveredInbox().length, 1, 'its result waits behind the turn');
    // Let the claim reach the database file before the other window reads it.
    await new Promise((r) => setTimeout(r, 100));
    other = await fixture.openAnother(otherSessions);
    await other.pool.deliverPending();
    gate.open();
    await until(() => sessions.pendingScripts === 0, 'the result answered', 5000);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(sessions.orchestratorPrompts.filter((p) => p.startsWith(RESULT)).length, 1, 'the model got it once');
    assert.equal(otherSessions.orchestratorPrompts.filter((p) => p.startsWith(RESULT)).length, 0, 'not in the other window');
    const rows = core.store.recentLog(50);
    assert.equal(rows.filter((e) => e.content.startsWith(RESULT)).length, 1, 'one result row in the log');
  });
});
