// What Baton reads and installs of a skill. A skill's folder is read outside any sandbox, by Baton (its SKILL.md's
// name and description) and by the runtime (its SKILL.md goes into every session that loads it), so a file of it that
// is a link to elsewhere would put what the link names before the model. Measured before this check: a repository
// whose SKILL.md was a link to a file of the user's installed with that file's first line as its description, and
// one linking /proc/self/environ would have read the extension host's whole environment. Invariant: a skill Baton
// installs holds regular files, folders, and relative links that stay inside it, within MAX_SKILL_ENTRIES and
// MAX_SKILL_BYTES; its SKILL.md is never a link.
import { lstat, readdir, readlink, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { readOwnFile, type OwnFile } from '../util/ownFile';

/** The most entries a skill folder may hold (a skill is instructions and a few scripts, not a repository). */
export const MAX_SKILL_ENTRIES = 5000;
/**
 * The most bytes a skill's files may hold together. A skill is instructions, scripts and reference files (schemas,
 * templates): 20 MB leaves room for those, and keeps a folder of data, a model or a build's output from being copied
 * into Baton's storage, where every session is offered it outside the sandbox.
 */
export const MAX_SKILL_BYTES = 20 * 1024 * 1024;
/** The largest SKILL.md read. */
export const MAX_SKILL_MD_BYTES = 1024 * 1024;

/** Why a skill folder cannot be installed as it is. */
export interface SkillFilesProblem {
  reason: 'not-own-file' | 'too-many-entries' | 'too-large';
  /** In words, for the model and the user. */
  text: string;
}

/** `dir`'s SKILL.md, read without following a link and without waiting on a FIFO (ownFile.ts). */
export function readSkillText(dir: string): Promise<OwnFile> {
  return readOwnFile(join(dir, 'SKILL.md'), MAX_SKILL_MD_BYTES);
}

/**
 * Why the skill folder `dir` cannot be installed as it is (a link leading out of it or absolute, something that is
 * neither a file nor a folder, too many entries or bytes), or undefined when it can. `.git` is not looked at (not
 * copied). Read in place, before anything is copied, and bounded: it stops at the first entry or byte past a limit.
 */
export async function skillFilesProblem(dir: string): Promise<SkillFilesProblem | undefined> {
  const root = await realpath(dir);
  let seen = 0;
  let bytes = 0;
  const walk = async (folder: string): Promise<SkillFilesProblem | undefined> => {
    for (const e of await readdir(folder, { withFileTypes: true })) {
      if (e.name === '.git') continue;
      if (++seen > MAX_SKILL_ENTRIES) return { reason: 'too-many-entries', text: `it holds more than ${MAX_SKILL_ENTRIES} files and folders` };
      const path = join(folder, e.name);
      const shown = relative(dir, path);
      if (e.isDirectory()) {
        const problem = await walk(path);
        if (problem) return problem;
      } else if (e.isSymbolicLink()) {
        const target = await readlink(path);
        const resolved = await realpath(path).catch(() => undefined);
        const r = resolved === undefined ? undefined : relative(root, resolved);
        if (isAbsolute(target) || r === undefined || r === '..' || r.startsWith(`..${sep}`) || isAbsolute(r))
          return { reason: 'not-own-file', text: `${shown} is a link to ${target}, outside the skill` };
      } else if (!e.isFile()) return { reason: 'not-own-file', text: `${shown} is neither a file nor a folder` };
      else if ((bytes += (await lstat(path)).size) > MAX_SKILL_BYTES)
        return { reason: 'too-large', text: `its files hold more than ${MAX_SKILL_BYTES / 1024 / 1024} MB (the most a skill may hold)` };
    }
    return undefined;
  };
  if (!(await lstat(dir)).isDirectory()) return { reason: 'not-own-file', text: `${dir} is not a folder` };
  return walk(dir);
}
