// The message log. Two things keep it fast:
// - Deltas are only buffered when they arrive; one animation frame applies everything buffered since the last one,
//   so 10k deltas cost a few hundred renders of a small tail, not 10k.
// - A snapshot creates cheap plain-text shells for every message but renders markdown only for the newest ones that
//   fill the viewport; older ones render when an IntersectionObserver sees them come near it. CSS
//   content-visibility:auto (with a height estimate) keeps the shells from being laid out while off screen.
import type { ChatMessage } from '../src/shared/protocol';
import { h } from './dom';
import { MessageView, type Post } from './messageView';

/** Distance from the bottom, in px, within which the view keeps following new content. */
const PIN_SLACK = 32;
/** Work per frame for rendering older messages; leaves the rest of the 16 ms frame to the browser. */
const LAZY_BUDGET_MS = 8;

export interface MessageListHooks {
  /** A message finished (streaming ended, or a complete one arrived): a moment to announce it. */
  onCompleted(view: MessageView): void;
  /** The number of messages changed (the empty state depends on it). */
  onCountChanged(count: number): void;
}

export class MessageList {
  readonly el: HTMLElement;
  private views = new Map<string, MessageView>();
  private order: MessageView[] = [];
  private readonly byElement = new WeakMap<Element, MessageView>();
  private readonly dirty = new Set<MessageView>();
  private readonly lazy = new Set<MessageView>();
  private readonly io: IntersectionObserver;
  private frame = 0;
  private liveTimer: ReturnType<typeof setTimeout> | undefined;
  private following = true;

  constructor(
    private readonly scroller: HTMLElement,
    private readonly post: Post,
    private readonly hooks: MessageListHooks,
  ) {
    this.el = h('div', {
      class: 'log',
      role: 'log',
      'aria-live': 'polite',
      'aria-relevant': 'additions',
      'aria-label': 'Conversation',
      'data-testid': 'messages',
    });
    this.io = new IntersectionObserver((entries) => this.onIntersect(entries), { root: scroller, rootMargin: '1200px 0px' });
    scroller.addEventListener('scroll', () => this.onScroll(), { passive: true });
    new ResizeObserver(() => this.stick()).observe(scroller);
  }

  get count(): number {
    return this.order.length;
  }

  /** Whether the view is following the newest content. */
  get pinned(): boolean {
    return this.following;
  }

  get(id: string): MessageView | undefined {
    return this.views.get(id);
  }

  /** Replaces every message (a snapshot). */
  reset(messages: ChatMessage[], restore?: { scrollTop?: number; pinned?: boolean }): void {
    this.io.disconnect();
    this.dirty.clear();
    this.lazy.clear();
    // A snapshot is not news: mute the live region while the log is rebuilt, or a screen reader would read it all.
    this.el.setAttribute('aria-live', 'off');
    clearTimeout(this.liveTimer);
    this.liveTimer = setTimeout(() => this.el.setAttribute('aria-live', 'polite'), 500);

    this.order = messages.map((m) => this.createView(m));
    this.views = new Map(this.order.map((v) => [v.id, v]));
    const fragment = document.createDocumentFragment();
    for (const view of this.order) fragment.append(view.el);
    this.el.replaceChildren(fragment);

    // Newest first: render until about one and a half viewports are filled, leave the rest to the observer.
    const viewport = this.scroller.clientHeight || window.innerHeight || 800;
    const perLine = this.charsPerLine();
    let filled = 0;
    for (let i = this.order.length - 1; i >= 0; i--) {
      const view = this.order[i]!;
      const estimate = view.estimateHeight(perLine);
      if (filled < viewport * 1.5) {
        view.render();
        filled += estimate;
      } else if (!view.isRendered) {
        // CSSOM, not a style attribute: the CSP has no 'unsafe-inline', and CSSOM writes are not inline styles.
        view.el.style.setProperty('contain-intrinsic-size', `auto ${estimate}px`);
        this.io.observe(view.el);
      }
    }
    this.hooks.onCountChanged(this.order.length);
    if (restore && restore.pinned === false && restore.scrollTop !== undefined) {
      this.following = false;
      this.scroller.scrollTop = restore.scrollTop;
    } else {
      this.following = true;
      this.stick();
    }
  }

  append(message: ChatMessage): void {
    const existing = this.views.get(message.id);
    if (existing) {
      existing.update(message);
      this.stick();
      return;
    }
    const view = this.createView(message);
    this.views.set(view.id, view);
    this.order.push(view);
    view.render();
    this.el.append(view.el);
    this.hooks.onCountChanged(this.order.length);
    if (!view.isStreaming && view.role !== 'user') this.hooks.onCompleted(view);
    this.stick();
  }

  /** Buffers a delta for the next frame; false when the message is unknown (the caller is out of sync). */
  delta(id: string, delta: string): boolean {
    const view = this.views.get(id);
    if (!view) return false;
    view.appendDelta(delta);
    this.dirty.add(view);
    this.schedule();
    return true;
  }

  update(id: string, patch: Partial<Omit<ChatMessage, 'id'>>): boolean {
    const view = this.views.get(id);
    if (!view) return false;
    const wasStreaming = view.isStreaming;
    this.dirty.delete(view);
    view.update(patch);
    if (wasStreaming && !view.isStreaming) this.hooks.onCompleted(view);
    this.stick();
    return true;
  }

  /** The text of the newest user message (for ArrowUp recall when nothing was sent in this page). */
  lastUserText(): string | undefined {
    for (let i = this.order.length - 1; i >= 0; i--) if (this.order[i]!.role === 'user') return this.order[i]!.content;
    return undefined;
  }

  /** Keeps the newest content in view while the user has not scrolled away from it. */
  stick(): void {
    if (this.following) this.scroller.scrollTop = this.scroller.scrollHeight;
  }

  scrollToEnd(): void {
    this.following = true;
    this.stick();
  }

  private createView(message: ChatMessage): MessageView {
    const view = new MessageView(message, this.post);
    this.byElement.set(view.el, view);
    return view;
  }

  private onScroll(): void {
    const { scrollTop, scrollHeight, clientHeight } = this.scroller;
    this.following = scrollHeight - scrollTop - clientHeight <= PIN_SLACK;
  }

  private onIntersect(entries: IntersectionObserverEntry[]): void {
    // Newest (lowest on the page) first: that is where the user is most likely looking.
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i]!;
      if (!entry.isIntersecting) continue;
      const view = this.byElement.get(entry.target);
      if (view && !view.isRendered) this.lazy.add(view);
    }
    if (this.lazy.size) this.schedule();
  }

  private schedule(): void {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.runFrame());
  }

  private runFrame(): void {
    this.frame = 0;
    let changed = false;
    for (const view of this.dirty) changed = view.flush() || changed;
    this.dirty.clear();
    const deadline = performance.now() + LAZY_BUDGET_MS;
    for (const view of this.lazy) {
      this.lazy.delete(view);
      this.io.unobserve(view.el);
      if (!view.isRendered && this.views.get(view.id) === view) {
        view.render();
        changed = true;
      }
      if (performance.now() > deadline) break;
    }
    if (this.lazy.size) this.schedule();
    if (changed) this.stick();
  }

  /** How many characters fit on a line of the log, for placeholder height estimates. */
  private charsPerLine(): number {
    const width = this.el.clientWidth || this.scroller.clientWidth || 400;
    return Math.max(20, Math.floor((width - 32) / 7.5));
  }
}
