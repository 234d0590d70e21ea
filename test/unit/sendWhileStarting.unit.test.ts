// A task sent to a worker while its create is still preparing its worktree (parallel tool calls, or the Workers view's
// Send Task on the reserved worker): refused in words, and the create goes on. Dispatched, it failed ('has no
// session'), took the worker out of the pool, and its create said it was stopped. Production wiring, real git.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { makeRepo, testGit } from '../support/gitFixture';
import { reply } from '../support/inMemoryAgentSessions';
import { startUnitCore, until, type UnitCore } from '../support/inMemoryCore';

describe('a task sent to a worker still starting', () => {
  let fixture: UnitCore;
  beforeEach(async () => {
    fixture = await startUnitCore();
  });
  afterEach(async () => {
    fixture.sessions.assertScriptDone();
    await fixture.dispose();
  });

  it('is refused, saying so; the worker starts, and the same task sent then runs', async () => {
    const { core, sessions } = fixture;
    const repo = await makeRepo(testGit(), join(fixture.workDir, 'app'), { 'a.txt': 'a\n' });
    const created = core.pool.create({ name: 'x', workingDir: repo });
    await until(() => core.pool.list().some((w) => w.name === 'x'), 'reserved');
    await assert.rejects(core.pool.send('x', 'the follow-up task'), {
      name: 'WorkerError',
      message: "Worker 'x' is still starting (its folder is being prepared): send it the task once it has started.",
    });
    const info = await created;
    assert.equal(info.name, 'x');
    sessions.script('worker', reply('did the follow-up'));
    sessions.scriptWhen('orchestrator', (p) => p.includes("[Background task completed] Worker 'x'"), reply('noted'));
    await core.pool.send('x', 'the follow-up task');
    await until(() => sessions.pendingScripts === 0, 'the task ran and its result was answered', 5000);
    assert.deepEqual(
      sessions.runs.filter((r) => r.role === 'worker').map((r) => r.prompt.includes('the follow-up task')),
      [true],
    );
  });
});
