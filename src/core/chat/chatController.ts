// What the chat panel shows, derived from the store (history) and the orchestrators' events (the
// live turns). The panel shows one conversation (the active one) and lists them all; a turn of a
// conversation not shown keeps streaming, and shows when it is opened. The host owns all of it; a
// webview can be thrown away and rebuilt from a snapshot.
import {
  firstPage,
  parseWebviewMessage,
  type ChatMessage,
  type HostMessage,
  type HostMessageBody,
  type PanelState,
  type PermissionDecision,
  type PermissionPrompt,
  type Snapshot,
  type WorkerCard,
} from '../../shared/protocol';
import { ChatContext, type PreparedContext } from '../context/chatContext';
import type { AttachedReference } from '../context/contextPort';
import type { StoredReference } from '../context/references';
import type { Conversations } from '../conversations/conversations';
import type { Orchestrator } from '../orchestrator/orchestrator';
import type { Channel, OrchestratorEvent } from '../orchestrator/events';
import type { WindowStamp } from '../orchestrator/conversationClaims';
import type { BatonStore, LogEntry } from '../store/types';
import { Emitter } from '../util/emitter';
import type { Logger } from '../util/logger';
import { ConversationList } from './conversationList';
import type { HostActions } from './hostActions';
import { LiveTurns } from './liveTurns';
import { LogSync, shownInPanel } from './logSync';
import { queuedRows, type Queued } from './queuedRows';
import { MessageActions } from './messageActions';
import { PermissionPrompts } from './permissionPrompts';
import { toChatMessage } from './toChatMessage';

/** Kept here for the modules that import it from the controller. */
export { toChatMessage };

export type { HostActions } from './hostActions';

const HISTORY_LIMIT = 200;
/** How long after a search's pick the snapshots carry the message to reveal (see reveal). */
const REVEAL_MS = 10_000;

export class ChatController {
  private seq = 0;
  /** The message Search Conversations… picked, and until when snapshots carry it. */
  private revealing: { id: string; until: number } | undefined;
  private readonly post = new Emitter<HostMessage>();
  /** Messages for the webview, already numbered. */
  readonly onDidPost = this.post.event;
  /** The reply streaming in each conversation. */
  private readonly live: LiveTurns;
  private workers: WorkerCard[] = [];
  private readonly permissions = new PermissionPrompts((body) => this.send(body));
  private setupHint: string | undefined;
  private runtimeRestarting = false;
  private readonly unsubscribe: () => void;
  /** The implicit chip, the picker, and the references of messages being sent. */
  readonly context: ChatContext;
  /** The references of the message being queued right now (turn.queued fires inside enqueue, before it returns). */
  private queuedReferences: StoredReference[] | undefined;
  /** The panel kept in step with what other windows write to the store. */
  private readonly sync: LogSync;
  private readonly list: ConversationList;
  /** Edit, Retry, Resend and Remove on a message. */
  private readonly messageActions: MessageActions;

  constructor(
    private readonly conversations: Conversations,
    private readonly store: BatonStore,
    private readonly actions: HostActions,
    private readonly logger: Logger,
    private readonly routingAuto: () => boolean,
    /** Today's usage in words, for the header's tooltip. */
    private readonly usageToday?: () => string,
    /** This window, so messages from another window sharing the conversation are marked as such. */
    private readonly self?: WindowStamp,
  ) {
    this.context = new ChatContext(actions.context, (body) => this.send(body), logger);
    this.sync = new LogSync(
      store,
      () => this.visibleLog(),
      (body) => this.send(body),
      () => this.postSnapshot(),
      self,
      () => this.conversations.activeId,
      () => this.queuedIn(this.conversations.activeId),
      (answers) => this.live.replyTo(this.conversations.activeId, answers),
      () => this.send({ type: 'state', state: this.state() }),
    );
    this.list = new ConversationList({
      conversations,
      store,
      logger,
      ask: actions.conversationAction?.bind(actions),
      send: (body) => this.send(body),
      switched: () => this.postSnapshot(),
    });
    this.live = new LiveTurns({
      shown: () => this.conversations.activeId,
      send: (body) => this.send(body),
      sync: this.sync,
      postSnapshot: () => this.postSnapshot(),
      state: () => this.state(),
      queuedReferences: () => this.queuedReferences,
      queuedBehind: (conversation) => this.conversations.get(conversation).queuedCount > 0,
    });
    this.messageActions = new MessageActions({
      orchestrator: () => this.orchestrator,
      visibleLog: () => this.visibleLog(),
      store,
      send: (body) => this.send(body),
      sendFromPanel: (text, refs, opts) => this.sendFromPanel(text, refs, 'panel', opts),
      readReferences: (refs) => this.context.read(refs),
      refused: (message) => this.context.refused('unavailable', message),
      queuedElsewhere: (entry) => this.queuedIn(this.conversations.activeId)(entry) === 'elsewhere',
      streamingElsewhere: () => this.sync.streamingElsewhere,
      logger,
    });
    this.unsubscribe = conversations.onEvent((event) => this.onEvent(event));
  }

  /** The orchestrator of the conversation shown. */
  private get orchestrator(): Orchestrator {
    return this.conversations.active;
  }

  private onEvent(event: OrchestratorEvent): void {
    this.list.onEvent(event);
    this.live.onEvent(event);
  }

  /** The log rows the panel shows of `conversation` (by default the one shown). */
  private visibleLog(conversation = this.conversations.activeId): LogEntry[] {
    // A worker result set aside (never handed to the orchestrator) is shown when it is delivered again.
    return this.store.recentLog(HISTORY_LIMIT, conversation).filter(shownInPanel);
  }

  private send(body: HostMessageBody): void {
    this.post.fire({ ...body, seq: ++this.seq } as HostMessage);
  }

  /**
   * Shows `conversation` with its message `logId` in view and focused (Search Conversations…): the snapshots of the
   * next REVEAL_MS carry it, so a panel that opens for it reveals it too.
   */
  reveal(conversation: string, logId: number): void {
    this.revealing = { id: `log-${logId}`, until: Date.now() + REVEAL_MS };
    if (conversation === this.conversations.activeId) this.postSnapshot();
    else this.conversations.open(conversation);
  }

  /** The messages of `conversation` as the panel shows them: its kept log, and a reply streaming in it now. */
  messagesOf(conversation: string): ChatMessage[] {
    const rows = this.visibleLog(conversation);
    return this.live.placeIn(conversation, rows, this.toMessages(conversation, rows));
  }

  /** `rows` of `conversation` as the panel shows them (without the reply streaming now). */
  private toMessages(conversation: string, rows: readonly LogEntry[]): ChatMessage[] {
    const queued = this.queuedIn(conversation);
    return rows.map((row) => toChatMessage(row, this.self, queued(row)));
  }

  /** How `conversation`'s rows wait to be sent: in this window's queue, or in the window that runs it (queuedRows.ts). */
  private queuedIn(conversation: string): (row: LogEntry) => Queued {
    return queuedRows(this.conversations.peek(conversation)?.waitingMessages, () => this.conversations.heldElsewhere(conversation) !== undefined);
  }

  /** The whole panel in one message: the answer to `ready` and to a sequence gap. */
  postSnapshot(): void {
    this.post.fire({ type: 'snapshot', seq: ++this.seq, snapshot: this.snapshot() });
  }

  /**
   * The first page of the panel, for the webview's HTML (shown before it says `ready`, whose answer is the whole
   * snapshot). Numbered like every message, so what is posted after it follows it without a gap.
   */
  firstPage(): HostMessage {
    return { type: 'snapshot', seq: ++this.seq, snapshot: firstPage(this.snapshot()) };
  }

  snapshot(): Snapshot {
    const rows = this.visibleLog();
    const logged = this.toMessages(this.conversations.activeId, rows);
    this.sync.reset(rows, logged);
    const messages = this.live.placeIn(this.conversations.activeId, rows, logged);
    const { implicit, pendingChips, pendingNotice } = this.context;
    const context = {
      ...(implicit ? { implicit } : {}),
      ...(pendingChips.length ? { attach: pendingChips } : {}),
      ...(pendingNotice ? { notice: pendingNotice } : {}),
    };
    const reveal = this.revealing && Date.now() < this.revealing.until ? this.revealing.id : undefined;
    return {
      conversation: this.conversations.activeId,
      conversations: this.list.items(),
      ...(reveal ? { reveal } : {}),
      messages,
      workers: this.workers.map((w) => ({ ...w })),
      permissions: this.permissions.prompts,
      state: this.state(),
      ...context,
    };
  }

  state(): PanelState {
    const queued = this.orchestrator.waitingMessages.size;
    return {
      // A reply streaming in the window that runs the conversation has its Stop here too (MessageActions.stop).
      busy: this.orchestrator.answering || this.sync.streamingElsewhere !== undefined,
      ...(queued ? { queued } : {}),
      ...(this.runtimeRestarting ? { runtimeRestarting: true } : {}),
      model: this.orchestrator.currentModel,
      routingAuto: this.routingAuto(),
      ...(this.setupHint ? { setupHint: this.setupHint } : {}),
      ...(this.usageToday ? { usageToday: this.usageToday() } : {}),
    };
  }

  setSetupHint(hint: string | undefined): void {
    this.setupHint = hint;
    this.send({ type: 'state', state: this.state() });
  }

  /** The runtime's idle restart began or ended: the header says "Restarting Copilot…" meanwhile. */
  setRuntimeRestarting(on: boolean): void {
    this.runtimeRestarting = on;
    this.send({ type: 'state', state: this.state() });
  }

  refreshState(): void {
    this.send({ type: 'state', state: this.state() });
  }

  updateWorkers(workers: WorkerCard[]): void {
    this.workers = workers;
    this.send({ type: 'workers/update', workers });
  }

  /** Shows a worker's permission request inline and waits for the user's answer. */
  askPermission(prompt: Omit<PermissionPrompt, 'id'>, signal?: AbortSignal): Promise<PermissionDecision> {
    return this.permissions.ask(prompt, signal);
  }

  /** Denies every open permission request (the panel is going away for good). */
  denyAllPermissions(): void {
    this.permissions.denyAll();
  }

  /** Handles one raw message from the webview: validated first, a bad one is logged and ignored. */
  receive(raw: unknown): void {
    const parsed = parseWebviewMessage(raw);
    if (!parsed.ok) {
      this.logger.warn(`Ignored a bad message from the chat panel: ${parsed.error}`);
      // A message from the composer left it when sent: its text goes back with why, or it vanished without a word (a
      // blank one too: the panel says why nothing was sent).
      const { type, text, id } = (raw ?? {}) as { type?: unknown; text?: unknown; id?: unknown };
      if (typeof text !== 'string' || text === '') return;
      if (type === 'chat/send') this.send({ type: 'chat/refused', text, kind: 'unavailable', message: parsed.error });
      else if (type === 'chat/edit' && typeof id === 'string') this.send({ type: 'edit/refused', id, text, message: parsed.error });
      return;
    }
    const message = parsed.message;
    switch (message.type) {
      case 'ready':
      case 'snapshot/request':
        this.postSnapshot();
        break;
      case 'chat/send':
        this.context.claimAll();
        void this.sendFromPanel(message.text, message.references);
        break;
      case 'chat/edit':
        this.context.claimAll();
        void this.messageActions.edit(message.id, message.text, message.references);
        break;
      case 'chat/stop':
        this.messageActions.stop(message.id);
        break;
      case 'chat/withdraw':
        this.messageActions.withdraw(message.id);
        break;
      case 'chat/new':
      case 'conversation/open':
      case 'conversation/rename':
      case 'conversation/delete':
        this.list.receive(message);
        break;
      case 'chat/retry':
        void this.messageActions.retry(message.id);
        break;
      case 'chat/resend':
        this.messageActions.resend(message.id);
        break;
      case 'routing/toggle':
        this.actions.toggleRouting();
        break;
      case 'worker/open':
        this.actions.openWorker(message.name, message.action);
        break;
      case 'permission/answer':
        this.permissions.answer(message.id, message.decision);
        break;
      case 'link/open':
        this.actions.openLink(message.href);
        break;
      case 'code/insert':
        this.actions.insertCode(message.code);
        break;
      case 'command/run':
        this.actions.runCommand(message.command);
        break;
      case 'context/pick':
        void this.context.pick(message.kind);
        break;
      case 'context/drop':
        void this.context.drop(message.uris);
        break;
      case 'context/open':
        this.context.open(message.ref);
        break;
      case 'context/remove':
        this.context.remove(message.key);
        break;
      default: {
        const unreachable: never = message;
        this.logger.warn(`Unhandled panel message ${JSON.stringify(unreachable)}`);
      }
    }
  }

  /** Sends text as the user, from the panel or a command, in the conversation shown. */
  sendText(text: string, channel: Exclude<Channel, 'background'>, context?: PreparedContext, opts?: { resend?: boolean }) {
    return this.enqueueIn(this.orchestrator, text, channel, context, opts);
  }

  private enqueueIn(orchestrator: Orchestrator, text: string, channel: Exclude<Channel, 'background'>, context?: PreparedContext, opts?: { resend?: boolean }) {
    this.queuedReferences = context?.stored;
    try {
      const meta = context?.stored.length ? { meta: { references: context.stored } } : {};
      const resend = opts?.resend ? { resend: true } : {};
      return orchestrator.enqueue(text, { channel }, context || opts?.resend ? { context: context?.prompt, ...meta, ...resend } : undefined);
    } finally {
      this.queuedReferences = undefined;
    }
  }

  /**
   * A message from the panel (or a gesture that sends at once), with the references to read first. It goes to
   * `opts.conversation`, by default the one shown now: the user may open another while its references are read.
   */
  sendFromPanel(
    text: string,
    refs: readonly AttachedReference[] | undefined,
    channel: Exclude<Channel, 'background'> = 'panel',
    opts?: { resend?: boolean; conversation?: string; context?: PreparedContext },
  ): Promise<void> {
    const conversation = opts?.conversation ?? this.conversations.activeId;
    const go = (context: PreparedContext | undefined): void => {
      // Deleted meanwhile: sent nowhere (get() would make it again, empty), and the text goes back to the composer.
      if (conversation !== this.conversations.activeId && !this.conversations.has(conversation)) {
        this.send({ type: 'chat/refused', text, kind: 'unavailable', message: 'Not sent: its conversation was deleted before the message could go.' });
        return;
      }
      void this.enqueueIn(this.conversations.get(conversation), text, channel, context, opts);
    };
    if (opts?.context || this.context.canSendNow(refs)) {
      go(opts?.context ?? this.context.hintOnly());
      return Promise.resolve();
    }
    return this.context.sendWith(text, refs ?? [], go);
  }

  dispose(): void {
    this.unsubscribe();
    this.list.dispose();
    this.sync.dispose();
    this.denyAllPermissions();
    this.post.dispose();
  }
}
