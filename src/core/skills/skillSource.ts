// Where a skill is installed from: a git URL Baton clones, or a folder on this machine read where it is. A skill's
// files are read by every session outside the sandbox, so a local folder is taken only from where a worker could go:
// never in or around a protected path (the credential stores, baton.workers.protectedPaths, Baton's own storage).
// Invariant: every local path is resolved (realpath, `~` expanded) before it is checked, and checked before it is read
// beyond its SKILL.md files or copied.
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { expandHome, isWithin, type ProtectedPaths } from '../workers/protectedPaths';
import { SkillError } from './skillError';

/** A folder on this machine ("~" expanded to `homeDir`), as its real path, or undefined when `source` is not one. */
export async function localFolder(source: string, homeDir: string): Promise<string | undefined> {
  const expanded = expandHome(source.trim(), homeDir);
  if (!isAbsolute(expanded)) return undefined;
  const real = await realpath(expanded).catch(() => undefined);
  if (!real || !(await stat(real)).isDirectory()) throw new SkillError('bad-source', `'${source}' is not an existing folder.`);
  return real;
}

export function checkGitUrl(source: string): string {
  const url = source.trim();
  // https, ssh (scp-like git@host:path) and git:// only: no ext::, no file:: transports, nothing option-like.
  if (/^(https:\/\/|ssh:\/\/|git:\/\/)[^\s]+$/.test(url) || /^[\w.-]+@[\w.-]+:[^\s]+$/.test(url)) return url;
  throw new SkillError('bad-source', `'${source}' is neither a git URL (https://, ssh://, git@host:path) nor an absolute folder path.`);
}

/** The folders of a subpath, refused when it climbs out (checked before anyone is asked, and again in the copy). */
export function subpathParts(sub: string): string[] {
  const parts = sub.split(/[\\/]+/).filter(Boolean);
  if (parts.some((p) => p === '..' || p === '.')) throw new SkillError('bad-source', `subpath '${sub}' must stay inside the repository.`);
  return parts;
}

/** The real folder `sub` names in `root`, refused unless it is one inside `root`. */
export async function inside(root: string, sub: string): Promise<string> {
  const parts = subpathParts(sub);
  const realRoot = await realpath(root);
  const target = await realpath(join(root, ...parts)).catch(() => undefined);
  if (!target || !isWithin(target, realRoot) || target === realRoot) throw new SkillError('bad-source', `subpath '${sub}' is not a folder of the repository.`);
  return target;
}

/**
 * Refuses a local folder, spelled `spelled` and really at `real` (`shown` is how the model or the user named it), when
 * it lies in a protected path or holds one: installing it would copy what no worker may read to where every session
 * reads it, outside the sandbox.
 */
export function refuseProtected(shown: string, spelled: string, real: string, guard: ProtectedPaths): void {
  const resolved = real === spelled ? '' : ` (${real})`;
  const within = guard.match(real) ?? guard.match(spelled);
  if (within)
    throw new SkillError(
      'protected',
      `Not installed: ${shown}${resolved} is inside the protected path ${within}. A skill's files are read by every session outside the sandbox, ` +
        "so none is installed from a credential store, a path in baton.workers.protectedPaths or Baton's own storage. " +
        "Ask the user to copy the skill's own folder (its SKILL.md and the files it needs) to an unprotected folder, and install it from there.",
    );
  const holds = guard.containedIn(real);
  if (holds)
    throw new SkillError(
      'protected',
      `Not installed: ${shown}${resolved} holds the protected path ${holds}, and a skill's files are read by every session outside the sandbox. ` +
        "Install from the skill's own folder (the one with its SKILL.md), or name that folder with subpath.",
    );
}
