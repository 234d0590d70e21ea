// Baton: Show Usage, an editor tab with the usage chart and tables (usageHtml.ts), kept current while it is open.
import * as vscode from 'vscode';
import type { BatonServices } from './services';
import { renderUsageHtml } from './usageHtml';
import { createNonce } from './webviewHtml';

export function registerUsageView(services: BatonServices): vscode.Disposable {
  let panel: vscode.WebviewPanel | undefined;
  return vscode.commands.registerCommand('baton.showUsage', async () => {
    const core = await services.ready();
    if (panel) {
      panel.reveal();
      return;
    }
    const opened = vscode.window.createWebviewPanel('baton.usage', 'Baton Usage', vscode.ViewColumn.Active, { enableScripts: false, localResourceRoots: [] });
    panel = opened;
    const render = (): void => {
      if (opened.visible) opened.webview.html = renderUsageHtml(core.usage.report(30), { cspSource: opened.webview.cspSource, nonce: createNonce() });
    };
    render();
    // Current while open: after each turn and each worker change (at most once a second).
    let timer: NodeJS.Timeout | undefined;
    const soon = (): void => {
      timer ??= setTimeout(() => {
        timer = undefined;
        render();
      }, 1000);
    };
    const offTurns = core.conversations.onEvent((e) => {
      if (e.type === 'turn.completed' || e.type === 'turn.failed' || e.type === 'turn.cancelled') soon();
    });
    const offWorkers = core.pool.onDidChange(soon);
    opened.onDidChangeViewState(() => render());
    opened.onDidDispose(() => {
      offTurns();
      offWorkers();
      if (timer) clearTimeout(timer);
      panel = undefined;
    });
  });
}
