// "Resolve in the editor": the worker's change goes into the user's tree the way a conflicting
// `git stash pop` does. Files that apply cleanly are applied; each conflicting file gets a 3-way
// merge of the user's current file and the worker's version from the base, standard conflict markers
// where they clash, and stays unmerged in the user's index (stages 1, 2, 3: base, the user's, the
// worker's), so VS Code's merge editor and git itself see a normal conflict. Invariants: only after
// the user chose it in a confirm (the caller's); a file the editor holds unsaved, and a conflicting file that cannot
// carry markers (see NoMarkersWhy: deleted or binary on either side, a link, staged changes the unmerged stages would
// replace), are refused by name before anything is written; a write that fails on the way (the user's git holding
// the index) puts back what was written, so nothing is half done; nothing runs a hook or a merge driver. A change with
// no conflict (every file applies, or is in the user's tree already) is refused before anything is written (NoConflict):
// resolveOrApply lands it with Apply instead, never a file left unmerged without markers or refused for a false reason.
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Git } from '../git/git';
import { gitSaid, GitError } from '../git/git';
import { ApplyConflict, type ApplyConflictFile, type ChangeSet, type FileChange, type NoMarkersWhy } from './changeSet';
import type { ChangeSets } from './changeSets';
import { ChangeError } from './changeError';
import { caseKey, pathKeys } from '../util/pathKeys';
import { conflictingFiles, failedApply, withPatch } from './patchFile';
import { outsideFiles } from './userTreePath';
import { replacesYours } from './applyConfirm';
import type { WorkerChanges } from './workerChanges';

export interface MarkedApply {
  /** Applied cleanly. */
  applied: string[];
  /** Written with conflict markers and left unmerged in the index (absolute paths of the user's files alongside). */
  conflicted: Array<{ path: string; userPath: string }>;
}

export async function applyWithMarkers(
  deps: { git: Git; changeSets: ChangeSets; storageDir: string },
  cs: ChangeSet,
  opts: { dirtyBuffers: readonly string[] },
): Promise<MarkedApply> {
  const { git, changeSets } = deps;
  const userRoot = cs.repoRoot;
  const tree = await changeSets.snapshot(cs);
  const summary = await changeSets.summaryOf(cs, tree);
  // As Apply compares them (changeSets.ts): a buffer held through a symlinked folder, or spelled in another letter case
  // where the file system ignores it, is the same file; markers went into a file the editor held unsaved.
  const dirty = new Set<string>();
  for (const p of opts.dirtyBuffers) for (const key of await pathKeys(p)) dirty.add(key);
  const unsaved: ApplyConflictFile[] = [];
  for (const f of summary.files) {
    const hit = (f.oldPath ? [f.path, f.oldPath] : [f.path]).find((p) => dirty.has(caseKey(resolve(userRoot, p))));
    if (hit) unsaved.push({ path: hit, reason: 'unsaved-in-editor' });
    else if (dirty.has(caseKey(resolve(cs.worktreePath, f.path)))) unsaved.push({ path: f.path, reason: 'unsaved-in-review' });
  }
  if (unsaved.length) throw new ApplyConflict(unsaved);
  // Its writes are plain file writes at join(userRoot, path): a folder linked out of the repository is refused first.
  const outside = await outsideFiles(userRoot, summary.files);
  if (outside.length) throw new ApplyConflict(outside);

  const specOf = (files: FileChange[]): string[] => ['--', ...files.flatMap((f) => (f.oldPath ? [f.oldPath, f.path] : [f.path])).map((p) => `:(literal)${p}`)];
  // conflictingFiles is for a patch that does not apply as a whole: on one that does, it names every file.
  const found = await withPatch(git, deps.storageDir, cs, tree, specOf(summary.files), async (patch) =>
    (await git.succeeds(['apply', '--whitespace=nowarn', '--check', patch], { cwd: userRoot }))
      ? { blocking: [] as ApplyConflictFile[], already: [] as string[] }
      : conflictingFiles(git, userRoot, patch, summary.files),
  );
  if (!found.blocking.length) throw new NoConflict(cs.worker);
  const blocked = new Set(found.blocking.map((c) => c.path));
  // Already in the user's tree as the worker left them: nothing to apply, nothing to merge.
  const already = new Set(found.already);
  // Only a text file both sides changed in place can carry markers; any other that does not apply is left out, named
  // with why, and nothing is written (nothing is half-applied, and a retry meets the same answer, not a git error).
  const [baseModes, workerModes] = await Promise.all([modesOf(git, cs, cs.baseCommit, found.blocking), modesOf(git, cs, tree, found.blocking)]);
  const refused: ApplyConflictFile[] = [];
  const mergeable: FileChange[] = [];
  for (const f of summary.files.filter((x) => blocked.has(x.path))) {
    const why = await noMarkersWhy(f, userRoot, [baseModes.get(f.path), workerModes.get(f.path)]);
    if (why) refused.push({ path: f.path, reason: 'no-markers', why });
    else mergeable.push(f);
  }
  // Stage 0 goes for the unmerged stages, as in a merge: git stash pop and git merge refuse to drop what is staged too.
  for (const path of await stagedOf(git, userRoot, mergeable)) refused.push({ path, reason: 'no-markers', why: 'staged' });
  if (refused.length) throw new ApplyConflict(refused.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)));
  const clean = summary.files.filter((f) => !blocked.has(f.path) && !already.has(f.path));
  // Every merge is worked out before the user's tree is touched; then the clean files, the marked files and their
  // unmerged stages are written, and a failure on the way (an index.lock of the user's git, a file that cannot be
  // written) puts back what was written: a retry used to merge markers into markers.
  const merges = await mergesOf(git, cs, tree, mergeable, baseModes, workerModes, deps.storageDir);
  const write = async (patch: string | undefined): Promise<void> => {
    if (patch) {
      try {
        await git.run(['apply', '--whitespace=nowarn', patch], { cwd: userRoot });
      } catch (err) {
        if (err instanceof GitError && err.kind === 'failed') throw await failedApply(git, userRoot, patch, clean, [], err);
        throw err;
      }
    }
    const written: Merge[] = [];
    try {
      for (const m of merges) {
        written.push(m);
        await writeFile(m.userPath, m.merged);
      }
      if (merges.length) await git.run(['update-index', '-z', '--index-info'], { cwd: userRoot, input: merges.flatMap((m) => m.stages).join('\0') + '\0' });
    } catch (err) {
      throw await putBack(git, userRoot, patch, written, err);
    }
  };
  if (clean.length) await withPatch(git, deps.storageDir, cs, tree, specOf(clean), write);
  else await write(undefined);
  const conflicted = merges.map((m) => ({ path: m.path, userPath: m.userPath }));
  const applied = summary.files.filter((f) => !blocked.has(f.path)).flatMap((f) => (f.oldPath ? [f.path, f.oldPath] : [f.path]));
  return { applied, conflicted };
}

/**
 * Resolve in the editor met no conflict: every file applies cleanly or is in the user's tree already. Nothing was written;
 * Apply lands the change (resolveOrApply does so for the user who chose Resolve in the editor).
 */
export class NoConflict extends ChangeError {
  constructor(readonly worker: string) {
    super(
      `Nothing was written: the changes of worker '${worker}' apply to your files without a conflict, so there is nothing to resolve in the editor; Apply lands them.`,
    );
    this.name = 'NoConflict';
  }
}

/**
 * The question of Resolve in the editor's confirm, decided in core as Apply's is (applyConfirm.ts). What applies cleanly
 * lands as Apply lands it (the whole change when nothing conflicts: resolveOrApply), so the user's files whose version a
 * Resolve with the worker replaced with the worker's are named here as in Apply's confirm, before anything is written.
 */
export async function resolveInEditorQuestion(changes: WorkerChanges, name: string): Promise<string> {
  return `Apply the changes of worker '${name}' with conflict markers?${await replacesYours(changes, name)}`;
}

/** The part of WorkerChanges that resolveOrApply uses. */
interface Settling {
  resolveInEditor(name: string, opts: { dirtyBuffers: readonly string[] }): Promise<{ text: string; conflicted: string[] }>;
  apply(name: string, opts: { dirtyBuffers: readonly string[] }): Promise<string>;
}

/**
 * "Resolve in the editor" as the user chose it (the command, after its confirm): the conflicting files get markers;
 * a change with no conflict (the user fixed their side, or it never conflicted) is applied as Apply applies it, the
 * whole change, its Undo Apply included, and the message says there was no conflict.
 */
export async function resolveOrApply(
  changes: Settling,
  name: string,
  opts: { dirtyBuffers: readonly string[] },
): Promise<{ text: string; conflicted: string[] }> {
  try {
    return await changes.resolveInEditor(name, opts);
  } catch (err) {
    if (!(err instanceof NoConflict)) throw err;
  }
  return { text: `No conflict to resolve: ${await changes.apply(name, opts)}`, conflicted: [] };
}

/** One conflicting file's 3-way merge, ready to write: its merged bytes, the user's as they were, its unmerged stages. */
interface Merge {
  path: string;
  userPath: string;
  merged: Buffer;
  original: Buffer;
  stages: string[];
}

async function mergesOf(
  git: Git,
  cs: ChangeSet,
  tree: string,
  files: FileChange[],
  baseModes: Map<string, string>,
  workerModes: Map<string, string>,
  storageDir: string,
): Promise<Merge[]> {
  if (!files.length) return [];
  const userRoot = cs.repoRoot;
  const merges: Merge[] = [];
  const dir = join(storageDir, 'tmp', `markers-${cs.worker}-${randomBytes(6).toString('hex')}`);
  await mkdir(dir, { recursive: true });
  try {
    for (const f of files) {
      const userPath = join(userRoot, f.path);
      const [baseMode, workerMode] = [baseModes.get(f.path) ?? '100644', workerModes.get(f.path) ?? '100644'];
      const [baseSha, workerSha] = await Promise.all([
        git.run(['rev-parse', `${cs.baseCommit}:${f.path}`], { cwd: cs.worktreePath }).then((o) => o.trim()),
        git.run(['rev-parse', `${tree}:${f.path}`], { cwd: cs.worktreePath }).then((o) => o.trim()),
      ]);
      // Stage 2 is the user's file as git stores it (its clean conversion), its executable bit included.
      const userMode = ((await lstat(userPath)).mode & 0o111) !== 0 ? '100755' : '100644';
      const userSha = (await git.run(['-c', 'core.safecrlf=false', 'hash-object', '-w', '--', f.path], { cwd: userRoot })).trim();
      const original = await readFile(userPath);
      // Base and worker are blobs, in git's normalized form: a user's file git converts (CRLF under core.autocrlf or
      // eol=crlf) is merged as stored too, else no line matches and the whole file is one conflict with mixed endings.
      const stored = await git.runBuffer(['cat-file', 'blob', userSha], { cwd: userRoot });
      const converted = !stored.equals(original);
      const [base, ours, theirs] = ['base', 'ours', 'theirs'].map((n) => join(dir, n));
      await writeFile(base, await git.runBuffer(['cat-file', 'blob', baseSha], { cwd: userRoot }));
      await writeFile(ours, converted ? stored : original);
      await writeFile(theirs, await git.runBuffer(['cat-file', 'blob', workerSha], { cwd: userRoot }));
      try {
        await git.run(['merge-file', '-L', 'your tree', '-L', 'base', '-L', `worker ${cs.worker}`, ours, base, theirs], { cwd: dir });
      } catch (err) {
        if (!(err instanceof GitError) || err.kind !== 'failed' || !err.exitCode || err.exitCode > 127) throw err;
      }
      // Unmerged, as git leaves a conflict: stage 0 out, then base (1), the user's (2), the worker's (3).
      const stages = [
        `0 ${'0'.repeat(40)}\t${f.path}`,
        `${baseMode} ${baseSha} 1\t${f.path}`,
        `${userMode} ${userSha} 2\t${f.path}`,
        `${workerMode} ${workerSha} 3\t${f.path}`,
      ];
      const merged = converted ? await checkedOut(git, userRoot, f.path, ours) : await readFile(ours);
      merges.push({ path: f.path, userPath, merged, original, stages });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return merges;
}

/**
 * The merged file (git's normalized form) as a checkout of `path` writes it: CRLF where the user's file was converted,
 * markers included. Through a blob, as `git cat-file --filters` converts only what is in the object store.
 */
async function checkedOut(git: Git, userRoot: string, path: string, file: string): Promise<Buffer> {
  const sha = (await git.run(['hash-object', '-w', '--no-filters', '--', file], { cwd: userRoot })).trim();
  return git.runBuffer(['cat-file', '--filters', `--path=${path}`, sha], { cwd: userRoot });
}

/**
 * A write of Resolve in the editor failed after the clean files were applied: the user's files as they were (those
 * given markers, and the clean files by `git apply -R` of their patch), and what to say. The index is untouched: its one
 * write is the last step.
 */
async function putBack(git: Git, userRoot: string, cleanPatch: string | undefined, written: Merge[], err: unknown): Promise<Error> {
  const why = err instanceof GitError ? gitSaid(err.stderr) : err instanceof Error ? err.message : String(err);
  const stuck: string[] = [];
  for (const m of written) await writeFile(m.userPath, m.original).catch(() => stuck.push(m.path));
  if (cleanPatch && !(await git.succeeds(['apply', '--whitespace=nowarn', '-R', cleanPatch], { cwd: userRoot }))) stuck.push('the files that applied cleanly');
  if (!stuck.length) return new ChangeError(`Nothing was applied: Resolve in the editor could not finish (${why}); your files are as they were.`);
  return new ChangeError(
    `Resolve in the editor stopped part-way (${why}), and ${stuck.join(', ')} could not be put back as they were. The changes stay pending.`,
  );
}

/** The mode of each of `files` in `treeish` (`ls-tree -z`: `<mode> <type> <sha>\t<path>`); absent ones are left out. */
async function modesOf(git: Git, cs: ChangeSet, treeish: string, files: readonly { path: string }[]): Promise<Map<string, string>> {
  const modes = new Map<string, string>();
  if (!files.length) return modes;
  const out = await git.run(['ls-tree', '-z', treeish, '--', ...files.map((f) => f.path)], { cwd: cs.worktreePath });
  for (const entry of out.split('\0')) {
    const tab = entry.indexOf('\t');
    if (tab > 0) modes.set(entry.slice(tab + 1), entry.split(' ')[0]);
  }
  return modes;
}

/** Why `f` (which does not apply) cannot carry conflict markers in the user's tree; undefined: it can. */
async function noMarkersWhy(f: FileChange, userRoot: string, modes: Array<string | undefined>): Promise<NoMarkersWhy | undefined> {
  if (f.status === 'added') return 'added-by-worker';
  if (f.status === 'deleted') return 'deleted-by-worker';
  if (f.status === 'renamed') return 'renamed-by-worker';
  if (f.binary) return 'binary';
  if (modes.includes('120000')) return 'symlink';
  const info = await lstat(join(userRoot, f.path)).catch(() => undefined);
  if (!info) return 'deleted-by-you';
  if (info.isSymbolicLink()) return 'symlink';
  if (!info.isFile()) return 'not-a-file';
  if ((await readFile(join(userRoot, f.path))).subarray(0, 8000).includes(0)) return 'binary';
  return undefined;
}

/** Which of `files` the user's index holds otherwise than their HEAD (staged, or already unmerged). */
async function stagedOf(git: Git, userRoot: string, files: readonly FileChange[]): Promise<string[]> {
  if (!files.length) return [];
  // No commit yet on the user's branch: everything in the index is staged against the empty tree.
  const head = (await git.headCommit(userRoot).catch(() => '')) || (await git.run(['mktree'], { cwd: userRoot, input: '' })).trim();
  const out = await git.run(['diff-index', '--cached', '--name-only', '-z', head, '--', ...files.map((f) => `:(literal)${f.path}`)], { cwd: userRoot });
  return [...new Set(out.split('\0').filter(Boolean))];
}
