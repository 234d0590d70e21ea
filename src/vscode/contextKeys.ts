// The context keys Baton's menus read. `baton.answering`: the conversation the panel shows is answering (a turn runs
// or waits), so the Chat view's title and the palette offer Stop only when there is something to stop.
import * as vscode from 'vscode';
import type { BatonServices } from './services';

export const ANSWERING = 'baton.answering';

export function registerContextKeys(services: BatonServices): vscode.Disposable {
  const subscriptions: Array<() => void> = [];
  let last: boolean | undefined;
  services.onReady((core) => {
    const sync = (): void => {
      const answering = core.conversations.active.answering;
      if (answering === last) return;
      last = answering;
      void vscode.commands.executeCommand('setContext', ANSWERING, answering);
    };
    subscriptions.push(
      core.conversations.onEvent((e) => {
        if (e.type === 'busy') sync();
      }),
      // Another conversation shown: its own state.
      core.conversations.onDidChange(sync),
    );
    sync();
  });
  return new vscode.Disposable(() => {
    for (const unsubscribe of subscriptions) unsubscribe();
  });
}
