// One conversation, several windows: the store is the queue. The window that holds the conversation's claim (its
// owner) runs every turn in its one session; another window writes its message as a pending row addressed to the
// owner ("runner"), the owner picks it up from the store, and the reply row (marked `for` the message) reaches the
// sender through the store again. A row is only ever interrupted when the process that was to run it is gone.
// Invariants: a message is run by exactly the window its row names; no window starts a second session of a
// conversation another live window holds; every pending row is either run by its runner or, once that runner is
// gone, marked interrupted (offered for resending) by whichever window notices first.
import { parseLogMeta } from '../store/logMeta';
import { conversationStateKey, type BatonStore, type LogEntry, type LogHead } from '../store/types';
import type { OrchestratorEvent } from './events';
import type { Logger } from '../util/logger';
import {
  MAIN_CONVERSATION,
  processGone,
  retireInstance,
  type ConversationClaims,
  type ConversationHolder,
  type WindowRef,
  type WindowStamp,
} from './conversationClaims';

/** What a log row's meta says about windows (besides route, usage, references). */
export interface WindowMeta {
  /** The window that wrote the row. */
  window?: WindowStamp;
  /** For a message: the process that runs it (its window's, or the owner's it was sent to). */
  runner?: WindowRef;
  /** For a message sent to the owner: the context (references) that goes in the prompt only. */
  context?: string;
  /** For a reply: the id of the message it answers. */
  for?: number;
  /** A resend: the session may already have this prompt (asked before sending, never sent twice). */
  resend?: boolean;
}

export function windowMeta(raw: string | null): WindowMeta {
  return parseLogMeta(raw) as WindowMeta;
}

/** The reply streaming in a window right now, for the other windows' panels: one state key per conversation. */
export interface LiveReply {
  /** The message it answers. */
  for: number;
  text: string;
  window: WindowStamp;
}

const LIVE_KEY = 'conversation_live';
const liveKey = (conversation: string): string => conversationStateKey(LIVE_KEY, conversation);
/** How often a streaming reply is written for the other windows (each write is a flush of the database). */
const LIVE_EVERY_MS = 200;
/** How old the answer to "is another window open?" may be at a turn's start (the watch asks again during a turn). */
const OTHERS_MAX_AGE_MS = 1000;

export function readLiveReply(store: BatonStore, conversation = MAIN_CONVERSATION): LiveReply | undefined {
  const raw = store.getState(liveKey(conversation));
  if (!raw) return undefined;
  try {
    const value = JSON.parse(raw) as LiveReply;
    return typeof value.for === 'number' && typeof value.text === 'string' && value.window ? value : undefined;
  } catch {
    return undefined;
  }
}

/** How far back the log is read for queued and orphaned messages: as far as the panel shows. */
const LOG_SCAN = 200;

export interface SharedConversationOptions {
  store: BatonStore;
  claims: ConversationClaims;
  logger: Logger;
  /** The conversation shared (its log and its claim). Default MAIN_CONVERSATION. */
  conversation?: string;
  /** How often to look for a runner that is gone (it writes nothing when it dies). Default 1000 ms. */
  watchIntervalMs?: number;
}

export interface RemoteOutcome {
  reply?: LogEntry;
  /** The message's row when it ended without a reply: interrupted (its runner died) or cancelled. */
  ended?: LogEntry;
  /** Its row is gone: the window that runs the conversation took it out of its queue (Remove there). */
  removed?: true;
  /** Cancelled here (`cancel`), before its reply: the owner takes it out of its queue, or stops it. */
  cancelled?: true;
}

export class SharedConversation {
  readonly conversation: string;
  private readonly adopted = new Set<number>();
  /** Cancelled rows of the scanned log already looked at: each is read once (bounded like `adopted`). */
  private readonly cancelledSeen = new Set<number>();
  /** The messages this window sent to the owner, by row: their turn, and who waits for their outcome. */
  private readonly waiting = new Map<number, { turnId: string; resolve: (outcome: RemoteOutcome) => void }>();
  private timer: NodeJS.Timeout | undefined;
  private offStore: (() => void) | undefined;
  private scanSoon: NodeJS.Timeout | undefined;
  private onQueued: ((row: LogEntry, meta: WindowMeta) => void) | undefined;
  private onCancelled: ((logId: number) => void) | undefined;
  /** The reply this window is running; `shared` once another window is open (then it is written for them). */
  private live: { for: number; text: string; shared: boolean } | undefined;
  private liveTimer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: SharedConversationOptions) {
    this.conversation = opts.conversation ?? MAIN_CONVERSATION;
  }

  get self(): WindowStamp {
    return this.opts.claims.self;
  }

  /** Claims the conversation for this window, or returns the live window that holds it. */
  ownerElsewhere(): ConversationHolder | undefined {
    return this.opts.claims.claim(this.conversation);
  }

  /** The meta of a message this window writes, run here or by `owner`. */
  stamp(owner?: ConversationHolder): WindowMeta {
    const runner = owner ?? this.self;
    return { window: this.self, runner: { pid: runner.pid, host: runner.host, instance: runner.instance, ...(runner.beats ? { beats: runner.beats } : {}) } };
  }

  /**
   * Whether a pending row's runner is gone, by its pid alone (at start, before this window's watch). A runner whose pid
   * an unrelated process took since is caught by the watch's first scan, which `start` runs at once. A row from before
   * windows were named has no runner: gone, as before.
   */
  static runnerGone(meta: WindowMeta): boolean {
    return !meta.runner || processGone(meta.runner);
  }

  /**
   * At start: marks the turns a crash or reload interrupted, and returns them. Only a message whose window is gone was
   * interrupted: another window may be answering one right now. Worker results a crash caught in the queue were never
   * handed over: set aside (the inbox delivers them again).
   */
  static markGone(store: BatonStore, scan: number): LogEntry[] {
    const gone = (e: LogEntry): boolean => SharedConversation.runnerGone(windowMeta(e.meta));
    for (const e of store.recentLog(scan)) if (e.role === 'system' && e.status === 'pending' && gone(e)) store.updateLog(e.id, { status: 'cancelled' });
    return store.markInterrupted(gone);
  }

  /**
   * Starts watching the store for messages sent to this window (`onQueued`), messages another window cancelled that
   * this one runs or queued (`onCancelled`), replies to this window's, and runners that died.
   */
  start(onQueued: (row: LogEntry, meta: WindowMeta) => void, onCancelled?: (logId: number) => void): void {
    this.onQueued = onQueued;
    this.onCancelled = onCancelled;
    this.opts.claims.announce();
    this.offStore = this.opts.store.onDidChange((what, fromOtherWindow) => {
      if (what !== 'log' || !fromOtherWindow || this.scanSoon) return;
      this.scanSoon = setTimeout(() => {
        this.scanSoon = undefined;
        this.scan();
      }, 0);
    });
    const interval = this.opts.watchIntervalMs ?? 1000;
    this.timer = setInterval(() => this.scan(), interval);
    this.timer.unref?.();
    this.scan();
  }

  /**
   * Streams this window's replies to the other open windows through the store, a write every LIVE_EVERY_MS at
   * most; with no other window open nothing is written. Whether one is open is known from a read of the claims folder
   * at most OTHERS_MAX_AGE_MS old, and asked again by the watch while a reply runs: a window opened meanwhile gets the
   * rest of it streamed from then on.
   */
  onTurnEvent(e: OrchestratorEvent): void {
    switch (e.type) {
      case 'turn.started':
        this.live = { for: e.logId, text: '', shared: this.opts.claims.othersOpen(OTHERS_MAX_AGE_MS) };
        if (this.live.shared) this.writeLiveSoon();
        break;
      case 'turn.delta':
        if (!this.live) break;
        this.live.text += e.delta;
        if (this.live.shared) this.writeLiveSoon();
        break;
      case 'turn.retrying':
        if (!this.live) break;
        this.live.text = '';
        if (this.live.shared) this.writeLiveSoon();
        break;
      case 'turn.completed':
      case 'turn.failed':
      case 'turn.cancelled': {
        const shared = this.live?.shared;
        this.live = undefined;
        if (!shared) break;
        if (this.liveTimer) clearTimeout(this.liveTimer);
        this.liveTimer = undefined;
        this.opts.store.deleteState(liveKey(this.conversation));
        break;
      }
      default:
        break;
    }
  }

  /** A window opened while this one's reply runs: the reply streams to it from now on. */
  private shareLiveIfOthersOpened(): void {
    if (!this.live || this.live.shared || !this.opts.claims.othersOpen(this.opts.watchIntervalMs ?? 1000)) return;
    this.live.shared = true;
    this.writeLiveSoon();
  }

  private writeLiveSoon(): void {
    if (this.liveTimer) return;
    this.liveTimer = setTimeout(() => {
      this.liveTimer = undefined;
      if (!this.live) return;
      const value: LiveReply = { for: this.live.for, text: this.live.text, window: this.self };
      try {
        this.opts.store.setState(liveKey(this.conversation), JSON.stringify(value));
      } catch {
        // the store closed under a turn cut by the close: nothing left to show
      }
    }, LIVE_EVERY_MS);
  }

  /** Resolves when the owner has answered message `logId` (turn `turnId` here), or it ended without an answer. */
  awaitRemote(logId: number, turnId: string): Promise<RemoteOutcome> {
    return new Promise((resolve) => {
      this.waiting.set(logId, { turnId, resolve });
    });
  }

  /** The row of a message this window sent to the owner as turn `turnId`, while its outcome is awaited. */
  sentAs(turnId: string): number | undefined {
    for (const [logId, w] of this.waiting) if (w.turnId === turnId) return logId;
    return undefined;
  }

  /**
   * Cancels message `logId`, which the window that runs the conversation has queued (or runs): its row is marked
   * cancelled, and that window, seeing it, takes it out of its queue (its row goes) or stops it; one not taken yet is
   * never taken. A wait here ends at once. The mark is a status change alone, so it never undoes what that window wrote
   * into the row meanwhile. False when the row is no longer pending (answered, or ended).
   */
  cancel(logId: number): boolean {
    const row = this.opts.store.logRows([logId])[0];
    if (row?.conversation !== this.conversation || row.status !== 'pending') return false;
    this.opts.store.updateLog(logId, { status: 'cancelled' });
    this.settleWaiter(logId, { cancelled: true });
    return true;
  }

  private scan(): void {
    this.shareLiveIfOthersOpened();
    // Once a second, for every open conversation: the rows' heads only (no content), a head's meta read only when it can
    // matter, and a whole row only for what is handed on. The whole recent log, validated, was ~1.5 ms a scan.
    let heads: LogHead[];
    try {
      heads = this.opts.store.logHeads(LOG_SCAN, this.conversation);
    } catch {
      return; // the store is closing
    }
    const rowOf = (id: number): LogEntry | undefined => this.opts.store.logRows([id])[0];
    const me = this.self;
    const orphaned: number[] = [];
    // Bounded: only the rows still in the scanned log are remembered as taken.
    const listed = new Set(heads.map((r) => r.id));
    for (const id of this.adopted) if (!listed.has(id)) this.adopted.delete(id);
    for (const id of this.cancelledSeen) if (!listed.has(id)) this.cancelledSeen.delete(id);
    for (const head of heads) {
      if (head.status === 'cancelled') this.cancelledBy(head);
      const asked = head.status === 'pending' && (head.role === 'user' || head.role === 'system');
      // A row that is neither a message waiting for its runner nor possibly the answer to one this window waits on.
      if (!asked && !this.waiting.size) continue;
      const meta = windowMeta(head.meta);
      if (asked && meta.runner) {
        const mine = meta.runner.pid === me.pid && meta.runner.host === me.host && meta.runner.instance === me.instance;
        if (mine && !this.adopted.has(head.id) && meta.window && meta.window.instance !== me.instance) {
          const row = rowOf(head.id);
          if (row) {
            this.adopted.add(head.id);
            this.onQueued?.(row, meta);
          }
        } else if (!mine && this.opts.claims.gone(meta.runner)) orphaned.push(head.id);
      }
      if (meta.for !== undefined && this.waiting.has(meta.for)) {
        const row = rowOf(head.id);
        if (row) this.settleWaiter(meta.for, { reply: row });
      }
      if (this.waiting.has(head.id) && (head.status === 'interrupted' || head.status === 'cancelled')) {
        const row = rowOf(head.id);
        if (row) this.settleWaiter(head.id, { ended: row });
      }
    }
    // A message waited on whose row is gone from within the rows scanned was withdrawn by the window that runs the
    // conversation: told, or its `ask`, or a Chat view request, would wait for ever. No rows at all is not taken as
    // that: a read that failed reads as none (the store reports it), and ending a message the owner will answer as
    // removed would be worse than the wait of a conversation whose one message was removed.
    const oldest = heads[0]?.id;
    if (oldest !== undefined) for (const id of [...this.waiting.keys()]) if (id > oldest && !listed.has(id)) this.settleWaiter(id, { removed: true });
    if (orphaned.length) {
      const ids = new Set(orphaned);
      const marked = this.opts.store.markInterrupted((e) => ids.has(e.id), this.conversation);
      for (const head of heads) if (ids.has(head.id) && head.role === 'system') this.opts.store.updateLog(head.id, { status: 'cancelled' });
      if (marked.length) this.opts.logger.warn(`${marked.length} message(s) were interrupted: the window running them is gone`);
      for (const e of marked) this.settleWaiter(e.id, { ended: e });
    }
  }

  /**
   * A cancelled row, seen by the window that runs the conversation: the owner's queue or running turn, if it holds the
   * row, ends it (`onCancelled`: a cheap look-up, so every scan may ask). A row sent here by another window and cancelled
   * there before this one took it is deleted here, once: never run, it would otherwise read as a message sent and never
   * answered. One this window took and ran (stopped, say) is never deleted: the row stays with its reply.
   */
  private cancelledBy(head: LogHead): void {
    this.onCancelled?.(head.id);
    if (this.adopted.has(head.id) || this.cancelledSeen.has(head.id) || head.role === 'assistant') return;
    this.cancelledSeen.add(head.id);
    const meta = windowMeta(head.meta);
    const me = this.self;
    const mine = meta.runner?.pid === me.pid && meta.runner.host === me.host && meta.runner.instance === me.instance;
    const delivered = (meta as { delivered?: unknown }).delivered !== undefined;
    if (mine && meta.window && meta.window.instance !== me.instance && !delivered) this.opts.store.deleteLog(head.id);
  }

  private settleWaiter(logId: number, outcome: RemoteOutcome): void {
    const waiter = this.waiting.get(logId);
    if (!waiter) return;
    this.waiting.delete(logId);
    waiter.resolve(outcome);
  }

  /** Stops watching and gives the conversation up; messages still waiting for the owner end as cancelled. */
  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.liveTimer) clearTimeout(this.liveTimer);
    if (this.scanSoon) clearTimeout(this.scanSoon);
    this.offStore?.();
    for (const [, waiter] of this.waiting) waiter.resolve({});
    this.waiting.clear();
    this.opts.claims.release(this.conversation);
  }

  /** This window closes: every conversation it holds is given up and other windows no longer count it as open. */
  static leave(claims: ConversationClaims): void {
    claims.releaseAll();
    claims.leave();
    retireInstance(claims.self.instance);
  }
}
