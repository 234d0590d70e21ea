// The work a worker did in a submodule of its worktree, which no patch can carry. `git worktree add` leaves a
// submodule's folder empty and `git ls-files -o` does not look into it, so files written there were named nowhere;
// `git add -A` keeps only the submodule's pointer, which `git apply` does not write (it warns, and succeeds); and a
// commit made in it lives in `.git/worktrees/<w>/modules`, which removing the worktree deletes. Such work is named and
// its worktree kept (pendingChangeSets.ts). Git never runs in a submodule here (its config is the worker's to write,
// see git.ts's status): its folder is only listed.
import { existsSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Git } from '../git/git';
import type { SubmoduleWork } from './changeSet';

const GITLINK = '160000';
const NO_MODE = '000000';

/**
 * The submodules of a worktree's snapshot index (`env`) that hold work, once the pointers in that index are put back as
 * `base` has them: no summary, patch or kept branch then counts a pointer git cannot apply as a changed file. Looked
 * for only when the worktree has a `.gitmodules` (git checks out no submodule without one): a stat, not a git call.
 */
export async function takeSubmoduleWork(
  git: Git,
  cwd: string,
  env: Record<string, string>,
  base: string,
  includedPaths: readonly string[],
): Promise<SubmoduleWork[]> {
  if (!existsSync(join(cwd, '.gitmodules'))) return [];
  const staged = (await git.run(['ls-files', '-z', '-s'], { cwd, env })).split('\0').filter(Boolean);
  const paths = staged.map((l) => l.slice(l.indexOf('\t') + 1));
  const linked = new Set(staged.filter((l) => l.startsWith(`${GITLINK} `)).map((l) => l.slice(l.indexOf('\t') + 1)));
  // Raw records `:basemode indexmode basesha indexsha X\0path\0`: only --cached, so no submodule's files are read.
  const raw = (await git.run(['diff-index', '--cached', '-z', '--raw', '--no-renames', base], { cwd, env })).split('\0');
  const moved = new Set<string>();
  const back: string[] = [];
  const drop: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const [, was, now, sha] = /^:(\d+) (\d+) (\w+) \w+ \w/.exec(raw[i]) ?? [];
    const path = raw[i + 1];
    if (!was || (was !== GITLINK && now !== GITLINK)) continue;
    // A pointer deleted with files added where it was (its folder's files, no longer a submodule) is a change of files.
    if (now === NO_MODE && paths.some((p) => p.startsWith(`${path}/`))) continue;
    moved.add(path);
    if (was === NO_MODE) drop.push(path);
    else back.push(`${was} ${sha}\t${path}`);
  }
  if (drop.length) await git.run(['update-index', '-z', '--force-remove', '--stdin'], { cwd, env, input: drop.join('\0') });
  if (back.length) await git.run(['update-index', '-z', '--index-info'], { cwd, env, input: back.join('\0') + '\0' });
  const work: SubmoduleWork[] = [];
  for (const path of [...new Set([...linked, ...moved])].sort()) {
    const files = await holdsFiles(cwd, path, includedPaths);
    if (files || moved.has(path)) work.push({ path, files, commit: moved.has(path) });
  }
  return work;
}

/** The submodule's folder holds anything but what Baton linked or copied in ("worktree include"). */
async function holdsFiles(cwd: string, path: string, includedPaths: readonly string[]): Promise<boolean> {
  if (includedPaths.some((p) => p === path || path.startsWith(`${p}/`))) return false;
  const dir = join(cwd, path);
  if (!(await lstat(dir).catch(() => undefined))?.isDirectory()) return false;
  return (await readdir(dir)).some((name) => !includedPaths.includes(`${path}/${name}`));
}
