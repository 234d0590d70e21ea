// baton.wiki.folder as Baton uses it: a workspace's value only inside the workspace, nobody's inside a protected path
// (core/wiki/wikiFolder.ts says why). A refused value pops up once as a warning and stays in Doctor until it is fixed;
// the wiki meanwhile lives in Baton's storage. A value that is not text is named as any setting of the wrong type is
// (settings.ts), and the wiki lives in Baton's storage too.
import * as vscode from 'vscode';
import { resolveWikiFolder } from '../core/wiki/wikiFolder';
import { ProtectedPaths } from '../core/workers/protectedPaths';
import { readWikiFolderSetting, readWorkerSettings } from './settings';

let shown: string | undefined;

function resolved() {
  return resolveWikiFolder(readWikiFolderSetting(), {
    workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
    protectedPaths: new ProtectedPaths({ extra: readWorkerSettings().protectedPaths }),
  });
}

/** The wiki's folder; undefined: Baton's storage (nothing set, or the value refused). */
export function readWikiFolder(): string | undefined {
  const wiki = resolved();
  if (wiki.kind === 'refused' && shown !== wiki.problem) {
    shown = wiki.problem;
    void vscode.window.showWarningMessage(`Baton: ${wiki.problem}`, 'Open Settings').then((choice) => {
      if (choice) void vscode.commands.executeCommand('workbench.action.openSettings', 'baton.wiki.folder');
    });
  }
  return wiki.kind === 'folder' ? wiki.folder : undefined;
}

/** Why baton.wiki.folder is not used, for Doctor; undefined when it is (or is not set). */
export function wikiFolderProblem(): string | undefined {
  const wiki = resolved();
  return wiki.kind === 'refused' ? wiki.problem : undefined;
}
