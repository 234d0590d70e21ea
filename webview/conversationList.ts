// The list of conversations under the panel's header: a collapsible section (elements-lite's collapsible, a native
// <details>) with one row per conversation: its title (a button that opens it), when it was last active, its message
// count, "answering" while busy, a "new" badge when something arrived while another was shown, and Rename / Delete
// (the host asks before either changes anything); above the rows, Search conversations….
import type { ConversationItem, WebviewMessage } from '../src/shared/protocol';
import { button, h, setText, toggleAttr } from './dom';

export class ConversationList {
  readonly el: HTMLDetailsElement;
  private readonly list: HTMLUListElement;
  private readonly summaryText: HTMLElement;
  private readonly badge: HTMLElement;
  private active = '';
  /** The list as last sent: its rows are written again when it is opened, so "5 min ago" is of now, not of then. */
  private items: ConversationItem[] = [];

  constructor(private readonly post: (message: WebviewMessage) => void) {
    this.summaryText = h('span', { class: 'conversations-title', 'data-testid': 'conversations-current' }, 'Conversations');
    this.badge = h('span', { class: 'vscode-badge conversations-unread', 'data-testid': 'conversations-unread', hidden: true });
    this.list = h('ul', { class: 'conversations-list', 'data-testid': 'conversation-list', 'aria-label': 'Conversations' });
    // Where people look for an old conversation: what was said in it finds it (Baton: Search Conversations…).
    const search = h(
      'button',
      { type: 'button', class: 'link-button conversations-search', 'data-testid': 'conversations-search' },
      'Search conversations\u2026',
    );
    search.addEventListener('click', () => {
      this.post({ type: 'command/run', command: 'baton.searchConversations' });
      this.el.open = false;
    });
    this.el = h(
      'details',
      { class: 'vscode-collapsible conversations', 'data-testid': 'conversations' },
      h('summary', { 'data-testid': 'conversations-toggle' }, h('span', { class: 'icon-arrow', 'aria-hidden': 'true' }, '›'), this.summaryText, this.badge),
      search,
      this.list,
    );
    this.el.addEventListener('toggle', () => {
      if (this.el.open) this.list.replaceChildren(...this.items.map((c) => this.row(c)));
    });
  }

  update(active: string, items: ConversationItem[]): void {
    this.active = active;
    this.items = items;
    const current = items.find((c) => c.id === active);
    setText(this.summaryText, current?.title || 'New conversation');
    const unread = items.filter((c) => c.unread && c.id !== active).length;
    setText(this.badge, unread ? String(unread) : '');
    toggleAttr(this.badge, 'hidden', unread === 0);
    this.badge.setAttribute('aria-label', `${unread} conversation${unread === 1 ? '' : 's'} with new replies`);
    this.list.replaceChildren(...items.map((c) => this.row(c)));
  }

  private row(c: ConversationItem): HTMLLIElement {
    const title = c.title || 'New conversation';
    const isActive = c.id === this.active;
    const open = h(
      'button',
      {
        type: 'button',
        class: 'conversation-open',
        'data-testid': 'conversation-open',
        'data-id': c.id,
        'aria-current': isActive ? 'true' : undefined,
        title: `Open “${title}”`,
      },
      h('span', { class: 'conversation-name' }, title),
      h('span', { class: 'conversation-meta' }, `${ago(c.lastActivity)} · ${c.messages} message${c.messages === 1 ? '' : 's'}${c.busy ? ' · answering' : ''}`),
    );
    open.addEventListener('click', () => {
      if (!isActive) this.post({ type: 'conversation/open', id: c.id });
      this.el.open = false;
    });
    const rename = button('icon', { 'data-testid': 'conversation-rename', 'aria-label': `Rename “${title}”`, title: 'Rename' }, '✎');
    rename.addEventListener('click', () => this.post({ type: 'conversation/rename', id: c.id }));
    const remove = button('icon', { 'data-testid': 'conversation-delete', 'aria-label': `Delete “${title}”`, title: 'Delete…' }, '×');
    remove.addEventListener('click', () => this.post({ type: 'conversation/delete', id: c.id }));
    return h(
      'li',
      { class: `conversation${isActive ? ' active' : ''}`, 'data-testid': 'conversation', 'data-id': c.id, 'data-busy': c.busy, 'data-unread': c.unread },
      open,
      c.unread && !isActive ? h('span', { class: 'vscode-badge', 'data-testid': 'conversation-badge' }, 'new') : null,
      rename,
      remove,
    );
  }
}

/** "just now", "5 min ago", "3 h ago", or the date. Whole units passed, as a clock reads: never "60 min ago". */
export function ago(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.floor((now - ms) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return new Date(ms).toLocaleDateString();
}
