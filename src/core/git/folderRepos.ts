// A repository of Baton's own for a folder without git, so that a worker there gets a worktree like in any repository
// instead of writing the folder itself. Why: a worker writing a folder in place can make a `.git` in it (or in a folder
// below: the sandbox guards only paths that exist), and its config can name programs (core.fsmonitor) that git run
// outside the sandbox then runs: VS Code's git opens a repository that appears in the workspace by itself. A worker in a
// worktree of Baton's storage writes nothing in the user's folder until Apply, which never carries a `.git`.
// Invariants:
// - the repository lives in `<storage>/folder-repos/`, never in the folder: the folder gets no `.git`, and git run by
//   Baton in it reads this repository (Git.mapFolder), never one a worker made there;
// - each placement commits the folder as it is then (its files, less what its own `.gitignore` files and
//   node_modules leave out, and folders that are repositories of their own), so the worker starts from what the user
//   sees; nothing is ever written into the folder;
// - a protected path inside the folder (a `.ssh` in a home folder, baton.workers.protectedPaths) never enters the
//   repository, by any add (its exclude file names it): in the folder the sandbox denied it, in a copy nothing could;
// - a folder of more than MAX_FOLDER_FILES files is not copied (the caller says so and works in place, as before);
// - the repository goes once no change set uses it (PendingChangeSets), and at a start when none names it; never while
//   another window places a worker from it (placingMarkers.ts) or a worktree of it is left (git's list of them).
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { Git } from './git';
import { PlacingMarkers } from './placingMarkers';
import { isWithin } from '../workers/protectedPaths';

export const FOLDER_REPOS_DIR = 'folder-repos';
/** The most files a folder without git may have for Baton to copy it for a worker (a worktree holds them all). */
export const MAX_FOLDER_FILES = 20_000;
/** How long listing what a folder's `.gitignore` files ignore may take (a home folder: every file in it). */
const IGNORED_LISTING_MS = 5_000;
/**
 * A lock git left in the repository this long ago is a dead window's (killed while it committed the folder): no git
 * process of Baton's holds one for more than seconds, and commits hold Baton's own lock of the repository besides.
 */
export const STALE_GIT_LOCK_MS = 10 * 60_000;
/** Left out of the copy whatever the folder's `.gitignore` says: dependencies, linked in by baton.workers.worktreeInclude. */
const EXCLUDED = ['node_modules/'];
/** The author of the folder's commits: the user may have no git identity, and these commits are Baton's own. */
const IDENTITY = { GIT_AUTHOR_NAME: 'Baton', GIT_AUTHOR_EMAIL: 'baton@localhost', GIT_COMMITTER_NAME: 'Baton', GIT_COMMITTER_EMAIL: 'baton@localhost' };

/** The folder has more files than Baton copies for a worker. */
export class FolderTooLargeError extends Error {
  constructor(
    readonly folder: string,
    readonly files: number,
  ) {
    super(`${folder} has ${files.toLocaleString('en')} files (more than the ${MAX_FOLDER_FILES.toLocaleString('en')} Baton copies for a worker)`);
    this.name = 'FolderTooLargeError';
  }
}

interface QueuedCommit {
  /** The protected paths it leaves out: only a placement with the same joins it. */
  key: string;
  /** The markers of the placements it serves, written before it starts. */
  markers: Array<Promise<string>>;
  run: Promise<string>;
}

export class FolderRepos {
  /** Snapshots of one folder, one after the other (they share its repository's index). */
  private readonly busy = new Map<string, Promise<unknown>>();
  /**
   * The commit of a folder queued behind the one running, not started yet: placements asked for meanwhile share it, as
   * it starts after each of them asked (five workers started together: two commits, not five in a row).
   */
  private readonly queued = new Map<string, QueuedCommit>();
  /** Folders being placed in now, with each placement's marker: their repository must not go meanwhile. */
  private readonly placing = new Map<string, Array<Promise<string>>>();
  /** The same, for the other windows. */
  private readonly markers: PlacingMarkers;

  constructor(
    private readonly git: Git,
    private readonly storageDir: string,
  ) {
    this.markers = new PlacingMarkers(join(this.root, '.placing'), join(this.root, '.locks'));
  }

  /** `<storage>/folder-repos`. */
  get root(): string {
    return join(this.storageDir, FOLDER_REPOS_DIR);
  }

  /** The repository Baton keeps for `folder` (a real path). */
  gitDirOf(folder: string): string {
    const key = createHash('sha256').update(folder).digest('hex').slice(0, 12);
    return join(this.root, `${basename(folder).replace(/[^A-Za-z0-9._-]/g, '_') || 'folder'}-${key}.git`);
  }

  /**
   * Commits `folder` as it is now in its repository (made first when there is none) and returns the repository; git
   * run in the folder reads it from then on. Throws FolderTooLargeError past MAX_FOLDER_FILES. `release` must follow
   * once the worker's worktree is recorded (or failed). `protectedPaths` (real paths): never in it.
   */
  async snapshot(folder: string, protectedPaths: readonly string[] = []): Promise<string> {
    const real = await realpath(folder);
    // Marked before the repository is touched: a window removing it looks for the mark, holding the repository's lock.
    const marker = this.markers.add(basename(this.gitDirOf(real)));
    this.placing.set(real, [...(this.placing.get(real) ?? []), marker]);
    const key = protectedPaths.join('\0');
    const waiting = this.queued.get(real);
    if (waiting?.key === key) {
      waiting.markers.push(marker);
      return waiting.run;
    }
    const entry: QueuedCommit = { key, markers: [marker], run: Promise.resolve('') };
    entry.run = (this.busy.get(real) ?? Promise.resolve())
      .catch(() => undefined)
      .then(async () => {
        // Started: a placement asked for from now on needs a commit of its own (the folder may change meanwhile).
        if (this.queued.get(real) === entry) this.queued.delete(real);
        await Promise.all(entry.markers);
        return this.markers.locked(basename(this.gitDirOf(real)), () => this.commit(real, protectedPaths));
      });
    this.queued.set(real, entry);
    const settled = entry.run.catch(() => undefined);
    this.busy.set(real, settled);
    void settled.then(() => this.busy.get(real) === settled && this.busy.delete(real));
    return entry.run;
  }

  /** The placement in `folder` is over (recorded or failed). */
  async release(folder: string): Promise<void> {
    const real = await realpath(folder).catch(() => folder);
    const [marker, ...rest] = this.placing.get(real) ?? [];
    if (rest.length) this.placing.set(real, rest);
    else this.placing.delete(real);
    // A marker that could not be written has nothing to remove.
    const written = await marker?.catch(() => undefined);
    if (written) await this.markers.remove(written);
  }

  private async commit(folder: string, protectedPaths: readonly string[]): Promise<string> {
    const gitDir = this.gitDirOf(folder);
    const made = await stat(join(gitDir, 'HEAD')).then(
      () => true,
      () => false,
    );
    if (!made) {
      await mkdir(this.root, { recursive: true });
      await this.git.run(['init', '-q', '--bare', gitDir], { cwd: this.root });
      // Not bare: its work tree is the folder, named at each call (GIT_WORK_TREE), never in its config.
      await this.git.run(['--git-dir', gitDir, 'config', 'core.bare', 'false'], { cwd: this.root });
    } else {
      // A window killed while it committed left git's locks: every later commit would fail "index.lock: File exists".
      await Promise.all(['index.lock', 'HEAD.lock'].map((lock) => removeIfStale(join(gitDir, lock))));
    }
    // The protected paths as they are now, at each commit (the setting may have changed since the last).
    const guarded = protectedPaths.filter((p) => p !== folder && isWithin(p, folder)).map((p) => relative(folder, p).split(sep).join('/'));
    await writeFile(join(gitDir, 'info', 'exclude'), [...EXCLUDED, ...guarded.map(excludeLine)].join('\n') + '\n');
    this.git.folders.set(folder, gitDir);
    // One an earlier commit took, before it was protected, leaves the index too.
    if (made && guarded.length) {
      await this.git.run(['rm', '--cached', '-r', '-q', '--ignore-unmatch', '--', ...guarded.map((g) => `:(literal)${g}`)], { cwd: folder });
    }
    const listed = (await this.git.run(['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: folder })).split('\0').filter(Boolean);
    if (listed.length > MAX_FOLDER_FILES) {
      if (!made) await this.forget(folder, gitDir);
      throw new FolderTooLargeError(folder, listed.length);
    }
    // A folder in it that is a repository of its own (listed as `dir/`) stays out, as from a worker's change: git would
    // add it as a pointer to a commit, or fail the whole add when it has none. On stdin: there may be many.
    const nested = listed.filter((p) => p.endsWith('/')).map((p) => `:(exclude,literal)${p.slice(0, -1)}`);
    await this.git.run(['-c', 'core.safecrlf=false', 'add', '-A', '--pathspec-from-file=-', '--pathspec-file-nul'], {
      cwd: folder,
      input: ['.', ...nested].join('\0'),
    });
    const tree = (await this.git.run(['write-tree'], { cwd: folder })).trim();
    const parent = await this.git.headCommit(folder).catch(() => '');
    const commit = (
      await this.git.run(['commit-tree', ...(parent ? ['-p', parent] : []), '-m', `The folder ${folder} as a worker started`, tree], {
        cwd: folder,
        env: IDENTITY,
      })
    ).trim();
    await this.git.run(['update-ref', 'HEAD', commit], { cwd: folder });
    return gitDir;
  }

  /**
   * What `folder`'s own `.gitignore` files ignore, relative to it (a wholly ignored folder is one entry): what a worker
   * that reads the folder itself must not see, as in a repository. Read against an empty repository of the moment, so
   * neither a `.git` in the folder nor what Baton's repository of it leaves out of a copy (node_modules) counts. Git
   * walks the whole folder (1.5 s for 117,000 files): past `timeoutMs` it fails as GitError('timeout').
   */
  async ignoredIn(folder: string, timeoutMs = IGNORED_LISTING_MS): Promise<string[]> {
    const tmp = join(this.storageDir, 'tmp');
    await mkdir(tmp, { recursive: true });
    const gitDir = await mkdtemp(join(tmp, 'ignored-'));
    try {
      await this.git.run(['init', '-q', '--bare', gitDir], { cwd: tmp });
      await this.git.run(['--git-dir', gitDir, 'config', 'core.bare', 'false'], { cwd: tmp });
      const out = await this.git.run(['ls-files', '-z', '--others', '--ignored', '--exclude-per-directory=.gitignore', '--directory'], {
        cwd: folder,
        env: { GIT_DIR: gitDir, GIT_WORK_TREE: folder },
        timeoutMs,
      });
      return out
        .split('\0')
        .filter(Boolean)
        .map((p) => p.replace(/\/$/, ''));
    } finally {
      await rm(gitDir, { recursive: true, force: true });
    }
  }

  /** Git run in `folder` reads `gitDir` again (a change set read from the store, after a reload or in another window). */
  remap(folder: string, gitDir: string): void {
    this.git.folders.set(folder, gitDir);
  }

  /**
   * Deletes `folder`'s repository unless a worker is being placed there now (in any window) or a worktree of it is left
   * (another window's change set); `inUse`: one of this window's change sets still uses it.
   */
  async removeUnless(folder: string, gitDir: string, inUse: boolean): Promise<void> {
    if (inUse || this.placing.has(folder)) return;
    if (await this.removeIfUnused(gitDir)) this.git.folders.set(folder, undefined);
  }

  /** Deletes `gitDir` unless a placement from it is marked or a worktree of it is left; returns whether it is gone. */
  private removeIfUnused(gitDir: string, now = Date.now()): Promise<boolean> {
    return this.markers.locked(basename(gitDir), async () => {
      if (await this.usedElsewhere(gitDir, now)) return false;
      await rm(gitDir, { recursive: true, force: true, maxRetries: 3 });
      return true;
    });
  }

  /** A placement from `gitDir` is marked, or a worktree git lists in it still exists. */
  private async usedElsewhere(gitDir: string, now: number): Promise<boolean> {
    if (await this.markers.any(basename(gitDir), now)) return true;
    const listed = join(gitDir, 'worktrees');
    for (const id of await readdir(listed).catch(() => [] as string[])) {
      // `gitdir`: the worktree's own `.git` file.
      const dotGit = (await readFile(join(listed, id, 'gitdir'), 'utf8').catch(() => '')).trim();
      if (dotGit && (await stat(dotGit).catch(() => undefined))) return true;
    }
    return false;
  }

  /**
   * Repositories no change set names and no placement uses (a crash's leftovers), untouched for `idleMs` and with no
   * worktree left: deleted. Returns how many.
   */
  async sweep(named: ReadonlySet<string>, idleMs: number, now = Date.now()): Promise<number> {
    await this.markers.sweep(now);
    const entries = (await readdir(this.root).catch(() => [] as string[])).filter((n) => !n.startsWith('.'));
    const busy = new Set([...this.placing.keys()].map((f) => this.gitDirOf(f)));
    let removed = 0;
    for (const name of entries) {
      const gitDir = join(this.root, name);
      if (named.has(gitDir) || busy.has(gitDir)) continue;
      // Its index is written at each snapshot of the folder.
      const touched = await stat(join(gitDir, 'index')).then(
        (st) => st.mtimeMs,
        () => 0,
      );
      if (now - touched < idleMs) continue;
      if (await this.removeIfUnused(gitDir, now)) removed++;
    }
    return removed;
  }

  private async forget(folder: string, gitDir: string): Promise<void> {
    this.git.folders.set(folder, undefined);
    await rm(gitDir, { recursive: true, force: true, maxRetries: 3 });
  }
}

/** A path of the folder as an exclude pattern that matches it alone: anchored, with git's pattern characters escaped. */
function excludeLine(rel: string): string {
  return `/${rel.replace(/[\\*?[\]!#]/g, (c) => `\\${c}`).replace(/ $/, '\\ ')}`;
}

async function removeIfStale(file: string, now = Date.now()): Promise<void> {
  const made = await stat(file).then(
    (st) => st.mtimeMs,
    () => undefined,
  );
  if (made !== undefined && now - made > STALE_GIT_LOCK_MS) await rm(file, { force: true });
}
