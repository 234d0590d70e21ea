// Where workers may never go: credential stores, user-configured paths and Baton's own folders.
// Every check compares REAL paths (symlinks and `..` resolved) as well as the spelled path, so
// `~/.ssh/../x`, a symlink into ~/.ssh and a symlinked ~/.ssh itself are all caught.
// Pure apart from reading the file system: no logging, no settings, no vscode.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Credential and config stores no worker may read, write or work in. */
export const DEFAULT_PROTECTED_PATHS: readonly string[] = [
  '~/.ssh',
  '~/.gnupg',
  '~/.aws',
  '~/.azure',
  '~/.config/gcloud',
  '~/.kube',
  '~/.docker',
  '~/.npmrc',
  '~/.pypirc',
  '~/.git-credentials',
  '~/.config/git/credentials',
  '~/.netrc',
  '~/.config/gh',
  '~/.config/hub',
  // Database passwords, publishing tokens and secret stores a build never needs to read.
  '~/.pgpass',
  '~/.my.cnf',
  '~/.cargo/credentials',
  '~/.cargo/credentials.toml',
  '~/.gem/credentials',
  '~/.m2/settings-security.xml',
  '~/.terraform.d/credentials.tfrc.json',
  '~/.vault-token',
  '~/.config/containers/auth.json',
  '~/.password-store',
  '~/.local/share/keyrings',
  // Shell history: secrets typed on a command line (export TOKEN=…) stay in it.
  '~/.bash_history',
  '~/.zsh_history',
  '~/.local/share/fish/fish_history',
  // Interactive clients' history: a password typed at a prompt (ALTER USER … PASSWORD, a connection string) stays in it.
  '~/.psql_history',
  '~/.mysql_history',
  '~/.sqlite_history',
  '~/.rediscli_history',
  '~/.python_history',
  '~/.node_repl_history',
  // The Copilot CLI's own login and sessions; the Copilot editor plugins' sign-in (hosts.json, apps.json).
  '~/.copilot',
  '~/.config/github-copilot',
  // Package registries' and cloud tools' tokens kept in a tool's config file.
  '~/.gradle/gradle.properties',
  '~/.config/pip/pip.conf',
  '~/.pip/pip.conf',
  '~/.nuget/NuGet/NuGet.Config',
  '~/.composer/auth.json',
  '~/.config/composer/auth.json',
  '~/.pub-cache/credentials.json',
  '~/.yarnrc.yml',
  '~/.s3cfg',
  '~/.boto',
  '~/.terraformrc',
  '~/.oci',
  '~/.config/rclone/rclone.conf',
  '~/.config/doctl',
  '~/.config/hcloud',
  '~/.fly',
  '~/.config/op',
];

/**
 * The kernel's own folders: `/proc/<pid>/environ` is every process's environment (the extension host's holds every
 * secret of the user's shell), readable by the same user. Not denied in the sandbox, whose `/proc` is its own (a new pid
 * namespace) and which commands need; so never a worker's folder, and a read in one from a folder above (`/`) is asked.
 */
const SYSTEM_FOLDERS: readonly string[] = process.platform === 'win32' ? [] : ['/proc', '/sys', '/dev'];

/** The kernel's folder (`/proc`) that real path `p` is in, or undefined. */
export function systemFolder(p: string): string | undefined {
  return SYSTEM_FOLDERS.find((s) => isWithin(p, s));
}

// macOS and Windows file systems are case-insensitive by default: `~/.SSH` is `~/.ssh` there.
const CASE_INSENSITIVE = process.platform === 'darwin' || process.platform === 'win32';

/** `~` and `~/x` (and `$HOME/x`, `${HOME}/x`) become paths under `homeDir`; anything else is returned as is. */
export function expandHome(p: string, homeDir: string): string {
  if (p === '~' || p === '$HOME' || p === '${HOME}') return homeDir;
  const m = /^(~|\$HOME|\$\{HOME\})[\\/](.*)$/.exec(p);
  return m ? path.join(homeDir, m[2]!) : p;
}

/**
 * The real path of `p` even when it does not exist yet: the nearest existing ancestor is realpath'd
 * and the missing tail appended. A dangling symlink is followed to where it points, because writing
 * through it would create the file there.
 */
export function realpathNearest(p: string, depth = 0): string {
  const abs = path.resolve(p);
  // Most protected paths do not exist: asked first without an exception (a thrown fs error costs more than the
  // call), since a worker's start builds this set several times (docs/performance.md, note ⁹).
  if (fs.existsSync(abs)) {
    try {
      return fs.realpathSync.native(abs);
    } catch {
      // gone since, or unreadable: resolve what exists
    }
  }
  const parent = path.dirname(abs);
  if (parent === abs) return abs;
  const realParent = realpathNearest(parent, depth + 1);
  const here = path.join(realParent, path.basename(abs));
  if (depth < 40) {
    try {
      if (fs.lstatSync(here, { throwIfNoEntry: false })?.isSymbolicLink()) {
        return realpathNearest(path.resolve(realParent, fs.readlinkSync(here)), depth + 1);
      }
    } catch {
      // unreadable: the joined path is the answer
    }
  }
  return here;
}

/** True when `child` is `parent` or lies under it (both absolute and normalized). */
export function isWithin(child: string, parent: string): boolean {
  const a = CASE_INSENSITIVE ? child.toLowerCase() : child;
  const b = CASE_INSENSITIVE ? parent.toLowerCase() : parent;
  const rel = path.relative(b, a);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

export interface ProtectedPathOptions {
  /** Defaults to os.homedir(); injectable so tests use a temp HOME. */
  homeDir?: string;
  /** User-configured extra paths (`~` allowed; relative paths are taken relative to the home dir). */
  extra?: readonly string[];
  /** Baton's installation and storage dirs. */
  ownPaths?: readonly string[];
  /** Folders inside a protected entry that are NOT protected: Baton's worker worktrees inside its storage. */
  allowedInside?: readonly string[];
}

interface Entry {
  /** As configured, for messages (`~/.ssh`). */
  label: string;
  /** The spelled absolute path and, when different, its real path. */
  candidates: string[];
}

/** The resolved set of protected locations, built once per check from the current settings. */
export class ProtectedPaths {
  readonly homeDir: string;
  private readonly entries: Entry[];
  private readonly allowed: string[];

  constructor(opts: ProtectedPathOptions = {}) {
    this.homeDir = path.resolve(opts.homeDir ?? os.homedir());
    this.allowed = (opts.allowedInside ?? []).map((a) => realpathNearest(path.resolve(this.homeDir, expandHome(a, this.homeDir))));
    const labels = [...DEFAULT_PROTECTED_PATHS, ...(opts.extra ?? []), ...(opts.ownPaths ?? [])];
    const seen = new Set<string>();
    this.entries = [];
    for (const raw of labels) {
      const label = raw.trim();
      if (!label || seen.has(label)) continue;
      seen.add(label);
      const expanded = expandHome(label, this.homeDir);
      const spelled = path.resolve(this.homeDir, expanded);
      const real = realpathNearest(spelled);
      this.entries.push({ label, candidates: real === spelled ? [spelled] : [spelled, real] });
    }
  }

  /** Labels of every protected entry, for messages and the UI. */
  get labels(): string[] {
    return this.entries.map((e) => e.label);
  }

  /** Every protected location, spelled and real (the sandbox denies them all). */
  get paths(): string[] {
    return [...new Set(this.entries.flatMap((e) => e.candidates))];
  }

  /**
   * The label of the protected entry that `p` (absolute, or relative to `base`) falls in, or undefined.
   * Both the spelled path (`..` normalized) and its real path are checked.
   */
  match(p: string, base?: string): string | undefined {
    const expanded = expandHome(p, this.homeDir);
    const spelled = path.resolve(base ?? this.homeDir, expanded);
    const real = realpathNearest(spelled);
    // A carve-out counts only when the real path is inside it: a symlink into the rest of the entry is still caught.
    if (this.allowed.some((a) => isWithin(real, a) && (spelled === real || isWithin(spelled, a)))) return undefined;
    // Spelled inside a carve-out (a worker's worktree), the spelling is the worker's own: only where it leads counts, so
    // a folder baton.workers.worktreeInclude linked in (the user's node_modules) is reachable, and a link to ~/.ssh is not.
    const carved = this.allowed.some((a) => isWithin(spelled, a));
    for (const e of this.entries) {
      if (e.candidates.some((c) => (!carved && isWithin(spelled, c)) || isWithin(real, c))) return e.label;
    }
    return undefined;
  }

  /** The label of a protected entry strictly INSIDE directory `p` (a recursive read of `p` would reach it), or undefined. */
  containedIn(p: string, base?: string): string | undefined {
    const spelled = path.resolve(base ?? this.homeDir, expandHome(p, this.homeDir));
    const real = realpathNearest(spelled);
    for (const e of this.entries) {
      if (e.candidates.some((c) => c !== spelled && c !== real && (isWithin(c, spelled) || isWithin(c, real)))) return e.label;
    }
    return undefined;
  }
}

export type WorkingDirResult = { ok: true; dir: string } | { ok: false; error: string };

/**
 * Resolves a worker's working directory: `~` expanded, `..` and symlinks resolved (realpath) BEFORE
 * the protected check. A directory that merely CONTAINS a protected one (the home dir) is allowed;
 * the worker's permission handler still denies the protected paths inside it.
 */
export function resolveWorkingDir(input: string, protectedPaths: ProtectedPaths): WorkingDirResult {
  const trimmed = input.trim();
  if (!trimmed) return { ok: false, error: 'working_dir is empty: give an absolute directory path.' };
  const expanded = expandHome(trimmed, protectedPaths.homeDir);
  if (!path.isAbsolute(expanded)) {
    return { ok: false, error: `working_dir must be an absolute path (or start with ~): '${trimmed}'.` };
  }
  const spelled = path.resolve(expanded);
  const refused = (label: string, real?: string): WorkingDirResult => ({
    ok: false,
    error:
      `Refused: '${trimmed}'${real && real !== spelled ? ` resolves to ${real}, which is` : ' is'} inside the protected path ${label}. ` +
      'Workers may not operate in credential stores or in Baton\u2019s own folders.',
  });
  // Checked before the existence test, so a protected path is refused even when it is missing.
  const early = protectedPaths.match(spelled);
  if (early) return refused(early, realpathNearest(spelled));
  let real: string;
  try {
    real = fs.realpathSync.native(spelled);
  } catch {
    return {
      ok: false,
      error: `Directory not found: '${trimmed}'${trimmed !== spelled ? ` (${spelled})` : ''}. Create it first or pick an existing directory.`,
    };
  }
  const late = protectedPaths.match(real);
  if (late) return refused(late, real);
  const system = systemFolder(real);
  if (system)
    return {
      ok: false,
      error: `Refused: '${trimmed}'${real !== spelled ? ` resolves to ${real}, which is` : ' is'} in ${system}, the system's view of processes and devices (every process's environment is readable there). Workers work in project folders.`,
    };
  let isDir = false;
  try {
    isDir = fs.statSync(real).isDirectory();
  } catch {
    // vanished between realpath and stat: reported as not a directory
  }
  if (!isDir) return { ok: false, error: `Not a directory: '${trimmed}'. Give the folder the worker should work in.` };
  return { ok: true, dir: real };
}
