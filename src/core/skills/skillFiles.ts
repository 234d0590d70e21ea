// What Baton reads and installs of a skill. A skill's folder is read outside any sandbox, by Baton (its SKILL.md's
// name and description) and by the runtime (its SKILL.md goes into every session that loads it), so a file of it that
// is a link to elsewhere would put what the link names before the model. Measured before this check: a repository
// whose SKILL.md was a link to a file of the user's installed with that file's first line as its description, and
// one linking /proc/self/environ would have read the extension host's whole environment. Invariant: a skill Baton
// installs holds regular files, folders, and relative links that stay inside it; its SKILL.md is never a link.
import { constants } from 'node:fs';
import { lstat, open, readdir, readlink, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';

/** The most entries a skill folder may hold (a skill is instructions and a few scripts, not a repository). */
export const MAX_SKILL_ENTRIES = 5000;
/** The largest SKILL.md read. */
export const MAX_SKILL_MD_BYTES = 1024 * 1024;

/** A SKILL.md as found: its text, none, or something that is not a file of the skill's own (a link, a FIFO). */
export type SkillText = { kind: 'text'; text: string } | { kind: 'absent' } | { kind: 'not-a-file' } | { kind: 'too-large'; bytes: number };

/** `dir`'s SKILL.md, read without following a link and without waiting on a FIFO. */
export async function readSkillText(dir: string): Promise<SkillText> {
  // O_NOFOLLOW and O_NONBLOCK are POSIX (0 elsewhere): the open itself neither follows a link nor waits.
  const flags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
  const file = await open(join(dir, 'SKILL.md'), flags).catch((err: NodeJS.ErrnoException) => err);
  if (file instanceof Error) return file.code === 'ENOENT' || file.code === 'ENOTDIR' ? { kind: 'absent' } : { kind: 'not-a-file' };
  try {
    const info = await file.stat();
    if (!info.isFile()) return { kind: 'not-a-file' };
    if (info.size > MAX_SKILL_MD_BYTES) return { kind: 'too-large', bytes: info.size };
    return { kind: 'text', text: await file.readFile('utf8') };
  } finally {
    await file.close();
  }
}

/**
 * Why the skill folder `dir` cannot be installed as it is (a link leading out of it or absolute, something that is
 * neither a file nor a folder, too many entries), or undefined when it can. `.git` is not looked at (not copied).
 */
export async function skillFilesProblem(dir: string): Promise<string | undefined> {
  const root = await realpath(dir);
  let seen = 0;
  const walk = async (folder: string): Promise<string | undefined> => {
    for (const e of await readdir(folder, { withFileTypes: true })) {
      if (e.name === '.git') continue;
      if (++seen > MAX_SKILL_ENTRIES) return `it holds more than ${MAX_SKILL_ENTRIES} files and folders`;
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
          return `${shown} is a link to ${target}, outside the skill`;
      } else if (!e.isFile()) return `${shown} is neither a file nor a folder`;
    }
    return undefined;
  };
  if (!(await lstat(dir)).isDirectory()) return `${dir} is not a folder`;
  return walk(dir);
}
