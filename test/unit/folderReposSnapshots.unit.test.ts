// Placements in one folder without git asked for together share commits of it (folderRepos.ts), with real git: each
// worker still starts from the folder as it was when its placement was asked for, or later, never earlier. And what is
// hidden from a worker that reads such a folder in place: what the folder's own .gitignore files ignore.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FolderRepos, STALE_GIT_LOCK_MS } from '../../src/core/git/folderRepos';
import { GitError } from '../../src/core/git/git';
import { testGit } from '../support/gitFixture';

describe("Baton's repository of a folder without git: snapshots asked for together (real git)", function () {
  this.timeout(30_000);
  let root: string;
  let folder: string;
  let repos: FolderRepos;
  const git = testGit();
  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'baton-snapshots-')));
    folder = join(root, 'notes');
    await mkdir(folder);
    await writeFile(join(folder, 'notes.txt'), 'keep me\n');
    repos = new FolderRepos(git, join(root, 'globalStorage'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  const commits = async (): Promise<number> => Number((await git.run(['rev-list', '--count', 'HEAD'], { cwd: folder })).trim());

  it('a lock git left in the repository by a window killed as it committed is taken away once stale; a fresh one is left', async () => {
    const gitDir = await repos.snapshot(folder);
    await repos.release(folder);
    const lock = join(gitDir, 'index.lock');
    // Fresh: another git may hold it; the commit fails and says so, and the lock stays.
    await writeFile(lock, '');
    await writeFile(join(folder, 'second.txt'), 'second\n');
    await assert.rejects(
      repos.snapshot(folder),
      (err: Error) => err instanceof GitError && /failed \(exit 128\): fatal: Unable to create '.*index\.lock': File exists\.$/.test(err.message),
    );
    await repos.release(folder);
    assert.equal(existsSync(lock), true);
    // A dead window's, older than STALE_GIT_LOCK_MS: removed, and the commit goes through.
    const old = (Date.now() - STALE_GIT_LOCK_MS - 60_000) / 1000;
    await utimes(lock, old, old);
    await writeFile(join(gitDir, 'HEAD.lock'), '');
    await utimes(join(gitDir, 'HEAD.lock'), old, old);
    assert.equal(await repos.snapshot(folder), gitDir);
    await repos.release(folder);
    assert.equal(await git.run(['show', 'HEAD:second.txt'], { cwd: folder }), 'second\n');
    assert.equal(existsSync(lock), false);
  });

  it('five placements asked for at once: two commits of the folder, not five', async () => {
    const dirs = await Promise.all(Array.from({ length: 5 }, () => repos.snapshot(folder)));
    assert.equal(new Set(dirs).size, 1);
    assert.ok((await commits()) <= 2, `${await commits()} commits`);
    for (let i = 0; i < 5; i++) await repos.release(folder);
  });

  it('a file written while a commit runs is in the commit of the placement asked for after it', async () => {
    const first = repos.snapshot(folder);
    await writeFile(join(folder, 'later.txt'), 'later\n');
    const second = repos.snapshot(folder);
    await Promise.all([first, second]);
    assert.equal(await git.run(['show', 'HEAD:later.txt'], { cwd: folder }), 'later\n');
    // One asked for once both are done commits the folder again.
    await writeFile(join(folder, 'last.txt'), 'last\n');
    const before = await commits();
    await repos.snapshot(folder);
    assert.equal(await commits(), before + 1);
    assert.equal(await git.run(['show', 'HEAD:last.txt'], { cwd: folder }), 'last\n');
    for (let i = 0; i < 3; i++) await repos.release(folder);
  });

  it("what a folder's own .gitignore files ignore, for a worker that reads it in place: not Baton's exclude, not a .git a worker made", async () => {
    await writeFile(join(folder, '.gitignore'), '.env\n');
    await writeFile(join(folder, '.env'), 'KEY=1\n');
    await mkdir(join(folder, 'node_modules', 'dep'), { recursive: true });
    await writeFile(join(folder, 'node_modules', 'dep', 'index.js'), 'x\n');
    await mkdir(join(folder, 'sub', 'build'), { recursive: true });
    await writeFile(join(folder, 'sub', '.gitignore'), 'build/\n');
    // A repository made in the folder, whose exclude would hide notes.txt: not what counts.
    await git.run(['init', '-q'], { cwd: folder });
    await writeFile(join(folder, '.git', 'info', 'exclude'), 'notes.txt\n');
    await repos.snapshot(folder);
    await repos.release(folder);
    assert.deepEqual((await repos.ignoredIn(folder)).sort(), ['.env', 'sub/build']);
  });
});
