// Review and apply of a worker's isolated changes. Invariants:
// - the changes are always "base commit → the worktree as it is now", commits, staged, unstaged and untracked files
//   alike, read through a temporary index: the worktree's own index (the worker's git state) never changes in what it
//   holds (only git's stat cache in it is refreshed, once), so a review can run while the worker is still working;
// - apply is all or nothing: a file the editor holds unsaved is refused before anything else, the whole patch is
//   checked against the user's working tree, and only a clean check applies it (git apply itself checks every hunk
//   before writing any, so a save between check and apply still cannot half-apply); the user's other uncommitted
//   changes are kept, their index untouched; what is applied is what the user confirmed (expectTree);
// - the paths Baton linked or copied in ("worktree include") are never a change;
// - nor is a folder that is a git repository of its own (a clone, a `git init` in the worktree): git adds one as a
//   pointer to a commit, or fails on one with none, so it never carried its files, and its `.git` (whose config can
//   name programs git runs) is not something to land in the user's repository. Such folders are named, not changed;
// - nor is a submodule's pointer, or what the worker wrote in its folder: named too, and kept (submoduleWork.ts).
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, rename, rm, stat, utimes } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  ApplyConflict,
  describeLeftOut,
  describeSubmoduleWork,
  describeSummary,
  type ApplyConflictFile,
  type ApplyResult,
  type BoundedDiff,
  type ChangeSet,
  type ChangeSummary,
  type FileChange,
  type ReviewEntry,
  type SubmoduleWork,
} from './changeSet';
import { linkShownAsText, writeEmpty } from './reviewFiles';
import { takeSubmoduleWork } from './submoduleWork';
import { Git, GitError } from '../git/git';
import { linkedIndexPath } from '../git/gitPaths';
import { parseRawNumstat } from './rawNumstat';
import { conflictingFiles, DIFF_FLAGS, failedApply, globEscape, withPatch } from './patchFile';
import { ChangedSinceConfirm, ChangeError } from './changeError';
import type { WorktreeManager } from '../git/worktrees';
import { caseKey, pathKeys } from '../util/pathKeys';

export interface ChangeSetsOptions {
  git: Git;
  /** Baton's storage folder: review copies go in `<storageDir>/review/<worker>`, temporary indexes in `<storageDir>/tmp`. */
  storageDir: string;
  worktrees: WorktreeManager;
}

export interface ApplyOptions {
  /** Any folder of the user's checkout the changes go to (normally the change set's repoRoot). */
  userRepoDir: string;
  /** Absolute paths the editor holds unsaved changes for: never overwritten (nor, in Review, half-taken). */
  dirtyBuffers: readonly string[];
  /** Only these changed files (paths relative to the repository root, the new path of a rename); default all. */
  paths?: readonly string[];
  /** Where the patch goes once applied, so the Apply can be undone (applyUndo.ts); left out, it is removed. */
  keepPatchAs?: string;
  /** The snapshot the user confirmed (ChangeSets.snapshot): other changes by now refuse the Apply (ChangedSinceConfirm). */
  expectTree?: string;
}

const MAX_UNSHOWN_LISTED = 20;
/**
 * `git add` into a snapshot's own index: with the user's `core.safecrlf=true` (and autocrlf), git refuses to add a file
 * whose CRLF it would convert, so a worker that wrote one (a Windows tool, a .bat) made every Review and Apply fail.
 * Git still converts the line endings as the user's settings say; it only does not refuse to.
 */
const SNAPSHOT_ADD = ['-c', 'core.safecrlf=false', 'add'] as const;

/** A worktree as a git tree, its folders left out as repositories of their own (relative, `/`-separated), its submodules' work. */
interface Snapshot {
  tree: string;
  nested: string[];
  submodules: SubmoduleWork[];
}

/** The summary's `nested` and `submodules` fields, each present only when there are some. */
function leftOut({ nested, submodules }: Snapshot): Pick<ChangeSummary, 'nested' | 'submodules'> {
  return { ...(nested.length ? { nested } : {}), ...(submodules.length ? { submodules } : {}) };
}

/** What a summary's header says of the work it does not count. */
const describeUncounted = (s: Snapshot): string => [describeLeftOut(s.nested), describeSubmoduleWork(s.submodules)].filter(Boolean).join(' ');

/** Worktrees whose refreshed stat cache is remembered (a window's live workers are far fewer). */
const REFRESHED_KEEP = 64;

export class ChangeSets {
  private readonly git: Git;
  private readonly storageDir: string;
  private readonly worktrees: WorktreeManager;
  /**
   * Worktrees whose index had git's stat cache refreshed (refreshStatCache): path → the worktree's createdAt, since a
   * worker of a name used before gets a new worktree at the same path. The newest REFRESHED_KEEP paths are held.
   */
  private readonly refreshed = new Map<string, number>();

  constructor(opts: ChangeSetsOptions) {
    this.git = opts.git;
    this.storageDir = opts.storageDir;
    this.worktrees = opts.worktrees;
  }

  /** "N files changed, +a −b" and the per-file list, base → the worktree now. */
  async summarize(cs: ChangeSet): Promise<ChangeSummary> {
    return (await this.summarizeIfChanged(cs, undefined))!;
  }

  /** The summary, or undefined when the worktree is still the tree `since` (its files not counted again: a diff saved). */
  async summarizeIfChanged(cs: ChangeSet, since: string | undefined): Promise<ChangeSummary | undefined> {
    const snap = await this.take(cs);
    if (snap.tree === since) return undefined;
    return { ...(await this.summaryOf(cs, snap.tree)), tree: snap.tree, ...leftOut(snap) };
  }

  /** A unified diff for the model, at most about `maxBytes`; a truncation is marked in the text. */
  async diff(cs: ChangeSet, opts: { maxBytes: number }): Promise<BoundedDiff> {
    const snap = await this.take(cs);
    const { tree } = snap;
    // The header's length depends on the summary; a generous reserve lets both git calls run at once.
    const reserve = 64 + describeUncounted(snap).length;
    const [counted, { stdout, truncated }] = await Promise.all([
      this.summaryOf(cs, tree),
      this.git.runTruncated(['diff-tree', '-p', ...DIFF_FLAGS, cs.baseCommit, tree, ...this.pathspec(cs)], {
        cwd: cs.worktreePath,
        maxBytes: Math.max(0, opts.maxBytes - reserve),
      }),
    ]);
    const summary = { ...counted, ...leftOut(snap) };
    const header = `${[describeSummary(summary), describeUncounted(snap)].filter(Boolean).join('\n')}\n\n`;
    if (!summary.files.length) return { summary, text: header, truncated: false };
    if (!truncated) return { summary, text: header + stdout, truncated: false };
    const shown = new Set<string>();
    for (const m of stdout.matchAll(/^diff --git a\/.* b\/(.*)$/gm)) shown.add(m[1]);
    // The last file shown is cut off too, so it is listed as not (fully) shown.
    const last = [...shown].pop();
    const unshown = summary.files.map((f) => f.path).filter((p) => !shown.has(p) || p === last);
    const listed =
      unshown.slice(0, MAX_UNSHOWN_LISTED).join(', ') + (unshown.length > MAX_UNSHOWN_LISTED ? ` and ${unshown.length - MAX_UNSHOWN_LISTED} more` : '');
    const cut = stdout.lastIndexOf('\n') + 1;
    const text = `${header}${stdout.slice(0, cut)}\n… diff truncated at ${opts.maxBytes} bytes; not (fully) shown: ${listed}\n`;
    return { summary, text, truncated: true };
  }

  /**
   * For each changed file, the base version (materialized in `<storageDir>/review/<worker>/base`) and the worker's
   * version (the live file in the worktree; a symbolic link as a copy naming its target): the rows of `vscode.changes`.
   */
  async originalAndModified(cs: ChangeSet): Promise<ReviewEntry[]> {
    const summary = await this.summarize(cs);
    const reviewDir = join(this.storageDir, 'review', cs.worker);
    const baseDir = join(reviewDir, 'base');
    const deletedDir = join(reviewDir, 'deleted');
    await rm(reviewDir, { recursive: true, force: true, maxRetries: 3 });
    await mkdir(baseDir, { recursive: true });
    const fromBase = summary.files.filter((f) => f.status !== 'added').map((f) => f.oldPath ?? f.path);
    if (fromBase.length) await this.checkoutBase(cs, fromBase, baseDir);
    const entries: ReviewEntry[] = [];
    for (const f of summary.files) {
      const originalPath = await linkShownAsText(join(baseDir, f.oldPath ?? f.path), join(reviewDir, 'links', 'base', f.oldPath ?? f.path));
      if (f.status === 'added') await writeEmpty(originalPath);
      let modifiedPath = await linkShownAsText(join(cs.worktreePath, f.path), join(reviewDir, 'links', 'worker', f.path));
      if (f.status === 'deleted') {
        modifiedPath = join(deletedDir, f.path);
        await writeEmpty(modifiedPath);
      }
      entries.push({ ...f, userPath: join(cs.repoRoot, f.path), originalPath, modifiedPath });
    }
    return entries;
  }

  /**
   * Brings the changes (or the chosen files of them, `paths`) into the user's working tree, all or
   * nothing; throws ApplyConflict naming the files that block it. A partial apply moves the change
   * set's base forward over the applied files (baseRefs.ts), so the rest stays pending on its own.
   */
  async apply(cs: ChangeSet, opts: ApplyOptions): Promise<ApplyResult> {
    const userRoot = await this.git.repoRoot(opts.userRepoDir);
    if (!userRoot) throw new Error(`${opts.userRepoDir} is not inside a git repository.`);
    const snap = await this.take(cs);
    const { tree } = snap;
    if (opts.expectTree !== undefined && tree !== opts.expectTree) throw new ChangedSinceConfirm(cs.worker);
    const all = { ...(await this.summaryOf(cs, tree)), ...leftOut(snap) };
    const chosen = opts.paths ? choose(all.files, opts.paths) : all.files;
    if (!chosen.length) return { applied: [], remaining: all.files.length, tree, before: all };
    const partial = chosen.length < all.files.length;
    const spec = partial ? this.pathspecOf(chosen.flatMap((f) => (f.oldPath ? [f.oldPath, f.path] : [f.path]))) : this.pathspec(cs);
    const dirty = new Set<string>();
    for (const p of opts.dirtyBuffers) for (const key of await pathKeys(p)) dirty.add(key);
    const unsaved: ApplyConflictFile[] = [];
    for (const f of chosen) {
      const touched = f.oldPath ? [f.path, f.oldPath] : [f.path];
      const hit = touched.find((p) => dirty.has(caseKey(resolve(userRoot, p))));
      if (hit) unsaved.push({ path: hit, reason: 'unsaved-in-editor' });
      // Review's right side is the worktree's file: an unsaved edit there is not what Apply would take.
      else if (dirty.has(caseKey(resolve(cs.worktreePath, f.path)))) unsaved.push({ path: f.path, reason: 'unsaved-in-review' });
    }
    if (unsaved.length) throw new ApplyConflict(unsaved);

    const alreadyThere = await withPatch(this.git, this.storageDir, cs, tree, spec, async (patch) => {
      // --whitespace=nowarn: apply the worker's bytes as they are, whatever the user's apply.whitespace says.
      const applyArgs = ['apply', '--whitespace=nowarn'];
      let already: string[] = [];
      if (!(await this.git.succeeds([...applyArgs, '--check', patch], { cwd: userRoot }))) {
        const found = await conflictingFiles(this.git, userRoot, patch, chosen);
        if (found.blocking.length) throw new ApplyConflict(found.blocking);
        already = found.already;
      }
      if (already.length === chosen.length) return already;
      try {
        await this.git.run([...applyArgs, ...already.map((p) => `--exclude=${globEscape(p)}`), patch], { cwd: userRoot });
      } catch (err) {
        // The tree changed since the check, or a write failed part-way: still all or nothing (failedApply).
        if (err instanceof GitError && err.kind === 'failed') throw await failedApply(this.git, userRoot, patch, chosen, already, err);
        throw err;
      }
      if (opts.keepPatchAs) await rename(patch, opts.keepPatchAs);
      return already;
    });
    const applied = new Set<string>();
    for (const f of chosen) {
      applied.add(f.path);
      if (f.oldPath) applied.add(f.oldPath);
    }
    return {
      applied: [...applied],
      remaining: all.files.length - chosen.length,
      tree,
      before: all,
      root: userRoot,
      ...(alreadyThere.length ? { alreadyThere } : {}),
    };
  }

  /** Removes the worktree, its branch and the review copies. The user's consent is the caller's. */
  async discard(cs: ChangeSet): Promise<void> {
    await this.worktrees.removeWorkerWorktree(cs);
    await this.removeReviewCopies(cs);
  }

  async removeReviewCopies(cs: Pick<ChangeSet, 'worker'>): Promise<void> {
    await rm(join(this.storageDir, 'review', cs.worker), { recursive: true, force: true, maxRetries: 3 });
  }

  /**
   * The worktree's current state as a tree object: a copy of its index (so unchanged files are not
   * re-read: their stat data is valid), `add -A` into that copy, `write-tree`. New blobs land in the
   * repository's object store, where git's gc treats them as any other unreferenced object.
   */
  async snapshot(cs: ChangeSet): Promise<string> {
    return (await this.take(cs)).tree;
  }

  /** The snapshot, the folders of the worktree left out of it as git repositories of their own, its submodules' work. */
  private take(cs: ChangeSet): Promise<Snapshot> {
    return this.snapshotDir(cs.worktreePath, cs.worker, cs.includedPaths, { createdAt: cs.createdAt, base: cs.baseCommit });
  }

  /** The worker's work in submodules, which no Apply carries: while there is some, its worktree is not let go unasked. */
  async submoduleWork(cs: ChangeSet): Promise<SubmoduleWork[]> {
    return (await this.take(cs)).submodules;
  }

  /**
   * `git worktree add` writes a worktree's index in the second it checked its files out, so git counts each of those
   * entries racily clean and reads the file's content again in every snapshot (racy git: the snapshot's index is a copy
   * that goes). Measured on a 10,000-file repository: 213 ms a snapshot, 113 ms once refreshed. `update-index --refresh`
   * reads them once and writes the index with git's stat cache whole; no entry's content (what is staged) changes, so
   * the worker's git state is as it was, as after a `git status` in it. Once per worktree, and only a second after its
   * index was written (sooner would leave it racy); a failure (the index locked by an Apply) only leaves it as it was.
   */
  private async refreshStatCache(worktreePath: string, createdAt: number, indexMtimeMs: number): Promise<void> {
    if (this.refreshed.get(worktreePath) === createdAt || Date.now() - indexMtimeMs < 1_100) return;
    this.refreshed.delete(worktreePath);
    this.refreshed.set(worktreePath, createdAt);
    for (const oldest of this.refreshed.keys()) {
      if (this.refreshed.size <= REFRESHED_KEEP) break;
      this.refreshed.delete(oldest);
    }
    await this.git.run(['update-index', '-q', '--refresh'], { cwd: worktreePath }).catch(() => undefined);
  }

  /**
   * The user's current tree the same way: HEAD plus their uncommitted and untracked (not ignored)
   * changes, read through a copy of their index, which itself is never written.
   */
  async userSnapshot(cs: ChangeSet): Promise<string> {
    return (await this.snapshotDir(cs.repoRoot, `user-${cs.worker}`, cs.includedPaths)).tree;
  }

  /** `worktree`: a worker's worktree (its stat cache is refreshed once, its submodules looked at), not the user's checkout. */
  private async snapshotDir(cwd: string, key: string, includedPaths: readonly string[], worktree?: { createdAt: number; base: string }): Promise<Snapshot> {
    const tmpDir = join(this.storageDir, 'tmp');
    await mkdir(tmpDir, { recursive: true });
    const index = join(tmpDir, `index-${key}-${randomBytes(6).toString('hex')}`);
    const env = { GIT_INDEX_FILE: index };
    try {
      try {
        // Read from the `.git` file, it saves a git process per review; anything unexpected asks git.
        const source = (await linkedIndexPath(cwd)) ?? (await this.git.gitFilePath(cwd, 'index'));
        if (worktree) await this.refreshStatCache(cwd, worktree.createdAt, (await stat(source)).mtimeMs);
        // Racy git: an entry whose file changed in the same second the index was written is re-read
        // only because git compares its mtime with the index file's own. A plain copy is newer, so a
        // same-size edit made right after `worktree add` (a worker's first edit) looked unchanged in
        // every later snapshot. The copy keeps the original's mtime, cut to the second (stat before
        // copy: a rewrite in between only makes the copy look older, which re-reads more, never less).
        const seconds = Math.floor((await stat(source)).mtimeMs / 1000);
        await copyFile(source, index);
        await utimes(index, seconds, seconds);
      } catch (err) {
        if (err instanceof GitError) throw err;
        await this.git.run(['read-tree', 'HEAD'], { cwd, env });
      }
      const nested = await this.nestedRepositories(cwd, env);
      if (!nested.length) await this.git.run([...SNAPSHOT_ADD, '-A'], { cwd, env });
      else {
        // On stdin: a worker may have cloned more repositories than a command line holds.
        const spec = ['.', ...nested.map((p) => `:(exclude,literal)${p}`)].join('\0');
        await this.git.run([...SNAPSHOT_ADD, '-A', '--pathspec-from-file=-', '--pathspec-file-nul'], { cwd, env, input: spec });
      }
      // The include entries leave the snapshot after the add, not through an exclude pathspec on it:
      // `add` fails when a pathspec names an ignored file (.env), and a .gitignore `node_modules/`
      // does not match the node_modules symlink, so the add may well have picked it up.
      if (includedPaths.length) {
        const literal = includedPaths.map((p) => `:(literal)${p}`);
        await this.git.run(['rm', '--cached', '-r', '-f', '-q', '--ignore-unmatch', '--', ...literal], { cwd, env });
      }
      const submodules = worktree ? await takeSubmoduleWork(this.git, cwd, env, worktree.base, includedPaths) : [];
      return { tree: (await this.git.run(['write-tree'], { cwd, env })).trim(), nested, submodules };
    } finally {
      await rm(index, { force: true });
      await rm(`${index}.lock`, { force: true });
    }
  }

  /**
   * The untracked folders git does not go into because each holds a `.git` (listed as `dir/`): `add -A` would add one as
   * a pointer to its commit (its files lost to an Apply, which made an empty folder of it) or, with no commit yet, fail
   * the whole snapshot ("does not have a commit checked out"). A tracked folder that got a `.git` is not listed: git
   * still reads its tracked files through the index.
   */
  private async nestedRepositories(cwd: string, env: Record<string, string>): Promise<string[]> {
    const out = await this.git.run(['ls-files', '-z', '-o', '--exclude-standard'], { cwd, env });
    return out
      .split('\0')
      .filter((p) => p.endsWith('/'))
      .map((p) => p.slice(0, -1));
  }

  async summaryOf(cs: ChangeSet, tree: string): Promise<ChangeSummary> {
    const out = await this.git.run(['diff-tree', '-z', '--raw', '--numstat', ...DIFF_FLAGS, cs.baseCommit, tree, ...this.pathspec(cs)], {
      cwd: cs.worktreePath,
    });
    const files = parseRawNumstat(out);
    let additions = 0;
    let deletions = 0;
    for (const f of files) {
      additions += f.additions;
      deletions += f.deletions;
    }
    return { files, additions, deletions };
  }

  /** `-- :(literal)<path>...`: exactly these files. */
  private pathspecOf(paths: readonly string[]): string[] {
    return ['--', ...paths.map((p) => `:(literal)${p}`)];
  }

  /** `-- . :(exclude)<included>...`: the include entries stay out of every diff and patch (also when a worker committed one). */
  private pathspec(cs: ChangeSet): string[] {
    if (!cs.includedPaths.length) return [];
    return ['--', '.', ...cs.includedPaths.map((p) => `:(exclude,literal)${p}`)];
  }

  /** Writes the base version of `paths` under `dir` in one git call (a temporary index of the base commit). */
  private async checkoutBase(cs: ChangeSet, paths: string[], dir: string): Promise<void> {
    const tmpDir = join(this.storageDir, 'tmp');
    await mkdir(tmpDir, { recursive: true });
    const index = join(tmpDir, `base-${cs.worker}-${randomBytes(6).toString('hex')}`);
    const env = { GIT_INDEX_FILE: index };
    try {
      await this.git.run(['read-tree', cs.baseCommit], { cwd: cs.worktreePath, env });
      // checkout-index applies the checkout's filters (line endings), so the original reads as the user's file did.
      await this.git.run(['checkout-index', '-f', '-z', '--stdin', `--prefix=${dir}/`], { cwd: cs.worktreePath, env, input: paths.join('\0') });
    } finally {
      await rm(index, { force: true });
    }
  }
}

/** The files named in `paths`, in the change set's order; a name that is not a changed file is an error, never ignored. */
function choose(files: FileChange[], paths: readonly string[]): FileChange[] {
  const wanted = new Set(paths);
  const unknown = paths.filter((p) => !files.some((f) => f.path === p));
  if (unknown.length) throw new ChangeError(`Not among the worker's changed files: ${unknown.join(', ')}. Nothing was applied.`);
  return files.filter((f) => wanted.has(f.path));
}
