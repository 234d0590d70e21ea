// A baton.provider.* change restarts the Copilot runtime (every worker in it with it) only when the provider Baton uses
// changed, and then after the workers running at that moment (src/vscode/providerChange.ts).
import * as assert from 'node:assert/strict';
import { Emitter } from '../../src/core/util/emitter';
import { providerChange, whenNoWorkerRuns } from '../../src/vscode/providerChange';

describe('a change of the provider settings', () => {
  it('changes nothing when the provider Baton uses is the same (a key its type does not read, a value Baton does not apply)', () => {
    // readProvider gives the Copilot provider no base URL whatever baton.provider.baseUrl says.
    assert.deepEqual(providerChange({ type: 'copilot' }, { type: 'copilot' }, ['busy']), { kind: 'none' });
    assert.deepEqual(providerChange({ type: 'openai', baseUrl: 'http://a', apiKey: 'k' }, { type: 'openai', baseUrl: 'http://a', apiKey: 'k' }, []), {
      kind: 'none',
    });
  });

  it('restarts at once for a real change with no worker running, after the running ones otherwise', () => {
    assert.deepEqual(providerChange({ type: 'copilot' }, { type: 'openai', baseUrl: 'http://a' }, []), { kind: 'restart' });
    assert.deepEqual(providerChange({ type: 'openai', apiKey: 'old' }, { type: 'openai', apiKey: 'new' }, ['fix', 'docs']), {
      kind: 'after-workers',
      running: ['fix', 'docs'],
    });
  });

  it('waits until no worker runs', async () => {
    const changes = new Emitter<void>();
    let running = ['fix'];
    let done = false;
    const wait = whenNoWorkerRuns(() => running, changes.event).then(() => (done = true));
    changes.fire();
    await Promise.resolve();
    assert.equal(done, false, 'still running');
    running = [];
    changes.fire();
    await wait;
    assert.equal(done, true);
    assert.equal(await whenNoWorkerRuns(() => [], changes.event), undefined, 'none running: at once');
  });
});
