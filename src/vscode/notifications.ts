// Notifications for what needs the user while the chat panel is hidden: a worker's result, and a permission question
// (a worker's command, a conversation's MCP tool), which would otherwise wait unseen until its worker timed out.
import * as vscode from 'vscode';
import { permissionAsk } from '../shared/permissionAsk';
import { visibleText } from '../shared/visibleText';
import type { BatonServices } from './services';

const DETAIL_CHARS = 120;

export function registerNotifications(services: BatonServices, isChatVisible: () => boolean): vscode.Disposable {
  let unsubscribe: (() => void) | undefined;
  services.onReady((core) => {
    const offQuestions = core.chat.onDidPost((m) => {
      if (m.type !== 'permission/request' || isChatVisible()) return;
      // Hidden characters written out, as the panel's prompt shows them: a bidi override reverses what the user reads.
      const { kind } = m.request;
      const worker = visibleText(m.request.worker);
      const detail = visibleText(m.request.detail);
      const what = detail.length > DETAIL_CHARS ? `${detail.slice(0, DETAIL_CHARS)}…` : detail;
      void vscode.window
        .showWarningMessage(`Baton: ${worker} ${permissionAsk(kind)}: ${what}`, 'Open Chat')
        .then((pick) => pick && vscode.commands.executeCommand('baton.focus'));
    });
    const offResults = core.conversations.onEvent((e) => {
      // A result answered back into VS Code's Chat view, a tool call or an API caller is shown there, not here.
      if (e.type !== 'turn.completed' || e.origin.channel !== 'background' || isChatVisible()) return;
      if (e.origin.replyTo && e.origin.replyTo !== 'panel' && e.origin.replyTo !== 'command') return;
      const summary = e.result.content.split('\n').find((l) => l.trim()) ?? 'finished';
      void vscode.window
        .showInformationMessage(`Baton: worker '${e.origin.worker ?? '?'}' — ${summary.slice(0, 160)}`, 'Open Chat')
        .then((pick) => pick && vscode.commands.executeCommand('baton.focus'));
    });
    unsubscribe = () => {
      offQuestions();
      offResults();
    };
  });
  return new vscode.Disposable(() => unsubscribe?.());
}
