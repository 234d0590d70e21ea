// Bringing the user's ignored essentials (dependencies, local env files) into a fresh worktree, so
// "run the tests" works there as it does in the checkout. Invariants:
// - an entry never reaches outside the repository: `..`, absolute paths and symlinks whose real
//   target leaves the repository are refused (a setting must not become a way to expose ~/.ssh);
// - nothing already in the worktree is replaced (a tracked file is the worker's to change, and the
//   checkout's version is the right one);
// - folders are symlinked (node_modules can be gigabytes), files are copied (a worker editing its
//   .env must not edit the user's);
// - every entry placed is reported, so the change set can keep it out of the diff and the apply.
import { copyFile, lstat, mkdir, realpath, stat, symlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, relative, sep } from 'node:path';

/** An entry placed in the worktree: `linked` (a symlink to the user's folder) or `copied`. */
export interface IncludedEntry {
  path: string;
  how: 'linked' | 'copied';
}

/** The user's folders a worker's checkout links to (read-only for it: the sandbox's readonly paths). */
export function linkedTargets(repoRoot: string, included: readonly IncludedEntry[]): string[] {
  return included.filter((i) => i.how === 'linked').map((i) => join(repoRoot, i.path));
}

/** An entry not placed, and why. */
export interface IncludeProblem {
  path: string;
  reason: 'missing' | 'outside-repo' | 'already-in-worktree' | 'unsupported' | 'error';
  detail?: string;
}

export interface WorktreeIncludeResult {
  included: IncludedEntry[];
  problems: IncludeProblem[];
}

/**
 * Copies or links each entry (a path relative to the repository root) from the user's checkout into
 * the worktree. Never throws for one entry: problems are reported and the rest still placed.
 */
export async function worktreeInclude(repoRoot: string, worktreePath: string, entries: readonly string[]): Promise<WorktreeIncludeResult> {
  const result: WorktreeIncludeResult = { included: [], problems: [] };
  const realRoot = await realpath(repoRoot);
  const seen = new Set<string>();
  for (const raw of entries) {
    const rel = cleanEntry(raw);
    if (rel === undefined) {
      result.problems.push({ path: raw, reason: 'outside-repo' });
      continue;
    }
    if (seen.has(rel)) continue;
    seen.add(rel);
    try {
      result.included.push(await placeOne(realRoot, worktreePath, rel));
    } catch (err) {
      if (err instanceof IncludeRefused) result.problems.push({ path: rel, reason: err.reason, detail: err.message || undefined });
      else result.problems.push({ path: rel, reason: 'error', detail: err instanceof Error ? err.message : String(err) });
    }
  }
  return result;
}

class IncludeRefused extends Error {
  constructor(
    readonly reason: IncludeProblem['reason'],
    detail = '',
  ) {
    super(detail);
  }
}

/** The entry as a clean relative path, or undefined when it is absolute, climbs out with `..` or is `.git`. */
export function cleanEntry(raw: string): string | undefined {
  const trimmed = raw.trim().replace(/[\\/]+$/, '');
  if (!trimmed || isAbsolute(trimmed) || /^[A-Za-z]:/.test(trimmed)) return undefined;
  const rel = normalize(trimmed);
  if (rel === '.' || rel === '..' || rel.startsWith(`..${sep}`) || rel === '.git' || rel.startsWith(`.git${sep}`)) return undefined;
  return rel;
}

function within(child: string, parent: string): boolean {
  const r = relative(parent, child);
  return r === '' || (!r.startsWith('..') && !isAbsolute(r));
}

async function placeOne(realRoot: string, worktreePath: string, rel: string): Promise<IncludedEntry> {
  const source = join(realRoot, rel);
  let real: string;
  try {
    real = await realpath(source);
  } catch {
    throw new IncludeRefused('missing');
  }
  // Realpath resolves every symlink on the way (a linked parent folder included): only the final
  // target counts, and it must be inside the repository. The repository root itself is refused too.
  if (!within(real, realRoot) || real === realRoot) throw new IncludeRefused('outside-repo', real);
  const dest = join(worktreePath, rel);
  if (await exists(dest)) throw new IncludeRefused('already-in-worktree');
  const info = await stat(real);
  await mkdir(dirname(dest), { recursive: true });
  // A tracked symlink on the way (lib -> /elsewhere) must not carry the copy out of the worktree.
  if (!within(await realpath(dirname(dest)), await realpath(worktreePath))) throw new IncludeRefused('outside-repo', 'the worktree path leaves the worktree');
  if (info.isDirectory()) {
    // 'junction' is Windows' symlink that needs no privilege; the argument is ignored elsewhere.
    await symlink(real, dest, 'junction');
    return { path: rel, how: 'linked' };
  }
  if (info.isFile()) {
    await copyFile(real, dest);
    return { path: rel, how: 'copied' };
  }
  throw new IncludeRefused('unsupported', 'neither a file nor a folder');
}

async function exists(p: string): Promise<boolean> {
  try {
    await lstat(p);
    return true;
  } catch {
    return false;
  }
}
