// Stop in the panel while the orchestrator's next turn waits behind a summary: a message of yours is taken back (as
// Remove does: integration orchestrator, "Stop on a message waiting behind a summary"); a worker's result is no
// message of yours to give back, so its turn is stopped and the result stays. Production wiring, in-memory runtime.
import * as assert from 'node:assert/strict';
import { reply } from '../support/inMemoryAgentSessions';
import { nextEvent, startUnitCore, type UnitCore } from '../support/inMemoryCore';
import { waitFor } from '../support/waitFor';

describe('Stop while a worker result waits behind a summary', () => {
  let fixture: UnitCore;
  beforeEach(async () => {
    fixture = await startUnitCore();
  });
  afterEach(async () => {
    fixture.sessions.assertScriptDone();
    await fixture.dispose();
  });

  it('stops its turn: no answer runs for it after the summary, and the result stays in the log', async () => {
    const { core, sessions } = fixture;
    const o = core.conversations.active;
    for (const n of ['one', 'two', 'three']) {
      sessions.script('orchestrator', reply(`Answer ${n}.`));
      await o.enqueue(`question ${n}`, { channel: 'panel' }).done;
    }
    await waitFor('the answers settled', () => !o.busy);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    sessions.script('summarizer', async (ctx) => {
      await ctx.wait(gate);
      await ctx.say('SUMMARY of one and two.');
    });
    const compacting = o.summarizeNow(2);
    await waitFor('the summary started', () => sessions.runs.some((r) => r.role === 'summarizer'));
    const waiting = nextEvent(core, 'lock.waiting');
    const result = o.enqueue("[Background task completed] Worker 'w' finished: the report", { channel: 'background', worker: 'w' });
    const ended = result.done.then(
      (r) => `${r.status}: ${r.content}`,
      (err: unknown) => `ended: ${String(err)}`,
    );
    await waiting;
    assert.equal(core.chat.state().busy, true, 'Stop is shown');

    core.chat.receive({ type: 'chat/stop' });
    const how = await ended;
    assert.equal(how, 'cancelled: ', 'its turn is stopped, without an answer');
    release();
    assert.equal((await compacting)?.summary, 'SUMMARY of one and two.', 'the summary is still made');
    assert.equal(fixture.events.filter((e) => e.type === 'turn.cancelled' && e.turnId === result.turnId).length, 1, 'the panel shows it stopped');
    assert.ok(
      core.store.recentLog(20).some((e) => e.role === 'system' && e.content.includes("Worker 'w' finished")),
      'the result is kept in the log',
    );
    assert.ok(!sessions.orchestratorPrompts.some((p) => p.includes("Worker 'w' finished")), 'the model never got it');
  });
});
