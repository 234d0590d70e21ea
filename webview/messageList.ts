// The message log. What keeps it fast:
// - Deltas are only buffered when they arrive; one animation frame applies everything buffered since the last one,
//   so 10k deltas cost a few hundred renders of a small tail, not 10k.
// - A snapshot mounts plain-text shells for the newest messages only and renders markdown for the ones that fill the
//   viewport; older shells are mounted above them a chunk per frame, and each is rendered when it comes near the
//   viewport. CSS content-visibility:auto, with a height estimate, keeps shells that are off screen from being laid
//   out or painted. So first paint does not grow with the history.
// - The messages either side of the viewport are also rendered in idle time (renderAhead.ts), so a scroll finds them
//   rendered.
// - Messages are mounted in groups of GROUP (messageGroups.ts); a group, not each message, carries
//   content-visibility:auto with the sum of its members' estimates, so the browser checks about 40 groups against the
//   viewport each frame of a scroll, and the messages of the one or two groups on screen, not a thousand messages
//   (issue 22: 3–13 ms of each frame).
// "Near the viewport" is a binary search over the mounted messages' boxes on scroll, not an IntersectionObserver:
// with a thousand observed targets its per-frame bookkeeping was a large part of the cost of scrolling.
import type { ChatMessage } from '../src/shared/protocol';
import { h } from './dom';
import { charsPerLine, GROUP, MessageGroups } from './messageGroups';
import { trimCount } from './messageOrder';
import { logFocus, restoreLogFocus } from './logFocus';
import { installLogTabbing } from './logTabbing';
import { focusMessage, onLogKey } from './messageKeys';
import { MessageView, type Post } from './messageView';
import { RenderAhead } from './renderAhead';
import { anchorOf, AnchorHold, type ReadingAnchor, type ScrollRestore } from './scrollAnchor';
import { ScrollFollow } from './scrollFollow';
import { beforeSlices } from './slicedRender';
import { StreamBudget } from './streamBudget';

/** Shells mounted with a snapshot; the older ones follow, OLDER_CHUNK per frame. */
const FIRST_SHELLS = 40;
/** How long a revealed message stays marked. */
const REVEALED_MS = 2_000;
/** A multiple of messageGroups.ts's GROUP, so mounting fills whole groups. */
const OLDER_CHUNK = 200;
/** How far outside the viewport, in px, messages are rendered ahead of being scrolled to. */
const RENDER_AHEAD = 1200;
/** Work per frame for mounting and rendering older messages; leaves the rest of the 16 ms frame to the browser. */
const FRAME_BUDGET_MS = 8;

export interface MessageListHooks {
  /** A message finished (streaming ended, or a complete one arrived): a moment to announce it. */
  onCompleted(view: MessageView): void;
  /** The number of messages changed (the empty state depends on it). */
  onCountChanged(count: number): void;
  /** Escape in the conversation: back to the composer. */
  onLeave(): void;
  /** The view started or stopped following the newest content (the user scrolled away from it, or back). */
  onFollowChanged?(following: boolean): void;
}

export class MessageList {
  readonly el: HTMLElement;
  private views = new Map<string, MessageView>();
  /**
   * The message each view was built from, while nothing has changed it since (no delta, no patch): a snapshot that
   * holds the same message again keeps its view, rendered DOM and all, instead of building it a second time.
   */
  private sources = new Map<string, ChatMessage>();
  private order: MessageView[] = [];
  private readonly groups = new MessageGroups();
  /** order[mountedFrom..] are in the DOM. */
  private mountedFrom = 0;
  private checkViewport = false;
  private pendingRestore: ScrollRestore | undefined;
  private perLine = 60;
  private readonly dirty = new Set<MessageView>();
  private readonly lazy = new Set<MessageView>();
  /** Streamed characters rendered per message per frame; more waits for the next frame (see MessageView.flush). */
  private readonly budget = new StreamBudget();
  private frame = 0;
  /** The frame after a snapshot only paints it: older shells and renders ahead wait for the next one. */
  private paintFirst = false;
  /** Whether the view follows the newest content (scrollFollow.ts). */
  private readonly scroll: ScrollFollow;
  /** The message being read, held in place after a restore (scrollAnchor.ts). */
  private readonly hold: AnchorHold;
  /** The messages either side of the viewport, rendered in idle time so that a scroll finds them rendered. */
  private readonly ahead = new RenderAhead({
    mounted: (i) => (i >= this.mountedFrom && i < this.order.length ? this.order[i] : undefined),
    taken: (view) => this.lazy.delete(view),
  });

  constructor(
    private readonly scroller: HTMLElement,
    private readonly post: Post,
    private readonly hooks: MessageListHooks,
  ) {
    this.scroll = new ScrollFollow(scroller, (following) => hooks.onFollowChanged?.(following));
    this.hold = new AnchorHold(scroller);
    // Not a live region itself (a log's default is polite): it would read every block a streaming reply adds. The
    // panel's announcer says each reply once it settled (ChatApp.announceCompleted). One tab stop; the arrows,
    // Home and End move through the messages, Escape goes back to the composer.
    this.el = h('div', {
      class: 'log',
      role: 'log',
      'aria-live': 'off',
      'aria-label': 'Conversation',
      tabindex: 0,
      'data-testid': 'messages',
    });
    this.el.addEventListener('keydown', (e) => onLogKey(e, () => this.order.slice(this.mountedFrom), hooks.onLeave));
    installLogTabbing(this.el, (el) => el.closest<HTMLElement>('.message'));
    scroller.addEventListener('scroll', () => this.onScroll(), { passive: true });
    // What moves the view on purpose; a scroll without it is the browser's or the panel's (ScrollFollow.scrolled).
    for (const type of ['wheel', 'touchmove', 'keydown', 'pointerdown'])
      scroller.addEventListener(type, () => (this.scroll.userInput(), this.hold.release()), { passive: true, capture: true });
    // Following the bottom from a ResizeObserver: its callbacks run after layout, so reading scrollHeight there
    // forces no second layout, and the new scroll position is painted in the same frame.
    const follow = new ResizeObserver((entries) => {
      if (entries.some((e) => e.target === this.el)) this.scroll.release();
      this.scroll.stick();
      this.hold.reapply();
      this.requestViewportCheck();
    });
    follow.observe(scroller);
    follow.observe(this.el);
    beforeSlices(() => this.measureIfAsked());
  }

  get count(): number {
    return this.order.length;
  }

  /** Whether the view is following the newest content. */
  get pinned(): boolean {
    return this.scroll.following;
  }

  get(id: string): MessageView | undefined {
    return this.views.get(id);
  }

  /** Replaces every message (a snapshot). */
  reset(messages: ChatMessage[], restore?: ScrollRestore): void {
    [this.dirty, this.lazy].forEach((set) => set.clear());
    this.ahead.reset();
    this.hold.release();

    // Measured before the new DOM goes in, so this forces no layout of it.
    const viewport = this.scroller.clientHeight || window.innerHeight || 800;
    this.perLine = charsPerLine(this.el, this.scroller);

    const previous = this.views;
    const sources = this.sources;
    this.order = messages.map((m) => {
      const kept = previous.get(m.id);
      return kept && sameMessage(sources.get(m.id), m) ? kept : new MessageView(m, this.post);
    });
    this.views = new Map(this.order.map((v) => [v.id, v]));
    this.sources = new Map(messages.map((m) => [m.id, m]));
    this.mountedFrom = Math.max(0, this.order.length - FIRST_SHELLS);
    this.groups.clear();
    const focused = logFocus(this.el);
    this.el.replaceChildren();
    this.mount(this.mountedFrom, this.order.length, false, true);

    // Newest first: render until about one and a half viewports are filled, leave the rest to the observer.
    // Shown from the end (the view follows it), the newest message renders its last blocks first.
    const fromEnd = !(restore && restore.pinned === false && restore.scrollTop !== undefined);
    let filled = 0;
    for (let i = this.order.length - 1; i >= this.mountedFrom; i--) {
      const view = this.order[i]!;
      if (filled < viewport * 1.5) {
        // Their code is coloured just after the first paint: highlighting it first took over half of the time from
        // snapshot to paint.
        if (!view.isRendered) view.render(true, undefined, fromEnd && i === this.order.length - 1);
        filled += view.estimateHeight(this.perLine);
      } else this.setEstimate(view);
    }
    restoreLogFocus(focused, this.el, focused && this.views.get(focused.message));
    this.groups.size(this.order, this.mountedFrom, this.order.length, this.perLine);
    this.hooks.onCountChanged(this.order.length);
    this.pendingRestore = fromEnd ? undefined : restore;
    this.scroll.set(true);
    // The saved place only means something with every shell in place; until then, show the newest.
    if (this.pendingRestore && this.mountedFrom === 0) this.restoreScroll(this.pendingRestore);
    if (this.mountedFrom > 0) {
      this.paintFirst = true;
      this.schedule();
    }
  }

  append(message: ChatMessage): void {
    const existing = this.views.get(message.id);
    this.sources.delete(message.id);
    if (existing) {
      existing.update(message);
      if (existing.hasWork) this.markDirty(existing);
      return;
    }
    const view = new MessageView(message, this.post);
    this.views.set(view.id, view);
    this.order.push(view);
    this.groups.append(this.el, this.order.length - 1, view);
    // Following the end, a long one shows its end at once and the rest comes in above it (slicedRender.ts).
    view.render(false, undefined, this.scroll.atEnd);
    this.trim();
    this.hooks.onCountChanged(this.order.length);
    if (!view.isStreaming && view.role !== 'user') this.hooks.onCompleted(view);
  }

  /** Buffers a delta for the next frame; false when the message is unknown (the caller is out of sync). */
  delta(id: string, delta: string): boolean {
    const view = this.views.get(id);
    if (!view) return false;
    this.sources.delete(id);
    view.appendDelta(delta);
    this.markDirty(view);
    return true;
  }

  update(id: string, patch: Partial<Omit<ChatMessage, 'id'>>): boolean {
    const view = this.views.get(id);
    if (!view) return false;
    this.sources.delete(id);
    const wasStreaming = view.isStreaming;
    view.update(patch);
    if (patch.role !== undefined) this.groups.roleChanged(view);
    // Work left: deltas buffered before the patch, or the rest of a reply whose ending brought its whole text.
    if (view.hasWork) this.markDirty(view);
    else if (wasStreaming && !view.isStreaming) this.hooks.onCompleted(view);
    return true;
  }

  /** Every message, oldest first (messageOrder.ts reads them). */
  get messages(): readonly MessageView[] {
    return this.order;
  }

  /** Keeps the newest content in view while the user has not scrolled away from it. */
  stick(): void {
    this.scroll.stick();
  }

  /** Runs `change`, which shortens the conversation from below, without scrolling away the message being read. */
  keepInView(change: () => void): void {
    const newest = this.order[this.order.length - 1];
    this.scroll.keepInView(change, newest?.isMounted ? newest.el : undefined);
  }

  scrollToEnd(): void {
    this.pendingRestore = undefined;
    this.hold.release();
    this.scroll.toEnd();
  }

  /**
   * Brings the message `id` into view, mounting the older shells, and gives it the focus, marked for a
   * moment (a message Search Conversations… picked). The view stops following the newest content.
   */
  reveal(id: string): void {
    const index = this.order.findIndex((v) => v.id === id);
    if (index < 0) return;
    // Every older shell too, not only down to it: shells mounted above it later would push it down at a scroll
    // offset of 0, where the browser's scroll anchoring does not hold the view.
    if (index < this.mountedFrom) {
      this.mount(0, this.mountedFrom);
      this.mountedFrom = 0;
    }
    this.pendingRestore = undefined;
    this.hold.release();
    this.scroll.release();
    this.scroll.set(false);
    const view = this.order[index]!;
    focusMessage(view);
    view.el.scrollIntoView({ block: 'center' });
    view.el.classList.add('revealed');
    setTimeout(() => view.el.classList.remove('revealed'), REVEALED_MS);
  }

  /** Drops the oldest messages past PANEL_KEEP (messageOrder.ts), never while older shells mount or the user reads back. */
  private trim(): void {
    const drop = trimCount(this.order.length);
    if (!drop || this.mountedFrom > 0 || !this.scroll.following) return;
    const gone = this.order.splice(0, drop);
    const focused = gone.some((v) => v.el.contains(document.activeElement));
    this.groups.dropFirst(drop / GROUP);
    for (const view of gone) [this.views, this.sources].forEach((m) => m.delete(view.id));
    for (const view of gone) [this.dirty, this.lazy].forEach((s) => s.delete(view));
    this.ahead.reset();
    if (focused) this.el.focus({ preventScroll: true });
    // At the bottom at once: the browser's own move (scroll anchoring, a clamp) read as the user leaving it.
    this.scroll.stick();
  }

  private setEstimate(view: MessageView): void {
    if (view.isRendered) return;
    // CSSOM, not a style attribute: the CSP has no 'unsafe-inline', and CSSOM writes are not inline styles.
    view.el.style.setProperty('contain-intrinsic-size', `auto ${view.estimateHeight(this.perLine)}px`);
  }

  /** Puts order[from..to) in their groups, above the mounted ones; `estimate`: with their placeholder heights. */
  private mount(from: number, to: number, estimate = true, open = false): void {
    this.groups.mount(this.el, this.order, from, to, open, estimate ? (view) => this.setEstimate(view) : undefined);
    if (estimate) this.groups.size(this.order, from, to, this.perLine);
  }

  private markDirty(view: MessageView): void {
    this.dirty.add(view);
    this.schedule();
  }

  private requestViewportCheck(): void {
    this.checkViewport = true;
    this.schedule();
  }

  /**
   * The viewport check asked for, at the start of a frame's callbacks, where layout is clean. Also run before each
   * frame's slices (slicedRender.ts), whose callback can come first: read after a long message's slice had written,
   * the boxes laid that slice out in script, and the frame laid out again after the renders ahead (a 200 KB reply,
   * traced: 53 forced style and layout passes, 309 ms of its CPU).
   */
  private measureIfAsked(): void {
    if (!this.checkViewport) return;
    this.checkViewport = false;
    this.lazy.clear();
    this.queueNearViewport();
  }

  /** Queues the unrendered messages within RENDER_AHEAD of the viewport, nearest the bottom first. */
  private queueNearViewport(): void {
    const { order, mountedFrom } = this;
    let unrendered = false;
    for (let i = mountedFrom; i < order.length && !unrendered; i++) unrendered = !order[i]!.isRendered;
    if (!unrendered) return;
    const box = this.scroller.getBoundingClientRect();
    const near = this.groups.unrenderedWithin(order, mountedFrom, box.top - RENDER_AHEAD, box.bottom + RENDER_AHEAD);
    for (let i = near.length - 1; i >= 0; i--) this.lazy.add(near[i]!);
    this.ahead.around(this.groups.firstMessageReaching(order, mountedFrom, box.top));
  }

  private restoreScroll(restore: ScrollRestore): void {
    this.hold.restore(restore, (id) => this.views.get(id));
    this.pendingRestore = undefined;
    this.scroll.set(false);
  }

  /** The message being read and how far into it, to be restored after a reload; none while following the newest. */
  readingAnchor(): ReadingAnchor | undefined {
    if (this.scroll.following || this.mountedFrom >= this.order.length) return undefined;
    const top = this.scroller.getBoundingClientRect().top;
    return anchorOf(this.scroller, this.order[this.groups.firstMessageReaching(this.order, this.mountedFrom, top)]!);
  }

  private onScroll(): void {
    this.scroll.scrolled();
    this.requestViewportCheck();
  }

  private schedule(): void {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.runFrame());
  }

  private runFrame(): void {
    this.frame = 0;
    if (this.paintFirst) {
      // Mounting 200 more shells and rendering ahead in this frame would all be laid out before the newest
      // messages first show: about 90 ms on a 1,000-message history.
      this.paintFirst = false;
      this.schedule();
      return;
    }
    // Layout is clean at the start of a frame; measure before this frame's writes.
    this.measureIfAsked();
    const started = performance.now();
    let applied = 0;
    for (const view of this.dirty) {
      const wasStreaming = view.isStreaming;
      const before = view.pendingChars;
      view.flush(this.budget.chars);
      if (view.isRendered) applied += before - view.pendingChars;
      if (!view.hasWork) this.dirty.delete(view);
      if (wasStreaming && !view.isStreaming) this.hooks.onCompleted(view);
    }
    // Timed to the end of this frame's rendering: the rows a frame adds cost more to lay out than to build.
    this.budget.recordFrame(applied, started);
    const deadline = performance.now() + FRAME_BUDGET_MS;
    for (const view of this.lazy) {
      if (performance.now() > deadline) break;
      this.lazy.delete(view);
      // Within what is left of the budget: a long one goes on in slices in the next frames (slicedRender.ts).
      if (!view.isRendered && this.views.get(view.id) === view) view.render(false, deadline);
    }
    if (this.mountedFrom > 0 && performance.now() < deadline) this.mountOlder();
    if (this.dirty.size || this.lazy.size || this.mountedFrom > 0) this.schedule();
  }

  /** Mounts the next chunk of older shells above the mounted ones; scroll anchoring keeps what is on screen still. */
  private mountOlder(): void {
    const from = Math.max(0, this.mountedFrom - OLDER_CHUNK);
    this.mount(from, this.mountedFrom);
    this.mountedFrom = from;
    if (from === 0 && this.pendingRestore) this.restoreScroll(this.pendingRestore);
  }
}

/** The same message, field for field (what the host sends is plain JSON data). */
const sameMessage = (a: ChatMessage | undefined, b: ChatMessage): boolean => a !== undefined && (a === b || JSON.stringify(a) === JSON.stringify(b));
