// The status-bar item: idle / thinking / N messages queued / N workers running, and the model. Click focuses the panel.
import * as vscode from 'vscode';
import type { BatonServices } from './services';

export function registerStatusBar(services: BatonServices): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('baton.status', vscode.StatusBarAlignment.Right, 100);
  item.name = 'Baton';
  item.command = 'baton.focus';
  item.text = '$(rocket) Baton';
  item.tooltip = 'Baton: open the chat';
  item.show();
  const subscriptions: Array<() => void> = [];
  services.onReady((core) => {
    let running = 0;
    const render = () => {
      // Busy while any conversation answers (two can at once); opening a session ahead is not answering.
      const open = core.conversations.all();
      const busy = open.some((o) => o.answering);
      // Messages waiting behind an answer, in every conversation (each can be removed in the panel).
      const queued = open.reduce((n, o) => n + o.waitingMessages.size, 0);
      // The runtime's idle restart holds every queue, so it reads as busy: say what it is instead.
      const doing = core.recycler.restarting ? 'restarting Copilot' : busy ? 'thinking' : undefined;
      const parts = [doing ? `$(loading~spin) Baton: ${doing}` : '$(rocket) Baton'];
      if (queued) parts.push(`· ${queued} queued`);
      if (running) parts.push(`· ${running} worker${running === 1 ? '' : 's'}`);
      item.text = parts.join(' ');
      const waiting = queued ? `, ${queued} message${queued === 1 ? '' : 's'} queued` : '';
      item.tooltip = `Baton — ${doing ?? 'idle'}${waiting}, ${running} worker${running === 1 ? '' : 's'} running, model ${core.orchestrator.currentModel}`;
    };
    subscriptions.push(
      core.conversations.onEvent((e) => {
        if (e.type === 'busy' || e.type === 'model.changed') render();
      }),
      core.recycler.onRestarting(render),
      core.pool.onDidChange((cards) => {
        running = cards.filter((c) => c.state === 'running').length;
        render();
      }),
    );
    render();
  });
  return new vscode.Disposable(() => {
    for (const unsubscribe of subscriptions) unsubscribe();
    item.dispose();
  });
}
