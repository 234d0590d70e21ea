// The reply streaming in each conversation, followed from the orchestrators' events: shown in the panel for the
// conversation shown, kept for the others until they settle (it shows when that conversation is opened).
import type { ChatMessage, HostMessageBody, PanelState } from '../../shared/protocol';
import type { StoredReference } from '../context/references';
import { withNote, type OrchestratorEvent } from '../orchestrator/events';
import { answers as answersOf } from '../store/conversationOrder';
import type { LogEntry } from '../store/types';
import type { LogSync } from './logSync';

export interface LiveTurnsDeps {
  /** The conversation the panel shows. */
  shown(): string;
  send(body: HostMessageBody): void;
  sync: Pick<LogSync, 'queued' | 'ownReply' | 'rowChanged'>;
  postSnapshot(): void;
  state(): PanelState;
  /** The references of the message being queued right now (turn.queued fires inside enqueue, before it returns). */
  queuedReferences(): StoredReference[] | undefined;
  /** Messages of `conversation` still wait in its queue (shown below the one whose turn starts). */
  queuedBehind(conversation: string): boolean;
}

/** Bounded by the conversations with a turn running: a reply leaves the map when its turn ends. */
export class LiveTurns {
  private readonly lives = new Map<string, ChatMessage>();
  /** The log row of the message each live reply answers (it shows right after that message). */
  private readonly answering = new Map<string, number>();
  /** The conversations whose running turn waits behind a summary (its message shows Queued). */
  private readonly held = new Set<string>();

  constructor(private readonly deps: LiveTurnsDeps) {}

  /**
   * `messages` (of `rows`, one each) with a copy of the reply streaming in `conversation` right after the message it
   * answers: messages queued behind that one come after it, as they will once it is written (store/conversationOrder.ts).
   */
  placeIn(conversation: string, rows: readonly LogEntry[], messages: ChatMessage[]): ChatMessage[] {
    const live = this.lives.get(conversation);
    if (!live) return messages;
    const answers = this.answering.get(conversation);
    // Its reply is written already (the turn goes on: a summary after it): the live copy is shown in its place, once.
    const written = answers === undefined ? -1 : rows.findIndex((row) => row.role === 'assistant' && answersOf(row) === answers);
    if (written >= 0) return [...messages.slice(0, written), { ...live }, ...messages.slice(written + 1)];
    let at = answers === undefined ? -1 : rows.findIndex((row) => row.id === answers);
    if (at < 0) return [...messages, { ...live }];
    at++;
    while (at < rows.length && answersOf(rows[at]!) === answers) at++;
    return [...messages.slice(0, at), { ...live }, ...messages.slice(at)];
  }

  /** The id the reply to message `answers` of `conversation` streams under, while its turn has not ended. */
  replyTo(conversation: string, answers: number): string | undefined {
    return this.answering.get(conversation) === answers ? this.lives.get(conversation)?.id : undefined;
  }

  /** Follows one orchestrator event: the reply it starts, streams or ends, in the panel when its conversation is shown. */
  onEvent(event: OrchestratorEvent): void {
    const shown = event.conversation === this.deps.shown();
    const live = this.lives.get(event.conversation);
    // A conversation not shown: only its live reply is kept up (it shows when that conversation is opened).
    const send = (body: HostMessageBody): void => {
      if (shown) this.deps.send(body);
    };
    switch (event.type) {
      case 'turn.queued': {
        if (!shown) break;
        const references = this.deps.queuedReferences();
        this.deps.sync.queued(event.logId);
        send({
          type: 'message/append',
          message: {
            id: `log-${event.logId}`,
            role: event.origin.channel === 'background' ? 'background' : 'user',
            content: event.prompt,
            status: 'pending',
            source: event.origin.channel,
            ...(references?.length ? { references } : {}),
            ...(event.workerResult ? { workerResult: event.workerResult } : {}),
            ...(event.elsewhere ? { queuedElsewhere: true } : {}),
            ts: Date.now(),
          },
        });
        break;
      }
      case 'turn.adopted':
        // The panel may have read its row before it joined the queue (shown as sent then): it is read again.
        if (shown) this.deps.sync.rowChanged(event.logId);
        break;
      case 'turn.started': {
        // The user's message left the queue: it is no longer "queued".
        send({ type: 'message/update', id: `log-${event.logId}`, patch: { status: 'complete' } });
        const started: ChatMessage = {
          id: `turn-${event.turnId}`,
          role: 'assistant',
          content: '',
          status: 'streaming',
          source: event.origin.channel,
          ts: Date.now(),
        };
        this.lives.set(event.conversation, started);
        this.answering.set(event.conversation, event.logId);
        // Messages queued behind this one are shown below it already: the reply goes between, which a snapshot places.
        if (shown && this.deps.queuedBehind(event.conversation)) this.deps.postSnapshot();
        else send({ type: 'message/append', message: { ...started } });
        break;
      }
      case 'turn.routed':
        if (live) {
          live.route = event.route;
          send({ type: 'message/update', id: live.id, patch: { route: event.route } });
        }
        break;
      case 'turn.delta':
        if (live) {
          live.content += event.delta;
          send({ type: 'message/delta', id: live.id, delta: event.delta });
        }
        break;
      case 'turn.retrying':
        if (live) {
          live.content = '';
          send({ type: 'message/update', id: live.id, patch: { content: '', status: 'streaming' } });
        }
        break;
      case 'turn.completed':
        this.finishLive(event, {
          status: event.result.status === 'complete' ? 'complete' : 'partial',
          content: withNote(event.result.content, event.result.note),
          route: event.result.route,
          usage: event.result.usage,
        });
        break;
      case 'turn.cancelled':
        this.finishLive(event, { status: 'cancelled', content: event.partial });
        break;
      case 'turn.failed':
        this.finishLive(event, {
          status: 'failed',
          role: 'error',
          content: event.partial ? `${event.partial}\n\n${event.error.message}` : event.error.message,
          action: event.error.action,
        });
        break;
      case 'lock.waiting':
      case 'history.windowed': {
        // Held behind a summary the message has sent nothing: Queued again, with Remove, until the turn goes on.
        const answers = this.answering.get(event.conversation);
        const held = event.type === 'lock.waiting';
        if (answers !== undefined && (held || this.held.delete(event.conversation))) {
          if (held) this.held.add(event.conversation);
          send({ type: 'message/update', id: `log-${answers}`, patch: { status: held ? 'pending' : 'complete' } });
        }
        break;
      }
      case 'turn.withdrawn':
        // Withdrawn while held behind a summary: its reply never comes; a snapshot shows the message gone.
        if (this.answering.get(event.conversation) === event.logId) this.drop(event.conversation);
        if (shown) this.deps.postSnapshot();
        break;
      case 'conversation.rewound':
        // Rows are gone from the log (a withdrawn message's, or everything a rewind took back): a snapshot shows that.
        if (shown) this.deps.postSnapshot();
        break;
      case 'busy':
      case 'model.changed':
        send({ type: 'state', state: this.deps.state() });
        break;
      default:
        break;
    }
  }

  private drop(conversation: string): void {
    this.lives.delete(conversation);
    this.answering.delete(conversation);
    this.held.delete(conversation);
  }

  /** A turn ended: its reply takes the place of what streamed (in the panel, when its conversation is shown). */
  private finishLive(event: { conversation: string; logId: number }, patch: Partial<ChatMessage>): void {
    const live = this.lives.get(event.conversation);
    if (!live) return;
    const held = this.held.has(event.conversation) ? this.answering.get(event.conversation) : undefined;
    this.drop(event.conversation);
    if (event.conversation !== this.deps.shown()) return;
    // Stopped while held behind a summary: its message is answered (cancelled), no longer Queued.
    if (held !== undefined) this.deps.send({ type: 'message/update', id: `log-${held}`, patch: { status: 'complete' } });
    this.deps.sync.ownReply(event.logId, live.id);
    this.deps.send({ type: 'message/update', id: live.id, patch });
  }
}
