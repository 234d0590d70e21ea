// An MCP tool's arguments can name a file its server then reads where no sandbox reaches (the server is the user's own
// process), and the runtime runs a tool its server marks read-only without asking anyone (measured, runtime 1.0.85: no
// permission request; a filesystem server's read_file is such a tool). So every MCP tool call, the orchestrator's and
// a worker's, passes this guard before it runs (the session's pre-tool hook, sessionConfig.ts): a protected path spelled
// in its arguments is refused; arguments too large to search whole go to the user. Best effort, as pathLikeTokens is
// for shells: it catches the absolute spellings (`/…`, `~/…`, `$HOME/…`, `file://…`) in any string of the arguments, not
// a relative one (its base is the server's own working folder, which Baton cannot know) nor a name the server maps to
// a file. A note that merely mentions `~/.ssh/config` is refused too: said in the refusal, which the model reads.
import { fileURLToPath } from 'node:url';
import type { ToolGuard } from '../copilot/agentSessions';
import type { Logger } from '../util/logger';
import type { ProtectedPaths } from './protectedPaths';

/** How much of the arguments is searched; arguments past a bound are not searched whole (`ArgsCheck.unchecked`). */
const MAX_DEPTH = 32;
const MAX_STRINGS = 5_000;
const MAX_CHARS = 256 * 1024;

export type ArgsCheck =
  /** An absolute spelling of a path in a protected entry: as spelled, and the entry (`~/.ssh`). */
  | { kind: 'protected'; path: string; label: string }
  /** Too deep, too many strings or too long a string to search whole: the user is asked, never run unasked. */
  | { kind: 'unchecked' }
  | { kind: 'clear' };

/** Searches `args` for an absolute spelling of a path that falls in a protected entry. */
export function protectedPathInArgs(args: unknown, paths: ProtectedPaths): ArgsCheck {
  const stack: Array<[unknown, number]> = [[args, 0]];
  let strings = 0;
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (typeof value === 'string') {
      if (++strings > MAX_STRINGS || value.length > MAX_CHARS) return { kind: 'unchecked' };
      for (const spelled of absoluteSpellings(value)) {
        const label = paths.match(spelled);
        if (label) return { kind: 'protected', path: spelled, label };
      }
    } else if (value && typeof value === 'object') {
      if (depth >= MAX_DEPTH) return { kind: 'unchecked' };
      for (const v of Object.values(value as Record<string, unknown>)) stack.push([v, depth + 1]);
    }
  }
  return { kind: 'clear' };
}

/** The whole string and each of its words that spell an absolute path, file URLs as paths. */
function absoluteSpellings(text: string): string[] {
  const out: string[] = [];
  for (const word of [text.trim(), ...text.split(/[\s;|&<>()`'"=,[\]{}]+/)]) {
    if (/^file:\/\//i.test(word)) {
      try {
        out.push(fileURLToPath(word));
      } catch {
        // Not a local file's URL (file://host/…): nothing on this machine to protect.
      }
    } else if (/^(\/|~(\/|$)|\$HOME(\/|$)|\$\{HOME\}(\/|$))/.test(word)) out.push(word);
  }
  return out;
}

/** The guard an MCP tool call passes before it runs; `who` names the session in the log ("Baton", "worker 'x'"). */
export function protectedPathGuard(protectedPaths: () => ProtectedPaths, logger: Logger, who: string): ToolGuard {
  return (toolName, args) => {
    const check = protectedPathInArgs(args, protectedPaths());
    if (check.kind === 'clear') return undefined;
    if (check.kind === 'unchecked') return { decision: 'ask', reason: 'its arguments are too large for Baton to check for protected paths' };
    logger.warn(`${who}: the MCP tool ${toolName} was refused, its arguments name ${check.path}, inside the protected path ${check.label}`);
    return { decision: 'deny', reason: `${check.path} is inside the protected path ${check.label}; Baton never lets a tool reach it. Do not try another way.` };
  };
}
