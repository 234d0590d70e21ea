// "Resolve in the editor": the worker's change goes into the user's tree the way a conflicting
// `git stash pop` does. Files that apply cleanly are applied; each conflicting file gets a 3-way
// merge of the user's current file and the worker's version from the base, standard conflict markers
// where they clash, and stays unmerged in the user's index (stages 1, 2, 3: base, the user's, the
// worker's), so VS Code's merge editor and git itself see a normal conflict. Invariants: only after
// the user chose it in a confirm (the caller's); a file the editor holds unsaved is refused before
// anything is written; nothing runs a hook or a merge driver.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Git } from '../git/git';
import { GitError } from '../git/git';
import { ApplyConflict, type ChangeSet, type FileChange } from './changeSet';
import type { ChangeSets } from './changeSets';
import { conflictingFiles, withPatch } from './patchFile';

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
  const dirty = new Set(opts.dirtyBuffers.map((p) => resolve(p)));
  const unsaved = summary.files.filter((f) => dirty.has(resolve(userRoot, f.path)) || (f.oldPath && dirty.has(resolve(userRoot, f.oldPath))));
  if (unsaved.length) throw new ApplyConflict(unsaved.map((f) => ({ path: f.path, reason: 'unsaved-in-editor' as const })));

  const specOf = (files: FileChange[]): string[] => ['--', ...files.flatMap((f) => (f.oldPath ? [f.oldPath, f.path] : [f.path])).map((p) => `:(literal)${p}`)];
  const found = await withPatch(git, deps.storageDir, cs, tree, specOf(summary.files), (patch) => conflictingFiles(git, userRoot, patch, summary.files));
  const blocked = new Set(found.blocking.map((c) => c.path));
  // Already in the user's tree as the worker left them: nothing to apply, nothing to merge.
  const already = new Set(found.already);
  // Only a file both sides changed in place can carry markers; an added, deleted or renamed one that
  // does not apply is left out, named, and stays in the worktree (nothing is half-applied for it).
  const mergeable = summary.files.filter((f) => blocked.has(f.path) && f.status === 'modified' && !f.binary);
  const refused = summary.files.filter((f) => blocked.has(f.path) && !mergeable.includes(f));
  if (refused.length)
    throw new ApplyConflict(refused.map((f) => ({ path: f.path, reason: 'does-not-apply' as const, detail: 'cannot be merged in the editor' })));
  const clean = summary.files.filter((f) => !blocked.has(f.path) && !already.has(f.path));
  if (clean.length)
    await withPatch(git, deps.storageDir, cs, tree, specOf(clean), (patch) => git.run(['apply', '--whitespace=nowarn', patch], { cwd: userRoot }));

  const conflicted: MarkedApply['conflicted'] = [];
  const dir = join(deps.storageDir, 'tmp', `markers-${cs.worker}-${randomBytes(6).toString('hex')}`);
  await mkdir(dir, { recursive: true });
  try {
    for (const f of mergeable) {
      const userPath = join(userRoot, f.path);
      const [mode, baseSha, workerSha] = await Promise.all([
        // `<mode> blob <sha>\t<path>` (ls-tree's --format needs a newer git than an LTS distribution ships).
        git.run(['ls-tree', tree, '--', f.path], { cwd: cs.worktreePath }).then((o) => o.split(' ')[0] || '100644'),
        git.run(['rev-parse', `${cs.baseCommit}:${f.path}`], { cwd: cs.worktreePath }).then((o) => o.trim()),
        git.run(['rev-parse', `${tree}:${f.path}`], { cwd: cs.worktreePath }).then((o) => o.trim()),
      ]);
      const userSha = (await git.run(['-c', 'core.safecrlf=false', 'hash-object', '-w', '--', f.path], { cwd: userRoot })).trim();
      const [base, ours, theirs] = ['base', 'ours', 'theirs'].map((n) => join(dir, n));
      await writeFile(base, await git.runBuffer(['cat-file', 'blob', baseSha], { cwd: userRoot }));
      await writeFile(ours, await readFile(userPath));
      await writeFile(theirs, await git.runBuffer(['cat-file', 'blob', workerSha], { cwd: userRoot }));
      try {
        await git.run(['merge-file', '-L', 'your tree', '-L', 'base', '-L', `worker ${cs.worker}`, ours, base, theirs], { cwd: dir });
      } catch (err) {
        if (!(err instanceof GitError) || err.kind !== 'failed' || !err.exitCode || err.exitCode > 127) throw err;
      }
      await writeFile(userPath, await readFile(ours));
      // Unmerged, as git leaves a conflict: stage 0 out, then base (1), the user's (2), the worker's (3).
      const info = [
        `0 ${'0'.repeat(40)}\t${f.path}`,
        `${mode} ${baseSha} 1\t${f.path}`,
        `${mode} ${userSha} 2\t${f.path}`,
        `${mode} ${workerSha} 3\t${f.path}`,
      ];
      await git.run(['update-index', '-z', '--index-info'], { cwd: userRoot, input: info.join('\0') + '\0' });
      conflicted.push({ path: f.path, userPath });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const applied = summary.files.filter((f) => !blocked.has(f.path)).flatMap((f) => (f.oldPath ? [f.path, f.oldPath] : [f.path]));
  return { applied, conflicted };
}
