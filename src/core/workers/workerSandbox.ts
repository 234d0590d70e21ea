// The sandbox policy of one worker: everything protected is denied, the worker's own directory is
// writable but for its `.git`, the rest of the machine is what the runtime's base policy allows (toolchains, temp).
// Invariant: a protected folder that holds the worker's directory (Baton's storage holds its
// worktrees), or a folder of the runtime's own programs (Baton's install folder holds its ripgrep), is denied piece by
// piece around it, never skipped as a whole.
//
// Why not its `.git`: git reads config and hooks from the `.git` of the folder it runs in, and config can name programs
// git runs (core.fsmonitor, filters, hooks); Baton runs git in a worker's worktree outside its sandbox (review, Apply,
// keep as a branch), as the user's own git and VS Code's do in their repository. Measured on the real runtime: a worker
// that pointed its worktree's `.git` file at a git folder of its own, whose core.fsmonitor named its script, had that
// script run by Baton's next git, unsandboxed; a worker in place in the user's repository could write its hooks and
// config. Read-only, the `.git` there (a worktree's file, the user's repository's folder) cannot be rewritten, moved or
// deleted (measured: EROFS, EBUSY). The sandbox guards only what exists: where there is none, a worker can make one.
// The Copilot runtime's own git runs with core.fsmonitor off (measured).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SandboxNetwork, SandboxPolicy } from '../copilot/agentSessions';
import { isWithin, realpathNearest } from './protectedPaths';

export interface WorkerSandboxArgs {
  /** The worker's directory (real path). */
  workingDir: string;
  /** Real paths of every protected location (built-in, settings, Baton's own, the CLI's login). */
  protectedPaths: string[];
  network: SandboxNetwork;
  /**
   * Readable, never writable: the repository's git folder when the worker works in a linked
   * worktree (so `git status` works; writable it would let a worker plant hooks or move the
   * user's branches), and the folders Baton linked into the worktree (node_modules).
   */
  readonlyPaths?: string[];
  /** A worker started to read only: its directory is readable, nothing in it writable. */
  readOnly?: boolean;
  /** Folders of the programs the runtime runs in the sandbox by itself (its grep and glob tools' ripgrep): readable. */
  runtimeTools?: string[];
}

export function workerSandboxPolicy(args: WorkerSandboxArgs): SandboxPolicy {
  const tools = (args.runtimeTools ?? []).map((t) => realpathNearest(t));
  const guarded = args.protectedPaths.map((p) => realpathNearest(p));
  // What it is given to read stays readable inside a protected folder that holds it (Baton's own repository of a folder
  // without git is in Baton's protected storage, beside the worktree: folderRepos.ts); never one that is protected
  // itself or holds a protected path (a folder linked in that the user protected stays denied).
  const readable = (args.readonlyPaths ?? []).map((p) => realpathNearest(p)).filter((r) => !guarded.some((g) => isWithin(g, r)));
  const keep = [args.workingDir, ...tools, ...readable];
  const denied = new Set<string>();
  for (const p of guarded) for (const d of carveAround(p, keep)) denied.add(d);
  return {
    deniedPaths: [...denied],
    readonlyPaths: [...new Set([...(args.readonlyPaths ?? []), ...(args.readOnly ? [args.workingDir] : gitIn(args.workingDir)), ...tools])],
    readwritePaths: args.readOnly ? [] : [args.workingDir],
    network: args.network,
  };
}

/** `<dir>/.git` when it exists (a file, a folder or a link). */
function gitIn(dir: string): string[] {
  const git = path.join(dir, '.git');
  return fs.lstatSync(git, { throwIfNoEntry: false }) ? [git] : [];
}

/** `entry` itself, or (when it holds one of `keep`) its children except the ways down to them. */
function carveAround(entry: string, keep: readonly string[], depth = 0): string[] {
  const inside = keep.filter((k) => isWithin(k, entry));
  if (!inside.length) return [entry];
  if (inside.includes(entry) || depth > 20) return [];
  let children: string[];
  try {
    children = fs.readdirSync(entry).map((n) => path.join(entry, n));
  } catch {
    return [];
  }
  return children.flatMap((child) => carveAround(child, inside, depth + 1));
}
