// Moving a worker onto the user's current tree (HEAD plus their uncommitted changes, earlier applied
// workers included): every file the user changed since the worker's base is replayed into the
// worktree with a 3-way merge against the worker's own change, so its change set, recomputed from
// the new base, applies cleanly once the conflicts left are resolved. Invariants:
// - the user's files and index are only read (a snapshot through a copy of their index);
// - before a byte of the worktree is written, every file the move touches is copied aside (content,
//   mode, symlink), so `undo` puts the worktree back exactly as it was, also after the worker edited
//   further files while it tried (those come back from the pre-move snapshot);
// - the worktree's HEAD and index are never touched: the worker's own git state stays its own;
// - nothing is read, written or removed through a link the worker made in its worktree (worktreePath.ts): this code
//   runs outside the worker's sandbox;
// - no hook, no merge driver and no user config beyond the diff plumbing runs: `git merge-file` on
//   three temporary files; a merged file gets the 3-way merge of the modes (the user's chmod survives);
// - only text is merged: a binary file or a symbolic link both sides changed, and a file one side deleted, keep the
//   worker's version, and such a conflict counts as resolved only once the worker changed that file (`unresolved`):
//   left as the move left it, an Apply would put the worker's version over the user's without anyone having chosen.
import { randomBytes } from 'node:crypto';
import { chmod, copyFile, lstat, mkdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Git } from '../git/git';
import { GitError } from '../git/git';
import type { BaseRefs } from './baseRefs';
import type { ChangeSet, SavedPath } from './changeSet';
import type { ChangeSets } from './changeSets';
import { readableInside, readWorktreeFile, writablePath } from './worktreePath';
import { ChangeError } from './changeError';

/** One file both sides changed in ways git could not merge line by line. */
export interface MovedConflict {
  path: string;
  /**
   * text: conflict markers are in the file; deleted-by-user / deleted-by-worker / binary / symlink: the worker's version
   * is kept as is (absent for deleted-by-worker), and the worker must change it for the conflict to count as resolved.
   */
  kind: 'text' | 'deleted-by-user' | 'deleted-by-worker' | 'binary' | 'symlink';
  /** deleted-by-user: the user renamed it there (git's rename detection, from the base to the user's tree). */
  renamedTo?: string;
}

export interface MoveResult {
  /** The new base: the user's current tree, as a commit on top of their HEAD. */
  newBase: string;
  /** The user's current tree (what the new base holds). */
  userTree: string;
  /** The user's HEAD the new base sits on. */
  userHead: string;
  conflicts: MovedConflict[];
  /** Files the move wrote into the worktree. */
  moved: number;
  undo: MoveUndo;
}

/** Everything needed to put the worktree back as it was before the move. */
export interface MoveUndo {
  cs: ChangeSet;
  /** The worktree's snapshot before the move. */
  before: string;
  /** `<storageDir>/tmp/move-<worker>-<rand>`: the touched files as they were. */
  backupDir: string;
  /** Touched paths, each with how it was: a file (copied to backupDir), a symlink (its target) or absent. */
  saved: SavedPath[];
}

interface RawEntry {
  /** The mode and blob at `a` (zeros where the path is added). */
  oldMode: string;
  oldSha: string;
  mode: string;
  sha: string;
  status: string;
}

const SYMLINK = '120000';

const ZERO = /^0+$/;
const MARKER = /^(<{7}|>{7})( |$)/m;

/**
 * A move failed, and so did its undo: the worktree is half moved. The record of the undo (kept by `backedUp`'s caller)
 * must stay, so the undo is tried again before anything else is done with the change set, and at the next start.
 */
export class MoveNotUndone extends ChangeError {
  constructor(moveErr: unknown, undoErr: unknown) {
    super(
      `Moving the worker onto your tree failed (${errorText(moveErr)}), and its worktree could not be put back yet (${errorText(undoErr)}): ` +
        'Baton puts it back before anything else is done with its changes, or at the next start. Your files were not touched.',
    );
    this.name = 'MoveNotUndone';
  }
}

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export class TreeMover {
  constructor(
    private readonly git: Git,
    private readonly changeSets: ChangeSets,
    private readonly baseRefs: BaseRefs,
    private readonly storageDir: string,
  ) {}

  /**
   * Replays the user's changes since the base into the worktree (see the file's invariants). `backedUp` is called once
   * everything the move will touch is copied aside and before a byte of the worktree is written: the undo, to keep.
   */
  async move(cs: ChangeSet, backedUp: (undo: MoveUndo) => void = () => undefined): Promise<MoveResult> {
    const cwd = cs.worktreePath;
    const [userTree, before, userHead] = await Promise.all([this.changeSets.userSnapshot(cs), this.changeSets.snapshot(cs), this.git.headCommit(cs.repoRoot)]);
    const [userSide, workerSide] = await Promise.all([this.rawDiff(cwd, cs.baseCommit, userTree), this.rawDiff(cwd, cs.baseCommit, before)]);
    const undo: MoveUndo = {
      cs,
      before,
      backupDir: join(this.storageDir, 'tmp', `move-${cs.worker}-${randomBytes(6).toString('hex')}`),
      saved: [],
    };
    const takeUser: string[] = [];
    const removeUser: string[] = [];
    const merge: string[] = [];
    const conflicts: MovedConflict[] = [];
    for (const [path, user] of userSide) {
      const worker = workerSide.get(path);
      if (!worker) (user.status === 'D' ? removeUser : takeUser).push(path);
      else if (worker.sha === user.sha && worker.mode === user.mode) continue;
      else if (user.status === 'D') conflicts.push({ path, kind: 'deleted-by-user' });
      else if (worker.status === 'D') conflicts.push({ path, kind: 'deleted-by-worker' });
      // A link's target is no text to merge: merged, it would come back as a regular file holding a path.
      else if ([user.oldMode, user.mode, worker.mode].includes(SYMLINK)) conflicts.push({ path, kind: 'symlink' });
      else merge.push(path);
    }
    if (conflicts.some((c) => c.kind === 'deleted-by-user')) {
      const renames = await this.renames(cwd, cs.baseCommit, userTree);
      for (const c of conflicts) if (c.kind === 'deleted-by-user' && renames.has(c.path)) c.renamedTo = renames.get(c.path);
    }
    await this.backup(undo, [...takeUser, ...removeUser, ...merge]);
    try {
      backedUp(undo);
      if (takeUser.length) await this.checkout(cs, userTree, takeUser);
      for (const p of removeUser) if (await readableInside(cwd, p)) await rm(join(cwd, p), { force: true });
      for (const p of merge) {
        const result = await this.mergeFile(cs, p, userSide.get(p)!, workerSide.get(p)!);
        if (result !== 'clean') conflicts.push({ path: p, kind: result });
      }
      const newBase = await this.baseRefs.commit(cs, userTree, [userHead], `baton: the user's tree ${cs.worker} was moved onto`);
      conflicts.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      return { newBase, userTree, userHead, conflicts, moved: takeUser.length + removeUser.length + merge.length, undo };
    } catch (err) {
      await this.undo(undo).catch((undoErr: unknown) => {
        throw new MoveNotUndone(err, undoErr);
      });
      throw err;
    }
  }

  /** Puts the worktree back exactly as before the move (also what the worker changed since). */
  async undo(u: MoveUndo): Promise<void> {
    const cwd = u.cs.worktreePath;
    const savedPaths = new Set(u.saved.map((s) => s.path));
    for (const s of u.saved) {
      if (s.was === 'absent') {
        if (await readableInside(cwd, s.path)) await rm(join(cwd, s.path), { force: true, recursive: true });
        continue;
      }
      // The worker had the worktree meanwhile: a folder on the way may be a link now (worktreePath.ts).
      const target = await writablePath(cwd, s.path);
      await rm(target, { force: true, recursive: true });
      if (s.was === 'symlink') await symlink(s.target, target);
      else await copyFile(join(u.backupDir, s.path), target);
    }
    // Files the worker changed while it tried, beyond the ones the move touched: back from the pre-move snapshot.
    const now = await this.changeSets.snapshot(u.cs);
    if (now !== u.before) {
      const changed = [...(await this.rawDiff(cwd, u.before, now))].filter(([p]) => !savedPaths.has(p));
      // Added since: not in the pre-move worktree, so it goes; changed or deleted: back from the snapshot.
      for (const [p, e] of changed) if (e.status === 'A' && (await readableInside(cwd, p))) await rm(join(cwd, p), { force: true });
      const back = changed.filter(([, e]) => e.status !== 'A').map(([p]) => p);
      if (back.length) await this.checkout(u.cs, u.before, back);
    }
    await this.dropBackup(u);
  }

  /** The backup is no longer needed (the worker resolved the conflicts). */
  async dropBackup(u: MoveUndo): Promise<void> {
    await rm(u.backupDir, { recursive: true, force: true, maxRetries: 3 });
  }

  /**
   * The conflicts the worker left unresolved (`left`): a text file that still holds a conflict marker, and any other
   * conflicted file still exactly as the move left it (the worker's own version, or absent), so nobody chose between the
   * sides. `overriding`: the other conflicted files the worker changed, where its version differs from the user's tree
   * (what Apply puts in place of the user's version, to be named).
   */
  async unresolved(cs: ChangeSet, moved: Pick<MoveResult, 'conflicts' | 'undo' | 'userTree'>): Promise<{ left: MovedConflict[]; overriding: MovedConflict[] }> {
    const left: MovedConflict[] = [];
    const others = moved.conflicts.filter((c) => c.kind !== 'text');
    const now = others.length ? await this.changeSets.snapshot(cs) : undefined;
    // The move wrote none of these: unchanged since the pre-move snapshot is unchanged since the move.
    const [changed, fromUser] = now
      ? await Promise.all([this.rawDiff(cs.worktreePath, moved.undo.before, now), this.rawDiff(cs.worktreePath, moved.userTree, now)])
      : [new Map<string, RawEntry>(), new Map<string, RawEntry>()];
    for (const c of moved.conflicts) {
      if (c.kind !== 'text') {
        if (!changed.has(c.path)) left.push(c);
        continue;
      }
      // Deleted while resolving: no marker left in it. Behind a link, a FIFO or a folder, it is not the worktree's
      // text: unresolved (the undo takes it away).
      const file = await readWorktreeFile(cs.worktreePath, c.path);
      if (file.kind === 'not-a-file' || (file.kind === 'text' && MARKER.test(file.text))) left.push(c);
    }
    return { left, overriding: others.filter((c) => changed.has(c.path) && fromUser.has(c.path)) };
  }

  private async backup(u: MoveUndo, paths: readonly string[]): Promise<void> {
    await mkdir(u.backupDir, { recursive: true });
    for (const p of paths) {
      const source = join(u.cs.worktreePath, p);
      let st;
      try {
        // Behind a link, the file is elsewhere, never the worktree's: as if absent.
        if (!(await readableInside(u.cs.worktreePath, p))) throw new Error('not inside the worktree');
        st = await lstat(source);
      } catch {
        u.saved.push({ path: p, was: 'absent' });
        continue;
      }
      if (st.isSymbolicLink()) u.saved.push({ path: p, was: 'symlink', target: await readlink(source) });
      // Not a file git tracks (a FIFO would block the copy for ever): nothing of it to restore.
      else if (!st.isFile()) u.saved.push({ path: p, was: 'absent' });
      else {
        const copy = join(u.backupDir, p);
        await mkdir(dirname(copy), { recursive: true });
        // copyFile keeps the file's mode bits (an executable stays executable).
        await copyFile(source, copy);
        u.saved.push({ path: p, was: 'file' });
      }
    }
  }

  /** 3-way merge of one file: the user's version and the worker's, from the base; markers where they clash. */
  private async mergeFile(cs: ChangeSet, path: string, user: RawEntry, worker: RawEntry): Promise<'clean' | 'text' | 'binary'> {
    const cwd = cs.worktreePath;
    const blobs = await Promise.all(
      [user.oldSha, user.sha, worker.sha].map((sha) =>
        sha && !ZERO.test(sha) ? this.git.runBuffer(['cat-file', 'blob', sha], { cwd }) : Promise.resolve(Buffer.alloc(0)),
      ),
    );
    if (blobs.some((b) => b.subarray(0, 8000).includes(0))) return 'binary';
    // The modes merge as git merges them: a side that changed the mode wins over one that did not (both: the worker's).
    const mode = worker.mode === user.oldMode ? user.mode : worker.mode;
    const dir = join(this.storageDir, 'tmp', `merge-${cs.worker}-${randomBytes(6).toString('hex')}`);
    await mkdir(dir, { recursive: true });
    try {
      const [base, userFile, workerFile] = ['base', 'user', 'worker'].map((n) => join(dir, n));
      await Promise.all([writeFile(base, blobs[0]), writeFile(userFile, blobs[1]), writeFile(workerFile, blobs[2])]);
      // Exit 0: merged cleanly; a positive exit: that many conflicts, the markers written into `user`.
      let clean = true;
      try {
        await this.git.run(['merge-file', '-L', "user's tree", '-L', 'base', '-L', 'your change', userFile, base, workerFile], { cwd: dir });
      } catch (err) {
        if (!(err instanceof GitError) || err.kind !== 'failed' || !err.exitCode || err.exitCode > 127) throw err;
        clean = false;
      }
      const target = await writablePath(cwd, path);
      // Written in place (a file keeps its mode), never through a link left where the file was.
      if ((await lstat(target).catch(() => undefined))?.isFile() === false) await rm(target, { force: true, recursive: true });
      await writeFile(target, await readFile(userFile));
      // Executable where it is readable, as git checks a 100755 file out; the other bits as the file had them.
      const bits = (await lstat(target)).mode & 0o777;
      await chmod(target, mode === '100755' ? bits | ((bits & 0o444) >> 2) : bits & ~0o111);
      return clean ? 'clean' : 'text';
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** Writes `paths` as they are in `tree` into the worktree (modes and symlinks included). */
  private async checkout(cs: ChangeSet, tree: string, paths: readonly string[]): Promise<void> {
    const index = join(this.storageDir, 'tmp', `move-index-${cs.worker}-${randomBytes(6).toString('hex')}`);
    const env = { GIT_INDEX_FILE: index };
    try {
      await this.git.run(['read-tree', tree], { cwd: cs.worktreePath, env });
      await this.git.run(['checkout-index', '-f', '-z', '--stdin'], { cwd: cs.worktreePath, env, input: paths.join('\0') });
    } finally {
      await rm(index, { force: true });
    }
  }

  /** The unified diff of one file from `a` to `b`, at most `maxBytes` (for the worker's message). */
  async fileDiff(cs: ChangeSet, a: string, b: string, path: string, maxBytes: number): Promise<string> {
    const { stdout, truncated } = await this.git.runTruncated(['diff-tree', '-p', '--no-ext-diff', '--no-textconv', a, b, '--', `:(literal)${path}`], {
      cwd: cs.worktreePath,
      maxBytes,
    });
    return truncated ? `${stdout.slice(0, stdout.lastIndexOf('\n') + 1)}[… diff cut at ${maxBytes} bytes]\n` : stdout;
  }

  /** `diff-tree -r --no-renames --raw -z a b`: each changed path with its modes, blobs and status letter. */
  private async rawDiff(cwd: string, a: string, b: string): Promise<Map<string, RawEntry>> {
    const raw = (await this.git.run(['diff-tree', '-r', '-z', '--no-renames', '--no-ext-diff', a, b], { cwd })).split('\0');
    const entries = new Map<string, RawEntry>();
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const m = /^:(\d+) (\d+) (\w+) (\w+) (\w)/.exec(raw[i]);
      if (!m) break;
      entries.set(raw[i + 1], { oldMode: m[1], mode: m[2], oldSha: m[3], sha: m[4], status: m[5] });
    }
    return entries;
  }

  /**
   * The renames from `a` to `b`, old path to new: the move itself pairs paths without them (a rename is a deletion and
   * an addition there), this only tells the worker where the user's file went.
   */
  private async renames(cwd: string, a: string, b: string): Promise<Map<string, string>> {
    const raw = (await this.git.run(['diff-tree', '-r', '-z', '-M', '--diff-filter=R', '--no-ext-diff', a, b], { cwd })).split('\0');
    const renames = new Map<string, string>();
    // `:<modes> <shas> R<score>`, then the old and the new path.
    for (let i = 0; i + 2 < raw.length; i += 3) renames.set(raw[i + 1], raw[i + 2]);
    return renames;
  }
}
