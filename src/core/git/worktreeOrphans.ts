// The worktrees in Baton's storage that nothing owns: no change set (a crash, a lost record), and no window placing
// them or having just recorded them (worktreeMarkers.ts). Clean Up Orphaned Worktrees removes what this lists.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Git, GitError } from './git';
import { markedName, type WorktreeMarkers } from './worktreeMarkers';

/** A worktree in Baton's storage that no known change set owns (e.g. left by a crash). */
export interface OrphanWorktree {
  worktreePath: string;
  /** Its branch, when git still knows the worktree. */
  branch?: string;
  /** The repository it belongs to, when that still exists. */
  repoRoot?: string;
}

/** Worktree folders under `root` (`<storageDir>/worktrees`) whose path is not in `known` nor marked. */
export async function listOrphans(git: Git, root: string, markers: WorktreeMarkers, known: ReadonlySet<string>): Promise<OrphanWorktree[]> {
  const found: string[] = [];
  for (const repoDir of await readdirSafe(root)) {
    for (const worker of await readdirSafe(join(root, repoDir))) found.push(join(root, repoDir, worker));
  }
  // Read after the folders: a placement marks its worktree before git makes it, so one found above is marked by now.
  const marked = await markers.live();
  const orphans: OrphanWorktree[] = [];
  for (const worktreePath of found) {
    if (known.has(worktreePath) || marked.has(markedName(worktreePath))) continue;
    orphans.push({ worktreePath, ...(await describeWorktree(git, worktreePath)) });
  }
  return orphans;
}

async function describeWorktree(git: Git, worktreePath: string): Promise<{ branch?: string; repoRoot?: string }> {
  try {
    // The first entry of `worktree list` is the main checkout: the user's repository.
    const [main] = await git.worktreeList(worktreePath);
    return { branch: await git.currentBranch(worktreePath), repoRoot: main && !main.bare ? main.path : undefined };
  } catch (err) {
    if (err instanceof GitError && err.kind === 'failed') return {};
    throw err;
  }
}

async function readdirSafe(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  } catch {
    return [];
  }
}
