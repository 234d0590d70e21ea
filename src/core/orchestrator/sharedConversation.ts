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
import { MAIN_CONVERSATION, processGone, retireInstance, type ConversationClaims, type ConversationHolder, type WindowStamp } from './conversationClaims';

/** What a log row's meta says about windows (besides route, usage, references). */
export interface WindowMeta {
  /** The window that wrote the row. */
  window?: WindowStamp;
  /** For a message: the process that runs it (its window's, or the owner's it was sent to). */
  runner?: { pid: number; host: string; instance?: string };
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
}

export class SharedConversation {
  readonly conversation: string;
  private readonly adopted = new Set<number>();
  private readonly waiting = new Map<number, (outcome: RemoteOutcome) => void>();
  private timer: NodeJS.Timeout | undefined;
  private offStore: (() => void) | undefined;
  private scanSoon: NodeJS.Timeout | undefined;
  private onQueued: ((row: LogEntry, meta: WindowMeta) => void) | undefined;
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
    return { window: this.self, runner: { pid: runner.pid, host: runner.host, instance: runner.instance } };
  }

  /** Whether a pending row's runner is gone. A row from before windows were named has no runner: gone, as before. */
  static runnerGone(meta: WindowMeta): boolean {
    return !meta.runner || processGone(meta.runner);
  }

  /** Starts watching the store for messages sent to this window, replies to this window's, and runners that died. */
  start(onQueued: (row: LogEntry, meta: WindowMeta) => void): void {
    this.onQueued = onQueued;
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

  /** Resolves when the owner has answered message `logId` (or it ended without an answer). */
  awaitRemote(logId: number): Promise<RemoteOutcome> {
    return new Promise((resolve) => {
      this.waiting.set(logId, resolve);
    });
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
    for (const head of heads) {
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
        } else if (!mine && processGone(meta.runner)) orphaned.push(head.id);
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
    // A message waited on whose row is gone (its id within the rows scanned, or none left) was withdrawn by the window
    // that runs the conversation: told, or its `ask`, or a Chat view request, would wait for ever.
    for (const id of [...this.waiting.keys()]) if (!listed.has(id) && (!heads.length || id > heads[0]!.id)) this.settleWaiter(id, { removed: true });
    if (orphaned.length) {
      const ids = new Set(orphaned);
      const marked = this.opts.store.markInterrupted((e) => ids.has(e.id), this.conversation);
      for (const head of heads) if (ids.has(head.id) && head.role === 'system') this.opts.store.updateLog(head.id, { status: 'cancelled' });
      if (marked.length) this.opts.logger.warn(`${marked.length} message(s) were interrupted: the window running them is gone`);
      for (const e of marked) this.settleWaiter(e.id, { ended: e });
    }
  }

  private settleWaiter(logId: number, outcome: RemoteOutcome): void {
    const resolve = this.waiting.get(logId);
    if (!resolve) return;
    this.waiting.delete(logId);
    resolve(outcome);
  }

  /** Stops watching and gives the conversation up; messages still waiting for the owner end as cancelled. */
  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.liveTimer) clearTimeout(this.liveTimer);
    if (this.scanSoon) clearTimeout(this.scanSoon);
    this.offStore?.();
    for (const [, resolve] of this.waiting) resolve({});
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
