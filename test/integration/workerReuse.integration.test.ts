// One worker name, asked for twice: two follow-ups at the same moment (the panel's Ask for changes while the model
// sends), a new worker of a name whose changes still wait for review (in a worktree, or tracked in a folder without
// git). Against the REAL runtime, real git and the production wiring: nothing runs twice, no change is lost or orphaned.
import * as assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeRepo, testGit } from '../support/gitFixture';
import { scriptWorkerRound } from '../support/scriptedWorker';
import { waitFor } from '../support/waitFor';
import { useWorkerCore } from '../support/workerCore';
import { KEEP_FINISHED } from '../../src/core/workers/workerRegistry';
import { KEPT_SESSION_PREFIX } from '../../src/core/workers/sessionLifecycle';

describe('a worker name asked for twice (real runtime, real git, production wiring)', function () {
  this.timeout(120_000);
  const fx = useWorkerCore();
  const card = (name: string) => fx.core.pool.list().find((w) => w.name === name);

  it('two follow-ups to an idle worker at the same moment: one runs, the other is refused as still running; the prompt goes once', async () => {
    fx.core.server.on({ systemIncludes: "You are 'idle1'", lastUserIncludes: 'FOLLOW-A', name: 'the one follow-up' }, { text: 'A done', delayMs: 300 });
    fx.answerResults('idle1', 'noted');
    await fx.core.pool.create({ name: 'idle1', workingDir: fx.project });
    const results = await Promise.allSettled([fx.core.pool.send('idle1', 'FOLLOW-A'), fx.core.pool.send('idle1', 'FOLLOW-B')]);
    assert.equal(results[0]!.status, 'fulfilled');
    assert.ok(
      results[1]!.status === 'rejected' && /^Worker 'idle1' is still running/.test((results[1].reason as Error).message),
      results[1]!.status === 'fulfilled' ? 'both sends were accepted' : String(results[1]!.reason),
    );
    await waitFor('its one result', () => fx.backgroundDone() >= 1);
    assert.equal(fx.core.pool.status('idle1').tasks, 1);
    assert.equal(fx.delivered().length, 1);
    assert.equal(fx.core.server.chatRequests().filter((r) => r.lastUserText?.includes('FOLLOW-B')).length, 0, 'the refused prompt never reached the model');
  });

  it('a new worker of a name whose changes wait in a worktree is refused, and the waiting worker keeps its card: Ask for changes still reaches it', async () => {
    const repo = await makeRepo(testGit(), join(fx.home, 'dev', 'repo'), { 'src/a.txt': 'a original\n' });
    fx.core.workerSettings.trustWorkingDir = true;
    scriptWorkerRound(fx.core.server, { worker: 'fix', prompt: 'TASK-fix', does: { command: "printf 'fixed\\n' > src/a.txt" }, report: 'fixed a' });
    await fx.core.pool.create({ name: 'fix', workingDir: repo, prompt: 'TASK-fix' });
    await waitFor('its card with changes', () => card('fix')?.state === 'done' && card('fix')?.changes?.files === 1);
    await waitFor('its result answered', () => fx.backgroundDone() >= 1);

    await assert.rejects(
      fx.core.pool.create({ name: 'fix', workingDir: repo, prompt: 'TASK-again' }),
      /^WorkerError: Worker 'fix' still has changes waiting for review/,
    );
    assert.deepEqual([card('fix')?.state, card('fix')?.changes?.files, card('fix')?.summary], ['done', 1, 'fixed a'], 'its card is still listed');
    scriptWorkerRound(fx.core.server, { worker: 'fix', prompt: 'MORE-fix', does: { command: "printf 'more\\n' > src/b.txt" }, report: 'added b' });
    await fx.core.pool.send('fix', 'MORE-fix');
    await waitFor('its second result answered', () => fx.backgroundDone() >= 2);
    assert.equal((await fx.core.pool.changes!.totals('fix')).line, '2 files changed, +2 −1');
  });

  it('in place (no isolation), in a folder without git: a new worker of a name whose tracked changes wait is refused, so Discard still undoes them', async () => {
    fx.core.workerSettings.isolation = 'none';
    fx.core.workerSettings.trustWorkingDir = true;
    await writeFile(join(fx.project, 'a.txt'), 'a original\n');
    scriptWorkerRound(fx.core.server, { worker: 'ip', prompt: 'TASK-one', does: { command: "printf 'one\\n' > a.txt" }, report: 'one done' });
    await fx.core.pool.create({ name: 'ip', workingDir: fx.project, prompt: 'TASK-one' });
    await waitFor('its change counted', () => card('ip')?.state === 'done' && card('ip')?.changes?.files === 1);
    await waitFor('its result answered', () => fx.backgroundDone() >= 1);

    await assert.rejects(
      fx.core.pool.create({ name: 'ip', workingDir: fx.project, prompt: 'TASK-two' }),
      /^WorkerError: Worker 'ip' still has changes waiting for review/,
    );
    assert.match(await fx.core.pool.changes!.discard('ip'), /^Discarded the changes of worker 'ip': 1 file\(s\) in .* restored\.$/);
    assert.equal(await readFile(join(fx.project, 'a.txt'), 'utf8'), 'a original\n');
  });

  it('a window reload while a worker\u2019s worktree is being made leaves no worktree or branch behind: the name can be used at once', async () => {
    // A smudge filter that takes a second holds the worktree's checkout, so the reload lands in the middle of it.
    const repo = await makeRepo(testGit(), join(fx.home, 'dev', 'slow'), { '.gitattributes': '*.txt filter=slow\n', 'a.txt': 'a\n' });
    await testGit().run(['config', 'filter.slow.smudge', 'sleep 1; cat'], { cwd: repo });
    await testGit().run(['config', 'filter.slow.clean', 'cat'], { cwd: repo });
    const started = fx.core.pool.create({ name: 'st', workingDir: repo, prompt: 'TASK-st' });
    const outcome = started.then(
      () => 'started',
      () => 'refused',
    );
    await waitFor('its worktree being made', async () => (await testGit().run(['branch', '--list', 'baton/st'], { cwd: repo })).trim() !== '');
    await fx.core.restart();
    assert.equal(await outcome, 'refused', 'it never started');
    const worktrees = (await testGit().run(['worktree', 'list', '--porcelain'], { cwd: repo })).split('\n').filter((l) => l.startsWith('worktree '));
    assert.equal(worktrees.length, 1, `no worktree of it is left: ${worktrees.join(', ')}`);
    assert.equal((await testGit().run(['branch', '--list', 'baton/*'], { cwd: repo })).trim(), '', 'nor its branch');
    scriptWorkerRound(fx.core.server, { worker: 'st', prompt: 'TASK-again', does: { command: 'echo b > b.txt' }, report: 'made b' });
    await fx.core.pool.create({ name: 'st', workingDir: repo, prompt: 'TASK-again' });
    await waitFor('its result answered', () => fx.backgroundDone() >= 1);
    assert.equal(fx.core.pool.changes!.list().length, 1);
  });

  it('a kill while the worker\u2019s worktree is being made stops it before it starts: no session, no ghost card, the earlier card of its name stays', async () => {
    const repo = await makeRepo(testGit(), join(fx.home, 'dev', 'slow'), { '.gitattributes': '*.txt filter=slow\n', 'a.txt': 'a\n' });
    await testGit().run(['config', 'filter.slow.smudge', 'sleep 1; cat'], { cwd: repo });
    await testGit().run(['config', 'filter.slow.clean', 'cat'], { cwd: repo });
    fx.core.workerSettings.trustWorkingDir = true;
    // Its last task, in a folder without git, changed nothing: the name is free, its card listed.
    scriptWorkerRound(fx.core.server, { worker: 'k', prompt: 'TASK-look', does: { command: 'ls' }, report: 'looked' });
    await fx.core.pool.create({ name: 'k', workingDir: fx.project, prompt: 'TASK-look' });
    await waitFor('its result answered', () => card('k')?.state === 'done' && fx.backgroundDone() >= 1);
    const earlier = card('k')!;
    const requests = fx.core.server.chatRequests().length;
    const outcome = fx.core.pool.create({ name: 'k', workingDir: repo, prompt: 'TASK-never' }).then(
      () => 'started',
      (err: Error) => err.message,
    );
    await waitFor('its worktree being made', async () => (await testGit().run(['branch', '--list', 'baton/k'], { cwd: repo })).trim() !== '');
    assert.equal(await fx.core.pool.kill('k'), "Stopped worker 'k' before it started: nothing ran.");
    assert.equal(await outcome, "Worker 'k' was stopped while it started.");
    assert.deepEqual(card('k'), earlier, 'the card of its last task is back, not a killed worker that never ran');
    assert.equal(fx.core.server.chatRequests().length, requests, 'the task never reached the model');
    const worktrees = (await testGit().run(['worktree', 'list', '--porcelain'], { cwd: repo })).split('\n').filter((l) => l.startsWith('worktree '));
    assert.equal(worktrees.length, 1, `no worktree of it is left: ${worktrees.join(', ')}`);
    assert.equal((await testGit().run(['branch', '--list', 'baton/*'], { cwd: repo })).trim(), '', 'nor its branch');
  });

  it('a worker that changed nothing in its worktree: a new worker of its name takes its place; an empty worktree goes at the next start', async () => {
    const repo = await makeRepo(testGit(), join(fx.home, 'dev', 'repo'), { 'a.txt': 'a\n' });
    fx.core.workerSettings.trustWorkingDir = true;
    const worktrees = async (): Promise<number> =>
      (await testGit().run(['worktree', 'list', '--porcelain'], { cwd: repo })).split('\n').filter((l) => l.startsWith('worktree ')).length;
    scriptWorkerRound(fx.core.server, { worker: 'look', prompt: 'TASK-one', does: { command: 'cat a.txt' }, report: 'read a' });
    await fx.core.pool.create({ name: 'look', workingDir: repo, prompt: 'TASK-one' });
    await waitFor('its result answered', () => card('look')?.changes?.files === 0 && fx.backgroundDone() >= 1);
    assert.equal(await worktrees(), 2, 'its worktree stays for a follow-up while the window lives');
    // It was refused: "Worker 'look' still has changes waiting for review", with nothing to review or discard in the panel.
    scriptWorkerRound(fx.core.server, { worker: 'look', prompt: 'TASK-two', does: { command: 'cat a.txt' }, report: 'read a again' });
    await fx.core.pool.create({ name: 'look', workingDir: repo, prompt: 'TASK-two' });
    await waitFor('its second result answered', () => fx.backgroundDone() >= 2);
    assert.deepEqual([card('look')?.state, card('look')?.summary, await worktrees()], ['done', 'read a again', 2]);
    await fx.core.restart();
    await waitFor(
      'the empty worktree and its branch removed at start',
      async () => (await worktrees()) === 1 && (await testGit().run(['branch', '--list', 'baton/*'], { cwd: repo })).trim() === '',
    );
    await waitFor('its card gone', () => !card('look'));
    assert.deepEqual(fx.core.pool.changes!.list(), []);
  });

  it(`an empty worktree goes once its worker leaves the ${KEEP_FINISHED} finished workers listed, not at the next start only, and its session as its task ended; one with changes stays, listed`, async () => {
    const repo = await makeRepo(testGit(), join(fx.home, 'dev', 'repo'), { 'a.txt': 'a\n' });
    fx.core.workerSettings.trustWorkingDir = true;
    const worktrees = async (): Promise<string[]> =>
      (await testGit().run(['worktree', 'list', '--porcelain'], { cwd: repo }))
        .split('\n')
        .filter((l) => l.startsWith('branch refs/heads/baton/'))
        .map((l) => l.slice('branch refs/heads/baton/'.length))
        .sort();
    scriptWorkerRound(fx.core.server, { worker: 'edits', does: { command: "printf 'b\\n' > b.txt" }, report: 'wrote b' });
    await fx.core.pool.create({ name: 'edits', workingDir: repo, prompt: 'TASK-edits' });
    await waitFor('its result', () => fx.backgroundDone() >= 1);
    const readers = Array.from({ length: KEEP_FINISHED + 1 }, (_, i) => `r${String(i).padStart(2, '0')}`);
    for (const [i, name] of readers.entries()) {
      scriptWorkerRound(fx.core.server, { worker: name, does: { command: 'cat a.txt' }, report: `${name} read a` });
      await fx.core.pool.create({ name, workingDir: repo, prompt: `TASK-${name}` });
      await waitFor(`${name}'s result`, () => fx.backgroundDone() >= i + 2);
    }
    // Each reader's session went as its task ended (a follow-up would open a new one); the edits worker's is kept.
    assert.deepEqual(fx.core.store.stateKeys(KEPT_SESSION_PREFIX), [`${KEPT_SESSION_PREFIX}edits`]);
    const sessions = readdirSync(join(fx.core.storageDir, 'copilot-sessions', 'session-state'));
    assert.equal(sessions.length, 2, "Baton's session folders: the edits worker's and the orchestrator's");
    // r00 (nothing changed) left the list, its worktree with it. The edits worker, older still, stays listed past the
    // bound while its change waits for review, as a window's start lists it: its card, and a follow-up, still reach it.
    await waitFor('the first empty worktree removed', async () => !(await worktrees()).includes('r00'));
    assert.deepEqual(await worktrees(), ['edits', ...readers.slice(1)].sort());
    assert.deepEqual((await fx.core.pool.changes!.totals('edits')).paths, ['b.txt']);
    assert.deepEqual(
      fx.core.pool
        .list()
        .map((w) => w.name)
        .sort(),
      ['edits', ...readers.slice(1)].sort(),
      'the newest 20 and the one whose change waits',
    );
    // Discarded (by the model's tool, the API): its session goes with it.
    await fx.core.pool.changes!.discard('edits');
    await waitFor('its session deleted', () => readdirSync(join(fx.core.storageDir, 'copilot-sessions', 'session-state')).length === 1);
    assert.deepEqual(fx.core.store.stateKeys(KEPT_SESSION_PREFIX), []);
  });
});
