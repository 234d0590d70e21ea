// Work that lands, with the REAL runtime (sandboxed), real git and the production wiring: part of a
// worker's change applied while the rest stays pending, an edit made in Review's right side taken by
// Apply, and a change kept as a commit on baton/<name> with its worktree gone.
import * as assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { BatonEvent, BatonEventV2 } from '../../api/baton';
import { createBatonApi } from '../../src/core/api/batonApi';
import { ChangeError } from '../../src/core/changes/changeError';
import { keepAsBranch } from '../../src/core/changes/keepAsBranch';
import { PendingChangeSets } from '../../src/core/changes/pendingChangeSets';
import { WorkerAtWork } from '../../src/core/changes/settleGate';
import { formatWorkerList } from '../../src/core/workers/workerTools';
import { WorkerError } from '../../src/core/workers/workerTypes';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { scriptWorkerRound } from '../support/scriptedWorker';
import { waitFor } from '../support/waitFor';
import { afterEachCore } from '../support/afterEachCore';

const run = promisify(execFile);
const git = async (cwd: string, ...args: string[]): Promise<string> =>
  (await run('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', ...args], { cwd })).stdout;

describe('work that lands: partial apply, Review edits, keep as a branch (real runtime, real git)', function () {
  this.timeout(120_000);
  let core: CoreFixture;
  let repo: string;

  const doneCount = (): number => core.events.filter((e) => e.type === 'turn.completed' && e.origin.channel === 'background').length;
  const card = (worker: string) => core.pool.list().find((w) => w.name === worker);
  const finished = (worker: string) => core.pool.list().find((w) => w.name === worker && w.state === 'done');
  const worktreeCount = async (): Promise<number> =>
    (await git(repo, 'worktree', 'list', '--porcelain')).split('\n').filter((l) => l.startsWith('worktree ')).length;

  /** One worker task: a shell command, then its report; and the orchestrator's answer to its result. */
  const scriptWorker = (worker: string, command: string, report: string): void => scriptWorkerRound(core.server, { worker, does: { command }, report });

  beforeEach(async () => {
    core = await startCore();
    core.workerSettings.trustWorkingDir = true;
    repo = join(core.home, 'dev', 'repo');
    await mkdir(join(repo, 'src'), { recursive: true });
    for (const f of ['a', 'b', 'c']) await writeFile(join(repo, 'src', `${f}.txt`), `${f} original\n`);
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, 'commit', '-q', '-m', 'init');
  });

  afterEachCore(() => core);

  it('a change set that becomes ready fires worker.changes-ready once, before worker.finished (API v1, and v2 with the conversation)', async () => {
    const api = createBatonApi(() => Promise.resolve(core.access));
    try {
      const v1: BatonEvent[] = [];
      const v2: BatonEventV2[] = [];
      api.on('*', (e) => v1.push(e));
      api.getApi(2).on('*', (e) => v2.push(e));
      scriptWorker('ready', 'printf "x\\n" > src/a.txt; printf "y\\n" > src/new.txt', 'ready: edited a, added new');
      await core.pool.create({ name: 'ready', workingDir: repo, prompt: 'TASK-ready' });
      await waitFor('its result', () => doneCount() >= 1);
      await waitFor('worker.finished', () => v2.some((e) => e.type === 'worker.finished'));
      const ready = v2.filter((e): e is Extract<BatonEventV2, { type: 'worker.changes-ready' }> => e.type === 'worker.changes-ready');
      assert.equal(ready.length, 1);
      assert.deepEqual(
        { ...ready[0]!, files: [...ready[0]!.files].sort() },
        { type: 'worker.changes-ready', worker: 'ready', conversation: 'main', workingDir: ready[0]!.workingDir, files: ['src/a.txt', 'src/new.txt'] },
      );
      assert.notEqual(ready[0]!.workingDir, repo, 'the changes wait in the worker\u2019s worktree');
      assert.ok(existsSync(join(ready[0]!.workingDir, 'src', 'new.txt')));
      assert.ok(v2.indexOf(ready[0]!) < v2.findIndex((e) => e.type === 'worker.finished'), 'ready before finished');
      const v1Ready = v1.find((e) => e.type === 'worker.changes-ready');
      assert.ok(v1Ready && !('conversation' in v1Ready), 'version 1 keeps its shape');
    } finally {
      api.dispose();
    }
  });

  it('applies two of three files, the third stays pending; an edit saved in Review is what the next Apply takes; then the worktree is gone', async () => {
    scriptWorker('trio', 'for f in a b c; do printf "$f by trio\\n" > src/$f.txt; done', 'trio: edited a, b and c');
    await core.pool.create({ name: 'trio', workingDir: repo, prompt: 'TASK-trio' });
    await waitFor('the worker', () => finished('trio'));
    await waitFor('its result', () => doneCount() >= 1);
    const changes = core.pool.changes!;
    assert.deepEqual(
      (await changes.files('trio')).map((f) => f.path),
      ['src/a.txt', 'src/b.txt', 'src/c.txt'],
    );

    await assert.rejects(changes.apply('trio', { dirtyBuffers: [], paths: ['src/nope.txt'] }), /Not among the worker's changed files: src\/nope\.txt/);
    assert.match(
      await changes.apply('trio', { dirtyBuffers: [], paths: ['src/a.txt', 'src/b.txt'] }),
      /^Applied 2 files changed, \+2 −2 from worker 'trio' to your working tree; 1 file stays pending in its worktree\.$/,
    );
    assert.equal(await readFile(join(repo, 'src', 'a.txt'), 'utf8'), 'a by trio\n');
    assert.equal(await readFile(join(repo, 'src', 'b.txt'), 'utf8'), 'b by trio\n');
    assert.equal(await readFile(join(repo, 'src', 'c.txt'), 'utf8'), 'c original\n', 'the file not chosen stays in the worktree');
    assert.equal((await changes.totals('trio')).line, '1 file changed, +1 −1', 'only the rest is pending');
    await waitFor('the card counts the rest', () => card('trio')?.changes?.files === 1);

    // Review's right side is the worktree's own file: an edit there (unsaved, then saved) is what Apply takes.
    const review = await changes.review('trio');
    assert.equal(review.kind, 'files');
    const entries = review.kind === 'files' ? review.entries : [];
    assert.deepEqual(
      entries.map((e) => e.path),
      ['src/c.txt'],
    );
    const right = entries[0]!.modifiedPath;
    await assert.rejects(
      changes.apply('trio', { dirtyBuffers: [right] }),
      (err: Error) => err.name === 'ApplyConflict' && /edited in Review but not saved.*src\/c\.txt/i.test(err.message),
    );
    await writeFile(right, 'c edited in review\n');
    assert.match(await changes.apply('trio', { dirtyBuffers: [] }), /^Applied 1 file changed, \+1 −1 from worker 'trio'/);
    assert.equal(await readFile(join(repo, 'src', 'c.txt'), 'utf8'), 'c edited in review\n');

    assert.equal(await worktreeCount(), 1, 'the worktree is gone once everything landed');
    assert.equal((await git(repo, 'branch', '--list', 'baton/*')).trim(), '');
    assert.equal((await git(repo, 'for-each-ref', 'refs/baton/')).trim(), '', 'no base ref is left behind');
    assert.deepEqual(card('trio')?.outcome, { kind: 'applied', text: 'applied: 1 file changed, +1 −1', undoable: true });
    assert.equal(card('trio')?.changes, undefined);
    assert.equal((await git(repo, 'status', '--porcelain')).trim().split('\n').length, 3, 'all three files changed in the user tree');
  });

  it('a part applied whose landing Baton cannot note (its base ref locked): the Apply stands and says so; the next Apply finds those files already there', async () => {
    scriptWorker('duo', 'for f in a b; do printf "$f by duo\\n" > src/$f.txt; done', 'duo: edited a and b');
    await core.pool.create({ name: 'duo', workingDir: repo, prompt: 'TASK-duo' });
    await waitFor('its result', () => finished('duo') && doneCount() >= 1);
    const changes = core.pool.changes!;
    const lock = join(repo, '.git', 'refs', 'baton', 'base', 'duo.lock');
    await mkdir(dirname(lock), { recursive: true });
    await writeFile(lock, '');
    assert.match(
      await changes.apply('duo', { dirtyBuffers: [], paths: ['src/a.txt'] }),
      /^Applied 1 file changed, \+1 −1 from worker 'duo' to your working tree; 1 file stays pending in its worktree\. Baton could not note which files landed \(.*duo\.lock.*\): they stay listed as pending, and the next Apply finds them already in your tree\.$/,
    );
    assert.equal(await readFile(join(repo, 'src', 'a.txt'), 'utf8'), 'a by duo\n');
    assert.equal((await changes.totals('duo')).line, '2 files changed, +2 −2');
    await rm(lock);
    assert.equal(
      await changes.apply('duo', { dirtyBuffers: [] }),
      "Applied 2 files changed, +2 −2 from worker 'duo' to your working tree. Already in your tree as the worker left it, so left as it was: src/a.txt.",
    );
    assert.equal(await readFile(join(repo, 'src', 'b.txt'), 'utf8'), 'b by duo\n');
  });

  it('keeps the change as a commit on baton/<name> (message from the worker summary), removes the worktree, keeps the branch', async () => {
    scriptWorker('keeper', "printf 'kept line\\n' > src/a.txt && printf 'new\\n' > src/new.txt", 'Rename the greeting in a.txt\n\nAlso adds new.txt.');
    const w = await core.pool.create({ name: 'keeper', workingDir: repo, prompt: 'TASK-keeper' });
    await waitFor('the worker', () => finished('keeper'));
    await waitFor('its result', () => doneCount() >= 1);
    core.server.on(
      { lastUserIncludes: '[via panel] keep it as a branch', afterToolResult: false },
      { toolCalls: [{ id: 'k1', name: 'keep_worker_changes_as_branch', arguments: { name: 'keeper' } }] },
    );
    core.server.on({ lastUserIncludes: '[via panel] keep it as a branch', afterToolResult: true }, { text: 'Kept.' });
    core.broker.answer = 'once';
    await core.orchestrator.enqueue('keep it as a branch', { channel: 'panel' }).done;

    assert.deepEqual(
      core.broker.asked.map((p) => [p.worker, p.kind]),
      [['keeper', 'keep as a branch']],
    );
    assert.match(core.broker.asked[0]!.detail, /commit 2 files changed, \+2 −1 of worker 'keeper' on baton\/keeper \("Rename the greeting in a\.txt"\)/);
    assert.equal((await git(repo, 'log', '-1', '--format=%B', 'baton/keeper')).trim(), 'Rename the greeting in a.txt\n\nAlso adds new.txt.');
    assert.equal(await git(repo, 'show', 'baton/keeper:src/a.txt'), 'kept line\n');
    assert.equal(await git(repo, 'show', 'baton/keeper:src/new.txt'), 'new\n');
    assert.equal(await readFile(join(repo, 'src', 'a.txt'), 'utf8'), 'a original\n', "the user's files are not touched");
    assert.equal(existsSync(w.workingDir), false, 'the worktree folder is gone');
    assert.equal(await worktreeCount(), 1);
    assert.deepEqual(core.pool.changes!.list(), []);
    assert.deepEqual(card('keeper')?.outcome, { kind: 'kept', text: 'kept on baton/keeper' });
  });

  it('Keep as branch signs the commit when your git config signs commits (commit.gpgSign, an ssh key); a signing that fails keeps nothing and says why', async () => {
    const key = join(core.home, 'signing-key');
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'test', '-f', key]);
    await git(repo, 'config', 'gpg.format', 'ssh');
    await git(repo, 'config', 'commit.gpgSign', 'true');
    await git(repo, 'config', 'user.signingKey', `${key}.pub`);
    scriptWorker('signer', "printf 'signed\\n' > src/a.txt", 'Sign this');
    scriptWorker('unsigned', "printf 'not signed\\n' > src/b.txt", 'Cannot sign');
    await core.pool.create({ name: 'signer', workingDir: repo, prompt: 'TASK-signer' });
    await core.pool.create({ name: 'unsigned', workingDir: repo, prompt: 'TASK-unsigned' });
    await waitFor('both workers', () => finished('signer') && finished('unsigned'));
    await waitFor('their results', () => doneCount() >= 2);

    assert.match(
      await core.pool.changes!.keepAsBranch('signer', 'Sign this'),
      /^Kept 1 file changed, \+1 −1 of worker 'signer' as commit \w{8} on branch baton\/signer/,
    );
    assert.match(await git(repo, 'cat-file', 'commit', 'baton/signer'), /^gpgsig -----BEGIN SSH SIGNATURE-----$/m, 'signed as the user signs');
    assert.equal(await git(repo, 'show', 'baton/signer:src/a.txt'), 'signed\n');

    await rm(key);
    await assert.rejects(
      () => core.pool.changes!.keepAsBranch('unsigned', 'Cannot sign'),
      (err: Error) =>
        err instanceof ChangeError &&
        /^Nothing was kept: your git config signs every commit \(commit\.gpgSign\), and git could not sign this one \(.+\)\. The worker's changes stay pending/.test(
          err.message,
        ),
    );
    assert.equal((await git(repo, 'rev-parse', 'baton/unsigned')).trim(), (await git(repo, 'rev-parse', 'main')).trim(), 'the branch did not move');
    assert.equal((await core.pool.changes!.totals('unsigned')).line, '1 file changed, +1 −1', 'still pending');
  });

  it('a folder the worker made a git repository of its own (a git init, a clone): named as left out on the card, to the model and in Apply; the rest lands, none of it does', async () => {
    // Made in the worktree by the worker's own git, in its sandbox: one with no commit yet (git init), one with a
    // commit and a file added since (a clone it then changed). Git stops at each: it never saw their files.
    const commit = 'git -c user.name=w -c user.email=w@w commit -qm one';
    scriptWorker(
      'nester',
      `git init -q fresh && printf 'x\\n' > fresh/x.txt && mkdir -p vendor/lib && cd vendor/lib && git init -q && printf 'y\\n' > y.txt && git add y.txt && ${commit} && printf 'z\\n' > z.txt && cd ../.. && printf 'b changed\\n' > src/b.txt`,
      'Changed b; made fresh and vendor/lib.',
    );
    await core.pool.create({ name: 'nester', workingDir: repo, prompt: 'TASK-nester' });
    await waitFor('the worker', () => finished('nester'));
    await waitFor('its result', () => doneCount() >= 1);

    const leftOut =
      /^Left out: fresh\/, vendor\/lib\/, git repositories of their own in the worktree \(a clone, a git init\): Baton applies files, never a repository, and they go with the worktree\.$/;
    const c = card('nester')!.changes!;
    assert.deepEqual({ ...c, note: undefined }, { files: 1, additions: 1, deletions: 1, paths: ['src/b.txt'], note: undefined });
    assert.match(c.note!, leftOut);
    const told = core.server.chatRequests().find((r) => r.lastUserText?.includes("[Background task completed] Worker 'nester'"))!;
    assert.match(told.lastUserText!, /Changes: 1 file changed, \+1 −1 in its worktree on baton\/nester; [^\n]*\. Left out: fresh\/, vendor\/lib\/, /);
    const review = await core.pool.changes!.review('nester');
    assert.deepEqual(review.kind === 'files' && review.entries.map((e) => [e.path, e.status]), [['src/b.txt', 'modified']]);

    const applied = await core.pool.changes!.apply('nester', { dirtyBuffers: [] });
    assert.match(applied, /^Applied 1 file changed, \+1 −1 from worker 'nester' to your working tree\. Left out: fresh\/, vendor\/lib\/, /);
    assert.equal(await readFile(join(repo, 'src', 'b.txt'), 'utf8'), 'b changed\n');
    assert.equal(await git(repo, 'status', '--porcelain', '--untracked-files=all'), ' M src/b.txt\n', 'no empty folder, no pointer to a commit');
    assert.equal(await worktreeCount(), 1);
    assert.deepEqual(core.pool.changes!.list(), []);

    // A worker whose whole work is such a folder: nothing to apply, and the card and the model are told why.
    scriptWorker('cloner', 'git init -q lib && printf "l\\n" > lib/l.txt', 'Made lib.');
    await core.pool.create({ name: 'cloner', workingDir: repo, prompt: 'TASK-cloner' });
    await waitFor('its result', () => doneCount() >= 2);
    assert.equal(card('cloner')!.changes?.files, 0);
    assert.match(card('cloner')!.changes?.note ?? '', /^Left out: lib\/, a git repository of its own in the worktree/);
    const toldOnly = core.server.chatRequests().find((r) => r.lastUserText?.includes("[Background task completed] Worker 'cloner'"))!;
    assert.match(toldOnly.lastUserText!, /\n\nChanges: none that can be applied\. Left out: lib\/, /);
    assert.match(
      await core.pool.changes!.apply('cloner', { dirtyBuffers: [] }),
      /^Worker 'cloner' has no file to apply\. Left out: lib\/, a git repository of its own in the worktree .* Discard lets its worktree go\.$/,
    );
    assert.match(
      await core.pool.changes!.keepAsBranch('cloner', 'Keep lib'),
      /^Worker 'cloner' has no file to keep as a branch\. Left out: lib\/, .* Discard lets its worktree go\.$/,
    );
    assert.ok(existsSync(join(card('cloner')!.workingDir, 'lib', 'l.txt')), 'the folder is still there for the user to look at');
    assert.match(await core.pool.changes!.discard('cloner'), /^Discarded the changes of worker 'cloner': its worktree and branch are gone\.$/);
    assert.equal(await worktreeCount(), 1);
  });

  it('two workers that made one same edit: the second Apply lands the rest and says that file was already there, instead of a conflict', async () => {
    scriptWorker('twin1', "printf 'fixed\\n' > src/a.txt", 'fixed a');
    scriptWorker('twin2', "printf 'fixed\\n' > src/a.txt && printf 'c too\\n' > src/c.txt", 'fixed a and c');
    await core.pool.create({ name: 'twin1', workingDir: repo, prompt: 'TASK-twin1' });
    await core.pool.create({ name: 'twin2', workingDir: repo, prompt: 'TASK-twin2' });
    await waitFor('both results', () => doneCount() >= 2);
    assert.match(await core.pool.changes!.apply('twin1', { dirtyBuffers: [] }), /^Applied 1 file changed/);
    assert.equal(
      await core.pool.changes!.apply('twin2', { dirtyBuffers: [] }),
      "Applied 2 files changed, +2 −2 from worker 'twin2' to your working tree. Already in your tree as the worker left it, so left as it was: src/a.txt.",
    );
    assert.equal(await readFile(join(repo, 'src', 'a.txt'), 'utf8'), 'fixed\n');
    assert.equal(await readFile(join(repo, 'src', 'c.txt'), 'utf8'), 'c too\n');
    assert.equal(await worktreeCount(), 1);
  });

  it('an Apply git cannot finish writing (a file of yours where the worker made a folder) puts back what it wrote: nothing applied, the change still pending', async () => {
    scriptWorker('docs', "printf 'a edited\\n' > src/a.txt && mkdir -p src/z && printf 'guide\\n' > src/z/guide.md", 'edited a, wrote a guide');
    await core.pool.create({ name: 'docs', workingDir: repo, prompt: 'TASK-docs' });
    await waitFor('its result', () => doneCount() >= 1);
    // An untracked file of the user's named like the worker's new folder: git's check passes, its write of src/z/ fails
    // after it wrote src/a.txt (it writes in the patch's order).
    await writeFile(join(repo, 'src', 'z'), 'my notes\n');
    await assert.rejects(
      core.pool.changes!.apply('docs', { dirtyBuffers: [] }),
      (err: Error) =>
        err instanceof ChangeError &&
        /^Nothing was applied: git could not write all of the changes into your files \(.*src\/z\/guide\.md.*\); what it had written \(src\/a\.txt\) is put back\.$/.test(
          err.message,
        ),
    );
    assert.equal(await readFile(join(repo, 'src', 'a.txt'), 'utf8'), 'a original\n', 'put back');
    assert.equal(await readFile(join(repo, 'src', 'z'), 'utf8'), 'my notes\n');
    assert.equal((await git(repo, 'status', '--porcelain')).trim(), '?? src/z');
    assert.equal((await core.pool.changes!.totals('docs')).line, '2 files changed, +2 −1', 'still pending, whole');
    await rm(join(repo, 'src', 'z'));
    assert.match(await core.pool.changes!.apply('docs', { dirtyBuffers: [] }), /^Applied 2 files changed, \+2 −1 from worker 'docs' to your working tree\.$/);
    assert.equal(await readFile(join(repo, 'src', 'z', 'guide.md'), 'utf8'), 'guide\n');
    assert.deepEqual(
      core.pool.changes!.undoableApplies().map((r) => [r.worker, r.files.sort(), r.exclude]),
      [['docs', ['src/a.txt', 'src/z/guide.md'], []]],
      'the undo takes back both: neither counts as already there',
    );
  });

  it('after a reload, a worker whose changes wait is back on its card; Ask for changes goes on in its kept session, its git folder still read-only; Apply takes both rounds', async () => {
    scriptWorkerRound(core.server, { worker: 'again', prompt: 'TASK-again', does: { command: "printf 'round one\\n' > src/a.txt" }, report: 'round one done' });
    core.workerSettings.verifyCommand = "grep -q 'round one' src/a.txt";
    await core.pool.create({ name: 'again', workingDir: repo, prompt: 'TASK-again' });
    await waitFor('its result', () => doneCount() >= 1);
    const before = card('again')!;
    assert.equal(before.verify?.state, 'passed');
    await core.restart();
    await waitFor('its card back', () => card('again')?.changes?.files === 1);
    const back = card('again')!;
    assert.deepEqual(
      {
        state: back.state,
        sessionId: back.sessionId,
        isolation: back.isolation,
        workingDir: back.workingDir,
        changes: back.changes,
        verify: back.verify,
        ran: [back.startedAt, back.finishedAt],
        summary: back.summary,
      },
      {
        state: 'done',
        ran: [before.startedAt, before.finishedAt],
        summary: 'round one done',
        sessionId: before.sessionId,
        isolation: before.isolation,
        workingDir: before.workingDir,
        changes: before.changes,
        verify: before.verify,
      },
    );

    scriptWorkerRound(core.server, {
      worker: 'again',
      prompt: 'MORE-again',
      does: { command: "printf 'round two\\n' > src/b.txt && git config core.fsmonitor /x && echo CONFIG-WRITTEN || echo CONFIG-REFUSED" },
      report: 'round two done',
    });
    await core.pool.send('again', 'MORE-again');
    await waitFor('its second result', () => core.server.chatRequests().some((r) => r.lastUserText?.includes('round two done')) && doneCount() >= 2);
    const followUp = core.server.chatRequests().find((r) => r.systemText.includes("You are 'again'") && r.lastUserText?.includes('MORE-again'))!;
    assert.ok(JSON.stringify(followUp.messages).includes('TASK-again'), 'the kept session, with its first round');
    const ran = core.server
      .chatRequests()
      .find((r) => r.systemText.includes("You are 'again'") && r.messages.at(-1)?.role === 'tool' && r.lastUserText?.includes('MORE-again'))!;
    assert.match(JSON.stringify(ran.messages.at(-1)), /CONFIG-REFUSED/);
    assert.match(await core.pool.changes!.apply('again', { dirtyBuffers: [] }), /^Applied 2 files changed, \+2 −2 from worker 'again'/);
    assert.equal(await readFile(join(repo, 'src', 'b.txt'), 'utf8'), 'round two\n');
  });

  it('a Keep as branch cut short after its commit (its window died): Discard then leaves the kept branch', async () => {
    scriptWorker('cut', "printf 'cut line\\n' > src/a.txt", 'cut: edited a');
    await core.pool.create({ name: 'cut', workingDir: repo, prompt: 'TASK-cut' });
    await waitFor('its result', () => finished('cut') && doneCount() >= 1);
    // What the keep had done when the window died: marked under way, the commit on the branch, the worktree let go of it.
    const sets = new PendingChangeSets(core.store, core.storageDir, core.logger);
    sets.save({ ...sets.require('cut'), keeping: true });
    const { commit } = await keepAsBranch({ git: sets.git, changeSets: sets.changeSets, storageDir: core.storageDir }, sets.require('cut'), 'Cut short');
    assert.equal(
      await core.pool.changes!.discard('cut'),
      "Discarded the changes of worker 'cut': its worktree is gone; the branch a Keep as branch made stays.",
    );
    assert.equal((await git(repo, 'rev-parse', 'baton/cut')).trim(), commit, 'the kept branch stays, with its commit');
    assert.equal(await git(repo, 'show', 'baton/cut:src/a.txt'), 'cut line\n');
  });

  it('a worker that left its worktree on no branch itself (git checkout --detach, unsandboxed): Discard still deletes its branch, and the name is free again', async () => {
    scriptWorker('loose', "printf 'loose line\\n' > src/a.txt", 'loose: edited a');
    await core.pool.create({ name: 'loose', workingDir: repo, prompt: 'TASK-loose' });
    await waitFor('its result', () => finished('loose') && doneCount() >= 1);
    await git(card('loose')!.workingDir, 'checkout', '-q', '--detach');
    assert.equal(await core.pool.changes!.discard('loose'), "Discarded the changes of worker 'loose': its worktree and branch are gone.");
    assert.equal((await git(repo, 'branch', '--list', 'baton/loose')).trim(), '', 'no branch left to refuse the name');
  });

  it('Ask for changes: send_to_worker continues the finished worker in its worktree with its session; the change set has both rounds; summary and files stay on the card', async () => {
    const mine = (r: { systemText: string }) => r.systemText.includes("You are 'iter'");
    const round = (prompt: string, command: string, report: string, answer: string): void =>
      scriptWorkerRound(core.server, { worker: 'iter', prompt, does: { command }, report, answer });
    round('TASK-iter', "printf 'a round one\\n' > src/a.txt", 'Round one: changed a.txt', 'noted 1');
    const w = await core.pool.create({ name: 'iter', workingDir: repo, prompt: 'TASK-iter' });
    await waitFor('round one', () => finished('iter') && doneCount() >= 1);
    const session = card('iter')?.sessionId;
    assert.deepEqual(card('iter')?.changes, { files: 1, additions: 1, deletions: 1, paths: ['src/a.txt'] });
    assert.equal(card('iter')?.summary, 'Round one: changed a.txt');

    // The orchestrator passes the user's "close, but…" on with send_to_worker.
    round('also change b', "printf 'b round two\\n' > src/b.txt", 'Round two: changed b.txt as asked', 'noted 2');
    core.server.on(
      { lastUserIncludes: '[via panel] ask iter to also change b', afterToolResult: false },
      { toolCalls: [{ id: 's1', name: 'send_to_worker', arguments: { name: 'iter', prompt: 'also change b' } }] },
    );
    core.server.on({ lastUserIncludes: '[via panel] ask iter to also change b', afterToolResult: true }, { text: 'Asked.' });
    await core.orchestrator.enqueue('ask iter to also change b', { channel: 'panel' }).done;
    await waitFor('round two running', () => card('iter')?.state === 'running' || doneCount() >= 2);
    await waitFor('round two', () => finished('iter') && doneCount() >= 2);

    assert.equal(card('iter')?.sessionId, session, 'the same session continued');
    assert.equal(card('iter')?.workingDir, w.workingDir, 'in the same worktree');
    assert.deepEqual(card('iter')?.changes, { files: 2, additions: 2, deletions: 2, paths: ['src/a.txt', 'src/b.txt'] });
    assert.equal(card('iter')?.summary, 'Round two: changed b.txt as asked');
    const second = core.server.chatRequests().filter((r) => mine(r) && r.lastUserText?.includes('also change b'));
    assert.ok(
      second[0]!.messages.some((m) => m.role === 'assistant' && JSON.stringify(m).includes('Round one')),
      'the second round sees the first in its conversation',
    );
    assert.match(await core.pool.changes!.forModel('iter'), /\+a round one[\s\S]*\+b round two/);
    assert.equal(await readFile(join(repo, 'src', 'a.txt'), 'utf8'), 'a original\n');
  });

  it('a worker asked for more holds its changes while it works: Apply, Discard and Keep are refused, then Apply takes both rounds', async () => {
    const round = (prompt: string, command: string, report: string, delayMs?: number): void =>
      scriptWorkerRound(core.server, { worker: 'busy', prompt, does: { command }, report, answer: `noted ${report}`, delayMs });
    round('TASK-busy', "printf 'a round one\\n' > src/a.txt", 'Round one');
    const w = await core.pool.create({ name: 'busy', workingDir: repo, prompt: 'TASK-busy' });
    await waitFor('round one', () => finished('busy') && doneCount() >= 1);
    // Asked for more: it works in its worktree a while before it writes.
    round('also b', "printf 'b round two\\n' > src/b.txt", 'Round two', 5000);
    await core.pool.send('busy', 'also b');
    assert.equal(card('busy')?.state, 'running');
    const changes = core.pool.changes!;
    for (const attempt of [
      () => changes.apply('busy', { dirtyBuffers: [] }),
      () => changes.discard('busy'),
      () => changes.keepAsBranch('busy', 'kept'),
      () => changes.resolveInEditor('busy', { dirtyBuffers: [] }),
    ]) {
      await assert.rejects(
        attempt(),
        (err: unknown) => err instanceof WorkerAtWork && /^Worker 'busy' is still working on its changes: wait for it to finish/.test(err.message),
      );
    }
    assert.throws(() => changes.assertSettleable('busy', 'apply them'), WorkerAtWork);
    // The orchestrator's apply is refused before the user is asked anything.
    core.server.on(
      { lastUserIncludes: '[via panel] apply busy now', afterToolResult: false },
      { toolCalls: [{ id: 'ap-busy', name: 'apply_worker_changes', arguments: { name: 'busy' } }] },
    );
    core.server.on({ lastUserIncludes: '[via panel] apply busy now', afterToolResult: true }, { text: 'It is still working.' });
    assert.equal((await core.orchestrator.enqueue('apply busy now', { channel: 'panel' }).done).content, 'It is still working.');
    assert.deepEqual(core.broker.asked, []);
    // The orchestrator's own request after the tool (the worker running alongside may have asked the server since).
    const answered = core.server.chatRequests().filter((r) => r.lastUserText?.includes('[via panel] apply busy now'));
    const refusal = answered
      .at(-1)!
      .messages.filter((m) => m.role === 'tool')
      .at(-1);
    assert.match(JSON.stringify(refusal?.content), /Worker 'busy' is still working on its changes: wait for it to finish \(or stop it\), then apply them\./);
    assert.equal(card('busy')?.state, 'running', 'round two was still running through all of it');
    assert.ok(existsSync(w.workingDir), 'its worktree is still there');
    await waitFor('round two', () => finished('busy') && doneCount() >= 2);
    assert.equal(await readFile(join(w.workingDir, 'src', 'b.txt'), 'utf8'), 'b round two\n', 'round two did its work');
    assert.equal(card('busy')?.outcome, undefined, 'nothing was settled');
    // Two Applies at once (the palette's and the orchestrator's tool): one lands, the other finds nothing left.
    const applying = [changes.apply('busy', { dirtyBuffers: [] }), changes.apply('busy', { dirtyBuffers: [] })];
    // Asked for more meanwhile: refused, since the folder it would work in is going.
    await assert.rejects(
      core.pool.send('busy', 'one more thing'),
      (err: unknown) =>
        err instanceof WorkerError &&
        err.message === "The changes of worker 'busy' are being applied, kept or discarded right now; ask again once that is done.",
    );
    const both = await Promise.allSettled(applying);
    assert.equal(both[0].status === 'fulfilled' && both[0].value, "Applied 2 files changed, +2 \u22122 from worker 'busy' to your working tree.");
    assert.ok(
      both[1].status === 'rejected' && both[1].reason instanceof ChangeError && /^Worker 'busy' has no pending changes\.$/.test(both[1].reason.message),
    );
    assert.equal(await readFile(join(repo, 'src', 'a.txt'), 'utf8'), 'a round one\n');
    assert.equal(await readFile(join(repo, 'src', 'b.txt'), 'utf8'), 'b round two\n');
    assert.deepEqual(card('busy')?.outcome, { kind: 'applied', text: 'applied: 2 files changed, +2 \u22122', undoable: true });
    assert.equal(card('busy')?.conflicts, undefined);
    assert.equal(await worktreeCount(), 1);
  });

  it('a worktree removed outside Baton: Review, Apply and the model are told so by name (not "git is not installed"); Discard lets it go', async () => {
    scriptWorker('gone', "printf 'x\\n' > src/a.txt", 'gone: edited a');
    const w = await core.pool.create({ name: 'gone', workingDir: repo, prompt: 'TASK-gone' });
    await waitFor('its result', () => finished('gone') && doneCount() >= 1);
    await git(repo, 'worktree', 'remove', '--force', w.workingDir);
    const changes = core.pool.changes!;
    const said = `The worktree of worker 'gone' is gone (${w.workingDir} was removed outside Baton): its changes cannot be read or applied. Discard lets them go.`;
    for (const attempt of [() => changes.review('gone'), () => changes.apply('gone', { dirtyBuffers: [] }), () => changes.forModel('gone')]) {
      await assert.rejects(attempt(), (err: unknown) => err instanceof ChangeError && err.message === said);
    }
    // After a reload its card is back with that said, and Discard on it.
    await core.restart();
    await waitFor('its card back', () => card('gone')?.changes?.note === said);
    assert.equal(core.pool.changes!.list().length, 1);
    assert.equal(await core.pool.changes!.discard('gone'), "Discarded the changes of worker 'gone': its worktree and branch are gone.");
    assert.deepEqual(core.pool.changes!.list(), []);
    assert.equal((await git(repo, 'branch', '--list', 'baton/*')).trim(), '');
    assert.equal(await readFile(join(repo, 'src', 'a.txt'), 'utf8'), 'a original\n');
  });

  it('a repository the user moved (renamed its folder): found again once its folder is open, and its changes apply there; one deleted is discarded', async () => {
    scriptWorker('moved', "printf 'moved edit\\n' > src/a.txt", 'moved: edited a');
    const gone = join(core.home, 'dev', 'gone');
    await mkdir(gone, { recursive: true });
    await writeFile(join(gone, 'g.txt'), 'g\n');
    await git(gone, 'init', '-q', '-b', 'main');
    await git(gone, 'add', '-A');
    await git(gone, 'commit', '-q', '-m', 'init');
    scriptWorker('lost', "printf 'lost edit\\n' > g.txt", 'lost: edited g');
    await core.pool.create({ name: 'moved', workingDir: repo, prompt: 'TASK-moved' });
    await core.pool.create({ name: 'lost', workingDir: gone, prompt: 'TASK-lost' });
    await waitFor('both results', () => finished('moved') && finished('lost') && doneCount() >= 2);

    const renamed = join(core.home, 'dev', 'repo-renamed');
    await rename(repo, renamed);
    await rm(gone, { recursive: true, force: true });
    // Not open in this window: said plainly (it was git's "not a git repository" and, for Apply, "not inside a git repository").
    await assert.rejects(
      core.pool.changes!.review('moved'),
      (err: unknown) =>
        err instanceof ChangeError &&
        err.message ===
          `The repository of worker 'moved' is no longer at ${repo} (moved, renamed or deleted): open the folder it is in now, and Baton finds it there; or Discard the changes.`,
    );
    // Deleted for good: Discard lets it go (it failed on the refs the repository took with it, and the card stayed for ever).
    assert.equal(await core.pool.changes!.discard('lost'), "Discarded the changes of worker 'lost': its worktree and branch are gone.");

    // The user opens the renamed folder.
    await core.restart({ workspaceFolders: () => [renamed] });
    const changes = core.pool.changes!;
    assert.equal((await changes.totals('moved')).line, '1 file changed, +1 −1');
    const review = await changes.review('moved');
    assert.equal(review.kind === 'files' && review.entries[0]?.userPath, join(renamed, 'src', 'a.txt'));
    assert.match(await changes.apply('moved', { dirtyBuffers: [] }), /^Applied 1 file changed, \+1 −1 from worker 'moved'/);
    assert.equal(await readFile(join(renamed, 'src', 'a.txt'), 'utf8'), 'moved edit\n');
    assert.deepEqual(changes.list(), []);
    assert.equal((await git(renamed, 'worktree', 'list', '--porcelain')).split('\n').filter((l) => l.startsWith('worktree ')).length, 1);
    assert.equal((await git(renamed, 'for-each-ref', 'refs/baton/', 'refs/heads/baton/')).trim(), '');
  });

  it('a worktree that cannot be removed (a file something holds): Apply and Keep as branch stand and say so, the card goes, the orphan is cleaned up later (the kept branch stays)', async () => {
    // What a user's machine has: a file a process still holds open (Windows), a read-only folder a tool made (Go's
    // module cache, Bazel's output). A read-only folder is that for a user; root ignores permissions, not the
    // immutable flag.
    const held: string[] = [];
    const root = process.getuid?.() === 0;
    const hold = (file: string): void => {
      if (root) execFileSync('chattr', ['+i', file]);
      else chmodSync(dirname(file), 0o555);
      held.push(file);
    };
    const release = (file: string): void => {
      if (root) execFileSync('chattr', ['-i', file]);
      else chmodSync(dirname(file), 0o755);
    };
    try {
      scriptWorker('held', "printf 'held edit\\n' > src/a.txt && mkdir -p cache && printf 'lock\\n' > cache/lock.bin", 'held: edited a');
      scriptWorker('kept', "printf 'kept edit\\n' > src/b.txt && mkdir -p cache && printf 'lock\\n' > cache/lock.bin", 'kept: edited b');
      const [one, two] = await Promise.all([
        core.pool.create({ name: 'held', workingDir: repo, prompt: 'TASK-held' }),
        core.pool.create({ name: 'kept', workingDir: repo, prompt: 'TASK-kept' }),
      ]);
      await waitFor('both results', () => finished('held') && finished('kept') && doneCount() >= 2);
      hold(join(one.workingDir, 'cache', 'lock.bin'));
      hold(join(two.workingDir, 'cache', 'lock.bin'));
      const changes = core.pool.changes!;

      const stayed = /Its worktree could not be removed \(.+\): Baton: Clean Up Orphaned Worktrees removes it once nothing holds it\.$/;
      await changes.review('held');
      assert.ok(existsSync(join(core.storageDir, 'review', 'held')), 'Review made its copies');
      const applied = await changes.apply('held', { dirtyBuffers: [] });
      assert.ok(!existsSync(join(core.storageDir, 'review', 'held')), 'they go with the change set, held worktree or not');
      assert.match(applied, /^Applied 2 files changed, \+2 −1 from worker 'held' to your working tree\. /);
      assert.match(applied, stayed);
      assert.equal(await readFile(join(repo, 'src', 'a.txt'), 'utf8'), 'held edit\n');
      assert.equal(card('held')?.outcome?.text, 'applied: 2 files changed, +2 −1');
      await assert.rejects(
        changes.apply('held', { dirtyBuffers: [] }),
        (err: unknown) => err instanceof ChangeError && /has no pending changes/.test(err.message),
      );

      const kept = await changes.keepAsBranch('kept', 'Keep b');
      assert.match(
        kept,
        /^Kept 2 files changed, \+2 −1 of worker 'kept' as commit [0-9a-f]{8} on branch baton\/kept, which stays for merge, cherry-pick or a pull request\. /,
      );
      assert.match(kept, stayed);
      assert.deepEqual(changes.list(), [], 'no card waits for either');
      // git's side is clean already (the applied worker's branch gone, the kept one kept); the folders wait.
      assert.deepEqual((await changes.orphans()).map((o) => o.worktreePath).sort(), [one.workingDir, two.workingDir]);
      assert.equal((await git(repo, 'branch', '--list', 'baton/*')).trim(), 'baton/kept');

      for (const file of held.splice(0)) release(file);
      assert.equal(await changes.removeOrphans(), 2);
      assert.ok(!existsSync(one.workingDir) && !existsSync(two.workingDir));
      assert.equal((await git(repo, 'branch', '--list', 'baton/*')).trim(), 'baton/kept', 'the kept branch stays; the applied one goes');
      assert.equal(await git(repo, 'show', 'baton/kept:src/b.txt'), 'kept edit\n');
      assert.equal(await worktreeCount(), 1);
    } finally {
      for (const file of held) release(file);
    }
  });

  it('overlap: two running workers touching one file are flagged on both cards before either finishes; list_sessions names the touched files', async () => {
    for (const name of ['left', 'right']) {
      const mine = (r: { systemText: string }) => r.systemText.includes(`You are '${name}'`);
      core.server.on(
        { predicate: (r) => mine(r) && !r.messages.some((m) => m.role === 'tool'), name: `${name} edits` },
        { toolCalls: [{ id: `${name}-1`, name: 'bash', arguments: { command: `printf '${name}\\n' > src/a.txt`, description: 'edit' } }] },
      );
      // Still working when the overlap must show.
      core.server.on({ predicate: (r) => mine(r) && r.messages.some((m) => m.role === 'tool'), name: `${name} keeps working` }, { hang: true });
    }
    await Promise.all([
      core.pool.create({ name: 'left', workingDir: repo, prompt: 'TASK-left' }),
      core.pool.create({ name: 'right', workingDir: repo, prompt: 'TASK-right' }),
    ]);
    await waitFor('both cards flagged', () => card('left')?.overlaps?.length && card('right')?.overlaps?.length);
    assert.equal(card('left')?.state, 'running');
    assert.equal(card('right')?.state, 'running');
    assert.deepEqual(card('left')?.overlaps, [{ worker: 'right', paths: ['src/a.txt'] }]);
    assert.deepEqual(card('right')?.overlaps, [{ worker: 'left', paths: ['src/a.txt'] }]);
    const listed = formatWorkerList(core.pool.list(), Date.now());
    assert.match(listed, /- left: running .*; touched: src\/a\.txt/);
    assert.match(listed, /- right: running .*; touched: src\/a\.txt/);
    await core.pool.kill('left', 'tool');
    await core.pool.kill('right', 'tool');
  });

  it('overlap: a rename overlaps an edit of its old name; a new worker of a settled name that overlaps again is told; the flags come back after a reload', async () => {
    const told = (worker: string): string =>
      core.server
        .chatRequests()
        .filter((r) => r.lastUserText?.includes(`[Background task completed] Worker '${worker}'`))
        .at(-1)?.lastUserText ?? '';
    scriptWorker('mover', 'mv src/a.txt src/moved.txt', 'moved a');
    await core.pool.create({ name: 'mover', workingDir: repo, prompt: 'TASK-mover' });
    await waitFor('its result', () => doneCount() >= 1);
    scriptWorker('editor', "printf 'a by editor\\n' > src/a.txt", 'edited a');
    await core.pool.create({ name: 'editor', workingDir: repo, prompt: 'TASK-editor' });
    await waitFor('its result', () => doneCount() >= 2);
    assert.deepEqual(card('editor')?.overlaps, [{ worker: 'mover', paths: ['src/a.txt'] }], 'the rename took src/a.txt away');
    assert.match(told('editor'), /Overlap: its changes touch the same files as worker 'mover' \(src\/a\.txt\)/);

    await core.pool.changes!.discard('mover');
    scriptWorker('mover', "printf 'a again\\n' > src/a.txt", 'edited a again');
    await core.pool.create({ name: 'mover', workingDir: repo, prompt: 'TASK-mover-2' });
    await waitFor('its result', () => doneCount() >= 3);
    assert.match(told('mover'), /Overlap: its changes touch the same files as worker 'editor'/, 'a new pair, told');

    await core.restart();
    await waitFor('both flagged again', () => card('mover')?.overlaps?.length && card('editor')?.overlaps?.length);
  });

  it('overlap: a pair told before a reload is not told again after it (a follow-up that changed nothing); what is kept of it goes with a settled change', async () => {
    const told = (worker: string): string =>
      core.server
        .chatRequests()
        .filter((r) => r.lastUserText?.includes(`[Background task completed] Worker '${worker}'`))
        .at(-1)?.lastUserText ?? '';
    scriptWorker('first', "printf 'first\\n' > src/a.txt", 'first: edited a');
    await core.pool.create({ name: 'first', workingDir: repo, prompt: 'TASK-first' });
    await waitFor('its result', () => doneCount() >= 1);
    scriptWorker('second', "printf 'second\\n' > src/a.txt", 'second: edited a');
    await core.pool.create({ name: 'second', workingDir: repo, prompt: 'TASK-second' });
    await waitFor('its result', () => doneCount() >= 2);
    assert.match(told('second'), /Overlap: its changes touch the same files as worker 'first' \(src\/a\.txt\)/);

    // A pair whose other change set went unseen (its window died as it was discarded): swept at the next start.
    core.store.setState('overlap-told:first gone', '1');
    await core.restart();
    await waitFor('both flagged again', () => card('first')?.overlaps?.length && card('second')?.overlaps?.length);
    assert.deepEqual(core.store.stateKeys('overlap-told:'), ['overlap-told:first second']);
    // Asked something that changes nothing: its completion carries no second overlap message (a premium request).
    scriptWorkerRound(core.server, { worker: 'first', prompt: 'CHECK-first', does: { command: 'cat src/a.txt' }, report: 'first: checked a' });
    await core.pool.send('first', 'CHECK-first');
    await waitFor('its second result', () => told('first').includes('first: checked a') && doneCount() >= 3);
    assert.doesNotMatch(told('first'), /Overlap/);
    assert.deepEqual(card('first')?.overlaps, [{ worker: 'second', paths: ['src/a.txt'] }], 'the card still says so');

    await core.pool.changes!.discard('second');
    assert.deepEqual(core.store.stateKeys('overlap-told:'), [], 'nothing of the pair is kept once one of it is settled');
  });
});
