// Review and apply of workers' changes against real git in temp folders: two workers on one file,
// all-or-nothing apply, unsaved buffers, the user's own uncommitted work, review copies, big change sets.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplyConflict, describeSummary, type ChangeSet } from '../../src/core/changes/changeSet';
import { BaseRefs, baseRef } from '../../src/core/changes/baseRefs';
import { ChangeSets } from '../../src/core/changes/changeSets';
import { WorktreeManager } from '../../src/core/git/worktrees';
import { commitAll, makeRepo, testGit, writeFiles } from '../support/gitFixture';

const APP = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'].join('\n') + '\n';

describe('git change sets (real git)', function () {
  this.timeout(60_000);
  const git = testGit();
  let root: string;
  let repo: string;
  let storage: string;
  let worktrees: WorktreeManager;
  let changeSets: ChangeSets;

  const read = (p: string) => readFileSync(p, 'utf8');
  const create = async (workerName: string): Promise<ChangeSet> => (await worktrees.createWorkerWorktree({ repoDir: repo, workerName })).record;
  const conflictWith = (expected: Array<{ path: string; reason: string }>) => (err: unknown) => {
    assert.ok(err instanceof ApplyConflict, String(err));
    assert.deepEqual(
      err.files.map((f) => ({ path: f.path, reason: f.reason })),
      expected,
    );
    return true;
  };

  beforeEach(async () => {
    root = realpathSync(await mkdtemp(join(tmpdir(), 'baton-changesets-')));
    repo = await makeRepo(git, join(root, 'app'), { 'src/app.txt': APP, 'README.md': '# app\n', 'old-name.txt': 'renamed content\n' });
    storage = join(root, 'storage');
    worktrees = new WorktreeManager({ git, storageDir: storage });
    changeSets = new ChangeSets({ git, storageDir: storage, worktrees });
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true, maxRetries: 3 });
  });

  it('two workers change the same file: apply the first, the second conflicts by name and nothing is half-applied; discard leaves git clean', async () => {
    const w1 = await create('w1');
    const w2 = await create('w2');
    await writeFile(join(w1.worktreePath, 'src/app.txt'), APP.replace('three', 'THREE by w1'));
    await writeFile(join(w2.worktreePath, 'src/app.txt'), APP.replace('three', 'three by w2'));
    // w2 also adds a file that would apply cleanly on its own: all or nothing means it must not land.
    await writeFile(join(w2.worktreePath, 'extra.txt'), 'from w2\n');
    assert.equal(read(join(repo, 'src/app.txt')), APP, "the user's file is untouched until Apply");

    const s1 = await changeSets.summarize(w1);
    assert.equal(describeSummary(s1), '1 file changed, +1 −1');
    assert.deepEqual(s1.files, [{ path: 'src/app.txt', status: 'modified', additions: 1, deletions: 1, binary: false }]);

    assert.deepEqual((await changeSets.apply(w1, { userRepoDir: repo, dirtyBuffers: [] })).applied, ['src/app.txt']);
    const afterFirst = read(join(repo, 'src/app.txt'));
    assert.equal(afterFirst, APP.replace('three', 'THREE by w1'));

    await assert.rejects(
      () => changeSets.apply(w2, { userRepoDir: repo, dirtyBuffers: [] }),
      conflictWith([{ path: 'src/app.txt', reason: 'does-not-apply' }]),
    );
    assert.equal(read(join(repo, 'src/app.txt')), afterFirst);
    assert.ok(!existsSync(join(repo, 'extra.txt')));
    const status = await git.status(repo);
    assert.deepEqual(
      status.map((s) => s.path),
      ['src/app.txt'],
    );

    await changeSets.discard(w1);
    await changeSets.discard(w2);
    const list = await git.worktreeList(repo);
    assert.deepEqual(
      list.map((w) => w.path),
      [repo],
    );
    assert.equal((await git.run(['branch', '--list', 'baton/*'], { cwd: repo })).trim(), '');
    assert.ok(!existsSync(join(storage, 'review', 'w1')));
  });

  it('a file your tree already has as the worker left it (another worker made the same edit; an Apply cut short after git wrote) is no conflict; one that differs still is', async () => {
    const w1 = await create('same1');
    const w2 = await create('same2');
    const edit = APP.replace('three', 'THREE');
    await writeFile(join(w1.worktreePath, 'src/app.txt'), edit);
    await writeFile(join(w2.worktreePath, 'src/app.txt'), edit);
    await writeFile(join(w2.worktreePath, 'extra.txt'), 'from w2\n');
    await writeFile(join(w2.worktreePath, 'README.md'), '# app, by w2\n');
    await unlink(join(w2.worktreePath, 'old-name.txt'));
    await changeSets.apply(w1, { userRepoDir: repo, dirtyBuffers: [] });
    // Deleted in your tree too: the same as the worker's deletion. README.md differs: that one blocks, alone.
    await unlink(join(repo, 'old-name.txt'));
    await writeFile(join(repo, 'README.md'), '# mine\n');
    await assert.rejects(() => changeSets.apply(w2, { userRepoDir: repo, dirtyBuffers: [] }), conflictWith([{ path: 'README.md', reason: 'does-not-apply' }]));
    assert.ok(!existsSync(join(repo, 'extra.txt')), 'nothing applied');

    await git.run(['checkout', '--', 'README.md'], { cwd: repo });
    const second = await changeSets.apply(w2, { userRepoDir: repo, dirtyBuffers: [] });
    assert.deepEqual(second.alreadyThere, ['old-name.txt', 'src/app.txt']);
    assert.deepEqual(second.applied.sort(), ['README.md', 'extra.txt', 'old-name.txt', 'src/app.txt']);
    assert.equal(read(join(repo, 'src/app.txt')), edit);
    assert.equal(read(join(repo, 'README.md')), '# app, by w2\n');
    assert.equal(read(join(repo, 'extra.txt')), 'from w2\n');
    // The same Apply again (as after a window that died before Baton let the change set go): all of it is there.
    const again = await changeSets.apply(w2, { userRepoDir: repo, dirtyBuffers: [] });
    assert.deepEqual(again.alreadyThere, ['README.md', 'extra.txt', 'old-name.txt', 'src/app.txt']);
    assert.equal(read(join(repo, 'extra.txt')), 'from w2\n');
  });

  it('applies the chosen files only (a rename and a deletion among them); the base moves over them, so the rest stays pending on its own', async () => {
    const cs = await create('part');
    await git.run(['mv', 'old-name.txt', 'new-name.txt'], { cwd: cs.worktreePath });
    await unlink(join(cs.worktreePath, 'README.md'));
    await writeFile(join(cs.worktreePath, 'src/app.txt'), APP.replace('five', 'FIVE'));
    const result = await changeSets.apply(cs, { userRepoDir: repo, dirtyBuffers: [], paths: ['new-name.txt', 'README.md'] });
    assert.deepEqual([...result.applied].sort(), ['README.md', 'new-name.txt', 'old-name.txt']);
    assert.equal(result.remaining, 1);
    assert.equal(read(join(repo, 'new-name.txt')), 'renamed content\n');
    assert.equal(existsSync(join(repo, 'old-name.txt')), false);
    assert.equal(existsSync(join(repo, 'README.md')), false);
    assert.equal(read(join(repo, 'src/app.txt')), APP, 'the file not chosen is not applied');

    const base = await new BaseRefs(git, storage).advance(cs, result.tree!, result.applied, 'test: applied');
    const moved = { ...cs, baseCommit: base };
    assert.deepEqual(
      (await changeSets.summarize(moved)).files.map((f) => [f.path, f.status]),
      [['src/app.txt', 'modified']],
    );
    assert.equal((await git.run(['rev-parse', baseRef('part')], { cwd: repo })).trim(), base, 'the moved base is kept alive by its ref');
    assert.deepEqual((await changeSets.apply(moved, { userRepoDir: repo, dirtyBuffers: [] })).applied, ['src/app.txt']);
    assert.equal(read(join(repo, 'src/app.txt')), APP.replace('five', 'FIVE'));
    await new BaseRefs(git, storage).remove(cs);
    assert.equal((await git.run(['for-each-ref', 'refs/baton/'], { cwd: repo })).trim(), '');
  });

  it('sees commits, staged, unstaged and untracked changes without touching the worktree’s own index', async () => {
    const cs = await create('w1');
    const wt = cs.worktreePath;
    await writeFile(join(wt, 'committed.txt'), 'c\n');
    await commitAll(git, wt, 'worker commit');
    await writeFile(join(wt, 'README.md'), '# app\nstaged\n');
    await git.run(['add', 'README.md'], { cwd: wt });
    await writeFile(join(wt, 'src/app.txt'), APP + 'eleven\n');
    await writeFiles(wt, { 'new/untracked.txt': 'u1\nu2\n' });
    await unlink(join(wt, 'old-name.txt'));
    const before = await git.run(['status', '--porcelain=v1'], { cwd: wt });

    const s = await changeSets.summarize(cs);
    assert.deepEqual(
      s.files.map((f) => [f.path, f.status, f.additions, f.deletions]),
      [
        ['README.md', 'modified', 1, 0],
        ['committed.txt', 'added', 1, 0],
        ['new/untracked.txt', 'added', 2, 0],
        ['old-name.txt', 'deleted', 0, 1],
        ['src/app.txt', 'modified', 1, 0],
      ],
    );
    assert.equal(describeSummary(s), '5 files changed, +5 −1');
    assert.equal(await git.run(['status', '--porcelain=v1'], { cwd: wt }), before, "the worktree's index is as the worker left it");

    const d = await changeSets.diff(cs, { maxBytes: 100_000 });
    assert.equal(d.truncated, false);
    assert.match(d.text, /^5 files changed, \+5 −1\n/);
    assert.match(d.text, /diff --git a\/new\/untracked.txt b\/new\/untracked.txt\nnew file mode 100644/);
    assert.match(d.text, /\+eleven/);

    const { applied } = await changeSets.apply(cs, { userRepoDir: join(repo, 'src'), dirtyBuffers: [] });
    assert.deepEqual(applied, ['README.md', 'committed.txt', 'new/untracked.txt', 'old-name.txt', 'src/app.txt']);
    assert.equal(read(join(repo, 'new/untracked.txt')), 'u1\nu2\n');
    assert.equal(read(join(repo, 'committed.txt')), 'c\n');
    assert.ok(!existsSync(join(repo, 'old-name.txt')));
    assert.equal(read(join(repo, 'src/app.txt')), APP + 'eleven\n');
  });

  it('applies binaries, renames and odd names; names each blocker: a file in the way, a file the user deleted', async () => {
    const cs = await create('w1');
    const wt = cs.worktreePath;
    await writeFile(join(wt, 'logo.bin'), Buffer.from([0, 1, 2, 255, 0, 7]));
    await git.run(['mv', 'old-name.txt', 'new-name.txt'], { cwd: wt });
    await writeFiles(wt, { 'dir with space/ü [draft]*.md': 'odd\n' });
    const s = await changeSets.summarize(cs);
    assert.deepEqual(
      s.files.map((f) => [f.path, f.status, f.binary]),
      [
        ['dir with space/ü [draft]*.md', 'added', false],
        ['logo.bin', 'added', true],
        ['new-name.txt', 'renamed', false],
      ],
    );

    // Blockers in the user's tree: an untracked file where the worker adds one, the rename's source deleted.
    await writeFiles(repo, { 'dir with space/ü [draft]*.md': 'mine\n' });
    await unlink(join(repo, 'old-name.txt'));
    await assert.rejects(
      () => changeSets.apply(cs, { userRepoDir: repo, dirtyBuffers: [] }),
      conflictWith([
        { path: 'dir with space/ü [draft]*.md', reason: 'does-not-apply' },
        { path: 'new-name.txt', reason: 'does-not-apply' },
      ]),
    );
    assert.ok(!existsSync(join(repo, 'logo.bin')), 'nothing applied');

    await unlink(join(repo, 'dir with space/ü [draft]*.md'));
    await git.run(['checkout', '--', 'old-name.txt'], { cwd: repo });
    await changeSets.apply(cs, { userRepoDir: repo, dirtyBuffers: [] });
    assert.deepEqual(readFileSync(join(repo, 'logo.bin')), Buffer.from([0, 1, 2, 255, 0, 7]));
    assert.equal(read(join(repo, 'new-name.txt')), 'renamed content\n');
    assert.ok(!existsSync(join(repo, 'old-name.txt')));
    assert.equal(read(join(repo, 'dir with space/ü [draft]*.md')), 'odd\n');
  });

  it('applies a file bigger than git\u2019s output Baton reads at once (a 70 MB dataset); one in the way is still named, and no patch stays behind', async () => {
    const cs = await create('big');
    // Random bytes: git's binary patch of them (deflated, then base85) is larger still, about 87 MB.
    const data = randomBytes(70_000_000);
    await writeFile(join(cs.worktreePath, 'data.bin'), data);
    await writeFile(join(cs.worktreePath, 'src/app.txt'), APP.replace('two', 'TWO'));
    await writeFile(join(repo, 'data.bin'), 'mine\n');
    await assert.rejects(() => changeSets.apply(cs, { userRepoDir: repo, dirtyBuffers: [] }), conflictWith([{ path: 'data.bin', reason: 'does-not-apply' }]));
    assert.equal(read(join(repo, 'src/app.txt')), APP, 'nothing applied');

    await unlink(join(repo, 'data.bin'));
    assert.deepEqual((await changeSets.apply(cs, { userRepoDir: repo, dirtyBuffers: [] })).applied.sort(), ['data.bin', 'src/app.txt']);
    assert.ok(readFileSync(join(repo, 'data.bin')).equals(data));
    assert.equal(read(join(repo, 'src/app.txt')), APP.replace('two', 'TWO'));
    assert.deepEqual(await readdir(join(storage, 'tmp')), []);
  });

  it("a worker's CRLF file in a repository with core.safecrlf=true (git refuses to add it) still reviews and applies", async () => {
    await git.run(['config', 'core.autocrlf', 'input'], { cwd: repo });
    await git.run(['config', 'core.safecrlf', 'true'], { cwd: repo });
    const cs = await create('crlf');
    await writeFile(join(cs.worktreePath, 'run.bat'), 'echo one\r\necho two\r\n');
    assert.deepEqual(
      (await changeSets.summarize(cs)).files.map((f) => [f.path, f.status, f.additions]),
      [['run.bat', 'added', 2]],
    );
    assert.deepEqual((await changeSets.apply(cs, { userRepoDir: repo, dirtyBuffers: [] })).applied, ['run.bat']);
    // Converted as the user's own git converts (autocrlf=input): the lines are the worker's.
    assert.equal(read(join(repo, 'run.bat')).replace(/\r/g, ''), 'echo one\necho two\n');
  });

  it('refuses by name a file the editor holds unsaved, and changes nothing', async () => {
    const cs = await create('w1');
    await writeFile(join(cs.worktreePath, 'README.md'), '# by the worker\n');
    await writeFile(join(cs.worktreePath, 'src/app.txt'), 'replaced\n');
    await assert.rejects(
      () => changeSets.apply(cs, { userRepoDir: repo, dirtyBuffers: [join(repo, 'src', 'app.txt'), join(repo, 'unrelated.ts')] }),
      conflictWith([{ path: 'src/app.txt', reason: 'unsaved-in-editor' }]),
    );
    assert.equal(read(join(repo, 'README.md')), '# app\n');
    assert.equal(read(join(repo, 'src/app.txt')), APP);
  });

  it("keeps the user's unrelated uncommitted work (and their index) through an apply", async () => {
    const cs = await create('w1');
    await writeFile(join(cs.worktreePath, 'src/app.txt'), APP.replace('nine', 'NINE'));
    // The user: an edit far from the worker's in the same file, a staged change, an untracked file.
    await writeFile(join(repo, 'src/app.txt'), APP.replace('one', 'ONE'));
    await writeFile(join(repo, 'README.md'), '# app, staged by the user\n');
    await git.run(['add', 'README.md'], { cwd: repo });
    await writeFile(join(repo, 'mine.txt'), 'mine\n');
    await changeSets.apply(cs, { userRepoDir: repo, dirtyBuffers: [] });
    assert.equal(read(join(repo, 'src/app.txt')), APP.replace('one', 'ONE').replace('nine', 'NINE'));
    assert.equal(read(join(repo, 'mine.txt')), 'mine\n');
    assert.equal((await git.run(['diff', '--cached', '--name-only'], { cwd: repo })).trim(), 'README.md');
  });

  it('materializes originals for the multi-diff editor: modified, added, deleted, renamed', async () => {
    const cs = await create('w1');
    const wt = cs.worktreePath;
    await writeFile(join(wt, 'src/app.txt'), 'changed\n');
    await writeFile(join(wt, 'added.txt'), 'added\n');
    await unlink(join(wt, 'README.md'));
    await git.run(['mv', 'old-name.txt', 'new-name.txt'], { cwd: wt });
    const rows = await changeSets.originalAndModified(cs);
    const by = Object.fromEntries(rows.map((r) => [r.path, r]));
    assert.deepEqual(Object.keys(by), ['README.md', 'added.txt', 'new-name.txt', 'src/app.txt']);
    assert.equal(read(by['src/app.txt'].originalPath), APP);
    assert.equal(by['src/app.txt'].modifiedPath, join(wt, 'src/app.txt'));
    assert.equal(by['src/app.txt'].userPath, join(repo, 'src/app.txt'));
    assert.equal(read(by['added.txt'].originalPath), '');
    assert.equal(read(by['README.md'].originalPath), '# app\n');
    assert.equal(read(by['README.md'].modifiedPath), '');
    assert.equal(by['new-name.txt'].status, 'renamed');
    assert.equal(by['new-name.txt'].oldPath, 'old-name.txt');
    assert.equal(read(by['new-name.txt'].originalPath), 'renamed content\n');
    for (const r of rows) assert.ok(r.originalPath.startsWith(join(storage, 'review', 'w1')));
  });

  it('a file the worker turned into a symbolic link (to a file outside) is reviewed as the link it is, never as the target’s content', async () => {
    const cs = await create('w1');
    const outside = join(root, 'outside-secret.txt');
    await writeFile(outside, 'the user’s private file\n');
    await unlink(join(cs.worktreePath, 'src/app.txt'));
    await symlink(outside, join(cs.worktreePath, 'src/app.txt'));
    const [row] = await changeSets.originalAndModified(cs);
    assert.equal(row?.path, 'src/app.txt');
    assert.equal(read(row.originalPath), APP);
    assert.equal(read(row.modifiedPath), `Symbolic link to ${outside}\n`, 'the link, not what it points at');
    assert.ok(row.modifiedPath.startsWith(join(storage, 'review', 'w1')), 'a copy: saving Review’s right side writes no file outside');
  });

  it('sees a same-size edit made within the second the worktree was created, also seconds later (racy git)', async () => {
    // Start just after a second boundary, so the checkout, its index and the edit share one second: git then tells
    // the edit from the checkout only by comparing the file's mtime with the index file's (its "racily clean" check).
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20));
    const cs = await create('w1');
    await writeFile(join(cs.worktreePath, 'src/app.txt'), APP.replace('three', 'THREE'));
    await new Promise((r) => setTimeout(r, 1100));
    assert.equal(describeSummary(await changeSets.summarize(cs)), '1 file changed, +1 −1');
    assert.deepEqual(
      (await changeSets.originalAndModified(cs)).map((r) => r.path),
      ['src/app.txt'],
    );
  });

  it("refreshes git's stat cache in the worktree's index once, staging nothing; edits before and after it are all seen", async () => {
    const cs = await create('w1');
    await writeFile(join(cs.worktreePath, 'src/app.txt'), APP.replace('three', 'THREE'));
    await new Promise((r) => setTimeout(r, 1100));
    // This snapshot refreshes the index (a second after it was written); the one right after reads it as refreshed.
    assert.equal(describeSummary(await changeSets.summarize(cs)), '1 file changed, +1 −1');
    await writeFile(join(cs.worktreePath, 'README.md'), '# APP\n');
    const after = await changeSets.summarize(cs);
    assert.deepEqual(
      after.files.map((f) => f.path),
      ['README.md', 'src/app.txt'],
    );
    // The worker's git state: nothing staged, both edits unstaged, as git status in the worktree says.
    assert.equal(await git.run(['diff', '--cached', '--name-only'], { cwd: cs.worktreePath }), '');
    assert.equal(await git.run(['status', '--porcelain'], { cwd: cs.worktreePath }), ' M README.md\n M src/app.txt\n');
  });

  it('bounds the diff for the model and says what was cut', async () => {
    const cs = await create('w1');
    for (let i = 0; i < 30; i++) await writeFile(join(cs.worktreePath, `f${String(i).padStart(2, '0')}.txt`), 'x'.repeat(200) + '\n');
    const d = await changeSets.diff(cs, { maxBytes: 2000 });
    assert.equal(d.truncated, true);
    assert.ok(Buffer.byteLength(d.text) < 2000 + 600, `${Buffer.byteLength(d.text)}`);
    // The last file reached (possibly cut mid-way) and the rest are named, bounded to 20 names.
    const m = /\n… diff truncated at 2000 bytes; not \(fully\) shown: (.*) and (\d+) more\n$/.exec(d.text);
    assert.ok(m, d.text.slice(-300));
    const listed = m[1].split(', ');
    assert.equal(listed.length + Number(m[2]), 30 - (d.text.match(/^diff --git /gm)?.length ?? 0) + 1);
    assert.ok(d.text.includes(`diff --git a/${listed[0]} b/${listed[0]}`));
    assert.equal(d.summary.files.length, 30);
  });
});
