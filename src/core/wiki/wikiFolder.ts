// Where the wiki's pages live, from baton.wiki.folder. The orchestrator reads and writes the wiki without asking, and
// its index and summary go to the model, so the folder is a boundary: a repository's own .vscode/settings.json may put
// the wiki in the repository (`docs/wiki`, its intended use), never outside it (`/`, `..`, the user's home: every
// markdown file there would be read for the model and written by it); the user's own settings may put it anywhere but
// inside a protected path. Checked after realpath, so a symlink in the repository does not lead out.
import * as path from 'node:path';
import { isWithin, realpathNearest, type ProtectedPaths } from '../workers/protectedPaths';

export interface WikiFolderSetting {
  /** As set (a relative path is taken from the first workspace folder). */
  value: string;
  /** Set by the workspace (its .vscode/settings.json or a folder's), not by the user's own settings. */
  fromWorkspace: boolean;
}

export type WikiFolder =
  /** No folder set: Baton's storage. */
  | { kind: 'default' }
  | { kind: 'folder'; folder: string }
  /** Refused: the wiki stays in Baton's storage, and `problem` says why and what to do. */
  | { kind: 'refused'; problem: string };

export function resolveWikiFolder(
  setting: WikiFolderSetting | undefined,
  opts: { workspaceFolders: readonly string[]; protectedPaths: ProtectedPaths },
): WikiFolder {
  const value = setting?.value.trim();
  if (!setting || !value) return { kind: 'default' };
  const root = opts.workspaceFolders[0];
  if (!path.isAbsolute(value) && !root) return { kind: 'default' };
  const folder = realpathNearest(path.isAbsolute(value) ? value : path.join(root!, value));
  if (setting.fromWorkspace && !opts.workspaceFolders.some((f) => isWithin(folder, realpathNearest(f))))
    return {
      kind: 'refused',
      problem: `baton.wiki.folder "${value}" in this workspace's settings leads outside its folders (${folder}); the wiki stays in Baton's storage. A folder outside the workspace can be set in your user settings.`,
    };
  const label = opts.protectedPaths.match(folder) ?? opts.protectedPaths.containedIn(folder);
  if (label) return { kind: 'refused', problem: `baton.wiki.folder "${value}" is or holds the protected path ${label}; the wiki stays in Baton's storage.` };
  return { kind: 'folder', folder };
}
