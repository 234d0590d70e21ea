import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_PROTECTED_PATHS, expandHome, isWithin, ProtectedPaths, realpathNearest, resolveWorkingDir } from '../../src/core/workers/protectedPaths';

describe('protectedPaths', () => {
  let root: string;
  let home: string;
  let paths: ProtectedPaths;

  beforeEach(() => {
    // realpath'd: on macOS the temp dir itself sits behind a symlink (/var -> /private/var).
    root = realpathSync(mkdtempSync(join(tmpdir(), 'baton-protected-')));
    home = join(root, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_rsa'), 'secret');
    mkdirSync(join(home, '.config', 'gcloud'), { recursive: true });
    mkdirSync(join(home, 'dev', 'app'), { recursive: true });
    paths = new ProtectedPaths({ homeDir: home });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('expands ~ and $HOME against the injected home dir only', () => {
    assert.equal(expandHome('~', home), home);
    assert.equal(expandHome('~/dev', home), join(home, 'dev'));
    assert.equal(expandHome('$HOME/.ssh', home), join(home, '.ssh'));
    assert.equal(expandHome('${HOME}/x', home), join(home, 'x'));
    assert.equal(expandHome('/etc/~x', home), '/etc/~x');
    assert.equal(expandHome('~other/x', home), '~other/x');
  });

  it('knows the built-in protected paths', () => {
    assert.deepEqual(paths.labels, [...DEFAULT_PROTECTED_PATHS]);
    for (const label of DEFAULT_PROTECTED_PATHS) assert.equal(paths.match(expandHome(label, home)), label);
    assert.equal(paths.match(join(home, '.config', 'gcloud', 'credentials.db')), '~/.config/gcloud');
    assert.equal(paths.match(join(home, '.config', 'other')), undefined);
    // A file whose name merely starts like a protected one is not inside it.
    assert.equal(paths.match(join(home, '.sshx')), undefined);
    assert.equal(paths.match(join(home, '.npmrc.bak')), undefined);
  });

  it('accepts a normal project directory and returns its real path', () => {
    const result = resolveWorkingDir(join(home, 'dev', 'app'), paths);
    assert.deepEqual(result, { ok: true, dir: join(home, 'dev', 'app') });
    assert.deepEqual(resolveWorkingDir('~/dev/app', paths), { ok: true, dir: join(home, 'dev', 'app') });
  });

  it('refuses a protected dir and anything inside it', () => {
    for (const input of ['~/.ssh', join(home, '.ssh'), '~/.config/gcloud']) {
      const result = resolveWorkingDir(input, paths);
      assert.equal(result.ok, false, input);
      assert.match((result as { error: string }).error, /protected path ~\/\.(ssh|config\/gcloud)/);
    }
  });

  it("refuses /proc, /sys and /dev as a worker's folder, spelled or through a link: every process's environment is in /proc", () => {
    symlinkSync('/proc/self', join(home, 'dev', 'me'));
    for (const input of ['/proc', `/proc/${process.pid}`, '/sys', '/dev', '~/dev/me']) {
      const result = resolveWorkingDir(input, paths);
      assert.equal(result.ok, false, input);
      assert.match((result as { error: string }).error, /^Refused: .* in \/(proc|sys|dev), the system's view of processes and devices/, input);
    }
    assert.deepEqual(resolveWorkingDir('/', paths), { ok: true, dir: '/' }, 'a folder above it is not refused (its reads there are asked)');
  });

  it('catches traversal: ~/.ssh/../x is checked after resolving, and ~/dev/../.ssh is refused', () => {
    // ~/.ssh/../dev resolves to ~/dev: allowed (it is not inside ~/.ssh once resolved).
    assert.deepEqual(resolveWorkingDir('~/.ssh/../dev', paths), { ok: true, dir: join(home, 'dev') });
    const sneaky = resolveWorkingDir('~/dev/app/../../.ssh', paths);
    assert.equal(sneaky.ok, false);
    assert.match((sneaky as { error: string }).error, /~\/\.ssh/);
  });

  it('catches a symlink into a protected dir (realpath before the check)', () => {
    const link = join(home, 'dev', 'innocent');
    symlinkSync(join(home, '.ssh'), link);
    const result = resolveWorkingDir(link, paths);
    assert.equal(result.ok, false);
    assert.match((result as { error: string }).error, /resolves to .*\.ssh, which is inside the protected path ~\/\.ssh/);
    // And a path below the link, for the permission handler.
    assert.equal(paths.match(join(link, 'id_rsa')), '~/.ssh');
  });

  it('protects a symlinked ~/.ssh at both its spelled and its real location', () => {
    const elsewhere = join(root, 'vault', 'ssh');
    mkdirSync(elsewhere, { recursive: true });
    rmSync(join(home, '.ssh'), { recursive: true });
    symlinkSync(elsewhere, join(home, '.ssh'));
    const p = new ProtectedPaths({ homeDir: home });
    assert.equal(p.match(join(elsewhere, 'key')), '~/.ssh');
    assert.equal(p.match(join(home, '.ssh', 'key')), '~/.ssh');
    assert.equal(resolveWorkingDir(elsewhere, p).ok, false);
  });

  it('follows a dangling symlink to where a write would land', () => {
    const link = join(home, 'dev', 'app', 'future');
    symlinkSync(join(home, '.ssh', 'not-yet'), link);
    assert.equal(realpathNearest(link), join(home, '.ssh', 'not-yet'));
    assert.equal(paths.match(link), '~/.ssh');
    // A missing file in a missing folder resolves through its nearest existing ancestor.
    assert.equal(realpathNearest(join(home, 'dev', 'new', 'deep', 'f.txt')), join(home, 'dev', 'new', 'deep', 'f.txt'));
  });

  it('reports a missing directory and a file clearly', () => {
    const missing = resolveWorkingDir('~/dev/nope', paths);
    assert.equal(missing.ok, false);
    assert.match((missing as { error: string }).error, /^Directory not found: '~\/dev\/nope'/);
    writeFileSync(join(home, 'dev', 'file.txt'), 'x');
    const file = resolveWorkingDir(join(home, 'dev', 'file.txt'), paths);
    assert.equal(file.ok, false);
    assert.match((file as { error: string }).error, /^Not a directory/);
    const relative = resolveWorkingDir('dev/app', paths);
    assert.equal(relative.ok, false);
    assert.match((relative as { error: string }).error, /absolute path/);
    assert.equal(resolveWorkingDir('   ', paths).ok, false);
  });

  it('allows a dir that CONTAINS a protected dir (the home dir), and says what it contains', () => {
    assert.deepEqual(resolveWorkingDir('~', paths), { ok: true, dir: home });
    assert.equal(paths.containedIn(home), '~/.ssh');
    assert.equal(paths.containedIn(join(home, 'dev')), undefined);
    assert.equal(paths.containedIn(join(home, '.ssh')), undefined, 'a protected dir does not contain itself');
  });

  it('adds user-configured extra paths (with ~ or absolute)', () => {
    mkdirSync(join(home, 'secrets'), { recursive: true });
    mkdirSync(join(root, 'corp-vault'), { recursive: true });
    const p = new ProtectedPaths({ homeDir: home, extra: ['~/secrets', join(root, 'corp-vault'), '  ', ''] });
    assert.equal(resolveWorkingDir('~/secrets', p).ok, false);
    assert.equal(p.match(join(root, 'corp-vault', 'x')), join(root, 'corp-vault'));
    assert.equal(resolveWorkingDir('~/dev', p).ok, true);
  });

  it("a worker's worktree inside Baton's storage: what it links to counts, not that the link is spelled in the storage", () => {
    const storage = join(root, 'globalStorage', 'baton-dev.baton');
    const worktree = join(storage, 'worktrees', 'app-1234', 'w1');
    mkdirSync(worktree, { recursive: true });
    writeFileSync(join(storage, 'baton.db'), 'db');
    mkdirSync(join(home, 'dev', 'app', 'node_modules', 'dep'), { recursive: true });
    // baton.workers.worktreeInclude links the user's node_modules in; links a worker made lead elsewhere.
    symlinkSync(join(home, 'dev', 'app', 'node_modules'), join(worktree, 'node_modules'));
    symlinkSync(join(home, '.ssh'), join(worktree, 'keys'));
    symlinkSync(join(storage, 'baton.db'), join(worktree, 'db'));
    const p = new ProtectedPaths({ homeDir: home, ownPaths: [storage], allowedInside: [join(storage, 'worktrees')] });
    assert.equal(p.match('node_modules/dep/index.js', worktree), undefined);
    assert.equal(p.match(join(worktree, 'node_modules', 'dep', 'new.js')), undefined);
    assert.equal(p.match('src/app.ts', worktree), undefined);
    assert.equal(p.match('keys/id_rsa', worktree), '~/.ssh');
    assert.equal(p.match('keys/new_key', worktree), '~/.ssh');
    assert.equal(p.match('db', worktree), storage);
    assert.equal(p.match(join(storage, 'baton.db')), storage);
    assert.equal(p.match('../../../baton.db', worktree), storage);
  });

  it("protects Baton's own installation and storage dirs", () => {
    const install = join(root, 'extensions', 'baton-dev.baton-0.1.0');
    const storage = join(root, 'globalStorage', 'baton-dev.baton');
    mkdirSync(install, { recursive: true });
    mkdirSync(join(storage, 'copilot-sessions'), { recursive: true });
    const p = new ProtectedPaths({ homeDir: home, ownPaths: [install, storage] });
    const r1 = resolveWorkingDir(install, p);
    assert.equal(r1.ok, false);
    assert.match((r1 as { error: string }).error, /Baton\u2019s own folders/);
    assert.equal(resolveWorkingDir(join(storage, 'copilot-sessions'), p).ok, false);
    // Their parent (the extensions folder) only contains them: allowed.
    assert.equal(resolveWorkingDir(join(root, 'extensions'), p).ok, true);
  });

  it('isWithin compares whole path segments', () => {
    assert.equal(isWithin('/a/b', '/a'), true);
    assert.equal(isWithin('/a', '/a'), true);
    assert.equal(isWithin('/ab', '/a'), false);
    assert.equal(isWithin('/a/../b', '/a'), false);
    assert.equal(isWithin('/', '/a'), false);
  });
});
