// The palette's conversation commands: Open Conversation… (a quick pick of every conversation), Rename Conversation…
// and Delete Conversation… (both on the one shown unless given an id, as the panel's list does); delete asks first.
// Open Conversation as Markdown puts the one shown (or the one given) in an untitled Markdown editor.
import * as vscode from 'vscode';
import { ConversationError } from '../core/conversations/conversationError';
import { conversationMarkdown } from '../core/chat/conversationMarkdown';
import type { ConversationInfo } from '../core/conversations/conversations';
import { TITLE_MAX } from '../core/store/conversationTitle';
import type { BatonServices } from './services';

const UNTITLED = 'New conversation';

export function registerConversationCommands(services: BatonServices): vscode.Disposable {
  const register = (id: string, fn: (...args: never[]) => unknown) => vscode.commands.registerCommand(id, fn);
  return vscode.Disposable.from(
    register('baton.openConversation', async () => {
      const core = await services.ready();
      const items = core.conversations.list().map((c) => ({
        label: c.title || UNTITLED,
        description: `${c.messages} message${c.messages === 1 ? '' : 's'}${c.busy ? ' · answering' : ''}${c.active ? ' · shown' : ''}`,
        detail: `Last active ${new Date(`${c.lastActivity.replace(' ', 'T')}Z`).toLocaleString()}`,
        id: c.id,
      }));
      const pick = await vscode.window.showQuickPick(items, {
        title: 'Baton: open a conversation',
        placeHolder: 'Type to filter by title',
        matchOnDescription: true,
      });
      if (!pick) return;
      core.conversations.open(pick.id);
      await vscode.commands.executeCommand('baton.focus');
    }),
    register('baton.exportConversation', async (id?: string) => {
      const core = await services.ready();
      const target = find(core.conversations.list(), id);
      if (!target) return notFound(id);
      // Untitled: nothing is written to disk until the user saves it where they choose.
      const doc = await vscode.workspace.openTextDocument({
        language: 'markdown',
        content: conversationMarkdown(target.title, core.chat.messagesOf(target.id)),
      });
      await vscode.window.showTextDocument(doc, { preview: false });
    }),
    register('baton.renameConversation', async (id?: string) => {
      const core = await services.ready();
      const target = find(core.conversations.list(), id);
      if (!target) return notFound(id);
      const title = await vscode.window.showInputBox({
        title: 'Baton: rename the conversation',
        value: target.title,
        prompt: 'Its name in the list (the first message named it).',
        validateInput: (v) =>
          !v.trim() ? 'A name needs at least one letter or digit.' : v.trim().length > TITLE_MAX ? `At most ${TITLE_MAX} characters.` : undefined,
      });
      if (title === undefined) return;
      try {
        core.conversations.rename(target.id, title);
      } catch (err) {
        void vscode.window.showErrorMessage(`Baton: ${err instanceof ConversationError ? err.message : String(err)}`);
      }
    }),
    register('baton.deleteConversation', async (id?: string) => {
      const core = await services.ready();
      const target = find(core.conversations.list(), id);
      if (!target) return notFound(id);
      const answer = await vscode.window.showWarningMessage(
        `Delete the conversation “${target.title || UNTITLED}”?`,
        {
          modal: true,
          detail: `Its ${target.messages} message${target.messages === 1 ? '' : 's'} and its Copilot session are deleted. Memories, the wiki and workers stay.`,
        },
        'Delete',
      );
      if (answer !== 'Delete') return;
      try {
        await core.conversations.delete(target.id);
      } catch (err) {
        void vscode.window.showErrorMessage(`Baton: ${err instanceof ConversationError ? err.message : String(err)}`);
      }
    }),
  );
}

function find(list: ConversationInfo[], id: string | undefined): ConversationInfo | undefined {
  return typeof id === 'string' ? list.find((c) => c.id === id) : list.find((c) => c.active);
}

function notFound(id: string | undefined): void {
  void vscode.window.showErrorMessage(`Baton: there is no conversation ${JSON.stringify(id ?? '')} (it may have been deleted).`);
}
