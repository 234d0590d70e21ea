// The git seam's parsers and typed failures (GitError kinds), plus repoKey. Parsers are fed git's
// documented output formats; the failure cases run real git (or none at all).
import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplyConflict, describeSummary } from '../../src/core/changes/changeSet';
import { workingTreeChanges } from '../../src/core/context/gitChanges';
import { parseRawNumstat } from '../../src/core/changes/rawNumstat';
import { Git, GitError } from '../../src/core/git/git';
import { parseStatusZ, parseWorktreeList } from '../../src/core/git/gitOutput';
import { repoKey } from '../../src/core/git/worktrees';
import { makeRepo, testGit, writeFiles } from '../support/gitFixture';

describe('git seam', () => {
  it('parses status --porcelain=v1 -z, renames included', () => {
    const out = ' M src/a.ts\0R  new name.ts\0old name.ts\0?? notes.txt\0A  weird\nname\0';
    assert.deepEqual(parseStatusZ(out), [
      { code: ' M', path: 'src/a.ts' },
      { code: 'R ', path: 'new name.ts', origPath: 'old name.ts' },
      { code: '??', path: 'notes.txt' },
      { code: 'A ', path: 'weird\nname' },
    ]);
    assert.deepEqual(parseStatusZ(''), []);
  });

  it('parses worktree list --porcelain', () => {
    const out = [
      'worktree /repo',
      'HEAD 1111111111111111111111111111111111111111',
      'branch refs/heads/main',
      '',
      'worktree /storage/worktrees/app-1234abcd/w1',
      'HEAD 2222222222222222222222222222222222222222',
      'branch refs/heads/baton/w1',
      'locked',
      '',
      'worktree /gone',
      'HEAD 3333333333333333333333333333333333333333',
      'detached',
      'prunable gitdir file points to non-existent location',
      '',
    ].join('\n');
    assert.deepEqual(parseWorktreeList(out), [
      { path: '/repo', head: '1'.repeat(40), branch: 'main', bare: false, detached: false, locked: false, prunable: false },
      { path: '/storage/worktrees/app-1234abcd/w1', head: '2'.repeat(40), branch: 'baton/w1', bare: false, detached: false, locked: true, prunable: false },
      { path: '/gone', head: '3'.repeat(40), bare: false, detached: true, locked: false, prunable: true },
    ]);
  });

  it('parses diff-tree -z --raw --numstat: statuses, renames, binaries, sorted by path', () => {
    const z = '0'.repeat(40);
    const out = [
      `:100644 100644 ${z} ${z} M`,
      'b.txt',
      `:000000 100644 ${z} ${z} A`,
      'a/new.txt',
      `:100644 100644 ${z} ${z} R087`,
      'old.txt',
      'renamed.txt',
      `:100644 000000 ${z} ${z} D`,
      'gone.bin',
      `:100644 120000 ${z} ${z} T`,
      'link',
      '3\t1\tb.txt',
      '2\t0\ta/new.txt',
      '1\t1\t',
      'old.txt',
      'renamed.txt',
      '-\t-\tgone.bin',
      '1\t1\tlink',
      '',
    ].join('\0');
    const files = parseRawNumstat(out);
    assert.deepEqual(files, [
      { path: 'a/new.txt', status: 'added', additions: 2, deletions: 0, binary: false },
      { path: 'b.txt', status: 'modified', additions: 3, deletions: 1, binary: false },
      { path: 'gone.bin', status: 'deleted', additions: 0, deletions: 0, binary: true },
      { path: 'link', status: 'modified', additions: 1, deletions: 1, binary: false },
      { path: 'renamed.txt', oldPath: 'old.txt', status: 'renamed', additions: 1, deletions: 1, binary: false },
    ]);
    assert.equal(describeSummary({ files, additions: 7, deletions: 3 }), '5 files changed, +7 −3');
    assert.equal(describeSummary({ files: files.slice(0, 1), additions: 1, deletions: 1 }), '1 file changed, +1 −1');
    assert.deepEqual(parseRawNumstat(''), []);
  });

  it('keys a repository by name and path: readable, and two repos named alike differ', () => {
    assert.match(repoKey('/home/me/src/app'), /^app-[0-9a-f]{8}$/);
    assert.notEqual(repoKey('/home/me/src/app'), repoKey('/home/me/other/app'));
    assert.match(repoKey('/home/me/my app (old)'), /^my_app__old_-[0-9a-f]{8}$/);
  });

  it('reports a missing git as its own kind', async () => {
    const git = new Git({ gitPath: join(tmpdir(), 'no-such-git-binary') });
    await assert.rejects(
      () => git.run(['--version'], { cwd: tmpdir() }),
      (err: unknown) => err instanceof GitError && err.kind === 'not-installed' && /git is not installed/.test(err.message),
    );
    assert.equal(await git.installed(), false);
  });

  it('reports a folder that is gone as its own kind, not as a missing git (Node says ENOENT for both)', async () => {
    const gone = join(tmpdir(), 'baton-git-unit-gone', 'worktree');
    for (const call of [() => testGit().run(['status'], { cwd: gone }), () => testGit().runTruncated(['diff'], { cwd: gone, maxBytes: 100 })]) {
      await assert.rejects(
        call,
        (err: unknown) =>
          err instanceof GitError &&
          err.kind === 'no-folder' &&
          err.folder === gone &&
          err.message.endsWith(`could not run: the folder ${gone} does not exist (any more).`),
      );
    }
  });

  it('reports a failing command with its args, exit code and stderr; repoRoot is undefined outside a repo', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'baton-git-unit-')));
    try {
      const git = testGit();
      assert.equal(await git.installed(), true);
      assert.equal(await git.repoRoot(dir), undefined);
      assert.equal(await git.repoRoot(join(dir, 'missing')), undefined);
      await assert.rejects(
        () => git.run(['rev-parse', '--verify', 'no-such-ref'], { cwd: dir }),
        (err: unknown) =>
          err instanceof GitError && err.kind === 'failed' && err.exitCode === 128 && err.args[0] === 'rev-parse' && /not a git repository/i.test(err.stderr),
      );
      // Output is bounded: past maxBuffer the call fails as output-too-large, it never grows unbounded.
      await git.run(['init', '-q', '-b', 'main'], { cwd: dir });
      assert.equal(await git.repoRoot(dir), dir);
      const small = new Git({ maxBuffer: 10 });
      await assert.rejects(
        () => small.run(['rev-parse', '--show-toplevel'], { cwd: dir }),
        (err: unknown) => err instanceof GitError && err.kind === 'output-too-large',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers repoRoot outside any repository without starting git, and asks git wherever a .git may be above', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'baton-git-unit-')));
    try {
      const sub = join(dir, 'repo', 'sub');
      mkdirSync(sub, { recursive: true });
      // No git to start at all: a folder with no .git in it or above it is still known to be outside a repository.
      const noGit = new Git({ gitPath: join(tmpdir(), 'no-such-git-binary') });
      assert.equal(await noGit.repoRoot(sub), undefined);
      // A caller's GIT_DIR points git elsewhere: only git can answer then.
      await assert.rejects(
        () => new Git({ gitPath: join(tmpdir(), 'no-such-git-binary'), env: { GIT_DIR: join(dir, 'elsewhere.git') } }).repoRoot(sub),
        (err: unknown) => err instanceof GitError && err.kind === 'not-installed',
      );
      const git = testGit();
      await git.run(['init', '-q', '-b', 'main'], { cwd: join(dir, 'repo') });
      // With a .git above, git is asked (and the one that is missing says so).
      await assert.rejects(
        () => noGit.repoRoot(sub),
        (err: unknown) => err instanceof GitError && err.kind === 'not-installed',
      );
      assert.equal(await git.repoRoot(sub), join(dir, 'repo'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is the only place in src/ that runs git', () => {
    const offenders: string[] = [];
    const runsGit = /\b(spawn|spawnSync|execFile|execFileSync|exec|execSync)\(\s*['"`]git\b/;
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const full = join(dir, e.name);
        if (e.isDirectory()) walk(full);
        else if (/\.(ts|mts|js)$/.test(e.name) && !full.startsWith(join('src', 'core', 'git')) && runsGit.test(readFileSync(full, 'utf8')))
          offenders.push(full);
      }
    };
    walk('src');
    assert.deepEqual(offenders, [], 'git runs only through src/core/git/git.ts');
  });

  it("runs no program a submodule's own config names (a worker can write one) for a status or #changes' diff", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'baton-git-planted-')));
    try {
      const git = testGit();
      const repo = await makeRepo(git, join(dir, 'repo'), { 'a.txt': 'a\n' });
      // A repository inside it, recorded as a submodule (a gitlink): its `.git` is a folder a worker in place can write.
      await makeRepo(git, join(repo, 'sub'), { 'x.txt': 'x\n' });
      await git.run(['add', 'sub'], { cwd: repo });
      await git.run(['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', 'commit', '-q', '--no-verify', '-m', 'sub'], { cwd: repo });
      const marker = join(dir, 'RAN');
      const program = join(dir, 'planted.sh');
      writeFileSync(program, `#!/bin/sh\necho "$@" >> ${marker}\ncat\n`);
      chmodSync(program, 0o755);
      await git.run(['config', 'core.fsmonitor', program], { cwd: join(repo, 'sub') });
      await git.run(['config', 'filter.planted.clean', program], { cwd: join(repo, 'sub') });
      await writeFiles(join(repo, 'sub'), { '.gitattributes': '* filter=planted\n', 'x.txt': 'changed\n' });
      await writeFiles(repo, { 'a.txt': "the user's edit\n" });

      const status = await git.status(repo);
      const changes = await workingTreeChanges(repo);
      assert.equal(existsSync(marker) ? readFileSync(marker, 'utf8') : '', '', 'the planted program never ran');
      assert.deepEqual(status, [{ code: ' M', path: 'a.txt' }], "the user's own change is still seen");
      assert.ok(changes.ok && /the user's edit/.test(changes.text), "#changes still shows the user's edit");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the blocking files in an ApplyConflict', () => {
    const err = new ApplyConflict([
      { path: 'a.ts', reason: 'unsaved-in-editor' },
      { path: 'b.ts', reason: 'does-not-apply' },
    ]);
    assert.match(err.message, /^Nothing was applied\. Unsaved in the editor .*: a\.ts; changed differently in your working tree: b\.ts\.$/);
  });
});
