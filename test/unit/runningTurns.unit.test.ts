// Which turns run now, of every conversation: @baton's Stop looks there for the answer to its workers' results. It
// looked at the turn that started last only, and when the panel's conversation had started one since, Stop in the
// Chat view stopped nothing, and the answer to the worker ran on. Production wiring, in-memory runtime.
import * as assert from 'node:assert/strict';
import { hangAfter } from '../support/turnScripts';
import { startUnitCore, type UnitCore } from '../support/inMemoryCore';
import { waitFor } from '../support/waitFor';

describe('the turns running now, in every conversation', () => {
  let fixture: UnitCore;
  beforeEach(async () => {
    fixture = await startUnitCore();
  });
  afterEach(async () => {
    fixture.sessions.assertScriptDone();
    await fixture.dispose();
  });

  it("a worker's result answered in a Chat view conversation, then a panel turn: both listed, the worker's found by its name and stopped", async () => {
    const { core, sessions } = fixture;
    sessions.scriptWhen('orchestrator', (p) => p.startsWith("[Background task completed] Worker 'w1'"), hangAfter('the answer to w1'));
    sessions.scriptWhen('orchestrator', (p) => p.includes('a long panel question'), hangAfter('the panel answer'));
    const chat = core.conversations.get('chat-one');
    const result = chat.enqueue("[Background task completed] Worker 'w1' finished: done", { channel: 'background', worker: 'w1' });
    await waitFor('the answer to w1 streams', () => sessions.orchestratorPrompts.some((p) => p.startsWith("[Background task completed] Worker 'w1'")));
    const panel = core.conversations.active.enqueue('a long panel question', { channel: 'panel' });
    await waitFor('the panel answer streams too', () => sessions.orchestratorPrompts.some((p) => p.includes('a long panel question')));
    assert.equal(core.access.events.runningTurns.length, 2);
    assert.equal(core.access.events.currentTurn?.origin.channel, 'panel', 'the one started last');
    const ours = core.access.events.runningTurns.find((t) => t.origin.channel === 'background' && t.origin.worker === 'w1');
    assert.equal(ours?.turnId, result.turnId);
    core.access.stopTurn(ours.turnId);
    assert.equal((await result.done).status, 'cancelled');
    assert.equal(core.conversations.active.answering, true, 'the panel turn runs on');
    core.conversations.active.stop();
    await panel.done.catch(() => undefined);
  });
});
