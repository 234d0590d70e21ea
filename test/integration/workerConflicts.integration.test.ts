// Conflicts resolved, not reported, with the REAL runtime (sandboxed), real git and the production
// wiring: two workers edit the same line; Apply the first; the second conflicts; "Resolve with the
// worker" (the orchestrator's resolve_worker_conflicts) moves it onto the user's tree and its scripted
// session gets the conflicted file with both sides; it writes the merged line; Apply lands both
// intents. A worker that gives up leaves its worktree byte-identical to before the attempt.
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, lstat, mkdir, readdir, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import type { OrchestratorEvent } from '../../src/core/orchestrator/events';
import { ChangeError } from '../../src/core/changes/changeError';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { scriptWorkerRound } from '../support/scriptedWorker';
import { waitFor } from '../support/waitFor';
import { afterEachCore } from '../support/afterEachCore';

const run = promisify(execFile);
const git = async (cwd: string, ...args: string[]): Promise<string> =>
  (await run('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', ...args], { cwd })).stdout;

/** Every file under `dir` (but the worktree's `.git` file) with its bytes and mode: what "byte-identical" compares. */
async function files(dir: string, root = dir, out: Record<string, string> = {}): Promise<Record<string, string>> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    const rel = relative(root, p);
    if (rel === '.git') continue;
    if (e.isDirectory()) await files(p, root, out);
    else out[rel] = `${(await lstat(p)).mode.toString(8)} ${(await readFile(p)).toString('base64')}`;
  }
  return out;
}

describe('conflicts resolved by the worker (real runtime, real git)', function () {
  this.timeout(120_000);
  let core: CoreFixture;
  let repo: string;

  const results = (): Array<Extract<OrchestratorEvent, { type: 'turn.queued' }>> =>
    core.events.filter((e): e is Extract<OrchestratorEvent, { type: 'turn.queued' }> => e.type === 'turn.queued' && e.origin.channel === 'background');
  const doneCount = (): number => core.events.filter((e) => e.type === 'turn.completed' && e.origin.channel === 'background').length;
  const card = (worker: string) => core.pool.list().find((w) => w.name === worker);
  const mine = (worker: string) => (r: { systemText: string }) => r.systemText.includes(`You are '${worker}'`);

  const scriptWorker = (worker: string, command: string): void =>
    scriptWorkerRound(core.server, { worker, prompt: `TASK-${worker}`, does: { command }, report: `${worker}: edited` });

  /** The orchestrator turn that calls resolve_worker_conflicts for `worker`. */
  const scriptResolveCall = (worker: string): void => {
    core.server.on(
      { lastUserIncludes: `[via panel] resolve ${worker}`, afterToolResult: false },
      { toolCalls: [{ id: `r-${worker}`, name: 'resolve_worker_conflicts', arguments: { name: worker } }] },
    );
    core.server.on({ lastUserIncludes: `[via panel] resolve ${worker}`, afterToolResult: true }, { text: 'Resolving.' });
  };
  const resolvingRequest = (worker: string, afterTool: boolean) => (r: { systemText: string; lastUserText?: string; messages: Array<{ role: string }> }) =>
    mine(worker)(r) && r.lastUserText?.includes('These files conflict') === true && (r.messages.at(-1)?.role === 'tool') === afterTool;

  beforeEach(async () => {
    core = await startCore();
    core.workerSettings.trustWorkingDir = true;
    repo = join(core.home, 'dev', 'repo');
    await mkdir(join(repo, 'src'), { recursive: true });
    await writeFile(join(repo, 'src', 'app.txt'), 'original line\n');
    await writeFile(join(repo, 'src', 'keep.txt'), 'untouched\n');
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, 'commit', '-q', '-m', 'init');
    scriptWorker('alpha', "printf 'alpha line\\n' > src/app.txt");
    scriptWorker('beta', "printf 'beta line\\n' > src/app.txt && printf 'beta extra\\n' > src/beta.txt");
    await Promise.all([
      core.pool.create({ name: 'alpha', workingDir: repo, prompt: 'TASK-alpha' }),
      core.pool.create({ name: 'beta', workingDir: repo, prompt: 'TASK-beta' }),
    ]);
    await waitFor('both results', () => doneCount() >= 2);
    assert.match(await core.pool.changes!.apply('alpha', { dirtyBuffers: [] }), /^Applied 1 file changed/);
    await assert.rejects(
      core.pool.changes!.apply('beta', { dirtyBuffers: [] }),
      (err: Error) => err.name === 'ApplyConflict' && /src\/app\.txt/.test(err.message),
    );
  });

  afterEachCore(() => core);

  it('Resolve with the worker: it gets the file and both sides, writes the merged line; Apply lands both intents; no worktree left', async () => {
    // A repository of the user's own inside theirs, with no commit yet (a scratch `git init`, not ignored): reading the
    // user's tree for the move passes it by (git's add failed on it, and with it the whole resolution).
    await mkdir(join(repo, 'scratch'));
    await git(join(repo, 'scratch'), 'init', '-q');
    await writeFile(join(repo, 'scratch', 'notes.txt'), 'mine\n');
    scriptResolveCall('beta');
    // Held a moment before it acts, so the card shows what it is doing.
    scriptWorkerRound(core.server, {
      worker: 'beta',
      prompt: 'These files conflict',
      does: { command: "printf 'alpha line\\nbeta line\\n' > src/app.txt" },
      delayMs: 1500,
      report: 'Kept both lines.',
      answer: 'Apply it now.',
    });
    // Verify runs on the resolved change set, moved onto the user's tree: both lines must be there.
    core.workerSettings.verifyCommand = "grep -q 'alpha line' src/app.txt && grep -q 'beta line' src/app.txt";
    await core.orchestrator.enqueue('resolve beta', { channel: 'panel' }).done;
    await waitFor('the card says it is resolving', () => card('beta')?.activity === 'resolving conflicts');
    await waitFor('the resolution', () => doneCount() >= 3);
    assert.equal(card('beta')?.verify?.state, 'passed', JSON.stringify(card('beta')?.verify));

    const asked = core.server.chatRequests().find(resolvingRequest('beta', false))!;
    assert.match(asked.lastUserText!, /## src\/app\.txt \(it holds conflict markers/);
    assert.match(asked.lastUserText!, /What the user's side changed:\n[\s\S]*\+alpha line[\s\S]*What your side changed:\n[\s\S]*\+beta line/);
    assert.equal(card('beta')?.activity, undefined);
    const result = results().at(-1)!;
    assert.match(result.prompt, /Conflicts resolved: its change set is now based on the user's current tree, so Apply will land cleanly\./);
    assert.match(result.prompt, /\n\nVerify passed: grep -q 'alpha line' src\/app\.txt/);
    assert.equal(await readFile(join(repo, 'src', 'app.txt'), 'utf8'), 'alpha line\n', "the user's files wait for Apply");

    // A finished resolution is not one to undo at the next start (what a window that died mid-way leaves is: windows test).
    await core.restart();
    assert.match(await core.pool.changes!.apply('beta', { dirtyBuffers: [] }), /^Applied 2 files changed, \+2 −0 from worker 'beta'/);
    assert.equal(await readFile(join(repo, 'src', 'app.txt'), 'utf8'), 'alpha line\nbeta line\n', 'both intents');
    assert.equal(await readFile(join(repo, 'src', 'beta.txt'), 'utf8'), 'beta extra\n');
    assert.equal(await readFile(join(repo, 'scratch', 'notes.txt'), 'utf8'), 'mine\n');
    const worktrees = (await git(repo, 'worktree', 'list', '--porcelain')).split('\n').filter((l) => l.startsWith('worktree '));
    assert.deepEqual(worktrees, [`worktree ${repo}`]);
    assert.equal((await git(repo, 'for-each-ref', 'refs/baton/', 'refs/heads/baton/')).trim(), '');
  });

  /** Resolve with the worker on beta: it runs `command` and reports; the result, the orchestrator's `results`-th, is answered. */
  const resolveBeta = async (command: string, report: string, answer: string, results: number): Promise<void> => {
    scriptResolveCall('beta');
    scriptWorkerRound(core.server, { worker: 'beta', prompt: 'These files conflict', does: { command }, report, answer });
    await core.orchestrator.enqueue('resolve beta', { channel: 'panel' }).done;
    await waitFor(`resolution ${results - 2}`, () => doneCount() >= results);
  };
  const resolveBetaKeepingBoth = (): Promise<void> => resolveBeta("printf 'alpha line\\nbeta line\\n' > src/app.txt", 'Kept both lines.', 'Keep it.', 3);

  it("Keep as branch after Resolve with the worker: the commit holds the worker's change on your HEAD, none of your uncommitted or untracked files", async () => {
    // The user commits what alpha applied, then has an untracked private file and an uncommitted edit.
    await git(repo, 'commit', '-q', '-am', 'alpha landed');
    const userHead = (await git(repo, 'rev-parse', 'HEAD')).trim();
    await writeFile(join(repo, 'notes.txt'), 'my private notes\n');
    await writeFile(join(repo, 'src', 'keep.txt'), 'my uncommitted edit\n');
    await resolveBetaKeepingBoth();
    assert.match(results().at(-1)!.prompt, /Conflicts resolved/);

    assert.match(
      await core.pool.changes!.keepAsBranch('beta', 'Both lines'),
      /^Kept 2 files changed, \+2 −0 of worker 'beta' as commit \w{8} on branch baton\/beta/,
    );
    assert.equal((await git(repo, 'rev-parse', 'baton/beta^')).trim(), userHead, 'on your HEAD');
    assert.deepEqual((await git(repo, 'diff-tree', '--name-only', '-r', 'baton/beta^', 'baton/beta')).trim().split('\n'), ['src/app.txt', 'src/beta.txt']);
    assert.equal(await git(repo, 'show', 'baton/beta:src/app.txt'), 'alpha line\nbeta line\n');
    assert.equal(await git(repo, 'show', 'baton/beta:src/keep.txt'), 'untouched\n', 'your uncommitted edit is not in it');
    await assert.rejects(git(repo, 'show', 'baton/beta:notes.txt'), 'nor your untracked file');
    assert.equal(await readFile(join(repo, 'notes.txt'), 'utf8'), 'my private notes\n');
  });

  it('Keep as branch after Resolve with the worker against edits you have not committed: refused, nothing kept, the change still pending', async () => {
    await resolveBetaKeepingBoth();
    await assert.rejects(
      core.pool.changes!.keepAsBranch('beta', 'Both lines'),
      (err: Error) =>
        err.name === 'ChangeError' && /^Nothing was kept: the worker's change was resolved against edits of yours that are not committed/.test(err.message),
    );
    assert.equal((await git(repo, 'rev-parse', 'baton/beta')).trim(), (await git(repo, 'rev-parse', 'main')).trim(), 'the branch did not move');
    assert.match(await core.pool.changes!.apply('beta', { dirtyBuffers: [] }), /^Applied 2 files changed/);
  });

  it('the worker gives up: its worktree is byte-identical to before the attempt, and the result says so', async () => {
    // The user also has a new file of their own: the move brings it into the worktree, the undo takes it out.
    await writeFile(join(repo, 'src', 'mine.txt'), 'the user\u2019s own\n');
    const beta = card('beta')!.workingDir;
    const before = await files(beta);
    scriptResolveCall('beta');
    core.server.on(
      { predicate: resolvingRequest('beta', false), name: 'beta gives up' },
      { text: 'I cannot tell which line should win; leaving the markers.' },
    );
    core.server.on(
      { lastUserIncludes: "[Background task completed] Worker 'beta' finished:\n\n<worker-output>\nI cannot tell", name: 'gave-up result' },
      { text: 'It gave up.' },
    );
    await core.orchestrator.enqueue('resolve beta', { channel: 'panel' }).done;
    await waitFor('the resolution', () => doneCount() >= 3);

    assert.match(
      results().at(-1)!.prompt,
      /Conflict resolution gave up \(conflict markers are left in src\/app\.txt\): its worktree is back exactly as before the attempt/,
    );
    assert.deepEqual(await files(beta), before, 'byte-identical');
    assert.equal((await core.pool.changes!.totals('beta')).line, '2 files changed, +2 −1', 'its change set is as it was');
    assert.equal(await readFile(join(repo, 'src', 'app.txt'), 'utf8'), 'alpha line\n');
    assert.equal((await git(repo, 'for-each-ref', 'refs/baton/')).trim(), '', 'the moved base is dropped');
  });

  it('hundreds of conflicted files: the worker, the model and the result name a bounded list and count the rest', async () => {
    // The worker adds 250 files; the user adds the same 250 with other content (a branch switch does as much).
    scriptWorker('gamma', 'mkdir -p many && for i in $(seq 250); do echo worker > many/f$i.txt; done');
    await core.pool.create({ name: 'gamma', workingDir: repo, prompt: 'TASK-gamma' });
    await waitFor('its result', () => doneCount() >= 3);
    await mkdir(join(repo, 'many'));
    for (let i = 1; i <= 250; i++) await writeFile(join(repo, 'many', `f${i}.txt`), 'user\n');
    scriptResolveCall('gamma');
    core.server.on({ predicate: resolvingRequest('gamma', false), name: 'gamma gives up' }, { text: 'Too many to merge.' });
    core.server.on(
      { lastUserIncludes: "[Background task completed] Worker 'gamma' finished:\n\n<worker-output>\nToo many", name: 'its result' },
      { text: 'Noted.' },
    );
    await core.orchestrator.enqueue('resolve gamma', { channel: 'panel' }).done;
    await waitFor('the resolution', () => doneCount() >= 4);

    const asked = core.server.chatRequests().find(resolvingRequest('gamma', false))!.lastUserText!;
    assert.equal(asked.match(/^## many\//gm)?.length, 10, 'ten described');
    assert.match(asked, /\nAlso conflicted: (many\/f\d+\.txt, ){200}and 40 more\n/);
    const toolResult = JSON.stringify(
      core.server
        .chatRequests()
        .find((r) => r.lastUserText?.includes('[via panel] resolve gamma') && r.messages.at(-1)?.role === 'tool')!
        .messages.at(-1),
    );
    assert.match(toolResult, /250 conflicted file\(s\) \((many\/f\d+\.txt, ){10}and 240 more\)/);
    assert.match(results().at(-1)!.prompt, /conflict markers are left in (many\/f\d+\.txt, ){10}and 240 more\)/);
  });

  it('a worker that leaves a link to elsewhere, or a FIFO, while it resolves: nothing outside its worktree is read or written, nothing blocks, the worktree comes back', async () => {
    // A folder outside the worker's sandbox, with a file of the conflicting file's name: only Baton's own code, which
    // runs outside the sandbox, could write it, by following the link the worker leaves in its worktree.
    const outside = join(core.root, 'outside-folder');
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, 'app.txt'), 'not the worktree\u2019s\n');
    const beta = card('beta')!.workingDir;
    const before = await files(beta);
    const swap = `rm -rf src && ln -s ${outside} src && echo SWAPPED`;
    const resolving = (r: { systemText: string; lastUserText?: string }) => mine('beta')(r) && r.lastUserText?.includes('These files conflict') === true;

    // 1. It ends its task with the link in place: the file behind the link is not the worktree's, so the conflict is
    // not resolved (reading it there would have found no marker), and the undo puts the folder back.
    await resolveBeta(swap, 'Done.', 'It gave up.', 3);
    assert.match(
      results().at(-1)!.prompt,
      /Conflict resolution gave up \(conflict markers are left in src\/app\.txt\): its worktree is back exactly as before/,
    );
    assert.deepEqual(await files(beta), before, 'byte-identical');

    // 2. It leaves a FIFO where the file was: reading it would wait for a writer for ever (and hold one of the extension
    // host's file threads); it is no resolution, and the worktree comes back.
    await resolveBeta('rm src/app.txt && mkfifo src/app.txt', 'Done.', 'It gave up again.', 4);
    assert.match(
      results().at(-1)!.prompt,
      /Conflict resolution gave up \(conflict markers are left in src\/app\.txt\): its worktree is back exactly as before/,
    );
    assert.deepEqual(await files(beta), before, 'byte-identical');

    // 3. It is stopped with the link in place: the undo writes its files back into the worktree, never through the link.
    scriptResolveCall('beta');
    core.server.on(
      { predicate: (r) => resolving(r) && r.messages.at(-1)?.role !== 'tool', name: 'beta swaps again' },
      {
        toolCalls: [{ id: 'beta-swap-2', name: 'bash', arguments: { command: swap, description: 'swap' } }],
      },
    );
    core.server.on({ predicate: (r) => resolving(r) && r.messages.at(-1)?.role === 'tool', name: 'beta is slow to report' }, { text: 'Done.', delayMs: 5000 });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'beta' was stopped by the user", name: 'stopped result' }, { text: 'Stopped.' });
    await core.orchestrator.enqueue('resolve beta', { channel: 'panel' }).done;
    await waitFor('the link is made', () => core.server.chatRequests().some((r) => resolving(r) && JSON.stringify(r.messages.at(-1)).includes('beta-swap-2')));
    await core.pool.kill('beta');
    await waitFor('the stopped resolution', () => doneCount() >= 5);
    assert.match(results().at(-1)!.prompt, /Conflict resolution gave up \(the worker was stopped\): its worktree is back exactly as before/);
    assert.deepEqual(await files(beta), before, 'byte-identical');
    assert.equal(await readFile(join(outside, 'app.txt'), 'utf8'), 'not the worktree\u2019s\n', 'the file behind the link is untouched');
    assert.deepEqual(await readdir(outside), ['app.txt']);
    assert.equal(await readFile(join(repo, 'src', 'app.txt'), 'utf8'), 'alpha line\n');
  });

  it('Resolve in the editor: the card names the conflict; markers land in the user file, which stays unmerged in the index; the rest applies; the worktree goes', async () => {
    assert.deepEqual(card('beta')?.conflicts, ['src/app.txt'], 'the card names the conflicting file');
    const r = await core.pool.changes!.resolveInEditor('beta', { dirtyBuffers: [] });
    assert.deepEqual(r.conflicted, [join(repo, 'src', 'app.txt')]);
    assert.match(r.text, /1 file\(s\) cleanly, 1 with conflict markers to resolve \(src\/app\.txt\)/);
    assert.equal(await readFile(join(repo, 'src', 'app.txt'), 'utf8'), '<<<<<<< your tree\nalpha line\n=======\nbeta line\n>>>>>>> worker beta\n');
    assert.equal(await readFile(join(repo, 'src', 'beta.txt'), 'utf8'), 'beta extra\n');
    const unmerged = (await git(repo, 'ls-files', '-u'))
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+/).slice(2).join(' '));
    assert.deepEqual(unmerged, ['1 src/app.txt', '2 src/app.txt', '3 src/app.txt']);
    assert.equal(await git(repo, 'show', ':2:src/app.txt'), 'alpha line\n', "stage 2 is the user's version");
    assert.equal(await git(repo, 'show', ':3:src/app.txt'), 'beta line\n', "stage 3 is the worker's");
    const worktrees = (await git(repo, 'worktree', 'list', '--porcelain')).split('\n').filter((l) => l.startsWith('worktree '));
    assert.deepEqual(worktrees, [`worktree ${repo}`]);
    assert.deepEqual(card('beta')?.outcome, { kind: 'applied', text: 'applied with conflict markers: 1 file to merge in the editor' });
    assert.equal(card('beta')?.conflicts, undefined);
  });

  /** A worker `name` started on the user's tree as it is now, which runs `command`; waits for its result (the `n`th). */
  const startWorker = async (name: string, command: string, n: number): Promise<void> => {
    scriptWorker(name, command);
    await core.pool.create({ name, workingDir: repo, prompt: `TASK-${name}` });
    await waitFor(`${name}'s result`, () => doneCount() >= n);
  };
  /** One resolving round of `worker` (Resolve with the worker called directly, as the card does); waits for its result. */
  const resolveRound = async (worker: string, command: string, report: string, n: number): Promise<string> => {
    scriptWorkerRound(core.server, { worker, prompt: 'These files conflict', does: { command }, report, answer: `ok ${report}` });
    await core.pool.changes!.resolveWithWorker(worker);
    await waitFor('the resolution', () => doneCount() >= n);
    return results().at(-1)!.prompt;
  };
  const isApplyConflict = (file: string) => (err: Error) => err.name === 'ApplyConflict' && err.message.includes(file);

  it("Resolve with the worker, a binary file both sides changed: left as the move left it, the resolution gives up and names it, and Apply never puts the worker's over yours; changed by the worker, it is named and lands", async () => {
    await writeFile(join(repo, 'src', 'img.bin'), Buffer.from([0, 1, 2, 3]));
    await git(repo, 'add', 'src/img.bin');
    await git(repo, 'commit', '-q', '-m', 'an image');
    await startWorker('gamma', "printf 'W\\000worker' > src/img.bin", 3);
    await writeFile(join(repo, 'src', 'img.bin'), Buffer.from('U\0user'));
    const gamma = card('gamma')!.workingDir;
    const before = await files(gamma);

    const gaveUp = await resolveRound('gamma', 'true', 'Looked at it.', 4);
    const asked = core.server.chatRequests().find(resolvingRequest('gamma', false))!.lastUserText!;
    assert.match(asked, /## src\/img\.bin \(binary, changed on both sides; your version is in place[^\n]*unless you change this file, the resolution gives up/);
    assert.match(
      gaveUp,
      /Conflict resolution gave up \(the worker left src\/img\.bin \(binary\) unchanged, so nothing chose between the user's version and its own\): its worktree is back exactly as before the attempt[^\n]*Tell the user: only they can choose for that file\./,
    );
    assert.deepEqual(await files(gamma), before, 'byte-identical');
    await assert.rejects(core.pool.changes!.apply('gamma', { dirtyBuffers: [] }), isApplyConflict('src/img.bin'));
    assert.equal((await readFile(join(repo, 'src', 'img.bin'))).toString('latin1'), 'U\0user', 'your version stays');

    const resolved = await resolveRound('gamma', "printf 'U\\000user+W' > src/img.bin", 'Merged the image.', 5);
    assert.match(
      resolved,
      /Conflicts resolved: [^\n]* The worker chose the version of src\/img\.bin \(binary\) \(git cannot merge it line by line\): Apply puts it in place of the user's\./,
    );
    assert.match(await core.pool.changes!.apply('gamma', { dirtyBuffers: [] }), /^Applied 1 file changed/);
    assert.equal((await readFile(join(repo, 'src', 'img.bin'))).toString('latin1'), 'U\0user+W');
  });

  it('Resolve with the worker after you renamed (and committed) the file it edited: it is told where the file went; doing nothing gives up, never brings the old name back; redoing its change there lands on the new name', async () => {
    await startWorker('gamma', "printf 'untouched\\ngamma line\\n' > src/keep.txt", 3);
    await git(repo, 'mv', 'src/keep.txt', 'src/kept.txt');
    await git(repo, 'commit', '-q', '-m', 'rename');

    const gaveUp = await resolveRound('gamma', 'true', 'Looked at it.', 4);
    const asked = core.server.chatRequests().find(resolvingRequest('gamma', false))!.lastUserText!;
    assert.match(
      asked,
      /## src\/keep\.txt \(the user renamed it to src\/kept\.txt; your version is in place: redo your change in src\/kept\.txt and delete this file/,
    );
    assert.match(gaveUp, /Conflict resolution gave up \(the worker left src\/keep\.txt \(renamed by the user to src\/kept\.txt\) unchanged/);
    await assert.rejects(core.pool.changes!.apply('gamma', { dirtyBuffers: [] }), isApplyConflict('src/keep.txt'));
    assert.equal(await git(repo, 'status', '--porcelain', '--untracked-files=all', '--', 'src'), ' M src/app.txt\n', 'no src/keep.txt again');

    const resolved = await resolveRound('gamma', "printf 'untouched\\ngamma line\\n' > src/kept.txt && rm src/keep.txt", 'Moved my line.', 5);
    assert.match(
      resolved,
      /Conflicts resolved: its change set is now based on the user's current tree, so Apply will land cleanly\.\n/,
      'nothing of yours replaced',
    );
    assert.match(await core.pool.changes!.apply('gamma', { dirtyBuffers: [] }), /^Applied 1 file changed, \+1 −0/);
    assert.equal(await readFile(join(repo, 'src', 'kept.txt'), 'utf8'), 'untouched\ngamma line\n');
    await assert.rejects(lstat(join(repo, 'src', 'keep.txt')), 'the old name stays gone');
  });

  it('Resolve in the editor after you deleted the file the worker edited: refused by name and why, nothing applied, the same answer again; a file the worker deleted is refused with its own reason', async () => {
    await rm(join(repo, 'src', 'app.txt'));
    for (let i = 0; i < 2; i++) {
      await assert.rejects(
        core.pool.changes!.resolveInEditor('beta', { dirtyBuffers: [] }),
        (err: Error) =>
          err.name === 'ApplyConflict' &&
          err.message === 'Nothing was applied. Cannot be merged in the editor: src/app.txt (not in your tree: you deleted or renamed it).',
      );
      assert.equal(await git(repo, 'status', '--porcelain', '--untracked-files=all'), ' D src/app.txt\n', 'nothing applied (no src/beta.txt)');
      assert.equal((await core.pool.changes!.totals('beta')).line, '2 files changed, +2 −1', 'still pending');
    }

    await git(repo, 'checkout', '--', 'src/app.txt');
    await startWorker('gamma', 'rm src/keep.txt', 3);
    await writeFile(join(repo, 'src', 'keep.txt'), 'your edit\n');
    await assert.rejects(
      core.pool.changes!.resolveInEditor('gamma', { dirtyBuffers: [] }),
      (err: Error) => err.message === 'Nothing was applied. Cannot be merged in the editor: src/keep.txt (the worker deleted it and you changed it).',
    );
    assert.equal(await readFile(join(repo, 'src', 'keep.txt'), 'utf8'), 'your edit\n');
  });

  it('Resolve with the worker, a symbolic link both sides retargeted: never merged as text into a regular file; left as it was, the resolution gives up and your link stays', async () => {
    await symlink('app.txt', join(repo, 'src', 'link'));
    await git(repo, 'add', 'src/link');
    await git(repo, 'commit', '-q', '-m', 'a link');
    await startWorker('gamma', 'ln -sfn keep.txt src/link', 3);
    await rm(join(repo, 'src', 'link'));
    await symlink('beta.txt', join(repo, 'src', 'link'));
    const gamma = card('gamma')!.workingDir;

    const gaveUp = await resolveRound('gamma', 'test -L src/link && echo IS-A-LINK || echo NOT-A-LINK', 'Looked at it.', 4);
    const saw = JSON.stringify(core.server.chatRequests().find(resolvingRequest('gamma', true))!.messages.at(-1));
    assert.match(saw, /IS-A-LINK/, 'while it resolves, the link in its worktree is still a link');
    const asked = core.server.chatRequests().find(resolvingRequest('gamma', false))!.lastUserText!;
    assert.match(asked, /## src\/link \(a symbolic link on one side, changed on both; your version is in place/);
    assert.match(gaveUp, /Conflict resolution gave up \(the worker left src\/link \(symbolic link\) unchanged/);
    assert.equal(await readlink(join(gamma, 'src', 'link')), 'keep.txt', "the worker's link is back");
    await assert.rejects(core.pool.changes!.apply('gamma', { dirtyBuffers: [] }), isApplyConflict('src/link'));
    assert.ok((await lstat(join(repo, 'src', 'link'))).isSymbolicLink());
    assert.equal(await readlink(join(repo, 'src', 'link')), 'beta.txt', 'your link stays');
  });

  it('Resolve with the worker after you made the conflicting file executable: the merged file keeps your mode, and Apply does not undo your chmod', async () => {
    await chmod(join(repo, 'src', 'app.txt'), 0o755);
    const resolved = await resolveRound('beta', "printf 'alpha line\\nbeta line\\n' > src/app.txt", 'Kept both lines.', 3);
    assert.match(resolved, /Conflicts resolved: its change set is now based on the user's current tree, so Apply will land cleanly\.\n/);
    assert.match(await core.pool.changes!.apply('beta', { dirtyBuffers: [] }), /^Applied 2 files changed, \+2 −0/);
    assert.equal(await readFile(join(repo, 'src', 'app.txt'), 'utf8'), 'alpha line\nbeta line\n');
    assert.equal(((await stat(join(repo, 'src', 'app.txt'))).mode & 0o777).toString(8), '755', 'your chmod +x survives');
  });

  it('Resolve in the editor when you have staged the conflicting file: refused by name, your index and files untouched, nothing applied', async () => {
    await writeFile(join(repo, 'src', 'app.txt'), 'alpha staged\n');
    await git(repo, 'add', 'src/app.txt');
    await writeFile(join(repo, 'src', 'app.txt'), 'alpha staged\nand not staged\n');
    const index = await git(repo, 'ls-files', '-s');
    await assert.rejects(
      core.pool.changes!.resolveInEditor('beta', { dirtyBuffers: [] }),
      (err: Error) =>
        err.name === 'ApplyConflict' &&
        err.message ===
          'Nothing was applied. Cannot be merged in the editor: src/app.txt (you have staged changes to it, which its conflict stages would replace: commit or unstage them first).',
    );
    assert.equal(await git(repo, 'ls-files', '-s'), index, 'the staged version is still in the index');
    assert.equal(await readFile(join(repo, 'src', 'app.txt'), 'utf8'), 'alpha staged\nand not staged\n');
    await assert.rejects(lstat(join(repo, 'src', 'beta.txt')), 'nothing applied');
  });

  it('Resolve in the editor while your git holds the index (index.lock): nothing applied, your files as they were; once it is free, markers once', async () => {
    await writeFile(join(repo, '.git', 'index.lock'), '');
    await assert.rejects(
      core.pool.changes!.resolveInEditor('beta', { dirtyBuffers: [] }),
      (err: Error) =>
        err instanceof ChangeError &&
        /^Nothing was applied: Resolve in the editor could not finish \(.*index\.lock.*\); your files are as they were\.$/.test(err.message),
    );
    assert.equal(await readFile(join(repo, 'src', 'app.txt'), 'utf8'), 'alpha line\n');
    await assert.rejects(lstat(join(repo, 'src', 'beta.txt')), 'the clean file put back');
    assert.equal((await core.pool.changes!.totals('beta')).line, '2 files changed, +2 −1', 'still pending');
    await rm(join(repo, '.git', 'index.lock'));
    await core.pool.changes!.resolveInEditor('beta', { dirtyBuffers: [] });
    assert.equal(await readFile(join(repo, 'src', 'app.txt'), 'utf8'), '<<<<<<< your tree\nalpha line\n=======\nbeta line\n>>>>>>> worker beta\n');
    assert.equal(await readFile(join(repo, 'src', 'beta.txt'), 'utf8'), 'beta extra\n');
  });
});
