// Two windows, one storage: each window's FolderRepos (folderRepos.ts) over the same `folder-repos/`, with real git. A
// window removes Baton's repository of a folder once the last change set it knows of settles; the other window may be
// placing a worker from it at that moment, with no change set recorded yet (a window's store learns the other's rows
// only when it flushes), or have a worker's worktree of it waiting. Neither may lose the repository under it.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, realpath, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { FOLDER_REPOS_DIR, FolderRepos } from '../../src/core/git/folderRepos';
import { LOCK_STALE_MS, STALE_MS } from '../../src/core/git/placingMarkers';
import { testGit } from '../support/gitFixture';

describe("Baton's repositories of folders without git, shared by two windows (real git)", function () {
  this.timeout(30_000);
  let root: string;
  let folder: string;
  let storage: string;
  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'baton-folder-repos-')));
    folder = join(root, 'notes');
    storage = join(root, 'globalStorage');
    await mkdir(folder);
    await mkdir(storage);
    await writeFile(join(folder, 'notes.txt'), 'keep me\n');
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  /** A window: its own Git (its own folder mapping) and FolderRepos over the shared storage. */
  const window = () => {
    const git = testGit();
    return { git, repos: new FolderRepos(git, storage) };
  };
  const listed = async (): Promise<string[]> => (await readdir(join(storage, FOLDER_REPOS_DIR))).filter((n) => !n.startsWith('.'));

  it('a window settling its last change set keeps the repository while the other window places a worker from it, or a worktree of it waits', async () => {
    const one = window();
    const two = window();
    const gitDir = await one.repos.snapshot(folder);
    await one.repos.release(folder);

    // Window two starts a worker there: the folder is committed, its worktree not made yet.
    assert.equal(await two.repos.snapshot(folder), gitDir);
    await one.repos.removeUnless(folder, gitDir, false);
    assert.ok(existsSync(join(gitDir, 'HEAD')), 'kept while the other window places a worker from it');

    // Its worktree is made and recorded: the placement is over, and git lists the worktree.
    const worktree = join(storage, 'worktrees', 'two');
    await two.git.run(['worktree', 'add', '-q', '-b', 'baton/two', worktree, 'HEAD'], { cwd: folder });
    await two.repos.release(folder);
    assert.deepEqual(await readdir(join(storage, FOLDER_REPOS_DIR, '.placing')), [], 'no marker is left');
    await one.repos.removeUnless(folder, gitDir, false);
    assert.ok(existsSync(join(gitDir, 'HEAD')), "kept while the other window's worker has a worktree of it");
    assert.equal((await two.git.run(['status', '--porcelain'], { cwd: worktree })).trim(), '', 'the worktree still works');

    // The other window's change set settles: its worktree goes, and so does the repository.
    await two.git.run(['worktree', 'remove', '--force', worktree], { cwd: folder });
    await two.repos.removeUnless(folder, gitDir, false);
    assert.deepEqual(await listed(), []);
  });

  it('a window that died placing a worker: its marker counts for an hour, then the next start sweeps it and the repository', async () => {
    const one = window();
    const gitDir = await one.repos.snapshot(folder);
    // The window dies here: release never comes.
    const two = window();
    const old = (Date.now() - 2 * 60 * 60 * 1000) / 1000;
    await utimes(join(gitDir, 'index'), old, old);
    assert.equal(await two.repos.sweep(new Set(), 60 * 60 * 1000), 0, 'a fresh marker keeps it');
    assert.ok(existsSync(join(gitDir, 'HEAD')));

    const marker = (await readdir(join(storage, FOLDER_REPOS_DIR, '.placing')))[0]!;
    await utimes(join(storage, FOLDER_REPOS_DIR, '.placing', marker), old, old);
    assert.equal(await two.repos.sweep(new Set(), 60 * 60 * 1000, Date.now()), 1);
    assert.deepEqual(await listed(), []);
    assert.deepEqual(await readdir(join(storage, FOLDER_REPOS_DIR, '.placing')), [], 'the stale marker is swept');
    assert.ok(STALE_MS <= 60 * 60 * 1000);
  });

  it('a placement and a removal at the same moment: the placement ends with a repository and a worktree of the folder', async () => {
    const one = window();
    const two = window();
    const gitDir = await one.repos.snapshot(folder);
    await one.repos.release(folder);
    // Either the removal sees the placement's marker and keeps the repository, or it ends before the placement's commit
    // (the repository's lock), which then makes the repository again.
    const removing = one.repos.removeUnless(folder, gitDir, false);
    const placed = two.repos.snapshot(folder);
    await removing;
    assert.equal(await placed, gitDir);
    const worktree = join(storage, 'worktrees', 'late');
    await two.git.run(['worktree', 'add', '-q', '-b', 'baton/late', worktree, 'HEAD'], { cwd: folder });
    await two.repos.release(folder);
    assert.deepEqual(await readdir(worktree), ['.git', 'notes.txt']);
    assert.deepEqual(await listed(), [basename(gitDir)]);
  });

  it('a lock a dead window left does not stop the next placement once it is stale', async () => {
    const one = window();
    const locks = join(storage, FOLDER_REPOS_DIR, '.locks');
    const lock = join(locks, basename(one.repos.gitDirOf(folder)));
    await mkdir(lock, { recursive: true });
    const old = (Date.now() - LOCK_STALE_MS - 1000) / 1000;
    await utimes(lock, old, old);
    const gitDir = await one.repos.snapshot(folder);
    await one.repos.release(folder);
    assert.ok(existsSync(join(gitDir, 'HEAD')));
    assert.deepEqual(await readdir(locks), [], 'the lock is let go');
    // One left for a repository no placement comes back to: the next start's sweep takes it.
    await mkdir(join(locks, 'gone-0123456789ab.git'));
    await utimes(join(locks, 'gone-0123456789ab.git'), old, old);
    await one.repos.sweep(new Set(), 60 * 60 * 1000);
    assert.deepEqual(await readdir(locks), []);
  });
});
