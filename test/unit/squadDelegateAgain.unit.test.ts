// A squad agent delegated to again while its last task's changes wait for review gets a worker of a fresh name: the
// pool refuses a name whose changes wait, and squad_delegate has no name for the model to choose another, so the
// agent was blocked until the user applied or discarded them. Production wiring, in-memory runtime, real git.
import * as assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeRepo, testGit } from '../support/gitFixture';
import { reply, sequence } from '../support/inMemoryAgentSessions';
import { startUnitCore, until, type UnitCore } from '../support/inMemoryCore';

describe('a squad agent delegated to again', () => {
  let fixture: UnitCore;
  beforeEach(async () => {
    fixture = await startUnitCore();
  });
  afterEach(async () => {
    fixture.sessions.assertScriptDone();
    await fixture.dispose();
  });

  it('while its first task’s changes wait for review: a second worker, its own name; the first one’s changes stay', async () => {
    const { core, sessions } = fixture;
    const repo = await makeRepo(testGit(), join(fixture.workDir, 'shop'), { 'a.txt': 'a\n' });
    const edits = (file: string) =>
      sequence(
        async (ctx) => {
          const spec = ctx.session.state.spec;
          if (spec.role === 'worker') await writeFile(join(spec.workingDirectory, file), 'changed\n');
        },
        reply(`edited ${file}`),
      );
    sessions.script('worker', edits('a.txt'), edits('b.txt'));
    sessions.scriptWhen('orchestrator', (p) => p.includes("[Background task completed] Worker 'shop-stantz'"), reply('noted'));
    sessions.scriptWhen('orchestrator', (p) => p.includes("[Background task completed] Worker 'shop-stantz-2'"), reply('noted again'));
    await core.squads.create({ name: 'shop', projectDir: repo });
    core.squads.addAgent({ squad: 'shop', role: 'Test Engineer', charter: 'writes tests', tier: 'medium', name: 'Stantz' });
    const first = await core.squads.delegate({ squad: 'shop', task: 'edit a.txt', agent: 'Stantz' });
    assert.equal(first.worker.name, 'shop-stantz');
    await until(
      () => core.pool.changes?.has('shop-stantz') === true && core.pool.list().find((w) => w.name === 'shop-stantz')?.state === 'done',
      'its changes wait',
      5000,
    );
    const second = await core.squads.delegate({ squad: 'shop', task: 'now write the tests', agent: 'Stantz' });
    assert.equal(second.worker.name, 'shop-stantz-2');
    await until(() => core.pool.list().find((w) => w.name === 'shop-stantz-2')?.state === 'done', 'the second done', 5000);
    await until(() => sessions.pendingScripts === 0, 'both results answered', 5000);
    assert.ok(core.pool.changes?.has('shop-stantz'), 'the first one’s changes still wait');
  });
});
