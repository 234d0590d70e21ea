// Which paths may go into a message. Every check is made on the REAL path (symlinks and `..` resolved)
// as well as the spelled one, as workers check theirs: a symlink in the workspace that points into
// ~/.ssh is refused, and one that points outside the workspace counts as outside.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isWithin, realpathNearest, type ProtectedPaths } from '../workers/protectedPaths';
import type { ContextError } from './contextPort';

export interface PathPolicyOptions {
  /** The workspace folders (absolute; realpath-resolved here). */
  workspaceFolders: readonly string[];
  protectedPaths: ProtectedPaths;
  /** Real paths outside the workspace the user confirmed attaching (for this window). */
  confirmedOutside: ReadonlySet<string>;
}

export type PathCheck =
  | {
      ok: true;
      real: string;
      /** Workspace-relative (prefixed with the folder's name in a multi-root workspace); absolute when outside. */
      display: string;
      /** The workspace folder it is in (real path), if any. */
      folder?: string;
      outside: boolean;
    }
  | { ok: false; error: ContextError; real?: string };

/**
 * Checks a path for attaching or sending. An outside path is refused unless its real path was
 * confirmed; `allowUnconfirmed` lets the attach step see it (outside: true) and ask the user first.
 */
export function checkReferencePath(input: string, opts: PathPolicyOptions, allowUnconfirmed = false): PathCheck {
  if (!path.isAbsolute(input)) return { ok: false, error: { kind: 'unavailable', message: `'${input}' is not an absolute path.` } };
  const spelled = path.resolve(input);
  const folders = opts.workspaceFolders.map((f) => ({ spelled: path.resolve(f), real: realpathNearest(f) }));
  const shown =
    displayPath(
      spelled,
      folders.map((f) => f.spelled),
    ) ?? spelled;
  const refused = (label: string, real: string): PathCheck => ({
    ok: false,
    real,
    error: {
      kind: 'protected',
      message:
        `Refused: ${shown}${real !== spelled ? ` resolves to ${real}, which is` : ' is'} inside the protected path ${label}. ` +
        'Baton never sends credential stores or its own storage to the model, as its workers never touch them (baton.workers.protectedPaths).',
    },
  });
  // Before the existence test, so a protected path is refused even when it is missing.
  const early = opts.protectedPaths.match(spelled);
  if (early) return refused(early, realpathNearest(spelled));
  let real: string;
  try {
    real = fs.realpathSync.native(spelled);
  } catch {
    return { ok: false, error: { kind: 'missing', message: `${shown} no longer exists (deleted or moved). Remove it from the message or attach it again.` } };
  }
  const late = opts.protectedPaths.match(real);
  if (late) return refused(late, real);
  const folder = folders.find((f) => isWithin(real, f.real));
  if (folder) {
    const display = displayPath(real, [folder.real], folders.length > 1 ? path.basename(folder.spelled) : undefined) ?? real;
    return { ok: true, real, display, folder: folder.real, outside: false };
  }
  if (!allowUnconfirmed && !opts.confirmedOutside.has(real)) {
    return {
      ok: false,
      real,
      error: { kind: 'outside', message: `${real} is outside the workspace. Attach it again and confirm to send it.` },
    };
  }
  return { ok: true, real, display: real, outside: true };
}

/** `p` relative to the first folder containing it (forward slashes, `prefix/` in front), or undefined. */
function displayPath(p: string, folders: readonly string[], prefix?: string): string | undefined {
  for (const f of folders) {
    if (!isWithin(p, f)) continue;
    const rel = path.relative(f, p).split(path.sep).join('/');
    const shown = rel || '.';
    return prefix ? `${prefix}/${rel}`.replace(/\/$/, '') : shown;
  }
  return undefined;
}
