// Many conversations, one runtime. Each conversation has its own Orchestrator (its queue, its session, its log), built
// the first time it is needed; they all share the one AgentSessions runtime, the store, the tools and the tool journal
// (the composition root, batonCore.ts, builds each through `build`). The panel shows one, the active one, which is
// kept in the store so a reload shows it again.
// Invariants: there is at most one Orchestrator per conversation id; a deleted conversation leaves no log rows, no
// saved session (deleted from the runtime's store) and no claim; the active conversation always exists.
import { randomUUID } from 'node:crypto';
import type { Orchestrator, TurnHandle } from '../orchestrator/orchestrator';
import type { OrchestratorEvent, Origin } from '../orchestrator/events';
import { TITLE_MAX } from '../store/conversationTitle';
import { MAIN_CONVERSATION, type BatonStore, type ConversationRow } from '../store/types';
import { Emitter } from '../util/emitter';
import type { Logger } from '../util/logger';
import { ConversationError } from './conversationError';
import { TurnError } from '../orchestrator/turn';

/** The state key that remembers which conversation the panel shows. */
export const STATE_ACTIVE = 'active_conversation';

/** A conversation as the list (the panel's header, the palette, the API) shows it. */
export interface ConversationInfo {
  id: string;
  /** Its first message's first words, or the name the user gave it; '' before the first message. */
  title: string;
  renamed: boolean;
  /** When it was created and last written to (ISO, UTC). */
  createdAt: string;
  lastActivity: string;
  /** Rows in its log (the log keeps the newest 200). */
  messages: number;
  /** A turn is running or queued in it, in this window. */
  busy: boolean;
  /** The one the panel shows. */
  active: boolean;
}

export interface ConversationsOptions {
  store: BatonStore;
  logger: Logger;
  /** Builds the orchestrator of a conversation (not started). */
  build: (id: string) => Orchestrator;
  /** The name of another live window that runs `id`, if one does (its claim: ConversationClaims.holder). */
  heldElsewhere?: (id: string) => string | undefined;
}

/** What changed in the list: `active` when the panel is to show another conversation. */
export type ConversationsChange = { kind: 'list' } | { kind: 'active'; id: string };

/** Orchestrators kept open (each holds a Copilot session and watches the store); an idle one beyond is closed, and its
 * session resumed when it is opened again. */
export const LIVE_KEEP = 8;

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$/;

export class Conversations {
  private readonly live = new Map<string, Orchestrator>();
  private readonly offs = new Map<string, () => void>();
  private readonly events = new Emitter<OrchestratorEvent>();
  private readonly changes = new Emitter<ConversationsChange>();
  /** Every conversation's events (each names its conversation). */
  readonly onEvent = this.events.event;
  /** The list or the active conversation changed (create, open, rename, delete). */
  readonly onDidChange = this.changes.event;
  private shown: string;
  private disposed = false;
  /** Messages a crash or reload interrupted in the conversation shown at start (offered for resending); the others
   * are marked when they are opened, and show as interrupted there. */
  interrupted: ReturnType<Orchestrator['start']> = [];

  constructor(private readonly opts: ConversationsOptions) {
    const saved = opts.store.getState(STATE_ACTIVE);
    const known = new Set(opts.store.listConversations().map((c) => c.id));
    this.shown = saved && known.has(saved) ? saved : (opts.store.listConversations()[0]?.id ?? MAIN_CONVERSATION);
    // The bound on conversations never pushes out one in use here: an open one's orchestrator holds its session (a
    // turn answering would write its reply alone; one resumed later would show the model a history the log lost).
    opts.store.keepInUse(() => [this.shown, ...this.live.keys()]);
  }

  /** The id of the conversation the panel shows. */
  get activeId(): string {
    return this.shown;
  }

  /** The orchestrator of the conversation the panel shows. */
  get active(): Orchestrator {
    return this.get(this.shown);
  }

  /** Whether the store knows the conversation (or it is live here). */
  has(id: string): boolean {
    return this.live.has(id) || this.opts.store.listConversations().some((c) => c.id === id);
  }

  /** The conversation's orchestrator, built and started on first use; an unknown id creates the conversation. */
  get(id: string): Orchestrator {
    const existing = this.live.get(id);
    if (existing) {
      // Most recently used last: the first idle one is the one closed when too many are open.
      this.live.delete(id);
      this.live.set(id, existing);
      return existing;
    }
    // After close the store is closed: refuse in the orchestrator's own words (a worker's result then waits in the inbox).
    if (this.disposed) throw new TurnError({ kind: 'cancelled', message: 'Baton was closed before this message was sent.' }, '');
    if (!ID_PATTERN.test(id))
      throw new ConversationError('bad-id', `A conversation id is 1-128 letters, digits or _.:@- (got ${JSON.stringify(id.slice(0, 40))}).`);
    this.opts.store.createConversation(id);
    const orchestrator = this.opts.build(id);
    this.live.set(id, orchestrator);
    this.offs.set(
      id,
      orchestrator.onEvent((e) => this.events.fire(e)),
    );
    const interrupted = orchestrator.start();
    if (this.live.size === 1 && id === this.shown) this.interrupted = interrupted;
    this.closeIdle(id);
    return orchestrator;
  }

  /** Every conversation, most recently active first; an empty one only while it is shown or answering. */
  list(): ConversationInfo[] {
    const rows = this.opts.store.listConversations().filter((r) => r.messages > 0 || r.id === this.shown || this.live.get(r.id)?.busy);
    if (!rows.some((r) => r.id === this.shown)) rows.unshift(emptyRow(this.shown));
    return rows.map((r) => ({
      id: r.id,
      title: r.title,
      renamed: r.renamed,
      createdAt: r.created_at,
      lastActivity: r.last_activity,
      messages: r.messages,
      // Answering, as the panel says it: opening a session ahead is not.
      busy: this.live.get(r.id)?.answering ?? false,
      active: r.id === this.shown,
    }));
  }

  /** A fresh conversation id (time-ordered, unique across windows). */
  static newId(prefix = 'c'): string {
    return `${prefix}-${Date.now().toString(36)}-${randomUUID().slice(0, 8)}`;
  }

  /** New Chat: a new, empty conversation becomes the active one; the one shown before is kept (one still empty is reused). */
  create(): string {
    const shown = this.live.get(this.shown);
    // Still empty, even while its session is being opened ahead (no turn runs or waits): reused, not left behind.
    if (shown && !shown.answering && !this.opts.store.recentLog(1, this.shown).length) {
      this.setActive(this.shown);
      return this.shown;
    }
    const id = Conversations.newId();
    this.get(id);
    this.setActive(id);
    return id;
  }

  /** Shows `id` in the panel (its history; its next turn resumes its own session). */
  open(id: string): void {
    if (!this.has(id)) throw new ConversationError('not-found', `There is no conversation ${JSON.stringify(id)} (it may have been deleted).`);
    this.get(id);
    this.setActive(id);
  }

  rename(id: string, title: string): void {
    const clean = title.replace(/\s+/g, ' ').trim();
    if (!clean) throw new ConversationError('bad-title', 'A conversation needs a name with at least one letter or digit.');
    if (clean.length > TITLE_MAX) throw new ConversationError('bad-title', `A conversation's name is at most ${TITLE_MAX} characters.`);
    if (!this.opts.store.renameConversation(id, clean)) throw new ConversationError('not-found', `There is no conversation ${JSON.stringify(id)}.`);
    this.changes.fire({ kind: 'list' });
  }

  /** The name of another live window that runs `id` (its session is live there), if one does. */
  heldElsewhere(id: string): string | undefined {
    return this.opts.heldElsewhere?.(id);
  }

  /**
   * Deletes a conversation: its turns are stopped, its Copilot session deleted from the runtime's store, its claim
   * released, its log removed. Deleting the active one shows the most recent other one (or a new one).
   */
  async delete(id: string): Promise<void> {
    if (!this.has(id)) throw new ConversationError('not-found', `There is no conversation ${JSON.stringify(id)}.`);
    // Its session is live in that window's runtime: deleting it from here would pull the session from under a window
    // that goes on answering in it. That window deletes it, or it is deleted once that window is closed.
    const holder = this.heldElsewhere(id);
    if (holder) {
      throw new ConversationError(
        'held-elsewhere',
        `The conversation is open in another VS Code window (${holder}): delete it there, or close that window and try again.`,
      );
    }
    const orchestrator = this.get(id);
    const session = await orchestrator.forgetSession().catch((err: unknown) => {
      this.opts.logger.warn(`Deleting the session of conversation ${id} failed: ${String(err)}`);
      return undefined;
    });
    await this.retire(id);
    this.opts.store.deleteConversation(id);
    this.opts.logger.info(`Conversation ${id} deleted${session ? ` with its session ${session}` : ''}`);
    if (id === this.shown) {
      const next = this.opts.store.listConversations()[0]?.id;
      if (next) this.setActive(next);
      else this.create();
    } else this.changes.fire({ kind: 'list' });
  }

  /**
   * Queues a message in `origin.conversation` (created if unknown), or in the active conversation without one: the
   * way in for callers that name a conversation per message (the API, the Chat view).
   */
  enqueue(text: string, origin: Origin, extras?: Parameters<Orchestrator['enqueue']>[2]): TurnHandle {
    return this.get(origin.conversation ?? this.shown).enqueue(text, origin, extras);
  }

  /** Stops the running turn `turnId` (or, without one, the active conversation's running turn). */
  stop(turnId?: string): boolean {
    if (turnId === undefined) return this.active.stop();
    return this.all().some((o) => o.stop(turnId));
  }

  /** Takes a queued turn back, in whichever conversation it waits. */
  withdraw(turnId: string): boolean {
    return this.all().some((o) => o.withdraw(turnId));
  }

  /** How many conversations are open (live) in this window: at most LIVE_KEEP, plus any busy beyond it. */
  get openCount(): number {
    return this.live.size;
  }

  /** The live orchestrator of `id`, without building one. */
  peek(id: string): Orchestrator | undefined {
    return this.live.get(id);
  }

  /** Every live orchestrator (a change that concerns every session: skills, model, runtime). */
  all(): Orchestrator[] {
    return [...this.live.values()];
  }

  /**
   * Closes the least recently used idle orchestrators beyond LIVE_KEEP: never the one shown, never a busy one, and never
   * `wanted`, which its caller is about to use (idle until then: with every other one answering, closing it made the
   * caller's message fail as if Baton had been closed).
   */
  private closeIdle(wanted: string): void {
    let over = this.live.size - LIVE_KEEP;
    for (const [id, o] of this.live) {
      if (over <= 0) break;
      if (id === this.shown || id === wanted || o.busy || o.queuedCount) continue;
      over--;
      void this.retire(id).catch((err: unknown) => this.opts.logger.warn(`Closing conversation ${id}: ${String(err)}`));
    }
  }

  private setActive(id: string): void {
    this.shown = id;
    this.opts.store.setState(STATE_ACTIVE, id);
    this.changes.fire({ kind: 'active', id });
  }

  private async retire(id: string): Promise<void> {
    const orchestrator = this.live.get(id);
    this.live.delete(id);
    this.offs.get(id)?.();
    this.offs.delete(id);
    await orchestrator?.dispose();
  }

  /** Closes every conversation; each closed orchestrator stays reachable, refusing new messages in its own words. */
  async dispose(): Promise<void> {
    this.disposed = true;
    for (const off of this.offs.values()) off();
    this.offs.clear();
    await Promise.all([...this.live.values()].map((o) => o.dispose()));
    this.events.dispose();
    this.changes.dispose();
  }
}

function emptyRow(id: string): ConversationRow {
  const now = new Date().toISOString();
  return { id, title: '', renamed: false, created_at: now, last_activity: now, messages: 0 };
}
