// Work asked of a conversation that is being deleted, or was closed, settles and says why: a second delete(), a
// rewind() or compact() after delete() waited for ever (the closed queue dropped them unsettled). Through the public
// API, on the production wiring (in-memory runtime).
import * as assert from 'node:assert/strict';
import { createBatonApi } from '../../src/core/api/batonApi';
import { TurnError } from '../../src/core/orchestrator/turn';
import { reply } from '../support/inMemoryAgentSessions';
import { startUnitCore, type UnitCore } from '../support/inMemoryCore';

/** `p`'s outcome, or 'not settled' when it has none within `ms` (the bug: never). */
function within<T>(p: Promise<T>, ms = 2000): Promise<string> {
  return Promise.race([
    p.then(
      () => 'resolved',
      (err: unknown) => `rejected: ${err instanceof Error ? err.message : String(err)}`,
    ),
    new Promise<string>((r) => setTimeout(() => r('not settled'), ms).unref()),
  ]);
}

describe('a conversation closed under a call', () => {
  let fixture: UnitCore;
  beforeEach(async () => {
    fixture = await startUnitCore();
  });
  afterEach(async () => {
    fixture.sessions.assertScriptDone();
    await fixture.dispose();
  });

  it('delete() twice: both settle and it is gone; rewind() asked as it is deleted says why', async () => {
    const api = createBatonApi(() => Promise.resolve(fixture.core.access)).getApi(2);
    const c = api.conversation('doomed');
    fixture.sessions.script('orchestrator', reply('A1.'));
    await c.ask('Q1');
    const [first] = await c.messages();
    assert.ok(first);
    const deletes = [c.delete(), c.delete()];
    const rewind = c.rewind(first.id);
    assert.deepEqual(await Promise.all(deletes.map((d) => within(d))), ['resolved', 'resolved']);
    assert.match(await within(rewind), /^rejected: /);
    assert.ok(!(await api.conversations()).some((x) => x.id === 'doomed'), 'it is gone');
  });

  it('compact() on a closed conversation rejects at once, saying it was closed', async () => {
    fixture.sessions.script('orchestrator', reply('A1.'));
    const o = fixture.core.conversations.get('closing');
    await o.enqueue('Q1', { channel: 'api' }).done;
    await o.dispose();
    await assert.rejects(o.compact(), (err: unknown) => err instanceof TurnError && /closed/.test(err.message));
  });
});
