// What the panel's buttons on a message do: Edit and Retry take the conversation back to just before your message and
// send it again (edited or as it was), Resend sends one a reload interrupted, Remove takes one out of the queue before
// it is sent. Each reads the message from the log of the conversation shown and says in words why it could not act.
import type { HostMessageBody } from '../../shared/protocol';
import type { ChatContext, PreparedContext } from '../context/chatContext';
import type { AttachedReference } from '../context/contextPort';
import { chipOfStored, storedReferencesOf } from '../context/references';
import type { Orchestrator } from '../orchestrator/orchestrator';
import { RewindError } from '../orchestrator/rewind';
import type { BatonStore, LogEntry } from '../store/types';
import type { Logger } from '../util/logger';
import { parseMeta } from './toChatMessage';

export interface MessageActionsDeps {
  /** The orchestrator of the conversation shown. */
  orchestrator(): Orchestrator;
  /** The log rows the panel shows of the conversation shown. */
  visibleLog(): LogEntry[];
  store: BatonStore;
  send(body: HostMessageBody): void;
  /**
   * Sends `text` as the user in `conversation`, its references read first, or with `context` already read
   * (ChatController.sendFromPanel).
   */
  sendFromPanel(
    text: string,
    refs: readonly AttachedReference[] | undefined,
    opts: { resend?: boolean; conversation: string; context?: PreparedContext },
  ): Promise<void>;
  /** Reads a message's references (ChatContext.read). */
  readReferences: ChatContext['read'];
  /** Whether your message `entry` waits in the queue of the window that runs the conversation shown (queuedRows.ts). */
  queuedElsewhere(entry: LogEntry): boolean;
  /** The message the window that runs the conversation shown is answering, as the panel shows it streaming (LogSync). */
  streamingElsewhere(): number | undefined;
  /** Shows why something was not done where the composer shows a refused reference. */
  refused(message: string): void;
  logger: Logger;
}

export class MessageActions {
  /** Your messages (log-N) whose Retry is under way: read, taken back, sent again. */
  private readonly retrying = new Set<string>();

  constructor(private readonly deps: MessageActionsDeps) {}

  /**
   * Your message `id` edited in the panel: the conversation is taken back to just before it (Orchestrator.rewindTo),
   * then `text` goes as a new message. Refused (nothing taken back) while an answer runs: the panel says why.
   */
  async edit(id: string, text: string, refs: readonly AttachedReference[] | undefined): Promise<void> {
    // The conversation the message is in, kept: the user may open another while this one is read or taken back.
    const orchestrator = this.deps.orchestrator();
    // Read before anything is taken back: a reference that cannot be read (deleted, protected) refuses the edit with
    // the conversation whole, instead of cutting it and then not sending the edited message.
    // Without references the take-back is asked at once (an await before it let a message sent right after it in first).
    const read = refs?.length ? await this.deps.readReferences(refs) : undefined;
    const refused = read?.ok === false ? read.message : await this.takeBack(orchestrator, Number(id.slice('log-'.length)));
    if (refused) {
      this.deps.logger.warn(`Edit of ${id} refused: ${refused}`);
      return this.deps.send({ type: 'edit/refused', id, text, message: refused });
    }
    await this.deps.sendFromPanel(text, undefined, { conversation: orchestrator.conversation, ...(read?.ok ? { context: read.context } : {}) });
  }

  /**
   * Retry on a reply: your message `id` goes again as it was (its references read again), after the conversation is
   * taken back to just before it, so the model answers it once more instead of seeing it twice.
   */
  async retry(id: string): Promise<void> {
    // A double click: both presses found the message while its references were read, the second's take-back then
    // failed (the first had taken it) and the panel said "Not retried" about a retry that worked.
    if (this.retrying.has(id)) return this.deps.logger.info(`Retry of ${id}: ignored, its retry is under way`);
    const orchestrator = this.deps.orchestrator();
    const entry = this.userEntry(id);
    if (!entry) return this.deps.logger.warn(`Retry: no user message ${id}`);
    this.retrying.add(id);
    try {
      const refs = referencesOf(entry);
      const read = refs.length ? await this.deps.readReferences(refs) : undefined;
      const refused = read?.ok === false ? read.message : await this.takeBack(orchestrator, entry.id);
      if (refused) {
        this.deps.logger.warn(`Retry of ${id} refused: ${refused}`);
        return this.deps.refused(`Not retried: ${refused}`);
      }
      await this.deps.sendFromPanel(entry.content, undefined, { conversation: orchestrator.conversation, ...(read?.ok ? { context: read.context } : {}) });
    } finally {
      this.retrying.delete(id);
    }
  }

  /**
   * Resend on a message a reload interrupted. The references are read again: it goes out as it was sent, with today's
   * content. The session may already have it (its window died after sending it): it is asked first, and never given a
   * second copy.
   */
  resend(id: string): void {
    const entry = this.userEntry(id);
    if (!entry) return this.deps.logger.warn(`Resend: no user message ${id}`);
    // Once: a second press (a double click, the other panel) before the first one's update came back sent it twice.
    if (entry.status !== 'interrupted') return this.deps.logger.info(`Resend of ${id}: it is not interrupted (any more)`);
    this.deps.store.updateLog(entry.id, { status: 'cancelled' });
    void this.deps.sendFromPanel(entry.content, referencesOf(entry), { resend: true, conversation: this.deps.orchestrator().conversation });
  }

  /**
   * Remove on your message `id` while it waits in the queue: it never reaches the session and its row goes (the
   * withdrawal's snapshot shows that); its text and references go back to the panel, to be sent again as they are or
   * changed. Once it has started there is nothing to take out: Stop ends it.
   */
  withdraw(id: string): void {
    const orchestrator = this.deps.orchestrator();
    const entry = this.userEntry(id);
    const turnId = entry && orchestrator.waitingMessages.get(entry.id);
    // Not in this window's queue: waiting in the queue of the window that runs the conversation, it is cancelled there.
    const removed = entry && (turnId ? orchestrator.withdraw(turnId) : this.deps.queuedElsewhere(entry) && orchestrator.cancelElsewhere(entry.id));
    if (!entry || !removed) return this.deps.logger.info(`Remove of ${id}: it no longer waits in the queue`);
    const chips = storedReferencesOf(parseMeta(entry.meta)).map(chipOfStored);
    this.deps.send({ type: 'chat/withdrawn', id, text: entry.content, chips });
  }

  /**
   * Stop. Nothing has started yet (the message waits for its session to open, or for a take-back, or its running turn
   * waits behind a summary, listed first): your first message waiting is taken back, as Remove does; before, Stop did
   * nothing, and the whole answer came (or, behind a summary, an empty reply ended it). A worker's result held behind
   * a summary is no message of yours to give back: its turn is stopped, and the result stays in the log.
   *
   * `reply` is the reply the panel showed streaming when Stop was pressed (`turn-<turnId>` of this window, or
   * `live-<log id>` streaming in another one): only that one is stopped, and only while it still runs. Each Stop used to
   * stop whatever ran when it arrived, so a double click with a message queued stopped the answer and then the queued
   * message's answer, its prompt already sent. Without `reply` (the Stop command, a panel showing no reply streaming),
   * whatever runs now is stopped.
   */
  stop(reply?: string): void {
    const orchestrator = this.deps.orchestrator();
    if (reply === undefined) return this.stopNow(orchestrator);
    const turnId = orchestrator.currentTurnId;
    // The running turn, held behind a summary too (its reply shows streaming from its start): Stop as without a name.
    if (turnId !== undefined && reply === `turn-${turnId}`) return this.stopNow(orchestrator);
    const elsewhere = this.deps.streamingElsewhere();
    if (elsewhere !== undefined && reply === `live-${elsewhere}`) {
      orchestrator.cancelElsewhere(elsewhere);
      return;
    }
    this.deps.logger.info(`Stop of ${reply}: ignored, it no longer runs (stopped already, or ended)`);
  }

  /** Stop without a name: the turn running now, or the first message of yours that has not started. */
  private stopNow(orchestrator: Orchestrator): void {
    const waiting = [...orchestrator.waitingMessages.entries()];
    const [heldLog, heldTurn] = waiting[0] ?? [];
    if (heldLog !== undefined && heldTurn === orchestrator.currentTurnId) {
      if (this.userEntry(`log-${heldLog}`)) this.withdraw(`log-${heldLog}`);
      else orchestrator.stop();
      return;
    }
    if (orchestrator.stop()) return;
    // The answer streams in the window that runs the conversation: it is stopped there (SharedConversation.cancel).
    const elsewhere = this.deps.streamingElsewhere();
    if (elsewhere !== undefined && orchestrator.cancelElsewhere(elsewhere)) return;
    const yours = waiting.find(([logId]) => this.userEntry(`log-${logId}`));
    if (yours) this.withdraw(`log-${yours[0]}`);
  }

  /** Takes the conversation back to just before its message `logId`; says why in words when it could not. */
  private async takeBack(orchestrator: Orchestrator, logId: number): Promise<string | undefined> {
    try {
      await orchestrator.rewindTo(logId);
    } catch (err) {
      return err instanceof RewindError ? err.message : `The conversation could not be taken back: ${err instanceof Error ? err.message : String(err)}`;
    }
    // The panel already has its snapshot: the rewind's event (liveTurns.ts).
    return undefined;
  }

  /** Your message `id` (log-N) in the conversation shown. */
  private userEntry(id: string): LogEntry | undefined {
    return this.deps.visibleLog().find((e) => `log-${e.id}` === id && e.role === 'user');
  }
}

/** The references a logged message of yours carried, to attach again (read again, with today's content). */
function referencesOf(entry: LogEntry): AttachedReference[] {
  return storedReferencesOf(parseMeta(entry.meta)).map((r) => ({ ref: r.ref, implicit: r.implicit }));
}
