// The list of conversations under the panel's header: a collapsible section (elements-lite's collapsible, a native
// <details>) with one row per conversation: its title (a button that opens it), when it was last active, its message
// count, "answering" while busy, a "new" badge when something arrived while another was shown, and Rename / Delete
// (the host asks before either changes anything); above the rows, Search conversations….
// The focus: rows are kept by id and written in place, so an update (a rename, a reply arriving) leaves the focus on
// the button that had it; a row deleted gives it to the row now in its place. Closing the list never leaves it on a
// control that is no longer shown: Search conversations… leaves it on the toggle (where VS Code's quick pick gives it
// back), opening a conversation and Escape give it to the composer, where the user goes on in that conversation.
import type { ConversationItem, WebviewMessage } from '../src/shared/protocol';
import { focusComposer, onPlainEscape } from './composerFocus';
import { button, h, setText, toggleAttr } from './dom';

interface Row {
  li: HTMLLIElement;
  open: HTMLButtonElement;
  name: HTMLElement;
  meta: HTMLElement;
  badge: HTMLElement;
  rename: HTMLButtonElement;
  remove: HTMLButtonElement;
}

export class ConversationList {
  readonly el: HTMLDetailsElement;
  private readonly summary: HTMLElement;
  private readonly list: HTMLUListElement;
  private readonly summaryText: HTMLElement;
  private readonly badge: HTMLElement;
  private active = '';
  /** The list as last sent: its rows are written again when it is opened, so "5 min ago" is of now, not of then. */
  private items: ConversationItem[] = [];
  private rows = new Map<string, Row>();

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
      this.close(() => this.summary.focus());
    });
    this.summary = h(
      'summary',
      { 'data-testid': 'conversations-toggle' },
      h('span', { class: 'icon-arrow', 'aria-hidden': 'true' }, '›'),
      this.summaryText,
      this.badge,
    );
    this.el = h('details', { class: 'vscode-collapsible conversations', 'data-testid': 'conversations' }, this.summary, search, this.list);
    this.el.addEventListener('toggle', () => {
      if (this.el.open) this.render();
    });
    onPlainEscape(this.el, () => this.close(focusComposer));
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
    this.render();
  }

  /** Closes the list, the focus first moved by `refocus` if it was in it (a closed list's controls are not shown). */
  private close(refocus: () => void): void {
    if (this.el.contains(document.activeElement)) refocus();
    this.el.open = false;
  }

  /** Writes the rows in place, kept by id; only a change of order moves them. */
  private render(): void {
    const focused = document.activeElement as HTMLElement | null;
    const lost = [...this.rows.keys()].findIndex((id) => !this.items.some((c) => c.id === id) && this.rows.get(id)!.li.contains(focused));
    const next = new Map<string, Row>();
    const lis = this.items.map((c) => {
      const row = this.rows.get(c.id) ?? this.createRow(c.id);
      this.fill(row, c);
      next.set(c.id, row);
      return row.li;
    });
    const lostControl = lost >= 0 ? focused?.dataset.testid : undefined;
    this.rows = next;
    const current = Array.from(this.list.children);
    if (current.length !== lis.length || current.some((li, i) => li !== lis[i])) this.list.replaceChildren(...lis);
    // A moved row lost the focus; a deleted one's goes to the row now in its place, or the last, or the toggle.
    if (focused && focused !== document.activeElement && this.list.contains(focused)) focused.focus({ preventScroll: true });
    else if (lost >= 0) {
      const row = lis[Math.min(lost, lis.length - 1)];
      (row?.querySelector<HTMLElement>(`[data-testid="${lostControl}"]`) ?? this.summary).focus({ preventScroll: true });
    }
  }

  private createRow(id: string): Row {
    const name = h('span', { class: 'conversation-name' });
    const meta = h('span', { class: 'conversation-meta' });
    const open = h('button', { type: 'button', class: 'conversation-open', 'data-testid': 'conversation-open', 'data-id': id }, name, meta);
    open.addEventListener('click', () => {
      if (id !== this.active) this.post({ type: 'conversation/open', id });
      this.close(focusComposer);
    });
    const rename = button('icon', { 'data-testid': 'conversation-rename', title: 'Rename' }, '✎');
    rename.addEventListener('click', () => this.post({ type: 'conversation/rename', id }));
    const remove = button('icon', { 'data-testid': 'conversation-delete', title: 'Delete…' }, '×');
    remove.addEventListener('click', () => this.post({ type: 'conversation/delete', id }));
    const badge = h('span', { class: 'vscode-badge', 'data-testid': 'conversation-badge' }, 'new');
    const li = h('li', { class: 'conversation', 'data-testid': 'conversation', 'data-id': id }, open, rename, remove);
    return { li, open, name, meta, badge, rename, remove };
  }

  private fill(row: Row, c: ConversationItem): void {
    const title = c.title || 'New conversation';
    const isActive = c.id === this.active;
    setText(row.name, title);
    setText(row.meta, `${ago(c.lastActivity)} · ${c.messages} message${c.messages === 1 ? '' : 's'}${c.busy ? ' · answering' : ''}`);
    row.open.title = `Open “${title}”`;
    if (isActive) row.open.setAttribute('aria-current', 'true');
    else row.open.removeAttribute('aria-current');
    row.rename.setAttribute('aria-label', `Rename “${title}”`);
    row.remove.setAttribute('aria-label', `Delete “${title}”`);
    row.li.classList.toggle('active', isActive);
    toggleAttr(row.li, 'data-busy', c.busy);
    toggleAttr(row.li, 'data-unread', c.unread);
    if (c.unread && !isActive) row.open.after(row.badge);
    else row.badge.remove();
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
