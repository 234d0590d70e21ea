// The one module that runs git. Everything else in Baton asks this class; nothing else in src/ spawns
// git. Invariants kept here:
// - git runs with an argument vector (execFile / spawn), never through a shell, so no path or branch
//   name is ever interpreted as shell syntax;
// - every call has a bounded output (maxBuffer, or a byte cap that truncates) and a time limit;
// - failures are typed (GitError.kind), so callers never read git's English stderr to decide;
// - the environment is the caller's minus the variables that would point git at another repository
//   (GIT_DIR & co., set when VS Code itself was started from a git hook), but for the folders Baton keeps a
//   repository of its own for (folderRepos.ts): git run in one reads that repository, never a `.git` found there.
import { execFile, spawn } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import { devNull } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { parseStatusZ, parseWorktreeList, type StatusEntry, type WorktreeEntry } from './gitOutput';
import { FolderMap } from './folderMap';
import { gitEntryAbove, isDirectory } from './gitPaths';
import { findProgram } from '../util/findProgram';
import { makePathSafe } from '../util/safePath';

/** Why a git call failed: `not-installed`, `no-folder` (its folder is gone), `failed` (exit ≠ 0), `timeout`, `output-too-large`. */
export type GitErrorKind = 'not-installed' | 'no-folder' | 'failed' | 'timeout' | 'output-too-large';

/** A git call that failed. `exitCode` is git's (undefined when git never ran or was killed). */
export class GitError extends Error {
  constructor(
    readonly kind: GitErrorKind,
    readonly args: readonly string[],
    readonly exitCode: number | undefined,
    readonly stderr: string,
    readonly folder?: string, // no-folder: the folder git was to run in
  ) {
    super(GitError.describe(kind, args, exitCode, stderr, folder));
    this.name = 'GitError';
  }

  private static describe(kind: GitErrorKind, args: readonly string[], exitCode: number | undefined, stderr: string, folder?: string): string {
    const cmd = `git ${args.slice(0, 4).join(' ')}${args.length > 4 ? ' …' : ''}`;
    switch (kind) {
      case 'not-installed':
        return 'git is not installed (or not on the PATH): install git to let workers run in their own worktree.';
      case 'no-folder':
        return `${cmd} could not run: the folder ${folder ?? '?'} does not exist (any more).`;
      case 'timeout':
        return `${cmd} took too long and was stopped.`;
      case 'output-too-large':
        return `${cmd} printed more output than Baton reads.`;
      case 'failed':
        return `${cmd} failed (exit ${exitCode ?? '?'}): ${gitSaid(stderr) || 'no message'}`;
    }
  }
}

/**
 * What git said of a failure, for people: its own "fatal:"/"error:" lines first (its advice after them, index.lock's
 * five lines, names no file), the last three.
 */
export function gitSaid(stderr: string): string {
  const lines = stderr.trim().split('\n').filter(Boolean);
  const firm = lines.filter((l) => /^(fatal|error): /.test(l));
  return (firm.length ? firm : lines).slice(-3).join(' ');
}

export interface GitOptions {
  /** The git executable (default `git`, found on the PATH). */
  gitPath?: string;
  /** Added to every call's environment (tests set GIT_AUTHOR_* / GIT_CONFIG_GLOBAL here). */
  env?: Record<string, string>;
  /** Default output cap per call (default 64 MiB): a binary patch of a large change set fits. */
  maxBuffer?: number;
  /** Default time limit per call (default 60 s). */
  timeoutMs?: number;
}

export interface RunOptions {
  cwd: string;
  /** Extra environment for this call only (e.g. GIT_INDEX_FILE for a temporary index). */
  env?: Record<string, string>;
  maxBuffer?: number;
  timeoutMs?: number;
  /** Written to git's stdin (a patch for `git apply`, paths for `--stdin`). */
  input?: string | Buffer;
}

// Variables that redirect git to another repository, index or work tree; an inherited one would make
// every call below act on the wrong repository.
const REDIRECTING_ENV = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_PREFIX',
  'GIT_NAMESPACE',
];

/**
 * Prepended to every call: git runs no hooks for Baton. A hooks folder can be inside the work tree (husky and its kind
 * set `core.hooksPath` to a relative `.husky`, which git resolves in the worktree it runs in), and a worker writes its
 * worktree: measured, a sandboxed worker's `.husky/post-index-change` was run by Baton's next `git add` (its change set)
 * outside the sandbox, and its `reference-transaction` by Apply in the user's repository. Nothing Baton does with git is
 * an act of the user's that their hooks are there for (a checkout, a commit); the null device is never a folder.
 * Nor the program `core.fsmonitor` names: a worker can make a submodule's `.git` a folder of its own with that set in its
 * config, and git runs it for a status of the repository above (measured, git 2.39). `-c` reaches the git processes git
 * starts in submodules too (GIT_CONFIG_PARAMETERS).
 */
const RUNS_NOTHING = ['-c', `core.hooksPath=${devNull}`, '-c', 'core.fsmonitor=false'] as const;

export class Git {
  /** As given (tests, a user's own git); else found in PATH at the first call (findProgram.ts), never by bare name. */
  private readonly givenPath: string | undefined;
  private foundPath: string | undefined;
  private readonly baseEnv: NodeJS.ProcessEnv;
  private readonly maxBuffer: number;
  private readonly timeoutMs: number;
  /** The caller's own env points git at a repository (GIT_DIR & co.): git alone can say where the work tree is. */
  private readonly redirected: boolean;
  /** Folders without git of their own, each with the repository Baton keeps for it (folderRepos.ts). */
  readonly folders = new FolderMap();

  constructor(opts: GitOptions = {}) {
    this.givenPath = opts.gitPath;
    this.maxBuffer = opts.maxBuffer ?? 64 * 1024 * 1024;
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const k of REDIRECTING_ENV) delete env[k];
    // Git is run in the user's repositories: never resolved in them (safePath.ts).
    makePathSafe(env);
    // Never wait for a password prompt nobody can see; never take index.lock for a read-only status
    // (the user's own git commands would otherwise fail with "index.lock exists" while we look).
    this.baseEnv = { ...env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', ...opts.env };
    this.redirected = REDIRECTING_ENV.some((k) => this.baseEnv[k] !== undefined);
  }

  /** Runs git and returns stdout as text; throws GitError on any failure. */
  async run(args: readonly string[], opts: RunOptions): Promise<string> {
    return (await this.exec(args, opts, 'utf8')) as string;
  }

  /** As `run`, but stdout as bytes (blob contents, binary patches). */
  async runBuffer(args: readonly string[], opts: RunOptions): Promise<Buffer> {
    return (await this.exec(args, opts, 'buffer')) as Buffer;
  }

  /** Runs git and reports whether it exited 0; throws only when git could not run at all. */
  async succeeds(args: readonly string[], opts: RunOptions): Promise<boolean> {
    try {
      await this.run(args, opts);
      return true;
    } catch (err) {
      if (err instanceof GitError && err.kind === 'failed') return false;
      throw err;
    }
  }

  /**
   * Runs git and keeps at most `maxBytes` of stdout, stopping git once the cap is reached (a diff
   * for the model must not cost the time or memory of a 100 MB patch).
   */
  async runTruncated(args: readonly string[], opts: RunOptions & { maxBytes: number }): Promise<{ stdout: string; truncated: boolean }> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.gitPath, [...RUNS_NOTHING, ...args], { cwd: opts.cwd, env: this.envFor(opts), stdio: ['ignore', 'pipe', 'pipe'] });
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      let stderr = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? this.timeoutMs);
      child.stdout.on('data', (chunk: Buffer) => {
        if (truncated) return;
        const room = opts.maxBytes - size;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          size = opts.maxBytes;
          truncated = true;
          child.kill('SIGKILL');
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      child.stderr.on('data', (chunk: Buffer) => {
        if (stderr.length < 8192) stderr += chunk.toString('utf8');
      });
      let notStarted = false;
      child.on('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        notStarted = true;
        if (err.code === 'ENOENT') void spawnMissing(args, opts.cwd).then(reject);
        else reject(new GitError('failed', args, undefined, err.message));
      });
      // After a failed start Node still says 'close' (code -2): the error above is the answer.
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (notStarted) return;
        const stdout = Buffer.concat(chunks).toString('utf8');
        if (truncated) resolve({ stdout, truncated: true });
        else if (code === 0) resolve({ stdout, truncated: false });
        else if (signal) reject(new GitError('timeout', args, undefined, stderr));
        else reject(new GitError('failed', args, code ?? undefined, stderr));
      });
    });
  }

  /** The repository's top folder (real path) for any folder inside it; undefined outside a repository. */
  async repoRoot(dir: string): Promise<string | undefined> {
    // A missing cwd makes spawn fail with ENOENT, which would read as "git is not installed".
    if (!(await isDirectory(dir))) return undefined;
    // git finds a work tree only through a `.git` (folder or file) in the folder or above it, once the variables that
    // point it elsewhere are gone from its environment: without one the answer is known without starting git. A start
    // blocks this thread until git runs (10–50 ms each on a loaded machine, measured), so five workers placed at once
    // in a folder outside any repository waited for each other's git here (docs/performance.md, note ⁹).
    if (!this.redirected && !this.folders.lookup(dir) && !(await gitEntryAbove(await realpath(dir)))) return undefined;
    try {
      const top = (await this.run(['rev-parse', '--show-toplevel'], { cwd: dir })).trim();
      return top ? await realpath(top) : undefined;
    } catch (err) {
      if (err instanceof GitError && err.kind === 'failed') return undefined;
      throw err;
    }
  }

  /**
   * The folders git keeps `dir`'s repository in (its own and the one linked worktrees share), as real paths, or none. Not
   * always `<root>/.git`: a linked worktree's or a submodule's `.git` file names one elsewhere; a subfolder has none.
   */
  async gitFolders(dir: string): Promise<string[]> {
    if (!(await isDirectory(dir))) return [];
    if (!this.redirected && !this.folders.lookup(dir) && !(await gitEntryAbove(await realpath(dir)))) return [];
    let out: string;
    try {
      out = await this.run(['rev-parse', '--git-dir', '--git-common-dir'], { cwd: dir });
    } catch (err) {
      if (err instanceof GitError && err.kind === 'failed') return [];
      throw err;
    }
    const folders = out.split('\n').filter(Boolean);
    return [...new Set(await Promise.all(folders.map((p) => realpath(resolve(dir, p)))))];
  }

  /** Whether git can be run at all. */
  async installed(): Promise<boolean> {
    try {
      await this.run(['--version'], { cwd: process.cwd() });
      return true;
    } catch {
      return false;
    }
  }

  /** The commit HEAD points at; throws GitError('failed') in a repository without commits. */
  async headCommit(cwd: string): Promise<string> {
    return (await this.run(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { cwd })).trim();
  }

  /** Whether the repository has any commit yet (HEAD resolves). */
  async hasCommits(cwd: string): Promise<boolean> {
    return this.succeeds(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { cwd });
  }

  /** The checked-out branch's short name; undefined when HEAD is detached. */
  async currentBranch(cwd: string): Promise<string | undefined> {
    try {
      return (await this.run(['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd })).trim() || undefined;
    } catch (err) {
      if (err instanceof GitError && err.kind === 'failed') return undefined;
      throw err;
    }
  }

  async branchExists(cwd: string, branch: string): Promise<boolean> {
    return this.succeeds(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], { cwd });
  }

  /**
   * Uncommitted changes (staged, unstaged and untracked), optionally limited to some paths. An
   * untracked folder is one entry (`dist/`) unless `untracked: 'all'`: listing every file of a big
   * unignored build folder would cost a worker's start more than it tells the user. Submodules are not looked into: git
   * would run git in each with that one's own config, which a worker can write (a clean filter it names runs, measured).
   */
  async status(cwd: string, paths: readonly string[] = [], opts: { untracked?: 'normal' | 'all' } = {}): Promise<StatusEntry[]> {
    const out = await this.run(
      ['status', '--porcelain=v1', '-z', '--ignore-submodules=all', `--untracked-files=${opts.untracked ?? 'normal'}`, '--', ...paths],
      { cwd },
    );
    return parseStatusZ(out);
  }

  async isDirty(cwd: string, paths: readonly string[] = []): Promise<boolean> {
    return (await this.status(cwd, paths)).length > 0;
  }

  async worktreeAdd(repoRoot: string, opts: { path: string; newBranch: string; commit: string }): Promise<void> {
    // `--no-track`: the new branch starts at a commit and follows nothing upstream.
    await this.run(['worktree', 'add', '--no-track', '-b', opts.newBranch, opts.path, opts.commit], { cwd: repoRoot });
  }

  /** Removes a worktree even with uncommitted changes (the caller has the user's consent). */
  async worktreeRemove(repoRoot: string, path: string): Promise<void> {
    await this.run(['worktree', 'remove', '--force', path], { cwd: repoRoot });
  }

  async worktreePrune(repoRoot: string): Promise<void> {
    await this.run(['worktree', 'prune'], { cwd: repoRoot });
  }

  async worktreeList(repoRoot: string): Promise<WorktreeEntry[]> {
    // Newline-separated rather than `-z` (git 2.36+): worktree paths are Baton's own, without newlines.
    return parseWorktreeList(await this.run(['worktree', 'list', '--porcelain'], { cwd: repoRoot }));
  }

  /**
   * What git ignores under `cwd` (a folder of a repository), as paths relative to it: a wholly ignored folder is one
   * entry (`node_modules`), never its files.
   */
  async ignoredEntries(cwd: string): Promise<string[]> {
    const out = await this.run(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'], { cwd });
    return out
      .split('\0')
      .filter(Boolean)
      .map((p) => p.replace(/\/$/, ''));
  }

  /** Deletes a branch whatever its merge state (`-D`). */
  async branchDelete(repoRoot: string, branch: string): Promise<void> {
    await this.run(['branch', '-D', branch], { cwd: repoRoot });
  }

  async branchList(repoRoot: string, pattern: string): Promise<string[]> {
    const out = await this.run(['branch', '--list', '--format=%(refname:short)', pattern], { cwd: repoRoot });
    return out.split('\n').filter(Boolean);
  }

  // Both below resolve git's answer against cwd themselves: `--path-format=absolute` needs git 2.31,
  // and Baton should run with the git of an LTS distribution.

  /** Where a repository-internal file lives for this worktree (`index`, `info/exclude`), as an absolute path. */
  async gitFilePath(cwd: string, name: string): Promise<string> {
    return resolve(cwd, (await this.run(['rev-parse', '--git-path', name], { cwd })).trim());
  }

  /** The repository's shared git folder (the main checkout's `.git` for a linked worktree). */
  async commonDir(cwd: string): Promise<string> {
    return resolve(cwd, (await this.run(['rev-parse', '--git-common-dir'], { cwd })).trim());
  }

  /**
   * Git's absolute path. With none in PATH, a path that cannot exist, so the call fails as `not-installed` (a bare
   * `git` could run a repository's own on Windows); looked for again at the next call.
   */
  private get gitPath(): string {
    return this.givenPath ?? (this.foundPath ??= findProgram('git', this.baseEnv)) ?? NO_GIT;
  }

  private envFor(opts: RunOptions): NodeJS.ProcessEnv {
    const mapped = this.folders.lookup(opts.cwd);
    const repo = mapped ? { GIT_DIR: mapped.gitDir, GIT_WORK_TREE: mapped.folder } : undefined;
    return opts.env || repo ? { ...this.baseEnv, ...repo, ...opts.env } : this.baseEnv;
  }

  private exec(args: readonly string[], opts: RunOptions, encoding: 'utf8' | 'buffer'): Promise<string | Buffer> {
    return new Promise((resolve, reject) => {
      const child = execFile(
        this.gitPath,
        [...RUNS_NOTHING, ...args],
        {
          cwd: opts.cwd,
          env: this.envFor(opts),
          maxBuffer: opts.maxBuffer ?? this.maxBuffer,
          timeout: opts.timeoutMs ?? this.timeoutMs,
          encoding,
          windowsHide: true,
        },
        (err, stdout, stderr) => {
          if (!err) return resolve(stdout);
          const e = err as NodeJS.ErrnoException & { code?: string | number; killed?: boolean; signal?: string };
          const errText = typeof stderr === 'string' ? stderr : Buffer.from(stderr).toString('utf8');
          if (e.code === 'ENOENT') void spawnMissing(args, opts.cwd).then(reject);
          else if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') reject(new GitError('output-too-large', args, undefined, errText));
          else if (e.killed || e.signal) reject(new GitError('timeout', args, undefined, errText));
          else reject(new GitError('failed', args, typeof e.code === 'number' ? e.code : undefined, errText));
        },
      );
      // git may exit before reading all its input (a failed apply): that EPIPE is not our error, the exit code is.
      child.stdin?.on('error', () => {});
      if (opts.input !== undefined) child.stdin?.end(opts.input);
      else child.stdin?.end();
    });
  }
}

/** Where git is run from when none is in PATH: a path that cannot exist, so the spawn fails (see Git.gitPath). */
const NO_GIT = join(sep, 'nonexistent', 'baton-found-no-git', 'git');

/** A spawn's ENOENT: git was not found, or the folder it was to run in is gone (Node says ENOENT for both). */
async function spawnMissing(args: readonly string[], cwd: string): Promise<GitError> {
  return (await isDirectory(cwd)) ? new GitError('not-installed', args, undefined, '') : new GitError('no-folder', args, undefined, '', cwd);
}
