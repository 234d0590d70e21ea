// Opens a link clicked in the panel, by the rule in linkTarget.ts: web and mail links in the browser, files inside
// the workspace in an editor, anything else nowhere (logged by the caller if it wants).
import { realpathSync } from 'node:fs';
import * as vscode from 'vscode';
import { resolveLinkTarget } from './linkTarget';

export function openLink(href: string): void {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  const target = resolveLinkTarget(href, { folders, realpath: realpathSync.native });
  if (!target) return;
  if (target.kind === 'external') {
    void vscode.env.openExternal(vscode.Uri.parse(target.uri, true));
    return;
  }
  const line = target.line ? Math.max(0, target.line - 1) : undefined;
  void vscode.window
    .showTextDocument(vscode.Uri.file(target.path), line === undefined ? {} : { selection: new vscode.Range(line, 0, line, 0) })
    .then(undefined, () => undefined);
}
