// The panel's list of conversations: each with its title, last activity, message count, whether it is busy, and a
// badge when a reply or a worker's result arrived in it while another one was shown. Updates are coalesced (a
// streaming turn changes nothing here; its start and end do).
import type { ConversationItem, HostMessageBody, WebviewMessage } from '../../shared/protocol';
import type { Conversations } from '../conversations/conversations';
import type { OrchestratorEvent } from '../orchestrator/events';
import { parseSqliteTimestamp } from '../store/rowSchemas';
import type { BatonStore } from '../store/types';
import type { Logger } from '../util/logger';

export interface ConversationListOptions {
  conversations: Conversations;
  store: BatonStore;
  logger: Logger;
  /** Renames or deletes after asking the user (HostActions.conversationAction). */
  ask?: (action: 'rename' | 'delete', id: string) => void;
  send: (body: HostMessageBody) => void;
  /** The panel shows another conversation now (the controller posts its snapshot). */
  switched: () => void;
}

type ListMessage = Extract<WebviewMessage, { type: 'chat/new' | 'conversation/open' | 'conversation/rename' | 'conversation/delete' }>;

export class ConversationList {
  /** Conversations that got a reply or a result while not shown (cleared when opened). */
  private readonly unread = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private readonly conversations: Conversations;
  private readonly send: (body: HostMessageBody) => void;
  private readonly offs: Array<() => void>;

  constructor(private readonly opts: ConversationListOptions) {
    this.conversations = opts.conversations;
    this.send = opts.send;
    this.offs = [
      opts.conversations.onDidChange((change) => {
        if (change.kind === 'active') {
          this.unread.delete(change.id);
          opts.switched();
        } else this.post();
      }),
      // Another window's new conversation, title or message shows in this window's list too.
      opts.store.onDidChange((what, fromOtherWindow) => {
        if (fromOtherWindow && (what === 'conversations' || what === 'log')) this.soon();
      }),
    ];
  }

  /** New Chat, open, rename, delete from the panel (rename and delete ask in the editor first). */
  receive(message: ListMessage): void {
    switch (message.type) {
      case 'chat/new':
        // A new conversation; the one shown is kept in the list. The switch posts a snapshot.
        this.conversations.create();
        break;
      case 'conversation/open':
        try {
          this.conversations.open(message.id);
        } catch (err) {
          this.opts.logger.warn(`Open conversation: ${err instanceof Error ? err.message : String(err)}`);
          this.post();
        }
        break;
      case 'conversation/rename':
      case 'conversation/delete':
        this.opts.ask?.(message.type === 'conversation/rename' ? 'rename' : 'delete', message.id);
        break;
    }
  }

  items(): ConversationItem[] {
    const listed = this.conversations.list();
    // A conversation deleted, or pushed out by the store's bound, is unread no more: the set holds listed ones only.
    const ids = new Set(listed.map((c) => c.id));
    for (const id of this.unread) if (!ids.has(id)) this.unread.delete(id);
    return listed.map((c) => ({
      id: c.id,
      title: c.title,
      lastActivity: parseSqliteTimestamp(c.lastActivity)?.getTime() ?? Date.now(),
      messages: c.messages,
      busy: c.busy,
      unread: this.unread.has(c.id),
    }));
  }

  /** An event of any conversation: a reply landing in one not shown badges it; starts and ends change the list. */
  onEvent(e: OrchestratorEvent): void {
    const shown = e.conversation === this.conversations.activeId;
    switch (e.type) {
      case 'turn.completed':
      case 'turn.failed':
      case 'turn.cancelled':
        if (!shown) this.unread.add(e.conversation);
        this.soon();
        break;
      case 'turn.queued':
      case 'busy':
      case 'turn.withdrawn':
        this.soon();
        break;
      default:
        break;
    }
  }

  /** Sends the list now. */
  post(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.send({ type: 'conversations/update', active: this.conversations.activeId, conversations: this.items() });
  }

  /** Something changed the list (another window wrote to the store): it is sent again shortly. */
  soon(): void {
    this.timer ??= setTimeout(() => this.post(), 50);
  }

  dispose(): void {
    for (const off of this.offs) off();
    if (this.timer) clearTimeout(this.timer);
  }
}
