// Skills Baton installed: one folder per skill (with its SKILL.md, as the runtime reads them) under Baton's own
// skill directory, which every session (orchestrator and workers) is created with via skillDirectories.
// Invariants: git runs with an argument list (never a shell string), "--" before the URL so nothing the model
// passes is read as an option, in a temporary folder; a skill's folder name is checked before anything is written,
// and an install replaces a skill only once its new copy is complete.
import { Git, GitError } from '../git/git';
import { cp, mkdir, mkdtemp, readdir, realpath, rename, rm, stat } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { basename, isAbsolute, join, relative, sep } from 'node:path';
import { ToolFailure } from '../copilot/batonTool';
import type { OwnFile } from '../util/ownFile';
import { KeyedQueue } from '../util/keyedQueue';
import { MAX_SKILL_MD_BYTES, readSkillText, skillFilesProblem } from './skillFiles';

/** A skill problem worth telling the model as is (not found, bad source, git failed). */
export class SkillError extends ToolFailure {
  constructor(message: string) {
    super(message);
    this.name = 'SkillError';
  }
}

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

export class SkillLibrary {
  /**
   * What writes the skill folders (an install's copies, a removal), one at a time: two installs of one skill at once
   * (skill_install and learn_skill in one reply, the Skills view beside the chat) shared its staging folder, and one
   * said "Installed" while the skill it left had no SKILL.md.
   */
  private readonly writes = new KeyedQueue();

  constructor(
    /** Baton's skill directory (created on first use). */
    readonly dir: string,
    private readonly git: GitRunner = runGit,
  ) {}

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

  /** Throws SkillError unless `source` is an existing absolute folder or a git URL Baton clones (before anyone is asked). */
  async checkSource(source: string, subpath?: string): Promise<void> {
    if (!(await localFolder(source))) checkGitUrl(source);
    if (subpath !== undefined) subpathParts(subpath);
  }

  /**
   * Installs the skills found in `source` (a git URL, or a local folder — a git repository is cloned, any other
   * folder copied): the folder itself when it has a SKILL.md, else each subfolder (or `skills/<name>`) that has one.
   */
  async install(source: string, opts: InstallOptions = {}): Promise<SkillInfo[]> {
    const work = await mkdtemp(join(tmpdir(), 'baton-skill-'));
    try {
      const fetched = join(work, 'src');
      const local = await localFolder(source);
      if (local && !(await stat(join(local, '.git')).catch(() => undefined)))
        // A FIFO or a device in it is refused by the copy (it would wait on it, or read a device): that said plainly.
        await cp(local, fetched, { recursive: true, verbatimSymlinks: true, filter: (f) => basename(f) !== '.git' }).catch((err: unknown) => {
          throw new SkillError(`Not installed: ${source} could not be copied (${err instanceof Error ? err.message : String(err)}). ${OWN_FILES}`);
        });
      else await this.git(['clone', '--depth', '1', '--quiet', '--', local ?? checkGitUrl(source), fetched], work);
      const root = opts.subpath ? await inside(fetched, opts.subpath) : fetched;
      const found = await findSkills(root);
      if (!found.length)
        throw new SkillError(
          `No SKILL.md found in ${source}${opts.subpath ? ` (${opts.subpath})` : ''}: a skill is a folder with a SKILL.md (name and description in its front matter).`,
        );
      if (opts.name && found.length > 1) throw new SkillError(`${source} holds ${found.length} skills; install them without a name, or pick one with subpath.`);
      await this.ensureDir();
      const installed: SkillInfo[] = [];
      // Every skill is checked, its name too, before the first is copied: a pack is installed whole or not at all.
      const named = found.map((skill) => ({ skill, name: skillFolderName(opts.name ?? skill.name) }));
      const twice = named.find((n, i) => named.findIndex((m) => m.name === n.name) !== i);
      if (twice) throw new SkillError(`Not installed: ${source} holds two skills named '${twice.name}' (names are folders, in lower case).`);
      for (const skill of found) {
        const problem = await skillFilesProblem(skill.dir);
        if (problem) throw new SkillError(`Not installed: ${problem}. ${OWN_FILES}`);
      }
      const before = new Set<string>();
      for (const { name } of named) if (await readSkill(join(this.dir, name))) before.add(name);
      if (before.size && opts.confirmReplace && !(await opts.confirmReplace([...before]))) return [];
      await this.writes.run(this.dir, async () => {
        for (const { skill, name } of named) {
          const target = join(this.dir, name);
          const staging = join(this.dir, `.${name}.installing`);
          await rm(staging, { recursive: true, force: true });
          await cp(skill.dir, staging, { recursive: true, verbatimSymlinks: true, filter: (f) => basename(f) !== '.git' });
          await rm(target, { recursive: true, force: true });
          await rename(staging, target);
          installed.push({ name, description: skill.description, dir: target, ...(before.has(name) ? { replaced: true } : {}) });
        }
      });
      return installed;
    } finally {
      await rm(work, { recursive: true, force: true });
    }
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
        throw new SkillError(`No installed skill '${name}'. ${names.length ? `Installed: ${names.join(', ')}.` : 'No skills are installed.'}`);
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
      err.kind === 'not-installed'
        ? 'git is not installed (or not on PATH); Baton needs it to install skills from a repository.'
        : `git ${args[0]} failed: ${(err.stderr || err.message).trim().split('\n').pop()}`,
    );
  }
};

/** A skill folder name from a skill's name: lower case, safe characters only. */
export function skillFolderName(raw: string): string {
  const name = raw.trim().toLowerCase().replace(/\s+/g, '-');
  if (!SKILL_NAME.test(name)) throw new SkillError(`Invalid skill name '${raw}': use 1-64 lower-case letters, digits, '.', '_' or '-'.`);
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
    if (found.kind === 'not-a-file') throw new SkillError(`Not installed: ${md} is a link or not a regular file. ${OWN_FILES}`);
    if (found.kind === 'too-large')
      throw new SkillError(`Not installed: ${md} is ${found.bytes} bytes, more than the ${MAX_SKILL_MD_BYTES} a SKILL.md may hold.`);
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

/** A folder on this machine ("~" expanded), or undefined when `source` is not one. */
async function localFolder(source: string): Promise<string | undefined> {
  const raw = source.trim();
  const expanded = raw === '~' ? homedir() : raw.startsWith('~/') ? join(homedir(), raw.slice(2)) : raw;
  if (!isAbsolute(expanded)) return undefined;
  const real = await realpath(expanded).catch(() => undefined);
  if (!real || !(await stat(real)).isDirectory()) throw new SkillError(`'${source}' is not an existing folder.`);
  return real;
}

function checkGitUrl(source: string): string {
  const url = source.trim();
  // https, ssh (scp-like git@host:path) and git:// only: no ext::, no file:: transports, nothing option-like.
  if (/^(https:\/\/|ssh:\/\/|git:\/\/)[^\s]+$/.test(url) || /^[\w.-]+@[\w.-]+:[^\s]+$/.test(url)) return url;
  throw new SkillError(`'${source}' is neither a git URL (https://, ssh://, git@host:path) nor an absolute folder path.`);
}

/** The folders of a subpath, refused when it climbs out (checked before anyone is asked, and again in the copy). */
function subpathParts(sub: string): string[] {
  const parts = sub.split(/[\\/]+/).filter(Boolean);
  if (parts.some((p) => p === '..' || p === '.')) throw new SkillError(`subpath '${sub}' must stay inside the repository.`);
  return parts;
}

async function inside(root: string, sub: string): Promise<string> {
  const parts = subpathParts(sub);
  const realRoot = await realpath(root);
  const target = await realpath(join(root, ...parts)).catch(() => undefined);
  if (!target || !target.startsWith(realRoot + sep)) throw new SkillError(`subpath '${sub}' is not a folder of the repository.`);
  return target;
}
