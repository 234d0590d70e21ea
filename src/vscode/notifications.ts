// A notification when a worker's result arrives while the chat panel is hidden.
import * as vscode from 'vscode';
import type { BatonServices } from './services';

export function registerNotifications(services: BatonServices, isChatVisible: () => boolean): vscode.Disposable {
  let unsubscribe: (() => void) | undefined;
  services.onReady((core) => {
    unsubscribe = core.conversations.onEvent((e) => {
      // A result answered back into VS Code's Chat view, a tool call or an API caller is shown there, not here.
      if (e.type !== 'turn.completed' || e.origin.channel !== 'background' || isChatVisible()) return;
      if (e.origin.replyTo && e.origin.replyTo !== 'panel' && e.origin.replyTo !== 'command') return;
      const summary = e.result.content.split('\n').find((l) => l.trim()) ?? 'finished';
      void vscode.window
        .showInformationMessage(`Baton: worker '${e.origin.worker ?? '?'}' — ${summary.slice(0, 160)}`, 'Open Chat')
        .then((pick) => pick && vscode.commands.executeCommand('baton.focus'));
    });
  });
  return new vscode.Disposable(() => unsubscribe?.());
}
