// "Keep as a branch": the worker's whole change becomes one commit on its own `baton/<name>` branch,
// and the worktree goes, so people who prefer git tooling (merge, cherry-pick, a pull request) take
// it from there. Invariants: the commit is made with plumbing (no hooks run, the user's checkout and
// index are never touched); the worktree's HEAD and the branch each move only from the commit they were read at (a
// compare-and-swap), so a commit the worker made meanwhile is never lost; `baton/<name>` never moves off a commit of the
// worker's that the worktree's HEAD does not hold (a worker that switched branch and left commits behind is refused:
// KeepDiverged).
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Git } from '../git/git';
import { GitError } from '../git/git';
import { ChangeError } from './changeError';
import type { ChangeSet, ChangeSummary } from './changeSet';
import type { ChangeSets } from './changeSets';
import { withPatch } from './patchFile';

/** Used when the user's git has no identity configured: the commit is still theirs to amend. */
const FALLBACK_IDENT: Record<string, string> = {
  GIT_AUTHOR_NAME: 'Baton',
  GIT_AUTHOR_EMAIL: 'baton@localhost',
  GIT_COMMITTER_NAME: 'Baton',
  GIT_COMMITTER_EMAIL: 'baton@localhost',
};

export interface KeptBranch {
  branch: string;
  /** The branch's tip after the keep: the user's message, over the worker's own commits when it made some. */
  commit: string;
  /** What the branch holds of the worker's: from the change set's base, the worker's own commits included. */
  summary: ChangeSummary;
}

/**
 * The worker moved its worktree off `baton/<worker>` (`git checkout -b`, a detached HEAD) and the branch holds commits
 * of its that the worktree's HEAD does not: keeping the worktree there would take them off the branch. Nothing changed.
 */
export class KeepDiverged extends ChangeError {
  constructor(
    readonly worker: string,
    readonly branch: string,
    /** The branch the worktree is on now; undefined: a detached HEAD. */
    readonly switchedTo: string | undefined,
  ) {
    const where = switchedTo ? `branch '${switchedTo}'` : 'a detached HEAD';
    super(
      `Nothing was kept: worker '${worker}' switched its worktree to ${where}, which does not hold the commits it made on ${branch}, ` +
        `and keeping the worktree on ${branch} would take them off it. Bring them together in its worktree (merge or cherry-pick), ` +
        'then Keep as branch again; or Apply or Discard what the worktree holds.',
    );
    this.name = 'KeepDiverged';
  }
}

interface KeepDeps {
  git: Git;
  changeSets: ChangeSets;
  /** Baton's storage folder: a temporary index goes in `<storageDir>/tmp`. */
  storageDir: string;
}

export async function keepAsBranch(deps: KeepDeps, cs: ChangeSet, message: string): Promise<KeptBranch> {
  const { git } = deps;
  const cwd = cs.worktreePath;
  const text = message.trim();
  if (!text) throw new Error('The commit message is empty.');
  const [snapshot, head] = await Promise.all([deps.changeSets.snapshot(cs), git.run(['rev-parse', '--verify', 'HEAD^{commit}'], { cwd })]);
  const headCommit = head.trim();
  // The worktree's HEAD need not be on the branch: a worker may `git checkout -b` or detach it, and commit there. What
  // it holds (HEAD and anything uncommitted) is the change Review shows and Apply lands, so that is what is kept, on
  // baton/<worker> as the user asked; the branch the worker made stays as it is. Only a branch that would lose commits
  // (not an ancestor of HEAD) is refused, by name, never moved.
  const ref = `refs/heads/${cs.branch}`;
  const tip = await branchTip(git, cwd, ref);
  if (tip && tip !== headCommit && !(await git.succeeds(['merge-base', '--is-ancestor', tip, headCommit], { cwd }))) {
    throw new KeepDiverged(cs.worker, cs.branch, await checkedOutBranch(git, cwd));
  }
  const { parent, tree } = await keptContent(deps, cs, snapshot, headCommit);
  const parentTree = (await git.run(['rev-parse', `${parent}^{tree}`], { cwd })).trim();
  // A worker that committed everything itself still gets the user's message on top (a commit changing nothing): the
  // message they wrote for the branch is its tip, and the worker's own commits stay as it made them.
  const workerCommitted = !cs.movedOnto && headCommit !== cs.baseCommit;
  let commit = parent;
  if (tree !== parentTree || workerCommitted) {
    // commit-tree signs only when told: a kept branch is the user's commit, signed as their config signs theirs (a
    // pull request from it may need it); Baton's own base commits never are.
    const sign = await signsCommits(git, cwd);
    const args = ['commit-tree', tree, '-p', parent, ...(sign ? ['-S'] : []), '-F', '-'];
    try {
      commit = (await git.run(args, { cwd, input: `${text}\n` })).trim();
    } catch (err) {
      if (!(err instanceof GitError) || err.kind !== 'failed') throw err;
      try {
        commit = (await git.run(args, { cwd, input: `${text}\n`, env: FALLBACK_IDENT })).trim();
      } catch (again) {
        if (!sign || !(again instanceof GitError) || again.kind !== 'failed') throw again;
        throw new ChangeError(
          `Nothing was kept: your git config signs every commit (commit.gpgSign), and git could not sign this one (${lastLine(again.stderr)}). ` +
            "The worker's changes stay pending; once signing works, Keep as branch again.",
        );
      }
    }
  }
  // The worktree lets go of its HEAD first (detached, no file touched; compared with the HEAD read, through its branch
  // if on one): one that cannot be removed is an orphan on no branch, whose clean-up deletes no branch (the kept one is
  // the user's now). Then the branch moves from the tip read (absent: created).
  await git.run(['update-ref', '--no-deref', 'HEAD', commit, headCommit], { cwd });
  await git.run(['update-ref', '-m', 'baton: keep as a branch', ref, commit, tip || '0'.repeat(headCommit.length)], { cwd });
  // Counted from the change's base, as its totals were: the worker's own commits are part of what is kept.
  return { branch: cs.branch, commit, summary: await deps.changeSets.summaryOf(cs.movedOnto ? { ...cs, baseCommit: parent } : cs, tree) };
}

/** The commit `ref` is at; '' when there is no such branch (the worker deleted it after switching away). */
async function branchTip(git: Git, cwd: string, ref: string): Promise<string> {
  try {
    return (await git.run(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd })).trim();
  } catch (err) {
    if (err instanceof GitError && err.kind === 'failed') return '';
    throw err;
  }
}

/** The branch the worktree's HEAD is on; undefined when detached. */
async function checkedOutBranch(git: Git, cwd: string): Promise<string | undefined> {
  try {
    return (await git.run(['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd })).trim() || undefined;
  } catch (err) {
    if (err instanceof GitError && err.kind === 'failed') return undefined;
    throw err;
  }
}

/**
 * What the kept commit holds, and its parent. After a Resolve with the worker, the worktree holds the user's tree as
 * it was then (their commits since, their uncommitted edits, their untracked files) beside the worker's change: a
 * commit of it all had put the user's private files on a branch made for a pull request. Then the worker's change alone
 * (the move's base → now) goes on the user's HEAD of then; one that does not apply there without their uncommitted
 * edits is refused. Otherwise, the worktree as it is on its own HEAD (partial applies included: the whole change).
 */
async function keptContent(deps: KeepDeps, cs: ChangeSet, snapshot: string, headCommit: string): Promise<{ parent: string; tree: string }> {
  const moved = cs.movedOnto;
  if (!moved) return { parent: headCommit, tree: snapshot };
  const { git } = deps;
  const cwd = cs.worktreePath;
  const tmp = join(deps.storageDir, 'tmp');
  await mkdir(tmp, { recursive: true });
  const env = { GIT_INDEX_FILE: join(tmp, `keep-${cs.worker}-${randomBytes(6).toString('hex')}`) };
  try {
    await git.run(['read-tree', moved.head], { cwd, env });
    const changed = (await git.run(['diff-tree', '--name-only', '-r', moved.base, snapshot], { cwd })).trim();
    if (changed) {
      await withPatch(git, deps.storageDir, { ...cs, baseCommit: moved.base }, snapshot, [], (patch) =>
        git.run(['apply', '--cached', '--binary', patch], { cwd, env }).catch((err: unknown) => {
          if (!(err instanceof GitError) || err.kind !== 'failed') throw err;
          throw new ChangeError(
            "Nothing was kept: the worker's change was resolved against edits of yours that are not committed, and without them it does not apply. " +
              'Apply it instead; or commit your edits, Resolve with the worker again, then keep it.',
          );
        }),
      );
    }
    return { parent: moved.head, tree: (await git.run(['write-tree'], { cwd, env })).trim() };
  } finally {
    await rm(env.GIT_INDEX_FILE, { force: true });
    await rm(`${env.GIT_INDEX_FILE}.lock`, { force: true });
  }
}

/** Whether the repository's git config (any level) has commit.gpgSign on. */
async function signsCommits(git: Git, cwd: string): Promise<boolean> {
  try {
    return (await git.run(['config', '--type=bool', '--get', 'commit.gpgSign'], { cwd })).trim() === 'true';
  } catch (err) {
    // Exit 1: not set. A value git cannot read as a boolean fails the same way, and git's own commit would refuse it.
    if (err instanceof GitError && err.kind === 'failed') return false;
    throw err;
  }
}

/** git's last words, for the user (shown, never matched). */
function lastLine(stderr: string): string {
  return stderr.trim().split('\n').slice(-2).join(' ').slice(0, 300) || 'no message';
}

/**
 * The commit message offered for a kept branch: the worker's own summary of its work (its last
 * report), subject line first, bounded; the user edits it before anything is committed.
 */
export function suggestCommitMessage(worker: string, summary: string | undefined): string {
  const text = (summary ?? '').replace(/\r\n/g, '\n').trim();
  const nl = text.indexOf('\n');
  const first = (nl < 0 ? text : text.slice(0, nl)).replace(/^[#>*\-\s]+/, '').trim();
  if (!first) return `Changes by Baton worker '${worker}'`;
  const subject = first.length > 72 ? `${first.slice(0, 71)}…` : first;
  const rest = nl < 0 ? '' : text.slice(nl + 1).trim();
  const body = rest.length > MAX_BODY ? `${rest.slice(0, MAX_BODY)}\n[…]` : rest;
  return body ? `${subject}\n\n${body}` : subject;
}

const MAX_BODY = 4000;
