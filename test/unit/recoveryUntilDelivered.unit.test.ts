// The context a new session starts from (a replaced session's recent turns, a compaction's summary) stays pending until
// a prompt carrying it reaches the session: an attempt that fails before that must leave it for the retry, and once
// delivered it never rides again.
import * as assert from 'node:assert/strict';
import { fail, reply } from '../support/inMemoryAgentSessions';
import { eachUnitCore, type UnitCore } from '../support/inMemoryCore';

const RECOVERED = /^\[System: Session recovered\]/;

describe('recovery context until delivered (in-memory runtime)', () => {
  let f: UnitCore;
  eachUnitCore((core) => (f = core));

  /** A first message answered, then a reload on another model: the saved session drifted, the next one is new. */
  async function drifted(): Promise<void> {
    f.sessions.script('orchestrator', reply('first answer'));
    await f.core.orchestrator.enqueue('first', { channel: 'panel' }).done;
    f.settings.routing.model = 'claude-haiku-4.5';
    await f.restart();
  }

  it('a connection failure before delivery leaves the recovery context for the retry, and it rides once', async () => {
    await drifted();
    f.sessions.script('orchestrator', fail('connection', { delivered: false }), reply('second answer'), reply('third answer'));
    const second = await f.core.orchestrator.enqueue('second', { channel: 'panel' }).done;
    assert.equal(second.content, 'second answer');
    await f.core.orchestrator.enqueue('third', { channel: 'panel' }).done;
    const [, failed, retried, third, ...rest] = f.sessions.orchestratorPrompts;
    assert.match(failed ?? '', RECOVERED, 'the first attempt carried it');
    assert.match(retried ?? '', RECOVERED, 'the retry, the prompt the session really got, carries it too');
    assert.ok(retried?.endsWith('\n\n[via panel] second'), retried);
    assert.equal(third, '[via panel] third', 'delivered once, it is not pending any more');
    assert.deepEqual(rest, []);
  });

  it('a failure after delivery does not send the context again: the session is nudged, the next message goes bare', async () => {
    await drifted();
    f.sessions.script('orchestrator', fail('transient', { delivered: true }), reply('second answer'), reply('third answer'));
    await f.core.orchestrator.enqueue('second', { channel: 'panel' }).done;
    await f.core.orchestrator.enqueue('third', { channel: 'panel' }).done;
    const [, delivered, nudge, third, ...rest] = f.sessions.orchestratorPrompts;
    assert.match(delivered ?? '', RECOVERED);
    assert.match(nudge ?? '', /^\[System: your previous reply was interrupted/);
    assert.equal(third, '[via panel] third', 'the session had the context: it is not pending any more');
    assert.deepEqual(rest, []);
  });

  it('a turn that fails before delivery, not retried, leaves the context for the next message', async () => {
    await drifted();
    f.sessions.script('orchestrator', fail('fatal', { delivered: false }), reply('third answer'));
    await assert.rejects(f.core.orchestrator.enqueue('second', { channel: 'panel' }).done);
    await f.core.orchestrator.enqueue('third', { channel: 'panel' }).done;
    const [, failed, third, ...rest] = f.sessions.orchestratorPrompts;
    assert.match(failed ?? '', RECOVERED);
    assert.match(third ?? '', RECOVERED, 'the context the session never got rides on the next message');
    assert.deepEqual(rest, []);
  });
});
