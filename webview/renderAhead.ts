// Renders the messages either side of the viewport in idle time (requestIdleCallback), so that a scroll finds them
// rendered and no frame of it has to render one on demand (issue 22): on a loaded machine a render in the scroll's
// frame was what made its longest frames (docs/performance.md, note ⁴). What idle time does not reach, the list
// still renders in its frame when the scroll comes near it (messageList.ts); messages farther away wait for a scroll.
import type { MessageView } from './messageView';

/**
 * Messages either side of the one at the top of the viewport that are rendered ahead. 25 is about 30 frames of the
 * bench's scroll (600 px a frame); a render of one of them takes 1–6 ms.
 */
const IDLE_AHEAD = 25;
/** The least idle time, in ms, in which a render ahead is begun: less is too near the next frame. */
const IDLE_MIN_MS = 4;

/** The list, as render-ahead sees it. */
export interface AheadSource {
  /** The view at `index` in the list's order when it is in the DOM; undefined otherwise (or out of range). */
  mounted(index: number): MessageView | undefined;
  /** A view is about to be rendered ahead: the list drops it from its own queue. */
  taken(view: MessageView): void;
}

export class RenderAhead {
  /** The index of the message at the top of the viewport at the last viewport check; -1 before the first. */
  private atTop = -1;
  /** A requestIdleCallback handle while renders ahead are due. */
  private idle = 0;

  constructor(private readonly source: AheadSource) {}

  /** Forgets the viewport (the list was replaced); a pending idle callback then finds nothing to do. */
  reset(): void {
    this.atTop = -1;
  }

  /** The viewport check found order[atTop] at the top of the viewport: renders around it when the page is idle. */
  around(atTop: number): void {
    this.atTop = atTop;
    if (!this.idle) this.idle = requestIdleCallback((deadline) => this.run(deadline));
  }

  /**
   * Renders the unrendered messages within IDLE_AHEAD of the viewport's, nearest first (older before newer at the
   * same distance: a scroll back through the history goes up), while the idle period has IDLE_MIN_MS left. Each
   * render takes at most what is left of it (a long one goes on in slices, as a render in a frame does).
   */
  private run(deadline: IdleDeadline): void {
    this.idle = 0;
    let next = this.next();
    while (next && deadline.timeRemaining() >= IDLE_MIN_MS) {
      this.source.taken(next);
      next.render(false, performance.now() + deadline.timeRemaining());
      next = this.next();
    }
    if (next) this.idle = requestIdleCallback((d) => this.run(d));
  }

  private next(): MessageView | undefined {
    const atTop = this.atTop;
    if (atTop < 0) return undefined;
    for (let d = 0; d <= IDLE_AHEAD; d++) {
      for (const i of [atTop - d, atTop + d]) {
        const view = this.source.mounted(i);
        if (view && !view.isRendered) return view;
      }
    }
    return undefined;
  }
}
