// A folder without git: a worker works in a copy of it (a worktree of a repository Baton keeps in its storage), with the
// REAL runtime (sandboxed), real git and the production wiring. The folder is untouched until Apply, never gets a
// `.git`, and a repository the worker makes in its copy (whose config names a program git would run) is never run by
// Baton's git nor carried into the folder; the repository goes once no worker's changes wait in it.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FOLDER_REPOS_DIR, MAX_FOLDER_FILES } from '../../src/core/git/folderRepos';
import { WorkerError } from '../../src/core/workers/workerTypes';
import { WORK_IN_PLACE } from '../../src/shared/permissionAsk';
import type { PermissionPrompt } from '../../src/shared/protocol';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { testGit } from '../support/gitFixture';
import { scriptWorkerRound } from '../support/scriptedWorker';
import { isChat } from '../support/recordedRequest';
import { waitFor } from '../support/waitFor';
import { afterEachCore } from '../support/afterEachCore';

describe('a folder without git: workers work in a copy (real runtime, real git)', function () {
  this.timeout(120_000);
  let core: CoreFixture;
  let folder: string;

  const doneCount = (): number => core.events.filter((e) => e.type === 'turn.completed' && e.origin.channel === 'background').length;
  const finished = (worker: string) => core.pool.list().find((w) => w.name === worker && w.state === 'done');
  /** Baton's repositories, without the placements' markers and the repositories' locks (`.placing`, `.locks`). */
  const repos = async (): Promise<string[]> => (await readdir(join(core.storageDir, FOLDER_REPOS_DIR)).catch(() => [])).filter((n) => !n.startsWith('.'));
  const markers = async (): Promise<string[]> => readdir(join(core.storageDir, FOLDER_REPOS_DIR, '.placing')).catch(() => []);

  beforeEach(async () => {
    core = await startCore();
    core.workerSettings.trustWorkingDir = true;
    folder = join(core.home, 'dev', 'notes');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'notes.txt'), 'keep me\n');
    // What its own .gitignore leaves out stays out of the copy, as in a repository (local secrets).
    await writeFile(join(folder, '.gitignore'), '.env\n');
    await writeFile(join(folder, '.env'), 'TOKEN=not-for-workers\n');
  });

  afterEachCore(() => core);

  it("works in a copy: the folder is untouched until Apply; a repository the worker makes is never run by Baton's git nor applied", async () => {
    const ran = join(core.root, 'fsmonitor-ran');
    // A protected folder inside it: denied to a worker in the folder, so never in its copy (nor in Baton's repository).
    core.workerSettings.protectedPaths = [join(folder, 'private')];
    await mkdir(join(folder, 'private'));
    await writeFile(join(folder, 'private', 'key.txt'), 'SECRET-7731\n');
    // The worker edits a file, and makes a repository whose core.fsmonitor names a script: git run outside the sandbox
    // in that repository would run it (VS Code's git does for one that appears in a workspace).
    const command = [
      "printf 'worker line\\n' >> notes.txt",
      'ls -a > seen.txt',
      // Its git works in its copy (Baton's repository is readable in its sandbox, never writable).
      'git status --porcelain=v1 > status.txt',
      'git init -q sub',
      `printf '#!/bin/sh\\ntouch ${ran}\\n' > sub/monitor.sh`,
      'chmod +x sub/monitor.sh',
      'git -C sub config core.fsmonitor "$PWD/sub/monitor.sh"',
    ].join(' && ');
    scriptWorkerRound(core.server, { worker: 'scribe', does: { command }, report: 'scribe: edited' });
    const started = await core.pool.create({ name: 'scribe', workingDir: folder, prompt: 'TASK-scribe: add a line' });
    assert.deepEqual(
      [started.isolation?.kind, started.isolation?.kind === 'worktree' && started.isolation.copy],
      ['worktree', true],
      'a worktree of a copy, not the folder itself',
    );
    assert.match(started.note ?? '', /^It works in a copy of .*notes in Baton's storage .*the folder is not a git repository\); your files stay untouched/);
    assert.notEqual(started.workingDir, folder);
    await waitFor('the worker', () => finished('scribe'));
    await waitFor('its result', () => doneCount() >= 1);
    assert.ok(['applied', 'engaged'].includes(finished('scribe')?.sandbox?.state ?? ''), `sandboxed: ${JSON.stringify(finished('scribe')?.sandbox)}`);
    assert.equal(await readFile(join(started.workingDir, 'status.txt'), 'utf8'), ' M notes.txt\n?? seen.txt\n?? status.txt\n');

    assert.equal(await readFile(join(folder, 'notes.txt'), 'utf8'), 'keep me\n', 'the folder is untouched until Apply');
    assert.deepEqual((await readdir(folder)).sort(), ['.env', '.gitignore', 'notes.txt', 'private'], 'nothing of the worker in the folder, no .git');
    // The copy had the folder's files (and the list itself), not what its .gitignore leaves out nor the protected folder.
    assert.deepEqual((await readFile(join(started.workingDir, 'seen.txt'), 'utf8')).split('\n').filter(Boolean).sort(), [
      '.',
      '..',
      '.git',
      '.gitignore',
      'notes.txt',
      'seen.txt',
    ]);
    const [repo] = await repos();
    const objects = await testGit().run(['--git-dir', join(core.storageDir, FOLDER_REPOS_DIR, repo!), 'cat-file', '--batch-all-objects', '--batch'], {
      cwd: core.root,
    });
    assert.ok(objects.includes('keep me') && !objects.includes('SECRET-7731'), 'the protected file never entered Baton\u2019s repository');
    const changes = core.pool.changes!;
    const totals = await changes.totals('scribe');
    assert.deepEqual(totals.paths?.sort(), ['notes.txt', 'seen.txt', 'status.txt']);
    assert.match(totals.leftOut ?? '', /sub/, 'the repository it made is named as left out');

    const applied = await changes.apply('scribe', { dirtyBuffers: [] });
    assert.match(applied, /^Applied 3 files changed/);
    assert.equal(await readFile(join(folder, 'notes.txt'), 'utf8'), 'keep me\nworker line\n');
    assert.deepEqual((await readdir(folder)).sort(), ['.env', '.gitignore', 'notes.txt', 'private', 'seen.txt', 'status.txt'], 'its repository did not land');
    assert.equal(await readFile(join(folder, 'private', 'key.txt'), 'utf8'), 'SECRET-7731\n');
    assert.equal(existsSync(ran), false, "the worker's fsmonitor never ran outside its sandbox");
    assert.deepEqual(await repos(), [], "Baton's repository of the folder goes once no worker's changes wait in it");
    assert.deepEqual(await markers(), [], "the placement's marker went once its worktree was recorded");
    assert.deepEqual(changes.list(), []);
  });

  it('a restart keeps the copy reviewable and applicable; Keep as branch says there is no branch; Discard lets it go', async () => {
    // Repositories of the user's own in it (one with a commit, one without) stay out of the copy, and are not harmed.
    const git = (cwd: string, ...args: string[]) => testGit().run(args, { cwd });
    await mkdir(join(folder, 'vendor', 'lib'), { recursive: true });
    await writeFile(join(folder, 'vendor', 'lib', 'lib.txt'), 'lib\n');
    await git(join(folder, 'vendor', 'lib'), 'init', '-q');
    await git(join(folder, 'vendor', 'lib'), 'add', '-A');
    await git(join(folder, 'vendor', 'lib'), 'commit', '-q', '-m', 'lib');
    await mkdir(join(folder, 'scratch'));
    await git(join(folder, 'scratch'), 'init', '-q');
    scriptWorkerRound(core.server, { worker: 'one', does: { command: "printf 'one\\n' > one.txt" }, report: 'one: done' });
    scriptWorkerRound(core.server, { worker: 'two', does: { command: "printf 'two\\n' > two.txt" }, report: 'two: done' });
    await core.pool.create({ name: 'one', workingDir: folder, prompt: 'TASK-one' });
    await waitFor('the first worker', () => finished('one'));
    // The user changes the folder meanwhile: the second worker starts from the folder as it is then.
    await writeFile(join(folder, 'notes.txt'), 'keep me\nand this\n');
    const two = await core.pool.create({ name: 'two', workingDir: folder, prompt: 'TASK-two' });
    assert.equal(await readFile(join(two.workingDir, 'notes.txt'), 'utf8'), 'keep me\nand this\n');
    assert.deepEqual((await readdir(two.workingDir)).sort(), ['.git', '.gitignore', 'notes.txt'], 'neither repository of the user\u2019s is in the copy');
    await waitFor('the second worker', () => finished('two'));
    await waitFor('both results', () => doneCount() >= 2);
    assert.equal((await repos()).length, 1, 'one repository for the folder');

    await core.restart();
    const changes = core.pool.changes!;
    assert.match((await changes.forModel('one')).toString(), /\+one/);
    await assert.rejects(
      changes.keepAsBranch('one', 'keep it'),
      /is not a git repository, so there is no branch to keep worker 'one'.s changes on: Apply or Discard them/,
    );
    assert.match(await changes.apply('one', { dirtyBuffers: [] }), /^Applied 1 file changed/);
    assert.equal(await readFile(join(folder, 'one.txt'), 'utf8'), 'one\n');
    assert.equal((await repos()).length, 1, "kept while the second worker's changes wait");
    await changes.discard('two');
    assert.equal(existsSync(join(folder, 'two.txt')), false);
    assert.equal((await git(join(folder, 'vendor', 'lib'), 'status', '--porcelain')).trim(), '', 'the user\u2019s repository is as it was');
    assert.deepEqual(await repos(), []);
  });

  it('a copy is verified in its sandbox and can be applied file by file, as a worktree of a repository', async () => {
    core.workerSettings.verifyCommand = 'grep -q "by verified" notes.txt && pwd';
    scriptWorkerRound(core.server, {
      worker: 'verified',
      does: { command: "printf 'by verified\\n' >> notes.txt && printf 'new\\n' > new.txt" },
      report: 'verified: done',
    });
    const started = await core.pool.create({ name: 'verified', workingDir: folder, prompt: 'TASK-verified' });
    await waitFor('the worker', () => finished('verified'));
    await waitFor('its result', () => doneCount() >= 1);
    const verify = core.pool.list().find((w) => w.name === 'verified')?.verify;
    assert.equal(verify?.state, 'passed', JSON.stringify(verify));
    assert.equal(verify!.tail!.split('\n').at(-1), started.workingDir, 'it ran in the copy');

    const changes = core.pool.changes!;
    assert.match(await changes.apply('verified', { dirtyBuffers: [], paths: ['new.txt'] }), /^Applied 1 file changed/);
    assert.equal(await readFile(join(folder, 'new.txt'), 'utf8'), 'new\n');
    assert.equal(await readFile(join(folder, 'notes.txt'), 'utf8'), 'keep me\n', 'the other file waits');
    assert.deepEqual((await changes.totals('verified')).paths, ['notes.txt']);
    assert.equal((await repos()).length, 1, 'kept while a file waits');
    assert.match(await changes.apply('verified', { dirtyBuffers: [] }), /^Applied 1 file changed/);
    assert.equal(await readFile(join(folder, 'notes.txt'), 'utf8'), 'keep me\nby verified\n');
    assert.deepEqual(await repos(), []);
  });

  it('a worker that reads the folder itself: what its .gitignore files ignore is hidden, its node_modules is not, whether a copy waits or not', async () => {
    await mkdir(join(folder, 'node_modules', 'dep'), { recursive: true });
    await writeFile(join(folder, 'node_modules', 'dep', 'index.js'), 'DEP-CODE-4410\n');
    const command = 'cat .env || echo ENV-HIDDEN; cat node_modules/dep/index.js; cat notes.txt';
    const peek = async (name: string): Promise<string> => {
      scriptWorkerRound(core.server, { worker: name, does: { command }, report: `${name}: read` });
      const started = await core.pool.create({ name, workingDir: folder, prompt: `TASK-${name}`, isolation: 'read-only' });
      assert.deepEqual(started.isolation, { kind: 'in-place', readOnly: true });
      assert.match(started.note ?? '', /The 1 entry git ignores there \(local files: secrets, dependencies, builds\) are hidden from it\./);
      await waitFor(name, () => finished(name));
      const result = core.server
        .chatRequests()
        .flatMap((r) => r.messages)
        .find((m) => m.role === 'tool' && JSON.stringify(m).includes(`${name}-bash-`));
      return JSON.stringify(result?.content ?? '');
    };
    const alone = await peek('peek-alone');
    // A copy waits: git run in the folder now reads Baton's repository of it, whose exclude leaves node_modules out.
    scriptWorkerRound(core.server, { worker: 'writer', does: { command: "printf 'w\\n' > w.txt" }, report: 'writer: done' });
    await core.pool.create({ name: 'writer', workingDir: folder, prompt: 'TASK-writer' });
    await waitFor('the writer', () => finished('writer'));
    assert.equal((await repos()).length, 1);
    const beside = await peek('peek-beside');
    for (const output of [alone, beside]) {
      assert.match(output, /ENV-HIDDEN/, output);
      assert.match(output, /DEP-CODE-4410/, output);
      assert.match(output, /keep me/, output);
    }
    assert.ok(!JSON.stringify(core.server.requests).includes('not-for-workers'), 'the .env reached the model');
    await waitFor('the results', () => doneCount() >= 3);
  });

  it('what baton.workers.worktreeInclude names reaches the copy: node_modules linked (read-only), .env copied', async () => {
    await mkdir(join(folder, 'node_modules', 'dep'), { recursive: true });
    await writeFile(join(folder, 'node_modules', 'dep', 'index.js'), 'DEP-CODE-4410\n');
    core.workerSettings.worktreeInclude = ['node_modules', '.env'];
    const command =
      'cat node_modules/dep/index.js; cat .env; (echo x > node_modules/dep/new.js) 2>/dev/null || echo LINK-READ-ONLY; echo TOKEN=mine > .env; echo made > made.txt';
    scriptWorkerRound(core.server, { worker: 'deps', does: { command }, report: 'deps: read' });
    const started = await core.pool.create({ name: 'deps', workingDir: folder, prompt: 'TASK-deps' });
    assert.equal(started.isolation?.kind === 'worktree' && started.isolation.copy, true);
    await waitFor('the worker', () => finished('deps'));
    await waitFor('its result', () => doneCount() >= 1);
    const output = JSON.stringify(
      core.server
        .chatRequests()
        .flatMap((r) => r.messages)
        .find((m) => m.role === 'tool' && JSON.stringify(m).includes('deps-bash-'))?.content ?? '',
    );
    assert.match(output, /DEP-CODE-4410/, output);
    assert.match(output, /TOKEN=not-for-workers/, output);
    assert.match(output, /LINK-READ-ONLY/, output);
    assert.equal(existsSync(join(folder, 'node_modules', 'dep', 'new.js')), false);
    // Its instructions say which is which: a copied file is its own to edit, not linked read-only.
    const told = /except node_modules \(linked read-only from the user's checkout\) and \.env \(copied from it: yours to edit, never part of your changes\):/;
    assert.match(core.server.chatRequests().find((r) => r.systemText.includes("You are 'deps'"))!.systemText, told);
    // Neither is a change of the worker's (its .env edited in its copy included): only the file it made.
    assert.deepEqual((await core.pool.changes!.totals('deps')).paths, ['made.txt']);
    assert.equal(await readFile(join(folder, '.env'), 'utf8'), 'TOKEN=not-for-workers\n');
    // After a restart, its follow-up (a new session: the old one was let go) is told the same.
    await core.restart();
    scriptWorkerRound(core.server, { worker: 'deps', prompt: 'TASK-deps-again', does: { command: 'true' }, report: 'deps: again' });
    const before = core.server.chatRequests().length;
    await waitFor('it listed again, its changes waiting', () => core.pool.list().find((w) => w.name === 'deps'));
    await core.pool.send('deps', 'TASK-deps-again');
    await waitFor('its second result', () => core.server.chatRequests().some((r) => r.lastUserText?.includes('deps: again')));
    const again = core.server
      .chatRequests()
      .slice(before)
      .find((r) => r.systemText.includes("You are 'deps'"));
    assert.match(again!.systemText, told);
  });

  it(`a folder of more than ${MAX_FOLDER_FILES.toLocaleString('en')} files is not copied: the worker works in it only once the user lets it (then "in this folder": the next is not asked), as the note says`, async () => {
    const many = join(folder, 'data');
    await mkdir(many);
    for (let i = 0; i <= MAX_FOLDER_FILES; i += 1000) {
      await Promise.all(Array.from({ length: 1000 }, (_, j) => writeFile(join(many, `f${i + j}`), '')));
    }
    // Asked first (trustWorkingDir is on here: it trusts requests inside a folder, not working in one unisolated).
    // Killed while asked: the question is withdrawn and nothing starts.
    const ask = core.broker.ask.bind(core.broker);
    let withdrawn: AbortSignal | undefined;
    core.broker.ask = (_prompt: PermissionPrompt, signal?: AbortSignal) => {
      withdrawn = signal;
      return new Promise((_, reject) => signal?.addEventListener('abort', () => reject(new Error('withdrawn'))));
    };
    const killed = core.pool.create({ name: 'big', workingDir: folder, prompt: 'TASK-big' });
    await waitFor('the question', () => withdrawn);
    assert.equal(await core.pool.kill('big'), "Stopped worker 'big' before it started: nothing ran.");
    await assert.rejects(killed, (err: Error) => err instanceof WorkerError && err.message === "Worker 'big' was stopped while it started.");
    assert.equal(withdrawn!.aborted, true, 'the question withdrawn');
    core.broker.ask = ask;
    // Killed before the question (while the folder is counted): it is never asked.
    const early = core.pool.create({ name: 'big', workingDir: folder, prompt: 'TASK-big' });
    assert.equal(await core.pool.kill('big'), "Stopped worker 'big' before it started: nothing ran.");
    await assert.rejects(early, (err: Error) => err instanceof WorkerError && err.message === "Worker 'big' was stopped while it started.");
    assert.equal(core.broker.asked.length, 0, 'never asked');
    core.broker.answer = 'deny';
    await assert.rejects(
      () => core.pool.create({ name: 'big', workingDir: folder, prompt: 'TASK-big' }),
      (err: Error) =>
        err instanceof WorkerError &&
        err.message ===
          `Worker 'big' was not started: the user did not let it change ${folder} itself (it has no git and 21,002 files; Baton copies up to 20,000). Started to read only (isolation "read-only") it could read the folder; to change files, start it in a git repository with a commit.`,
    );
    assert.equal(core.broker.asked.length, 1);
    assert.equal(core.broker.asked[0].kind, WORK_IN_PLACE);
    assert.equal(
      core.broker.asked[0].detail,
      `${folder}\nNo isolation here: it has no git and 21,002 files; Baton copies up to 20,000. Its edits would land in your files directly, and a .git it made there could have your git and VS Code's run a program outside its sandbox.`,
    );
    assert.equal(
      core.pool.list().find((w) => w.name === 'big'),
      undefined,
      'no worker listed',
    );
    assert.equal(core.server.requests.filter(isChat).length, 0, 'nothing reached the model');
    // "Allow in this folder": this worker, and the next one there without a question.
    core.broker.answer = 'worker';
    scriptWorkerRound(core.server, { worker: 'big', does: { command: "printf 'big\\n' > big.txt" }, report: 'big: done' });
    const started = await core.pool.create({ name: 'big', workingDir: folder, prompt: 'TASK-big' });
    assert.equal(started.isolation?.kind, 'in-place');
    assert.match(
      started.note ?? '',
      /itself \(the folder is not in a git repository, and .* has 21,002 files \(more than the 20,000 Baton copies for a worker\)\)/,
    );
    await waitFor('the worker', () => finished('big'));
    await waitFor('its result', () => doneCount() >= 1);
    assert.equal(await readFile(join(folder, 'big.txt'), 'utf8'), 'big\n');
    assert.equal(core.broker.asked.length, 2, 'asked again, once');
    core.broker.answer = 'deny';
    scriptWorkerRound(core.server, { worker: 'next', does: { command: "printf 'next\\n' > next.txt" }, report: 'next: done' });
    assert.equal((await core.pool.create({ name: 'next', workingDir: folder, prompt: 'TASK-next' })).isolation?.kind, 'in-place');
    await waitFor('the next worker', () => finished('next'));
    await waitFor('its result', () => doneCount() >= 2);
    assert.equal(await readFile(join(folder, 'next.txt'), 'utf8'), 'next\n');
    assert.equal(core.broker.asked.length, 2, 'not asked again in that folder');
    assert.deepEqual(await repos(), [], 'no repository kept for it');
  });

  it('a repository a window left behind (no change set names it) goes at the next start once an hour old', async () => {
    scriptWorkerRound(core.server, { worker: 'kept', does: { command: "printf 'k\\n' > k.txt" }, report: 'kept: done' });
    await core.pool.create({ name: 'kept', workingDir: folder, prompt: 'TASK-kept' });
    await waitFor('the worker', () => finished('kept'));
    await waitFor('its result', () => doneCount() >= 1);
    const left = join(core.storageDir, FOLDER_REPOS_DIR, 'gone-0123456789ab.git');
    await mkdir(left, { recursive: true });
    await writeFile(join(left, 'index'), '');
    const fresh = join(core.storageDir, FOLDER_REPOS_DIR, 'fresh-0123456789ab.git');
    await mkdir(fresh, { recursive: true });
    await writeFile(join(fresh, 'index'), '');
    const hourAgo = (Date.now() - 61 * 60 * 1000) / 1000;
    await utimes(join(left, 'index'), hourAgo, hourAgo);
    const inUse = (await repos()).find((r) => r.startsWith('notes-'))!;
    await utimes(join(core.storageDir, FOLDER_REPOS_DIR, inUse, 'index'), hourAgo, hourAgo);
    await core.restart();
    await waitFor('the sweep', async () => !(await repos()).includes('gone-0123456789ab.git'));
    assert.deepEqual((await repos()).sort(), ['fresh-0123456789ab.git', inUse].sort(), 'the one in use and a fresh one stay');
    assert.match(await core.pool.changes!.apply('kept', { dirtyBuffers: [] }), /^Applied 1 file changed/);
  });
});
