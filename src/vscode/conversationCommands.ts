// The palette's conversation commands: Open Conversation… (a quick pick of every conversation), Rename Conversation…
// and Delete Conversation… (both on the one shown unless given an id, as the panel's list does); delete asks first.
// Open Conversation as Markdown puts the one shown (or the one given) in an untitled Markdown editor. Search
// Conversations… finds your messages and Baton's replies as you type and shows the one picked in its conversation.
import * as vscode from 'vscode';
import { ConversationError } from '../core/conversations/conversationError';
import { conversationMarkdown } from '../core/chat/conversationMarkdown';
import { searchConversations, SEARCH_HITS, SEARCH_MIN, type SearchHit } from '../core/chat/conversationSearch';
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
    register('baton.searchConversations', async () => {
      const core = await services.ready();
      const titles = new Map(core.conversations.list().map((c) => [c.id, c.title || UNTITLED]));
      const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { hit: SearchHit }>();
      pick.title = 'Baton: search conversations';
      pick.placeholder = `Words from one of your messages or a reply (at least ${SEARCH_MIN} characters)`;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const update = (typed: string): void => {
        const hits = searchConversations(core.store, typed, new Set(titles.keys()));
        pick.items = hits.map((hit) => ({
          // alwaysShow: the store matched the text anywhere in the message; the quick pick's own filter would hide
          // a hit whose shown line it cannot fuzzy-match. `$(` is escaped so a message's text is not read as an icon.
          label: hit.snippet.replace(/\$\(/g, '$\u200b('),
          description: `${titles.get(hit.conversation)} · ${hit.role === 'user' ? 'you' : 'Baton'}`,
          detail: new Date(`${hit.ts.replace(' ', 'T')}Z`).toLocaleString(),
          alwaysShow: true,
          hit,
        }));
        pick.placeholder =
          typed.trim().length < SEARCH_MIN
            ? `Words from one of your messages or a reply (at least ${SEARCH_MIN} characters)`
            : hits.length === 0
              ? 'Nothing found'
              : hits.length === SEARCH_HITS
                ? `The newest ${SEARCH_HITS} matches`
                : `${hits.length} match${hits.length === 1 ? '' : 'es'}`;
      };
      pick.onDidChangeValue((value) => {
        clearTimeout(timer);
        timer = setTimeout(() => update(value), 120);
      });
      pick.onDidAccept(() => {
        const chosen = pick.selectedItems[0]?.hit;
        if (!chosen) return;
        pick.hide();
        core.chat.reveal(chosen.conversation, chosen.logId);
        void vscode.commands.executeCommand('baton.focus');
      });
      pick.onDidHide(() => {
        clearTimeout(timer);
        pick.dispose();
      });
      pick.show();
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
