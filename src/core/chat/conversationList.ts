// The panel's list of conversations: each with its title, last activity, message count, whether it is busy, and a
// badge when a reply or a worker's result arrived in it while another one was shown. Updates are coalesced (a
// streaming turn changes nothing here; its start and end do).
import type { ConversationItem, HostMessageBody } from '../../shared/protocol';
import type { Conversations } from '../conversations/conversations';
import type { OrchestratorEvent } from '../orchestrator/events';
import { parseSqliteTimestamp } from '../store/rowSchemas';

export class ConversationList {
  /** Conversations that got a reply or a result while not shown (cleared when opened). */
  private readonly unread = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly conversations: Conversations,
    private readonly send: (body: HostMessageBody) => void,
  ) {}

  items(): ConversationItem[] {
    return this.conversations.list().map((c) => ({
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

  /** The panel shows `id` now: its badge goes. */
  opened(id: string): void {
    this.unread.delete(id);
  }

  forget(id: string): void {
    this.unread.delete(id);
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
    if (this.timer) clearTimeout(this.timer);
  }
}
