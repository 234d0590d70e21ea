// Each worker's own git worktree, on its own branch `baton/<worker>`, in Baton's storage (outside the
// user's folders). Invariants:
// - creation never reuses and never deletes: an existing branch or folder is an error that says how
//   to continue (apply or discard the earlier worker's changes);
// - removal touches only what Baton made: branches under `baton/` and folders under
//   `<storageDir>/worktrees`; symlinked include folders are removed as links, never followed;
// - the user's checkout is only read (status, HEAD), never written.
import { createHash } from 'node:crypto';
import { lstat, mkdir, realpath, rm } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, sep } from 'node:path';
import { Git, GitError } from './git';
import { cleanEntry, worktreeInclude, type IncludedEntry, type IncludeProblem } from './worktreeInclude';
import { WorktreeMarkers } from './worktreeMarkers';
import { listOrphans, type OrphanWorktree } from './worktreeOrphans';
import { KeyedQueue } from '../util/keyedQueue';

export type { OrphanWorktree } from './worktreeOrphans';

export const BRANCH_PREFIX = 'baton/';
/** How many uncommitted paths of the user's checkout a result lists (the count is always exact). */
const MAX_LISTED_PATHS = 50;
/** A worktree add that failed having made nothing is tried this many times in all, 200, 400, 600… ms apart (about 2 s). */
const ADD_TRIES = 5;
const ADD_RETRY_MS = 200;
/** Ignored entries hidden from a worker that reads the folder itself, at most (each is a mount in its sandbox). */
const MAX_HIDDEN = 2000;
// Worker names as the registry accepts them, minus what a git ref cannot hold.
const WORKER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,47}$/;

export type WorktreeErrorKind = 'not-a-repo' | 'no-commits' | 'invalid-name' | 'branch-exists' | 'path-exists' | 'untracked-working-dir' | 'too-many-ignored';

/** A worktree could not be created; `kind` says why, the message says what the user can do. */
export class WorktreeError extends Error {
  constructor(
    readonly kind: WorktreeErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'WorktreeError';
  }
}

export interface CreateWorktreeOptions {
  /** Any folder inside the user's repository: the worker's working directory. */
  repoDir: string;
  workerName: string;
  /** Relative paths to link (folders) or copy (files) from the checkout, e.g. ['node_modules', '.env']. */
  include?: readonly string[];
  /** Its HEAD was just committed from the folder as it is (Baton's repository of a folder without git): no status. */
  justCommitted?: boolean;
  /** The caller records it (a change set): it stays marked, never an orphan, until `recorded(marker)` or its removal. */
  recordLater?: boolean;
}

/**
 * What Baton knows a worker's worktree by: plain data (strings and numbers) so the store can persist
 * it; the change lifecycle (src/core/changes/) builds its change sets on it.
 */
export interface WorktreeRecord {
  worker: string;
  /** The user's repository (real path of its top folder). */
  repoRoot: string;
  /** The worktree in Baton's storage where the worker works. */
  worktreePath: string;
  /** `baton/<worker>`. */
  branch: string;
  /** The commit the worktree started from: what every diff and apply is computed against. */
  baseCommit: string;
  /** The worker's working directory inside the worktree (the counterpart of the folder it was given). */
  workingDir: string;
  /** Epoch ms. */
  createdAt: number;
  /**
   * Paths (relative to the repository root) Baton linked or copied into the worktree from the
   * user's checkout ("worktree include"): never part of the changes, never applied back.
   */
  includedPaths: string[];
  /**
   * The folder has no git of its own: Baton's repository of it (folderRepos.ts), which git run in `repoRoot` reads.
   * There is no branch of the user's to keep the changes on.
   */
  folderRepo?: string;
}

export interface WorkerWorktree {
  record: WorktreeRecord;
  repoRoot: string;
  worktreePath: string;
  branch: string;
  baseCommit: string;
  /** The worktree's counterpart of `repoDir`: the worker session's working directory. */
  workingDir: string;
  /** The user had uncommitted (or untracked) changes, which the worktree does not contain. */
  userHadUncommittedChanges: boolean;
  /** Up to 50 of those paths; `uncommittedCount` is the full number. */
  uncommittedPaths: string[];
  uncommittedCount: number;
  included: IncludedEntry[];
  includeProblems: IncludeProblem[];
  /** With `recordLater`: its placing marker (worktreeMarkers.ts), for `recorded`. */
  marker?: string;
}

export interface WorktreeManagerOptions {
  git: Git;
  /** Baton's storage folder; worktrees go in `<storageDir>/worktrees`. */
  storageDir: string;
  now?: () => number;
}

export class WorktreeManager {
  private readonly git: Git;
  private readonly storageDir: string;
  private readonly now: () => number;
  /** The worktrees being placed or just recorded, which Clean Up Orphaned Worktrees leaves alone (any window's). */
  private readonly markers: WorktreeMarkers;

  /**
   * `git worktree add`s of one repository, one after the other: each reads every sibling's `commondir`, and one still
   * being written made the other fail (measured: two workers started at once, "failed to read
   * .git/worktrees/alpha/commondir: Success").
   */
  private readonly adding = new KeyedQueue();

  /**
   * `git worktree add`, tried again when it failed having made no folder: git reads every sibling worktree's admin files
   * before it writes one, and another process's add in the same repository (a second window, the user's own git)
   * half-way through made it fail ("failed to read .git/worktrees/alpha/commondir"); the queue above only orders this
   * window's adds. git makes the branch before it fails and leaves it (git 2.39): it is taken back while it is where git
   * made it and no worktree holds it, or the worker's name would be refused next time for "changes left there".
   */
  private async addWorktree(repoRoot: string, opts: { path: string; newBranch: string; commit: string }): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.git.worktreeAdd(repoRoot, opts);
      } catch (err) {
        if (!(err instanceof GitError) || err.kind !== 'failed') throw err;
        if (!(await pathExists(join(opts.path, '.git')))) {
          // Compare-and-delete: a branch that moved or is gone is not ours to remove, and then this fails, harmlessly.
          await this.git.succeeds(['update-ref', '-d', `refs/heads/${opts.newBranch}`, opts.commit], { cwd: repoRoot });
        }
        if (attempt >= ADD_TRIES || (await pathExists(opts.path))) throw err;
        await new Promise((r) => setTimeout(r, ADD_RETRY_MS * attempt));
      }
    }
  }

  constructor(opts: WorktreeManagerOptions) {
    this.git = opts.git;
    this.storageDir = opts.storageDir;
    this.now = opts.now ?? Date.now;
    this.markers = new WorktreeMarkers(join(opts.storageDir, 'worktree-placing'));
  }

  /**
   * The ignored entries of `dir` (absolute paths) but those `include` names (baton.workers.worktreeInclude, relative to
   * the repository root: what the user lets workers have); in a folder without git, what its `.gitignore` files ignore,
   * as `gitless` lists them (relative to it). A worker that reads the folder itself sees what a worktree would hold: the
   * files git ignores are local ones (.env and other secrets, dependencies, build output) that no worktree gets either.
   * Throws WorktreeError('too-many-ignored') past MAX_HIDDEN.
   */
  async ignoredOutside(dir: string, include: readonly string[], gitless: (folder: string) => Promise<string[]>): Promise<string[]> {
    const real = await realpath(dir);
    // A folder without git (with Baton's repository of it while a copy waits, or not): what its .gitignore files say.
    const mapped = this.git.folders.lookup(real);
    const root = mapped ? mapped.folder : await this.git.repoRoot(dir);
    const entries = mapped || !root ? await gitless(real) : await this.git.ignoredEntries(real);
    const base = root ?? real;
    // As for a worktree (worktreeInclude.ts): an entry that reaches outside the repository (`..`) is none of it.
    const kept = include.flatMap((e) => cleanEntry(e) ?? []).map((e) => join(base, e));
    const hidden = entries.map((p) => join(real, p)).filter((p) => !kept.some((k) => p === k || p.startsWith(`${k}${sep}`)));
    if (hidden.length > MAX_HIDDEN)
      throw new WorktreeError(
        'too-many-ignored',
        `${dir} has ${hidden.length} entries git ignores, more than Baton hides from a worker that reads the folder itself (${MAX_HIDDEN}).`,
      );
    return hidden;
  }

  /** `<storageDir>/worktrees`, real path (created on first use). */
  async worktreesDir(): Promise<string> {
    const dir = join(this.storageDir, 'worktrees');
    await mkdir(dir, { recursive: true });
    return realpath(dir);
  }

  /** Creates `baton/<workerName>` from the repository's HEAD and its worktree; see the file's invariants. */
  async createWorkerWorktree(opts: CreateWorktreeOptions): Promise<WorkerWorktree> {
    const name = opts.workerName;
    if (!WORKER_NAME.test(name) || name.includes('..') || name.endsWith('.lock') || name.endsWith('.')) {
      throw new WorktreeError('invalid-name', `'${name}' cannot name a git branch: use letters, digits, '.', '_' and '-'.`);
    }
    const repoRoot = await this.git.repoRoot(opts.repoDir);
    if (!repoRoot) throw new WorktreeError('not-a-repo', `${opts.repoDir} is not inside a git repository.`);
    if (!(await this.git.hasCommits(repoRoot))) {
      throw new WorktreeError(
        'no-commits',
        `The repository ${repoRoot} has no commit yet, so there is nothing to start a worktree from: commit once, or run the worker without isolation.`,
      );
    }
    const branch = `${BRANCH_PREFIX}${name}`;
    const worktreePath = join(await this.worktreesDir(), repoKey(repoRoot), name);
    const rel = relative(repoRoot, await realpath(opts.repoDir));
    // Reads of the user's repo run together: each is a separate git process, and on a large repo
    // status is the slow one.
    const [baseCommit, branchTaken, pathTaken, status] = await Promise.all([
      this.git.headCommit(repoRoot),
      this.git.branchExists(repoRoot, branch),
      pathExists(worktreePath),
      opts.justCommitted ? Promise.resolve([]) : this.git.status(repoRoot),
    ]);
    if (branchTaken) {
      throw new WorktreeError(
        'branch-exists',
        `The branch ${branch} already exists (a branch kept from an earlier worker named '${name}', or left by one that never started: Doctor lists such worktrees). Pick another name, or delete that branch first.`,
      );
    }
    if (pathTaken) {
      throw new WorktreeError(
        'path-exists',
        `${worktreePath} already exists: Doctor lists leftover worktrees and can remove them. Or pick another worker name.`,
      );
    }
    if (rel && !(await this.trackedFolder(repoRoot, baseCommit, rel))) {
      throw new WorktreeError(
        'untracked-working-dir',
        `${opts.repoDir} is not committed in the repository, so a worktree would not contain it: commit it, or run the worker without isolation.`,
      );
    }
    // Marked before git makes the folder: no window's listing of orphans takes it for one while it has no change set.
    const marker = await this.markers.add(worktreePath);
    let added: Awaited<ReturnType<typeof worktreeInclude>>;
    try {
      await this.adding.run(repoRoot, () => this.addWorktree(repoRoot, { path: worktreePath, newBranch: branch, commit: baseCommit }));
      added = await worktreeInclude(repoRoot, worktreePath, opts.include ?? []);
    } catch (err) {
      await this.markers.remove(marker);
      throw err;
    }
    if (!opts.recordLater) await this.markers.remove(marker);
    const { included, problems } = added;
    const workingDir = rel ? join(worktreePath, rel) : worktreePath;
    const paths = status.map((s) => s.path);
    return {
      record: {
        worker: name,
        repoRoot,
        worktreePath,
        branch,
        baseCommit,
        workingDir,
        createdAt: this.now(),
        includedPaths: included.map((e) => e.path.split(sep).join('/')),
      },
      repoRoot,
      worktreePath,
      branch,
      baseCommit,
      workingDir,
      userHadUncommittedChanges: paths.length > 0,
      uncommittedPaths: paths.slice(0, MAX_LISTED_PATHS),
      uncommittedCount: paths.length,
      included,
      includeProblems: problems,
      ...(opts.recordLater ? { marker } : {}),
    };
  }

  /** The worktree `marker` was placing is recorded: it is known to this window now, and soon to every other. */
  recorded(marker: string): Promise<void> {
    return this.markers.recorded(marker);
  }

  /**
   * Removes the worktree (with whatever the worker left in it) and its branch (unless `keepBranch`: the user kept the
   * work as a branch). Idempotent: a folder or branch already gone is fine. Only for `baton/` branches and folders in
   * Baton's storage. Returns whether the branch was left.
   */
  async removeWorkerWorktree(
    target: Pick<WorktreeRecord, 'repoRoot' | 'worktreePath' | 'branch'>,
    opts: { keepBranch?: boolean } = {},
  ): Promise<{ branchKept: boolean }> {
    if (!target.branch.startsWith(BRANCH_PREFIX)) throw new Error(`Refusing to delete ${target.branch}: Baton only deletes its own baton/ branches.`);
    const inStorage = await this.inWorktreesDir(target.worktreePath);
    if (!inStorage) throw new Error(`Refusing to remove ${target.worktreePath}: it is not in Baton's storage.`);
    // Whatever stays of it (a folder that cannot be removed) is an orphan from now on.
    await this.markers.clear(target.worktreePath);
    const repoAlive = await pathExists(target.repoRoot);
    // Unsaid (an orphan, no record left to tell): Keep as branch detaches a worktree from its branch before removing it,
    // so one found so (its window died in between) leaves the branch, which may be the user's now. A worktree git cannot
    // read (its link broken) is on no branch git knows.
    const kept =
      opts.keepBranch ??
      (repoAlive &&
        (await pathExists(target.worktreePath)) &&
        (await this.git.currentBranch(target.worktreePath)) === undefined &&
        (await this.git.succeeds(['rev-parse', '--verify', '--quiet', 'HEAD'], { cwd: target.worktreePath })));
    // A folder that cannot be removed (a file held, a read-only folder) does not keep git's side from being cleaned:
    // git may have taken the worktree's link already, so its registration and branch go now or never (the orphan left
    // is no longer git's). Its error is thrown once that is done.
    let stuck: unknown;
    if (await pathExists(target.worktreePath)) {
      try {
        if (!repoAlive) throw new GitError('failed', ['worktree', 'remove'], undefined, 'repository gone');
        await this.git.worktreeRemove(target.repoRoot, target.worktreePath);
      } catch (err) {
        if (!(err instanceof GitError) || err.kind !== 'failed') throw err;
        // git no longer knows this folder as a worktree (its repository moved, or the registration
        // was pruned): it is still ours to delete. fs.rm unlinks symlinks, it does not follow them.
        await rm(target.worktreePath, { recursive: true, force: true, maxRetries: 3 }).catch((e: unknown) => (stuck = e));
      }
    }
    if (repoAlive) {
      await this.git.worktreePrune(target.repoRoot);
      // Still checked out in a worktree git reads (the link kept): its orphan's clean-up deletes it then.
      if (!kept && (await this.git.branchExists(target.repoRoot, target.branch)))
        await this.git.branchDelete(target.repoRoot, target.branch).catch((e: unknown) => (stuck ??= e));
    }
    if (stuck) throw stuck;
    return { branchKept: kept };
  }

  /**
   * Where the repository of the worktree at `worktreePath` went when the user moved or renamed its folder: the one
   * among the repositories of `folders` that has it registered. The two are linked again (`git worktree repair`), so
   * git in the worktree finds its repository; undefined when none of them has it.
   */
  async findMovedRepository(worktreePath: string, folders: readonly string[]): Promise<string | undefined> {
    const wanted = await realpath(worktreePath).catch(() => worktreePath);
    for (const folder of folders) {
      const root = await this.git.repoRoot(folder).catch(() => undefined);
      if (!root || !(await this.git.worktreeList(root).catch(() => [])).some((w) => w.path === wanted)) continue;
      await this.git.run(['worktree', 'repair', wanted], { cwd: root });
      return root;
    }
    return undefined;
  }

  /** Worktrees no change set in `known` (their real paths) owns, that no window is placing or has just recorded. */
  async listOrphans(known: ReadonlySet<string>): Promise<OrphanWorktree[]> {
    return listOrphans(this.git, await this.worktreesDir(), this.markers, known);
  }

  private async trackedFolder(repoRoot: string, commit: string, rel: string): Promise<boolean> {
    const out = await this.git.run(['ls-tree', '-d', '--name-only', commit, '--', rel.split(sep).join('/')], { cwd: repoRoot });
    return out.trim().length > 0;
  }

  private async inWorktreesDir(p: string): Promise<boolean> {
    const root = await this.worktreesDir();
    const r = relative(root, p);
    return r !== '' && !r.startsWith('..') && !isAbsolute(r);
  }
}

/** `<basename>-<8 hex of the path>`: readable, and two repos named `app` do not collide. */
export function repoKey(repoRoot: string): string {
  const base =
    basename(repoRoot)
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .slice(0, 40) || 'repo';
  return `${base}-${createHash('sha256').update(repoRoot).digest('hex').slice(0, 8)}`;
}

async function pathExists(p: string): Promise<boolean> {
  try {
    await lstat(p);
    return true;
  } catch {
    return false;
  }
}
