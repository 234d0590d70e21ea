// Skills Baton installed: one folder per skill (with its SKILL.md, as the runtime reads them) under Baton's own
// skill directory, which every session (orchestrator and workers) is created with via skillDirectories.
// Invariants: git runs with an argument list (never a shell string), "--" before the URL so nothing the model
// passes is read as an option, in a temporary folder; a local folder is checked where it is (protected paths, its
// SKILL.md, its files: skillSource.ts, skillFiles.ts) and only its skill folders are copied, never the whole of it; a
// skill's folder name is checked before anything is written, and an install replaces a skill only once its new copy
// is complete and checked again.
import { Git, GitError } from '../git/git';
import { cp, mkdir, mkdtemp, readdir, realpath, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import type { OwnFile } from '../util/ownFile';
import { KeyedQueue } from '../util/keyedQueue';
import { expandHome, isWithin, ProtectedPaths } from '../workers/protectedPaths';
import { SkillError } from './skillError';
import { MAX_SKILL_MD_BYTES, readSkillText, skillFilesProblem, type SkillFilesProblem } from './skillFiles';
import { checkGitUrl, inside, localFolder, refuseProtected, subpathParts } from './skillSource';

export { SkillError, type SkillErrorReason } from './skillError';

export interface SkillInfo {
  name: string;
  description: string;
  dir: string;
  /** An install put it in place of a skill of that name installed before. */
  replaced?: boolean;
}

export interface InstallOptions {
  subpath?: string;
  name?: string;
  /**
   * Asked, once what would be installed is known, when it would replace skills installed before (their folders go whole,
   * edits made to them too); false installs none. Without it they are replaced (and said so in the result).
   */
  confirmReplace?: (names: string[]) => Promise<boolean>;
}

const SKILL_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const GIT_TIMEOUT_MS = 120_000;
/** Why a skill may hold nothing else (skillFiles.ts), as the model and the user are told. */
const OWN_FILES = 'A skill holds its own files only (a link may point inside it): its folder is read outside the sandbox.';

export interface SkillLibraryOptions {
  /**
   * Where no skill is taken from (the workers' protected paths, read at each install: the setting may change). Without
   * it, the built-in credential stores and this library's own folder.
   */
  protectedPaths?: () => ProtectedPaths;
  git?: GitRunner;
}

type FoundSkill = { name: string; description: string; dir: string };

export class SkillLibrary {
  /**
   * What writes the skill folders (an install's copies, a removal), one at a time: two installs of one skill at once
   * (skill_install and learn_skill in one reply, the Skills view beside the chat) shared its staging folder, and one
   * said "Installed" while the skill it left had no SKILL.md.
   */
  private readonly writes = new KeyedQueue();
  private readonly git: GitRunner;
  private readonly guard: () => ProtectedPaths;

  constructor(
    /** Baton's skill directory (created on first use). */
    readonly dir: string,
    opts: SkillLibraryOptions = {},
  ) {
    this.git = opts.git ?? runGit;
    this.guard = opts.protectedPaths ?? (() => new ProtectedPaths({ ownPaths: [dir] }));
  }

  async ensureDir(): Promise<string> {
    await mkdir(this.dir, { recursive: true });
    return this.dir;
  }

  async list(): Promise<SkillInfo[]> {
    const entries = await readdir(this.dir, { withFileTypes: true }).catch(() => []);
    const out: SkillInfo[] = [];
    for (const e of entries) {
      if (!e.isDirectory() || e.name.startsWith('.')) continue;
      const info = await readSkill(join(this.dir, e.name));
      if (info) out.push({ ...info, name: e.name, dir: join(this.dir, e.name) });
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Throws SkillError unless `source` is a git URL Baton clones or an existing absolute folder, outside and around no
   * protected path; a folder that is not a repository is checked whole, as install would (before anyone is asked).
   */
  async checkSource(source: string, opts: Pick<InstallOptions, 'subpath' | 'name'> = {}): Promise<void> {
    if (opts.subpath !== undefined) subpathParts(opts.subpath);
    const guard = this.guard();
    const local = await localFolder(source, guard.homeDir);
    if (!local) checkGitUrl(source);
    else if (await this.checkLocal(source, local, opts.subpath, guard)) await this.inspect(source, local, opts, guard);
  }

  /**
   * Installs the skills found in `source` (a git URL, or a local folder — a git repository is cloned, any other
   * folder read in place): the folder itself when it has a SKILL.md, else each subfolder (or `skills/<name>`) that has
   * one. Only those folders are copied, once every one of them passed its checks.
   */
  async install(source: string, opts: InstallOptions = {}): Promise<SkillInfo[]> {
    const guard = this.guard();
    const local = await localFolder(source, guard.homeDir);
    // Checked again here: the Skills view installs without checkSource, and the folder may have become a link since.
    if (local && (await this.checkLocal(source, local, opts.subpath, guard))) return this.installFrom(source, local, opts, guard);
    const work = await mkdtemp(join(tmpdir(), 'baton-skill-'));
    try {
      const fetched = join(work, 'src');
      await this.git(['clone', '--depth', '1', '--quiet', '--', local ?? checkGitUrl(source), fetched], work);
      return await this.installFrom(source, fetched, opts);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  /** Installs from `fetched`: a clone, or (with `guard`) the user's own folder, read where it is. */
  private async installFrom(source: string, fetched: string, opts: InstallOptions, guard?: ProtectedPaths): Promise<SkillInfo[]> {
    const named = await this.inspect(source, fetched, opts, guard);
    const before = new Set<string>();
    for (const { name } of named) if (await readSkill(join(this.dir, name))) before.add(name);
    if (before.size && opts.confirmReplace && !(await opts.confirmReplace([...before]))) return [];
    await this.ensureDir();
    return this.writes.run(this.dir, () => this.put(source, named, before));
  }

  /** The skills in `fetched` and their folder names, each checked where it is (nothing is copied). */
  private async inspect(
    source: string,
    fetched: string,
    opts: Pick<InstallOptions, 'subpath' | 'name'>,
    guard?: ProtectedPaths,
  ): Promise<Array<{ skill: FoundSkill; name: string }>> {
    const root = opts.subpath ? await inside(fetched, opts.subpath) : await realpath(fetched);
    const found = await findSkills(root);
    if (!found.length)
      throw new SkillError(
        'no-skill',
        `No SKILL.md found in ${source}${opts.subpath ? ` (${opts.subpath})` : ''}: a skill is a folder with a SKILL.md (name and description in its front matter).`,
      );
    if (opts.name && found.length > 1)
      throw new SkillError('bad-name', `${source} holds ${found.length} skills; install them without a name, or pick one with subpath.`);
    // Every skill is checked, its name too, before the first is copied: a pack is installed whole or not at all.
    const named = found.map((skill) => ({ skill, name: skillFolderName(opts.name ?? skill.name) }));
    const twice = named.find((n, i) => named.findIndex((m) => m.name === n.name) !== i);
    if (twice) throw new SkillError('bad-name', `Not installed: ${source} holds two skills named '${twice.name}' (names are folders, in lower case).`);
    for (const entry of named) {
      // A `skills` folder that is a link leads elsewhere (in a clone too): where it leads is what would be copied.
      const real = await realpath(entry.skill.dir);
      const shown = relative(root, entry.skill.dir);
      if (guard) refuseProtected(shown ? `${source} (${shown})` : source, entry.skill.dir, real, guard);
      if (!isWithin(real, root)) throw new SkillError('not-own-file', `Not installed: ${shown} leads out of ${source} (to ${real}). ${OWN_FILES}`);
      entry.skill = { ...entry.skill, dir: real };
      const problem = await skillFilesProblem(real);
      if (problem) throw refusal(problem);
    }
    return named;
  }

  /**
   * Refuses a local source in or around a protected path, and the folder its subpath names too (when the folder has
   * it: a repository's is looked for in its clone). True when the folder is read in place, false when it is cloned.
   */
  private async checkLocal(source: string, local: string, subpath: string | undefined, guard: ProtectedPaths): Promise<boolean> {
    refuseProtected(source, expandHome(source.trim(), guard.homeDir), local, guard);
    if (subpath) {
      const searched = await inside(local, subpath).catch(() => undefined);
      if (searched) refuseProtected(`${source} (${subpath})`, join(local, subpath), searched, guard);
    }
    // A repository is cloned: what it holds is what was committed, not what lies beside it in its working tree.
    return !(await stat(join(local, '.git')).catch(() => undefined));
  }

  /**
   * Copies each checked skill folder beside its place, checks each copy again (the source may have changed since it
   * was read), and only then puts them in place: none is, unless all are.
   */
  private async put(source: string, named: Array<{ skill: FoundSkill; name: string }>, before: Set<string>): Promise<SkillInfo[]> {
    const staged = named.map(({ skill, name }) => ({ skill, name, staging: join(this.dir, `.${name}.installing`), target: join(this.dir, name) }));
    try {
      for (const { skill, staging } of staged) {
        await rm(staging, { recursive: true, force: true });
        await cp(skill.dir, staging, { recursive: true, verbatimSymlinks: true, filter: (f) => basename(f) !== '.git' }).catch((err: unknown) => {
          throw new SkillError(
            'copy-failed',
            `Not installed: ${source} could not be copied (${err instanceof Error ? err.message : String(err)}). ${OWN_FILES}`,
          );
        });
        const problem = await skillFilesProblem(staging);
        if (problem) throw refusal(problem);
        if ((await readSkillText(staging)).kind !== 'text')
          throw new SkillError('not-own-file', `Not installed: SKILL.md changed while it was copied. ${OWN_FILES}`);
      }
    } catch (err) {
      await Promise.all(staged.map((s) => rm(s.staging, { recursive: true, force: true })));
      throw err;
    }
    const installed: SkillInfo[] = [];
    for (const { skill, name, staging, target } of staged) {
      await rm(target, { recursive: true, force: true });
      await rename(staging, target);
      installed.push({ name, description: skill.description, dir: target, ...(before.has(name) ? { replaced: true } : {}) });
    }
    return installed;
  }

  /** A skill of this name is installed (what remove would take). */
  async has(name: string): Promise<boolean> {
    return (await readSkill(join(this.dir, skillFolderName(name)))) !== undefined;
  }

  async remove(name: string): Promise<void> {
    const folder = skillFolderName(name);
    const target = join(this.dir, folder);
    await this.writes.run(this.dir, async () => {
      if (!(await readSkill(target))) {
        const names = (await this.list()).map((s) => s.name);
        throw new SkillError('not-installed', `No installed skill '${name}'. ${names.length ? `Installed: ${names.join(', ')}.` : 'No skills are installed.'}`);
      }
      await rm(target, { recursive: true, force: true });
    });
  }
}

export type GitRunner = (args: string[], cwd: string) => Promise<void>;

/** git through Baton's one git seam: an argument vector, prompts off (a private URL fails instead of waiting for a password). */
const gitCli = new Git({ timeoutMs: GIT_TIMEOUT_MS });
export const runGit: GitRunner = async (args, cwd) => {
  try {
    await gitCli.run(args, { cwd });
  } catch (err) {
    if (!(err instanceof GitError)) throw err;
    throw new SkillError(
      'git',
      err.kind === 'not-installed'
        ? 'git is not installed (or not on PATH); Baton needs it to install skills from a repository.'
        : `git ${args[0]} failed: ${(err.stderr || err.message).trim().split('\n').pop()}`,
    );
  }
};

/** A skill folder name from a skill's name: lower case, safe characters only. */
export function skillFolderName(raw: string): string {
  const name = raw.trim().toLowerCase().replace(/\s+/g, '-');
  if (!SKILL_NAME.test(name)) throw new SkillError('bad-name', `Invalid skill name '${raw}': use 1-64 lower-case letters, digits, '.', '_' or '-'.`);
  return name;
}

/** name and description from SKILL.md's front matter (undefined when the folder has no SKILL.md). */
export async function readSkill(dir: string): Promise<{ name: string; description: string } | undefined> {
  // Never through a link, nor a FIFO's endless wait (skillFiles.ts): such a SKILL.md makes no skill.
  const found = await readSkillText(dir).catch((): OwnFile => ({ kind: 'absent' }));
  return found.kind === 'text' ? skillOf(dir, found.text) : undefined;
}

/** name and description from a SKILL.md's text (the folder's name when its front matter has none). */
function skillOf(dir: string, text: string): { name: string; description: string } {
  const front = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1] ?? '';
  const field = (key: string) =>
    new RegExp(`^${key}:\\s*(.+)$`, 'm')
      .exec(front)?.[1]
      ?.trim()
      .replace(/^["']|["']$/g, '');
  const description =
    field('description') ??
    text
      .replace(/^---[\s\S]*?---/, '')
      .trim()
      .split('\n')[0] ??
    '';
  return { name: field('name') ?? basename(dir), description: description.slice(0, 500) };
}

async function findSkills(root: string): Promise<Array<{ name: string; description: string; dir: string }>> {
  // A SKILL.md that is a link or not a file is refused, not passed over: "no SKILL.md found" would not say why.
  const skillAt = async (dir: string) => {
    const found = await readSkillText(dir);
    const md = join(relative(root, dir), 'SKILL.md');
    if (found.kind === 'not-a-file') throw new SkillError('not-own-file', `Not installed: ${md} is a link or not a regular file. ${OWN_FILES}`);
    if (found.kind === 'too-large')
      throw new SkillError('too-large', `Not installed: ${md} is ${found.bytes} bytes, more than the ${MAX_SKILL_MD_BYTES} a SKILL.md may hold.`);
    return found.kind === 'text' ? skillOf(dir, found.text) : undefined;
  };
  const own = await skillAt(root);
  if (own) return [{ ...own, dir: root }];
  const out: Array<{ name: string; description: string; dir: string }> = [];
  for (const base of [root, join(root, 'skills')]) {
    const entries = await readdir(base, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (!e.isDirectory() || e.name.startsWith('.')) continue;
      const info = await skillAt(join(base, e.name));
      if (info) out.push({ ...info, dir: join(base, e.name) });
    }
    if (out.length) break;
  }
  return out;
}

function refusal(problem: SkillFilesProblem): SkillError {
  return new SkillError(problem.reason, `Not installed: ${problem.text}. ${OWN_FILES}`);
}
