// The patch of a change set as a file, and which of its files apply to the user's tree: what Apply (changeSets.ts) and
// Resolve in the editor (applyWithMarkers.ts) check and land with.
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { gitSaid, GitError, type Git } from '../git/git';
import { ApplyConflict, type ApplyConflictFile, type ChangeSet, type FileChange } from './changeSet';
import { ChangeError } from './changeError';
import { outsideFiles } from './userTreePath';

// Plumbing diff flags: no external diff tool, no textconv filter, rename detection on. Plumbing
// (diff-tree) also ignores the user's diff.noprefix & co., so `git apply` always reads the patch.
export const DIFF_FLAGS = ['-r', '-M', '--no-ext-diff', '--no-textconv'];

/** `--include` takes a wildmatch pattern: a path with `*`, `?`, `[` or `\` must match only itself. */
export function globEscape(p: string): string {
  return p.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/**
 * Runs `fn` with the patch base → `tree` (of the files `spec` names) in a file of `tmp/`, removed after. A file, not
 * a buffer: a worker's 70 MB binary (a dataset, a build) makes a patch bigger than Baton reads from git at once, and
 * Apply failed on it ("printed more output than Baton reads"); held in memory it would also cost the extension host
 * that much for every Apply.
 */
export async function withPatch<T>(
  git: Git,
  storageDir: string,
  cs: ChangeSet,
  tree: string,
  spec: readonly string[],
  fn: (patchFile: string) => Promise<T>,
): Promise<T> {
  const tmpDir = join(storageDir, 'tmp');
  await mkdir(tmpDir, { recursive: true });
  const file = join(tmpDir, `patch-${cs.worker}-${randomBytes(6).toString('hex')}`);
  try {
    await git.run(['diff-tree', '-p', '--binary', '--full-index', ...DIFF_FLAGS, `--output=${file}`, cs.baseCommit, tree, ...spec], {
      cwd: cs.worktreePath,
    });
    return await fn(file);
  } finally {
    await rm(file, { force: true });
  }
}

/**
 * Which files of the patch (a file, see withPatch) do not apply to the user's tree, each checked on its own
 * (`--include`), and which of those the user's tree already has exactly as the worker left them (the patch applies in
 * reverse): another worker made the same edit and was applied first, the user copied it over, or an Apply was cut
 * short after git wrote the files. Those are no conflict: there is nothing left to do for them.
 */
export async function conflictingFiles(
  git: Git,
  userRoot: string,
  patch: string,
  files: FileChange[],
): Promise<{ blocking: ApplyConflictFile[]; already: string[] }> {
  const blocking: ApplyConflictFile[] = [];
  const already: string[] = [];
  const check = (f: FileChange): Promise<string> =>
    git.run(['apply', '--whitespace=nowarn', '--check', `--include=${globEscape(f.path)}`, patch], { cwd: userRoot });
  await twoAtATime(files, async (f) => {
    try {
      await check(f);
    } catch (err) {
      if (!(err instanceof GitError) || err.kind !== 'failed') throw err;
      // git refuses to write beyond a link; one that leads out of the repository is said so, not called a conflict.
      const outside = await outsideFiles(userRoot, [f]);
      if (outside.length) blocking.push(...outside);
      else if (await reverseApplies(git, userRoot, patch, f)) already.push(f.path);
      else blocking.push({ path: f.path, reason: 'does-not-apply', detail: err.stderr.trim().split('\n').pop() });
    }
  });
  blocking.sort((a, b) => a.path.localeCompare(b.path));
  already.sort();
  // A failure no single file explains (should not happen): name every file rather than none.
  if (!blocking.length && !already.length) return { blocking: files.map((f) => ({ path: f.path, reason: 'does-not-apply' as const })), already };
  return { blocking, already };
}

/**
 * The user's tree has `f` exactly as the patch leaves it: its entry applies in reverse. Reversed, a rename's entry goes by
 * its old name; and a check that --include left nothing to check passes, so it must name what it checked (--numstat).
 */
function reverseApplies(git: Git, userRoot: string, patch: string, f: FileChange): Promise<boolean> {
  return git.run(['apply', '--whitespace=nowarn', '--check', '--numstat', '-R', `--include=${globEscape(f.oldPath ?? f.path)}`, patch], { cwd: userRoot }).then(
    (out) => out.trim() !== '',
    () => false,
  );
}

/**
 * What an Apply whose `git apply` failed after its check passed must say, and do so it is still all or nothing. git
 * checks every file before it writes, so the user's tree changed since (nothing was written: the files that block it,
 * named), or a write failed part-way: a file of the user's where the change needs a folder (an untracked `docs` beside
 * the worker's `docs/guide.md`), a folder it may not write in. The files written before that are put back (`git apply
 * -R` of them alone): an Apply used to stop there saying "Nothing was applied" with the worker's version in them.
 * `already`: files the user's tree had as the worker left them before (not written by this Apply, left alone).
 */
export async function failedApply(git: Git, userRoot: string, patch: string, files: FileChange[], already: readonly string[], err: GitError): Promise<Error> {
  const why = gitSaid(err.stderr);
  const written = await asLeft(
    git,
    userRoot,
    patch,
    files.filter((f) => !already.includes(f.path)),
  );
  if (!written.length) {
    if (!(await git.succeeds(['apply', '--whitespace=nowarn', '--check', patch], { cwd: userRoot }))) {
      return new ApplyConflict((await conflictingFiles(git, userRoot, patch, files)).blocking);
    }
    return new ChangeError(`Nothing was applied: git could not write the changes into your files (${why}).`);
  }
  const back = await git
    .run(['apply', '--whitespace=nowarn', '-R', ...written.map((f) => `--include=${globEscape(f.oldPath ?? f.path)}`), patch], { cwd: userRoot })
    .then(
      () => true,
      () => false,
    );
  const names = written.map((f) => f.path).join(', ');
  if (back)
    return new ChangeError(`Nothing was applied: git could not write all of the changes into your files (${why}); what it had written (${names}) is put back.`);
  return new ChangeError(
    `The Apply stopped part-way: git could not write all of the changes into your files (${why}), and what it had written could not be put back: ${names} hold the worker's version now. The changes stay pending.`,
  );
}

/** The files of `files` the user's tree now has exactly as the patch leaves them (it applies in reverse). */
async function asLeft(git: Git, userRoot: string, patch: string, files: FileChange[]): Promise<FileChange[]> {
  const left: FileChange[] = [];
  await twoAtATime(files, async (f) => {
    if (await reverseApplies(git, userRoot, patch, f)) left.push(f);
  });
  return left;
}

/** `fn` on each of `items`, two at a time: these checks run after a failure, on a machine that may be busy. */
async function twoAtATime<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all([lane(), lane()]);
}
