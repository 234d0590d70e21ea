// How the side bar's trees name a folder in a description: short enough to leave room for what follows it (the
// full path is in each item's tooltip).
import * as path from 'node:path';
import * as vscode from 'vscode';

/** `dir` with the home folder as `~`. */
export function homeShortened(dir: string): string {
  const home = process.env.HOME ?? process.env.USERPROFILE;
  if (home && (dir === home || dir.startsWith(home + path.sep))) return `~${dir.slice(home.length)}`;
  return dir;
}

/**
 * `dir` as the workspace names it: its path inside the workspace folder that holds it (the folder's name for the
 * folder itself, and before the path when several are open), else the path with `~`.
 */
export function placeLabel(dir: string): string {
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(dir));
  if (!folder) return homeShortened(dir);
  const inside = path.relative(folder.uri.fsPath, dir).split(path.sep).join('/');
  if (!inside) return folder.name;
  return (vscode.workspace.workspaceFolders?.length ?? 0) > 1 ? `${folder.name}/${inside}` : inside;
}
