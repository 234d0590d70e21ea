// Workers in their own git worktrees, with the REAL runtime (sandboxed), real git and the
// production wiring: two workers change the same file at once, the user's file is untouched until
// Apply, the second Apply is refused by name with nothing half-applied, Discard leaves git clean;
// a worker in place (no isolation) gets a diff and an exact undo; a reload keeps the change set reviewable. (A folder
// without git gets a copy by default: folderCopy.)
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { OrchestratorEvent } from '../../src/core/orchestrator/events';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { scriptWorkerRound } from '../support/scriptedWorker';
import { waitFor } from '../support/waitFor';
import { afterEachCore } from '../support/afterEachCore';

const run = promisify(execFile);
const git = async (cwd: string, ...args: string[]): Promise<string> =>
  (await run('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', ...args], { cwd })).stdout;

describe('worker isolation: worktrees, review, apply, discard (real runtime, real git)', function () {
  this.timeout(120_000);
  let core: CoreFixture;
  let repo: string;

  const doneCount = (): number => core.events.filter((e) => e.type === 'turn.completed' && e.origin.channel === 'background').length;

  /** One worker task: a shell command, then its report; and the orchestrator's answer to its result. */
  const scriptWorker = (worker: string, command: string): void => scriptWorkerRound(core.server, { worker, does: { command }, report: `${worker}: edited` });
  const finished = (worker: string) => core.pool.list().find((w) => w.name === worker && w.state === 'done');

  beforeEach(async () => {
    core = await startCore();
    core.workerSettings.trustWorkingDir = true;
    repo = join(core.home, 'dev', 'repo');
    await mkdir(join(repo, 'src'), { recursive: true });
    await writeFile(join(repo, 'src', 'app.txt'), 'original line\n');
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, 'commit', '-q', '-m', 'init');
  });

  afterEachCore(() => core);

  it('two workers on one file: each in its own worktree; Apply the first, the second is refused by name; Discard leaves git clean', async () => {
    scriptWorker('alpha', "printf 'alpha line\\n' > src/app.txt");
    scriptWorker('beta', "printf 'beta line\\n' > src/app.txt");
    const [a, b] = await Promise.all([
      core.pool.create({ name: 'alpha', workingDir: repo, prompt: 'TASK-alpha: change app.txt' }),
      core.pool.create({ name: 'beta', workingDir: repo, prompt: 'TASK-beta: change app.txt' }),
    ]);
    assert.equal(a.isolation?.kind, 'worktree');
    assert.match(a.note ?? '', /own git worktree on branch baton\/alpha/);
    assert.notEqual(a.workingDir, b.workingDir);
    await waitFor('both workers', () => finished('alpha') && finished('beta'));
    await waitFor('both results', () => doneCount() >= 2);

    assert.equal(await readFile(join(repo, 'src', 'app.txt'), 'utf8'), 'original line\n', "the user's file is untouched until Apply");
    assert.equal(await readFile(join(a.workingDir, 'src', 'app.txt'), 'utf8'), 'alpha line\n');
    const changes = core.pool.changes!;
    assert.equal((await changes.totals('alpha')).line, '1 file changed, +1 −1');
    assert.deepEqual(finished('alpha')?.changes, { files: 1, additions: 1, deletions: 1, paths: ['src/app.txt'] });
    const result = core.events.find(
      (e): e is Extract<OrchestratorEvent, { type: 'turn.queued' }> => e.type === 'turn.queued' && e.prompt.includes("Worker 'alpha'"),
    )!;
    assert.match(result.prompt, /Changes: 1 file changed, \+1 −1 in its worktree on baton\/alpha/);
    // The orchestrator hears of the overlap once, in the first completion message after it appeared.
    const told = core.events.filter(
      (e): e is Extract<OrchestratorEvent, { type: 'turn.queued' }> =>
        e.type === 'turn.queued' && /Overlap: its changes touch the same files as worker '(alpha|beta)' \(src\/app\.txt\), also pending/.test(e.prompt),
    );
    assert.equal(told.length, 1, 'told once');
    assert.match(await changes.forModel('beta'), /-original line\n\+beta line/);

    assert.match(await changes.apply('alpha', { dirtyBuffers: [] }), /^Applied 1 file changed/);
    assert.equal(await readFile(join(repo, 'src', 'app.txt'), 'utf8'), 'alpha line\n');
    await assert.rejects(changes.apply('beta', { dirtyBuffers: [] }), (err: Error) => err.name === 'ApplyConflict' && /src\/app\.txt/.test(err.message));
    assert.equal(await readFile(join(repo, 'src', 'app.txt'), 'utf8'), 'alpha line\n', 'nothing was half-applied');
    await changes.discard('beta');

    const worktrees = (await git(repo, 'worktree', 'list', '--porcelain')).split('\n').filter((l) => l.startsWith('worktree '));
    assert.equal(worktrees.length, 1, `worktrees left: ${worktrees.join(', ')}`);
    assert.equal((await git(repo, 'branch', '--list', 'baton/*')).trim(), '');
    assert.deepEqual(changes.list(), []);
  });

  it("what baton.workers.worktreeInclude links in is the worker's to read, by its tools and its shell, and never to write", async () => {
    await writeFile(join(repo, '.gitignore'), 'node_modules/\n');
    await mkdir(join(repo, 'node_modules', 'dep'), { recursive: true });
    await writeFile(join(repo, 'node_modules', 'dep', 'index.js'), 'DEP-CODE-4410\n');
    core.workerSettings.worktreeInclude = ['node_modules'];
    scriptWorkerRound(core.server, {
      worker: 'deps',
      does: {
        toolCalls: [
          { id: 'deps-view', name: 'view', arguments: { path: 'node_modules/dep/index.js' } },
          {
            id: 'deps-bash',
            name: 'bash',
            arguments: { command: 'cat node_modules/dep/index.js; (echo x > node_modules/dep/new.js) 2>/dev/null || echo LINK-READ-ONLY', description: 'read' },
          },
        ],
      },
      report: 'deps: read',
    });
    await core.pool.create({ name: 'deps', workingDir: repo, prompt: 'TASK-deps' });
    await waitFor('the worker', () => finished('deps'));
    await waitFor('its result', () => doneCount() >= 1);
    const results = core.server
      .chatRequests()
      .flatMap((r) => r.messages)
      .filter((m) => m.role === 'tool');
    const of = (id: string): string => JSON.stringify(results.find((m) => JSON.stringify(m).includes(id))?.content ?? '');
    assert.match(of('deps-view'), /DEP-CODE-4410/, of('deps-view'));
    assert.match(of('deps-bash'), /DEP-CODE-4410/, of('deps-bash'));
    assert.match(of('deps-bash'), /LINK-READ-ONLY/);
    assert.equal(existsSync(join(repo, 'node_modules', 'dep', 'new.js')), false);
  });

  it("a worker's session stays while its changes wait, and is deleted once they are applied or discarded; its transcript stays", async () => {
    scriptWorker('alpha', "printf 'alpha line\\n' > src/app.txt");
    scriptWorker('beta', "printf 'beta line\\n' > src/app.txt");
    await core.pool.create({ name: 'alpha', workingDir: repo, prompt: 'TASK-alpha: change app.txt' });
    await core.pool.create({ name: 'beta', workingDir: repo, prompt: 'TASK-beta: change app.txt' });
    await waitFor('both workers', () => finished('alpha') && finished('beta'));
    await waitFor('both results', () => doneCount() >= 2);
    const folder = (id: string | undefined) => join(core.storageDir, 'copilot-sessions', 'session-state', id!);
    const alpha = core.pool.status('alpha').sessionId;
    const beta = core.pool.status('beta').sessionId;
    assert.ok(existsSync(folder(alpha)) && existsSync(folder(beta)), 'pending changes keep their sessions');
    assert.deepEqual(core.pool.lifecycle.keptIds().sort(), [alpha, beta].sort());

    await core.pool.changes!.apply('alpha', { dirtyBuffers: [] });
    await waitFor("alpha's session to go", () => !existsSync(folder(alpha)));
    await core.pool.changes!.discard('beta');
    await waitFor("beta's session to go", () => !existsSync(folder(beta)));
    assert.deepEqual(core.pool.lifecycle.keptIds(), []);
    assert.match(core.pool.transcript('alpha'), /TASK-alpha: change app\.txt[\s\S]*alpha: edited/, 'the transcript outlives the session');
    // Settling twice does nothing more.
    await core.pool.lifecycle.settled('alpha');
  });

  it('the model cannot land changes on its own: apply_worker_changes asks the user first, and a no holds', async () => {
    scriptWorker('gamma', "printf 'gamma line\\n' > src/app.txt");
    await core.pool.create({ name: 'gamma', workingDir: repo, prompt: 'TASK-gamma: change app.txt' });
    await waitFor('the worker', () => finished('gamma'));
    await waitFor('its result', () => doneCount() >= 1);
    core.server.on(
      { lastUserIncludes: '[via panel] apply it', afterToolResult: false },
      { toolCalls: [{ id: 'ap1', name: 'apply_worker_changes', arguments: { name: 'gamma' } }] },
    );
    core.server.on({ lastUserIncludes: '[via panel] apply it', afterToolResult: true }, { text: 'You declined; nothing applied.' });
    core.broker.answer = 'deny';
    await core.orchestrator.enqueue('apply it', { channel: 'panel' }).done;
    assert.deepEqual(
      core.broker.asked.map((p) => [p.worker, p.kind]),
      [['gamma', 'apply changes']],
    );
    assert.match(core.broker.asked[0]!.detail, /apply 1 file changed, \+1 −1 from worker 'gamma'/);
    assert.equal(await readFile(join(repo, 'src', 'app.txt'), 'utf8'), 'original line\n');

    core.server.on(
      { lastUserIncludes: '[via panel] now apply', afterToolResult: false },
      { toolCalls: [{ id: 'ap2', name: 'apply_worker_changes', arguments: { name: 'gamma' } }] },
    );
    core.server.on({ lastUserIncludes: '[via panel] now apply', afterToolResult: true }, { text: 'Applied.' });
    core.broker.answer = 'once';
    await core.orchestrator.enqueue('now apply', { channel: 'panel' }).done;
    assert.equal(await readFile(join(repo, 'src', 'app.txt'), 'utf8'), 'gamma line\n');
  });

  it('a reload keeps the change set reviewable, and a running worker can be reviewed', async () => {
    const mine = (r: { systemText: string }) => r.systemText.includes("You are 'delta'");
    core.server.on(
      { predicate: (r) => mine(r) && !r.messages.some((m) => m.role === 'tool'), name: 'delta edits' },
      { toolCalls: [{ id: 'd1', name: 'bash', arguments: { command: "printf 'delta\\n' > src/app.txt", description: 'edit' } }] },
    );
    // The worker hangs after its edit: the window reloads mid-task.
    core.server.on({ predicate: (r) => mine(r) && r.messages.some((m) => m.role === 'tool'), name: 'delta hangs' }, { hang: true });
    await core.pool.create({ name: 'delta', workingDir: repo, prompt: 'TASK-delta' });
    await waitFor('the edit', () => core.server.chatRequests().some((r) => mine(r) && r.messages.some((m) => m.role === 'tool')));
    assert.equal((await core.pool.changes!.totals('delta')).line, '1 file changed, +1 −1', 'reviewable while running');
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'delta' failed", name: 'interrupted delta' }, { text: 'noted' });
    await core.restart();
    assert.deepEqual(
      core.pool.changes!.list().map((c) => [c.worker, c.kind, c.branch]),
      [['delta', 'worktree', 'baton/delta']],
    );
    assert.match(await core.pool.changes!.forModel('delta'), /\+delta/);
    await waitFor('the interrupted report', () => doneCount() >= 1);
    // Its card is back for its changes, as what it is: a task the reload cut short (it said "done").
    assert.equal(core.pool.list().find((w) => w.name === 'delta')?.state, 'failed');
  });

  it('after a reload, the card of a worker the user killed (its changes waiting) still says killed, with when it ran', async () => {
    const mine = (r: { systemText: string }) => r.systemText.includes("You are 'eps'");
    core.server.on(
      { predicate: (r) => mine(r) && !r.messages.some((m) => m.role === 'tool'), name: 'eps edits' },
      { toolCalls: [{ id: 'e1', name: 'bash', arguments: { command: "printf 'eps\\n' > src/app.txt", description: 'edit' } }] },
    );
    core.server.on({ predicate: (r) => mine(r) && r.messages.some((m) => m.role === 'tool'), name: 'eps hangs' }, { hang: true });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'eps' was stopped by the user", name: 'killed eps' }, { text: 'noted' });
    await core.pool.create({ name: 'eps', workingDir: repo, prompt: 'TASK-eps' });
    await waitFor('the edit', () => core.server.chatRequests().some((r) => mine(r) && r.messages.some((m) => m.role === 'tool')));
    await core.pool.kill('eps');
    await waitFor('its result answered', () => doneCount() >= 1);
    const before = core.pool.list().find((w) => w.name === 'eps')!;
    assert.equal(before.state, 'killed');
    await core.restart();
    await waitFor('its card back', () => core.pool.list().find((w) => w.name === 'eps')?.changes?.files === 1);
    const back = core.pool.list().find((w) => w.name === 'eps')!;
    assert.deepEqual([back.state, back.startedAt, back.finishedAt], ['killed', before.startedAt, before.finishedAt]);
    // Bounded: how it ended is kept while its changes wait, and swept at the next start once they are gone.
    assert.deepEqual(core.store.stateKeys('ended:'), ['ended:eps']);
    await core.pool.changes!.discard('eps');
    await core.restart();
    await waitFor('the sweep at start', () => core.store.stateKeys('ended:').length === 0);
  });

  it('in place (no isolation), a folder without git: a file the command only read under /proc is not a change of the worker', async () => {
    core.workerSettings.isolation = 'none';
    const plain = join(core.home, 'dev', 'diag');
    await mkdir(plain, { recursive: true });
    scriptWorker('zeta', "grep -i vmrss /proc/self/status; head -c 100 /proc/cpuinfo; printf 'found\\n' > report.txt");
    await core.pool.create({ name: 'zeta', workingDir: plain, prompt: 'TASK-zeta' });
    await waitFor('the worker', () => finished('zeta'));
    await waitFor('its result', () => doneCount() >= 1);
    const totals = await core.pool.changes!.totals('zeta');
    assert.deepEqual([totals.files, totals.paths], [1, ['report.txt']]);
    assert.deepEqual(core.pool.list().find((w) => w.name === 'zeta')?.changes?.paths, ['report.txt']);
  });

  it('in place (no isolation), a folder without git: Discard leaves a file the user changed after the worker, and says so by name', async () => {
    core.workerSettings.isolation = 'none';
    const plain = join(core.home, 'dev', 'edited');
    await mkdir(plain, { recursive: true });
    await writeFile(join(plain, 'notes.txt'), 'keep me\n');
    scriptWorker('eta', "printf 'worker line\\n' >> notes.txt && printf 'new\\n' > extra.txt");
    await core.pool.create({ name: 'eta', workingDir: plain, prompt: 'TASK-eta' });
    await waitFor('the worker', () => finished('eta'));
    await waitFor('its result', () => doneCount() >= 1);
    // The user goes on editing the file the worker changed.
    await writeFile(join(plain, 'notes.txt'), 'keep me\nworker line\nmy own line\n');
    assert.equal(
      await core.pool.changes!.discard('eta'),
      `Discarded the changes of worker 'eta': 1 file(s) in ${plain} restored. Left as they are, since they changed after the worker's last edit (your edits would be lost): notes.txt. They still hold what the worker changed.`,
    );
    assert.equal(await readFile(join(plain, 'notes.txt'), 'utf8'), 'keep me\nworker line\nmy own line\n');
    await assert.rejects(readFile(join(plain, 'extra.txt')), /ENOENT/);
  });

  it('in place (no isolation), a folder without git moved away after the worker: Review and Discard say where it was, Apply lets the record go', async () => {
    core.workerSettings.isolation = 'none';
    const plain = join(core.home, 'dev', 'scratch');
    await mkdir(plain, { recursive: true });
    await writeFile(join(plain, 'notes.txt'), 'keep me\n');
    scriptWorker('zeta', "printf 'changed\\n' > notes.txt");
    await core.pool.create({ name: 'zeta', workingDir: plain, prompt: 'TASK-zeta' });
    await waitFor('its result', () => finished('zeta') && doneCount() >= 1);
    await rename(plain, join(core.home, 'dev', 'scratch-renamed'));
    const changes = core.pool.changes!;
    // It was the runtime's "session resume failed: Directory does not exist", and the card could never go.
    const said = `The folder worker 'zeta' changed in place, ${plain}, is no longer there (moved or deleted): its changes cannot be shown or undone from here. Apply lets them go.`;
    for (const attempt of [() => changes.review('zeta'), () => changes.discard('zeta')]) {
      await assert.rejects(attempt(), (err: unknown) => err instanceof Error && err.name === 'ChangeError' && err.message === said);
    }
    assert.equal(
      await changes.apply('zeta', { dirtyBuffers: [] }),
      `Let go of the changes worker 'zeta' made in ${plain}, which is no longer there: they went with the folder.`,
    );
    assert.deepEqual(changes.list(), []);
    assert.equal(await readFile(join(core.home, 'dev', 'scratch-renamed', 'notes.txt'), 'utf8'), 'changed\n');
  });

  it('in place (no isolation), a folder without git: a file too large for the runtime\u2019s diff is named in Review and to the model, and not counted as +0', async () => {
    core.workerSettings.isolation = 'none';
    const plain = join(core.home, 'dev', 'data');
    await mkdir(plain, { recursive: true });
    // About 11.7 MB: over the runtime's per-file diff limit (measured: a 10 MB file is diffed, this one is not).
    scriptWorker('zeta', "seq 1 1600000 > big.txt && printf 'small\\n' > small.txt");
    await core.pool.create({ name: 'zeta', workingDir: plain, prompt: 'TASK-zeta' });
    await waitFor('its result', () => doneCount() >= 1);
    const changes = core.pool.changes!;
    const line = '2 files changed, +1 −0 (not counted, too large for a diff: big.txt)';
    assert.equal((await changes.totals('zeta')).line, line);
    const told = core.server.chatRequests().find((r) => r.lastUserText?.includes("[Background task completed] Worker 'zeta'"))!;
    assert.ok(told.lastUserText!.includes(`Changes: ${line} in ${plain}`), told.lastUserText);
    const review = await changes.review('zeta');
    assert.equal(review.kind, 'unified');
    assert.match(
      review.kind === 'unified' ? review.text : '',
      /^diff --git a\/big\.txt b\/big\.txt\n# added, too large for a diff: its content is not shown$/m,
    );
    assert.match(await changes.forModel('zeta'), /diff --git a\/big\.txt b\/big\.txt\n# added, too large for a diff/);
    assert.match(await changes.discard('zeta'), /Left as they are, since the runtime kept no whole copy of them from before: big\.txt\./);
  });

  it('in place (no isolation), a folder without git: the change is tracked, reviewed and undone exactly', async () => {
    core.workerSettings.isolation = 'none';
    const plain = join(core.home, 'dev', 'plain');
    await mkdir(plain, { recursive: true });
    await writeFile(join(plain, 'notes.txt'), 'keep me\n');
    scriptWorker('epsilon', "printf 'changed\\n' > notes.txt && printf 'new\\n' > extra.txt");
    const w = await core.pool.create({ name: 'epsilon', workingDir: plain, prompt: 'TASK-eps' });
    assert.equal(w.isolation?.kind, 'in-place');
    await waitFor('the worker', () => finished('epsilon'));
    await waitFor('its result', () => doneCount() >= 1);
    const changes = core.pool.changes!;
    assert.equal((await changes.totals('epsilon')).files, 2);
    assert.match(await changes.forModel('epsilon'), /\+changed/);
    // The runtime keeps the file as it was (what the discard restores) in its Copilot home, the user's ~/.copilot.
    const sessionId = core.pool.list().find((x) => x.name === 'epsilon')!.sessionId!;
    const snapshots = join(core.env.COPILOT_HOME!, 'session-state', sessionId, 'rewind-file-snapshots');
    assert.ok((await readdir(join(snapshots, 'backups'))).length >= 1, 'the runtime keeps the file as it was');
    // A Copilot CLI session of the user's own, there too: never touched.
    const users = join(core.env.COPILOT_HOME!, 'session-state', '0b6e6a8e-1d3c-4f7a-9a51-3c2f7e1b9d20');
    await mkdir(join(users, 'rewind-file-snapshots'), { recursive: true });
    await writeFile(join(users, 'events.jsonl'), '{}\n');
    assert.match(await changes.discard('epsilon'), /2 file\(s\) in .* restored/);
    assert.equal(await readFile(join(plain, 'notes.txt'), 'utf8'), 'keep me\n');
    await assert.rejects(readFile(join(plain, 'extra.txt')), /ENOENT/);
    // Its session gone, the copies the runtime kept in the user's Copilot home go with it, and nothing else there.
    await waitFor('its session deleted', () => !existsSync(join(core.storageDir, 'copilot-sessions', 'session-state', sessionId)));
    await waitFor('no copy of the user\u2019s file left behind', () => !existsSync(join(core.env.COPILOT_HOME!, 'session-state', sessionId)));
    assert.deepEqual((await readdir(users)).sort(), ['events.jsonl', 'rewind-file-snapshots']);
  });
});
