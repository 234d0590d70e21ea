// Worker worktrees against real git in temp folders: creation, the include list, orphans, removal.
import * as assert from 'node:assert/strict';
import { existsSync, lstatSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeSummary } from '../../src/core/changes/changeSet';
import { ChangeSets } from '../../src/core/changes/changeSets';
import { GitError } from '../../src/core/git/git';
import { WorktreeError, WorktreeManager, repoKey } from '../../src/core/git/worktrees';
import { makeLargeRepo, makeRepo, testGit, writeFiles } from '../support/gitFixture';

describe('git worktrees (real git)', function () {
  this.timeout(60_000);
  const git = testGit();
  let root: string;
  let repo: string;
  let storage: string;
  let worktrees: WorktreeManager;
  let changeSets: ChangeSets;

  beforeEach(async () => {
    root = realpathSync(await mkdtemp(join(tmpdir(), 'baton-worktrees-')));
    repo = await makeRepo(git, join(root, 'app'), { 'README.md': '# app\n', 'src/index.ts': 'export {};\n', '.gitignore': 'node_modules/\n.env\n' });
    storage = join(root, 'storage');
    worktrees = new WorktreeManager({ git, storageDir: storage, now: () => 1234 });
    changeSets = new ChangeSets({ git, storageDir: storage, worktrees });
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true, maxRetries: 3 });
  });

  it('creates baton/<worker> from HEAD in storage, with the working dir counterpart and the user’s uncommitted paths', async () => {
    await writeFile(join(repo, 'README.md'), '# changed by the user\n');
    await writeFile(join(repo, 'notes.txt'), 'untracked\n');
    const head = (await git.run(['rev-parse', 'HEAD'], { cwd: repo })).trim();
    const wt = await worktrees.createWorkerWorktree({ repoDir: join(repo, 'src'), workerName: 'w1' });
    assert.equal(wt.repoRoot, repo);
    assert.equal(wt.branch, 'baton/w1');
    assert.equal(wt.baseCommit, head);
    assert.equal(wt.worktreePath, join(realpathSync(storage), 'worktrees', repoKey(repo), 'w1'));
    assert.equal(wt.workingDir, join(wt.worktreePath, 'src'));
    assert.equal(readFileSync(join(wt.workingDir, 'index.ts'), 'utf8'), 'export {};\n');
    // The user's uncommitted edit is not in the worktree, and the result says so.
    assert.equal(readFileSync(join(wt.worktreePath, 'README.md'), 'utf8'), '# app\n');
    assert.equal(wt.userHadUncommittedChanges, true);
    assert.deepEqual([...wt.uncommittedPaths].sort(), ['README.md', 'notes.txt']);
    assert.equal(wt.uncommittedCount, 2);
    assert.deepEqual(wt.record, {
      worker: 'w1',
      repoRoot: repo,
      worktreePath: wt.worktreePath,
      branch: 'baton/w1',
      baseCommit: head,
      workingDir: wt.workingDir,
      createdAt: 1234,
      includedPaths: [],
    });
    assert.equal(await git.currentBranch(wt.worktreePath), 'baton/w1');
    assert.equal(await git.currentBranch(repo), 'main');
    // The user's checkout is as it was.
    assert.equal(readFileSync(join(repo, 'README.md'), 'utf8'), '# changed by the user\n');
  });

  it('refuses an existing branch or folder and deletes nothing', async () => {
    const first = await worktrees.createWorkerWorktree({ repoDir: repo, workerName: 'w1' });
    await writeFile(join(first.worktreePath, 'work.txt'), 'precious\n');
    await assert.rejects(
      () => worktrees.createWorkerWorktree({ repoDir: repo, workerName: 'w1' }),
      (err: unknown) =>
        err instanceof WorktreeError &&
        err.kind === 'branch-exists' &&
        /already exists \(a branch kept from an earlier worker named 'w1', or left by one that never started/.test(err.message),
    );
    assert.equal(readFileSync(join(first.worktreePath, 'work.txt'), 'utf8'), 'precious\n');
    // A leftover folder without its branch (a crash between the two) is refused too.
    await git.run(['branch', '-m', 'baton/w1', 'kept'], { cwd: repo });
    await assert.rejects(
      () => worktrees.createWorkerWorktree({ repoDir: repo, workerName: 'w1' }),
      (err: unknown) => err instanceof WorktreeError && err.kind === 'path-exists',
    );
    assert.ok(existsSync(join(first.worktreePath, 'work.txt')));
  });

  it('another process adding a worktree at the same moment (its admin files half-written): the add waits for it instead of failing', async () => {
    // What git itself leaves for an instant while another window (or the user's git) adds a worktree: the sibling's
    // admin folder with its commondir still empty. git's add reads every sibling's first, and failed on this one.
    const sibling = join(repo, '.git', 'worktrees', 'alpha');
    await mkdir(sibling, { recursive: true });
    await writeFile(join(sibling, 'gitdir'), `${join(root, 'alpha')}/.git\n`);
    await writeFile(join(sibling, 'commondir'), '');
    const finished = new Promise<void>((done) => setTimeout(() => void writeFile(join(sibling, 'commondir'), '../..\n').then(done), 300));
    const wt = await worktrees.createWorkerWorktree({ repoDir: repo, workerName: 'w1' });
    await finished;
    assert.equal(await git.currentBranch(wt.worktreePath), 'baton/w1');
    assert.equal(readFileSync(join(wt.worktreePath, 'README.md'), 'utf8'), '# app\n');
  });

  it('an add that fails for good (its folder appeared meanwhile) is not tried again, says why, and leaves no branch behind', async () => {
    // Something else made the worktree's folder between Baton's checks and its add: git refuses, after making the
    // branch (git 2.39), which then blocked the worker's name ("an earlier worker left changes there").
    const orig = git.worktreeAdd.bind(git);
    let calls = 0;
    git.worktreeAdd = async (root, opts) => {
      calls++;
      await mkdir(opts.path, { recursive: true });
      await writeFile(join(opts.path, 'theirs.txt'), "not Baton's\n");
      return orig(root, opts);
    };
    try {
      await assert.rejects(
        () => worktrees.createWorkerWorktree({ repoDir: repo, workerName: 'w2' }),
        (err: unknown) => err instanceof GitError && err.kind === 'failed' && /already exists/.test(err.message),
      );
    } finally {
      git.worktreeAdd = orig;
    }
    assert.equal(calls, 1);
    assert.equal(await git.branchExists(repo, 'baton/w2'), false);
    const path = join(realpathSync(storage), 'worktrees', repoKey(repo), 'w2');
    assert.equal(readFileSync(join(path, 'theirs.txt'), 'utf8'), "not Baton's\n", 'what was there is untouched');
    await rm(path, { recursive: true });
    const wt = await worktrees.createWorkerWorktree({ repoDir: repo, workerName: 'w2' });
    assert.equal(await git.currentBranch(wt.worktreePath), 'baton/w2');
  });

  it('says why it cannot: not a repo, no commits, a bad name, an uncommitted working folder', async () => {
    const plain = join(root, 'plain');
    await mkdir(plain);
    const kind = (k: string) => (err: unknown) => err instanceof WorktreeError && err.kind === k;
    await assert.rejects(() => worktrees.createWorkerWorktree({ repoDir: plain, workerName: 'w' }), kind('not-a-repo'));
    await assert.rejects(() => worktrees.createWorkerWorktree({ repoDir: join(root, 'missing'), workerName: 'w' }), kind('not-a-repo'));
    const empty = join(root, 'empty');
    await mkdir(empty);
    await git.run(['init', '-q', '-b', 'main'], { cwd: empty });
    await assert.rejects(() => worktrees.createWorkerWorktree({ repoDir: empty, workerName: 'w' }), kind('no-commits'));
    for (const bad of ['../x', 'a/b', 'x.lock', '-x', 'a..b', '']) {
      await assert.rejects(() => worktrees.createWorkerWorktree({ repoDir: repo, workerName: bad }), kind('invalid-name'));
    }
    await mkdir(join(repo, 'scratch'));
    await assert.rejects(() => worktrees.createWorkerWorktree({ repoDir: join(repo, 'scratch'), workerName: 'w' }), kind('untracked-working-dir'));
    assert.deepEqual(await git.branchList(repo, 'baton/*'), []);
  });

  it('links include folders, copies include files, refuses escapes, and keeps them out of the changes', async () => {
    await writeFiles(repo, { 'node_modules/dep/index.js': 'module.exports = 1;\n', '.env': 'TOKEN=local\n', 'nested/.env.local': 'X=1\n' });
    const outside = join(root, 'outside');
    await mkdir(outside);
    await writeFile(join(outside, 'secret'), 'no');
    await symlink(outside, join(repo, 'link-out'));
    const wt = await worktrees.createWorkerWorktree({
      repoDir: repo,
      workerName: 'w1',
      include: ['node_modules', '.env', 'nested/.env.local', '../outside', '/etc/passwd', 'link-out', 'link-out/secret', 'absent', 'README.md'],
    });
    assert.deepEqual(wt.included, [
      { path: 'node_modules', how: 'linked' },
      { path: '.env', how: 'copied' },
      { path: join('nested', '.env.local'), how: 'copied' },
    ]);
    const problems = Object.fromEntries(wt.includeProblems.map((p) => [p.path, p.reason]));
    assert.deepEqual(problems, {
      '../outside': 'outside-repo',
      '/etc/passwd': 'outside-repo',
      'link-out': 'outside-repo',
      'link-out/secret': 'outside-repo',
      absent: 'missing',
      'README.md': 'already-in-worktree',
    });
    assert.ok(lstatSync(join(wt.worktreePath, 'node_modules')).isSymbolicLink());
    assert.equal(readlinkSync(join(wt.worktreePath, 'node_modules')), join(repo, 'node_modules'));
    assert.ok(!lstatSync(join(wt.worktreePath, '.env')).isSymbolicLink());
    assert.equal(readFileSync(join(wt.worktreePath, '.env'), 'utf8'), 'TOKEN=local\n');
    assert.ok(!existsSync(join(wt.worktreePath, 'link-out')));
    assert.deepEqual(wt.record.includedPaths, ['node_modules', '.env', 'nested/.env.local']);

    // `node_modules/` in .gitignore does not match a symlink: without the exclusion it would be a change.
    const summary = await changeSets.summarize(wt.record);
    assert.deepEqual(summary.files, []);
    // Discard removes the link, never what it points to.
    await changeSets.discard(wt.record);
    assert.equal(readFileSync(join(repo, 'node_modules', 'dep', 'index.js'), 'utf8'), 'module.exports = 1;\n');
    assert.equal(readFileSync(join(repo, '.env'), 'utf8'), 'TOKEN=local\n');
  });

  it('lists orphans (worktrees no change set owns) with their branch, and removes them', async () => {
    const w1 = await worktrees.createWorkerWorktree({ repoDir: repo, workerName: 'w1' });
    const w2 = await worktrees.createWorkerWorktree({ repoDir: repo, workerName: 'w2' });
    const orphans = await worktrees.listOrphans(new Set([w1.worktreePath]));
    assert.deepEqual(orphans, [{ worktreePath: w2.worktreePath, branch: 'baton/w2', repoRoot: repo }]);
    await worktrees.removeWorkerWorktree({ repoRoot: orphans[0].repoRoot!, worktreePath: orphans[0].worktreePath, branch: orphans[0].branch! });
    assert.deepEqual(await worktrees.listOrphans(new Set([w1.worktreePath])), []);
    assert.deepEqual(await git.branchList(repo, 'baton/*'), ['baton/w1']);
    // Removal is idempotent, and refuses anything Baton did not make.
    await worktrees.removeWorkerWorktree(w2.record);
    await assert.rejects(() => worktrees.removeWorkerWorktree({ repoRoot: repo, worktreePath: w1.worktreePath, branch: 'main' }), /only deletes its own/);
    await assert.rejects(() => worktrees.removeWorkerWorktree({ repoRoot: repo, worktreePath: repo, branch: 'baton/w1' }), /not in Baton's storage/);
    assert.equal(await git.currentBranch(repo), 'main');
  });

  it('removes a worktree whose folder the user already deleted, and one whose repository is gone', async () => {
    const w1 = await worktrees.createWorkerWorktree({ repoDir: repo, workerName: 'w1' });
    await rm(w1.worktreePath, { recursive: true, force: true });
    await worktrees.removeWorkerWorktree(w1.record);
    assert.equal((await git.worktreeList(repo)).length, 1);
    assert.deepEqual(await git.branchList(repo, 'baton/*'), []);

    const w2 = await worktrees.createWorkerWorktree({ repoDir: repo, workerName: 'w2' });
    await rm(repo, { recursive: true, force: true });
    const [orphan] = await worktrees.listOrphans(new Set());
    assert.equal(orphan.worktreePath, w2.worktreePath);
    assert.equal(orphan.repoRoot, undefined);
    await worktrees.removeWorkerWorktree(w2.record);
    assert.ok(!existsSync(w2.worktreePath));
  });

  // One 10,000-file fixture for both figures: building it is most of this test's time.
  it('on a 10,000-file repository: creates a worktree (target ≤ 2 s), then summarizes and diffs 100 changed files (target ≤ 300 ms)', async () => {
    const big = await makeLargeRepo(git, join(root, 'big'), 10_000);
    const t0 = performance.now();
    await git.repoRoot(big);
    const baseline = performance.now() - t0;
    const t1 = performance.now();
    const wt = await worktrees.createWorkerWorktree({ repoDir: big, workerName: 'big1' });
    const createMs = performance.now() - t1;
    assert.ok(existsSync(join(wt.worktreePath, 'src', 'mod99', 'file99.ts')));

    for (let i = 0; i < 100; i++) await writeFile(join(wt.worktreePath, 'src', `mod${i}`, 'file7.ts'), `export const changed${i} = true;\n// line two\n`);
    const t2 = performance.now();
    const s = await changeSets.summarize(wt.record);
    const summarizeMs = performance.now() - t2;
    const t3 = performance.now();
    const d = await changeSets.diff(wt.record, { maxBytes: 1_000_000 });
    const diffMs = performance.now() - t3;
    console.log(
      `      10,000-file repo: worktree ${createMs.toFixed(0)} ms (rev-parse baseline ${baseline.toFixed(1)} ms); 100 changed files: summarize ${summarizeMs.toFixed(0)} ms, diff ${diffMs.toFixed(0)} ms`,
    );
    assert.equal(describeSummary(s), '100 files changed, +100 −200');
    assert.equal(d.truncated, false);
    assert.equal(d.text.match(/^diff --git /gm)?.length, 100);
    // No time assertion: on the shared 2-core machine a busy neighbour multiplies these tenfold (the
    // checkout is I/O bound). The figures are printed here and measured by `npm run bench` (worktrees).
  });
});
