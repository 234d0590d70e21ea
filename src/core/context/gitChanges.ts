// The working tree's changes for #changes, and which files git ignores for the #file picker, read
// through Baton's one git seam (src/core/git/git.ts: argv, no shell, a time limit, bounded output).
import { Git, GitError } from '../git/git';
import type { ContextError } from './contextPort';
import { boundText, CONTEXT_LIMITS } from './limits';

const GIT_TIMEOUT_MS = 10_000;
/** The raw output read at most: a diff bigger than this is cut anyway, and git is stopped. */
const MAX_OUTPUT = 8 * 1024 * 1024;
// No pager, no colour, no external diff driver: the output is for the model, and the same on every machine. No look
// into submodules either: git would run there with that submodule's own config (git.ts's status says why).
const gitCli = new Git({ env: { LC_ALL: 'C' }, timeoutMs: GIT_TIMEOUT_MS });

type GitRun = { ok: true; stdout: string } | { ok: false; notInstalled: boolean; stderr: string };

async function git(cwd: string, args: string[]): Promise<GitRun> {
  try {
    // Output past the cap still holds the start of the diff: that is all we would keep anyway.
    const { stdout } = await gitCli.runTruncated(['-c', 'core.quotepath=off', '--no-pager', ...args], { cwd, maxBytes: MAX_OUTPUT });
    return { ok: true, stdout };
  } catch (err) {
    if (err instanceof GitError) return { ok: false, notInstalled: err.kind === 'not-installed', stderr: err.stderr };
    throw err;
  }
}

export type ChangesResult = { ok: true; text: string; truncated: boolean; note?: string; files: number } | { ok: false; error: ContextError };

/**
 * The working tree against HEAD (staged and unstaged) plus the names of untracked files, bounded to
 * CONTEXT_LIMITS.changesChars. A repository without a commit yet diffs the index and the tree.
 */
export async function workingTreeChanges(repoDir: string, label = repoDir): Promise<ChangesResult> {
  const top = await git(repoDir, ['rev-parse', '--show-toplevel']);
  if (!top.ok) {
    const notFound = top.notInstalled;
    return {
      ok: false,
      error: {
        kind: 'unavailable',
        message: notFound ? 'git is not installed or not on PATH: #changes needs it.' : `${label} is not in a git repository: #changes has nothing to show.`,
      },
    };
  }
  let diff = await git(repoDir, ['diff', 'HEAD', '--no-color', '--no-ext-diff', '--ignore-submodules=all', '--stat', '--patch']);
  if (!diff.ok) {
    // No HEAD yet (a fresh repository): what is staged, then what is not.
    const [staged, unstaged] = await Promise.all([
      git(repoDir, ['diff', '--cached', '--no-color', '--no-ext-diff', '--ignore-submodules=all']),
      git(repoDir, ['diff', '--no-color', '--no-ext-diff', '--ignore-submodules=all']),
    ]);
    diff = { ok: true, stdout: `${staged.ok ? staged.stdout : ''}${unstaged.ok ? unstaged.stdout : ''}` };
  }
  const untracked = await git(repoDir, ['ls-files', '--others', '--exclude-standard']);
  const untrackedFiles = untracked.ok ? untracked.stdout.split('\n').filter(Boolean) : [];
  const changed = (diff.stdout.match(/^diff --git /gm) ?? []).length;
  if (!diff.stdout.trim() && !untrackedFiles.length) return { ok: true, text: 'No changes: the working tree matches HEAD.', truncated: false, files: 0 };
  const parts = [diff.stdout.trimEnd()];
  if (untrackedFiles.length) parts.push(`Untracked files (${untrackedFiles.length}):\n${untrackedFiles.slice(0, 200).join('\n')}`);
  const bounded = boundText(parts.filter(Boolean).join('\n\n'), CONTEXT_LIMITS.changesChars, 'diff');
  return { ok: true, text: bounded.text, truncated: bounded.truncated, note: bounded.note, files: changed + untrackedFiles.length };
}

/**
 * The files git does not ignore under `dir` (tracked, and untracked but not ignored), as paths relative
 * to `dir`; undefined when `dir` is not in a repository (then nothing is filtered).
 */
export async function gitVisibleFiles(dir: string): Promise<Set<string> | undefined> {
  const run = await git(dir, ['ls-files', '--cached', '--others', '--exclude-standard', '-z']);
  if (!run.ok) return undefined;
  return new Set(run.stdout.split('\0').filter(Boolean));
}
