// A follow-up refused after its worker was revived (its changes being applied right then) gives back what the revival
// took: the pool slot and the worker's finished card. Against the REAL runtime, real git and the production wiring.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { WorkerError } from '../../src/core/workers/workerTypes';
import { makeRepo, testGit } from '../support/gitFixture';
import { scriptWorkerRound } from '../support/scriptedWorker';
import { waitFor } from '../support/waitFor';
import { useWorkerCore } from '../support/workerCore';

describe('a refused follow-up (real runtime, real git, production wiring)', function () {
  this.timeout(120_000);
  const fx = useWorkerCore();
  const card = (name: string) => fx.core.pool.list().find((w) => w.name === name);

  it('refused while its changes are applied: the worker stays finished as it was, and its slot goes to the next worker', async () => {
    const repo = await makeRepo(testGit(), join(fx.home, 'dev', 'repo'), { 'src/a.txt': 'a original\n' });
    fx.core.workerSettings.trustWorkingDir = true;
    fx.core.workerSettings.max = 1;
    scriptWorkerRound(fx.core.server, { worker: 'fix', prompt: 'TASK-fix', does: { command: "printf 'fixed\\n' > src/a.txt" }, report: 'fixed a' });
    await fx.core.pool.create({ name: 'fix', workingDir: repo, prompt: 'TASK-fix' });
    await waitFor('its card with changes', () => card('fix')?.state === 'done' && card('fix')?.changes?.files === 1);
    await waitFor('its result answered', () => fx.backgroundDone() >= 1);
    const before = card('fix')!;

    const applying = fx.core.pool.changes!.apply('fix', { dirtyBuffers: [] });
    await assert.rejects(
      fx.core.pool.send('fix', 'MORE-fix'),
      (err: unknown) =>
        err instanceof WorkerError &&
        err.message === "The changes of worker 'fix' are being applied, kept or discarded right now; ask again once that is done.",
    );
    // As before the follow-up: finished, when it finished, and no slot held.
    assert.deepEqual([card('fix')?.state, card('fix')?.finishedAt], ['done', before.finishedAt]);
    assert.deepEqual(fx.core.pool.listActive(), []);
    assert.equal(await applying, "Applied 1 file changed, +1 \u22121 from worker 'fix' to your working tree.");
    assert.equal(card('fix')?.state, 'done');

    // The one slot (baton.workers.max 1) is free: a new worker starts and reports.
    scriptWorkerRound(fx.core.server, { worker: 'next', prompt: 'TASK-next', does: { command: "printf 'b\\n' > src/b.txt" }, report: 'added b' });
    await fx.core.pool.create({ name: 'next', workingDir: repo, prompt: 'TASK-next' });
    await waitFor('the next worker answered', () => fx.backgroundDone() >= 2);
    assert.equal(card('next')?.state, 'done');
    assert.equal(fx.core.server.chatRequests().filter((r) => r.lastUserText?.includes('MORE-fix')).length, 0, 'the refused prompt never reached the model');
  });
});
