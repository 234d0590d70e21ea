// A turn's id names one turn in the window: the API's calls, Stop and withdraw find a turn by its id alone. Each
// conversation numbered its own turns, so two conversations' turns asked in one millisecond shared an id: one caller
// got the other's events, and cancelling one stopped the other. Production wiring, in-memory runtime.
import * as assert from 'node:assert/strict';
import { Gate } from '../support/inMemoryAgentSessions';
import { startUnitCore, until, type UnitCore } from '../support/inMemoryCore';

describe('turn ids', () => {
  let fixture: UnitCore;
  beforeEach(async () => {
    fixture = await startUnitCore();
  });
  afterEach(async () => {
    await fixture.dispose();
  });

  it('are never the same for two conversations asked at once; Stop by id stops that turn alone', async () => {
    const { core, sessions } = fixture;
    const gate = new Gate();
    for (const c of ['a', 'b']) {
      sessions.scriptWhen(
        'orchestrator',
        (p) => p.includes(`question ${c}0`),
        async (ctx) => {
          await ctx.wait(gate.promise);
          await ctx.say(`answer of ${c}`);
        },
      );
    }
    const a = core.conversations.get('c-a');
    const b = core.conversations.get('c-b');
    // Asked in turn, as fast as they come: the n-th of each in the same millisecond, mostly.
    const handles = Array.from({ length: 30 }, (_, i) => [
      a.enqueue(`question a${i}`, { channel: 'api', conversation: 'c-a' }),
      b.enqueue(`question b${i}`, { channel: 'api', conversation: 'c-b' }),
    ]).flat();
    assert.equal(new Set(handles.map((h) => h.turnId)).size, handles.length, 'every turn its own id');
    await until(() => sessions.orchestratorPrompts.length === 2, 'the first of each running');
    // Stopped by its id: b's turn alone; taken back by their ids: the others waiting, each in its own conversation.
    assert.ok(core.conversations.stop(handles[1]!.turnId));
    for (const h of handles.slice(2)) assert.ok(core.conversations.withdraw(h.turnId), h.turnId);
    assert.equal((await handles[1]!.done).status, 'cancelled');
    gate.open();
    assert.equal((await handles[0]!.done).content, 'answer of a');
    sessions.assertScriptDone();
  });
});
