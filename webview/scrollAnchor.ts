// Where the reader was, saved by content rather than by scroll offset alone. After a reload the messages above the one
// being read are first shown at estimated heights (messageList.ts) and later at their real ones, and a panel of another
// width wraps every line differently: a bare scrollTop then lands on another message. The message at the top of the
// view and how far into it the reader was land on the same text whatever the heights above it are; Chromium's scroll
// anchoring then holds it there while the messages above render.
import type { MessageView } from './messageView';

export interface ReadingAnchor {
  /** The message at the top of the view. */
  id: string;
  /** How many px of it were scrolled past. */
  offset: number;
}

/** What a snapshot restores: the saved scroll offset (states saved before anchors had it alone) and the anchor. */
export interface ScrollRestore {
  scrollTop?: number;
  pinned?: boolean;
  anchor?: ReadingAnchor;
}

/** A saved state is the panel's own, but from any earlier version: an anchor is used only if it has this shape. */
function isReadingAnchor(value: unknown): value is ReadingAnchor {
  const v = value as Partial<ReadingAnchor> | null;
  return !!v && typeof v === 'object' && typeof v.id === 'string' && typeof v.offset === 'number' && Number.isFinite(v.offset);
}

/** The anchor for `view`, the first message reaching the top of `scroller`'s view. */
export function anchorOf(scroller: HTMLElement, view: MessageView): ReadingAnchor {
  const offset = scroller.getBoundingClientRect().top - view.el.getBoundingClientRect().top;
  return { id: view.id, offset: Math.max(0, Math.round(offset)) };
}

/**
 * Scrolls back to where the reader was and holds the anchor's message there while the layout above it settles: in the
 * frame after a restore the older groups take their real sizes (content-visibility) and Chromium's scroll anchoring,
 * measured, did not follow (the message moved 430 px up). Let go at the user's first scroll, key or pointer.
 */
export class AnchorHold {
  private held: { view: MessageView; offset: number } | undefined;

  constructor(private readonly scroller: HTMLElement) {}

  /** To the anchor's message when it is mounted (and held there), else to the saved offset. */
  restore(restore: ScrollRestore, find: (id: string) => MessageView | undefined): void {
    const anchor = isReadingAnchor(restore.anchor) ? restore.anchor : undefined;
    const view = anchor && find(anchor.id);
    this.held = anchor && view?.isMounted ? { view, offset: anchor.offset } : undefined;
    if (this.held) this.reapply();
    else this.scroller.scrollTop = restore.scrollTop ?? 0;
  }

  /** After a layout (a ResizeObserver callback): back onto the held message, if it moved. */
  reapply(): void {
    const held = this.held;
    if (!held) return;
    if (!held.view.isMounted) return this.release();
    if (!held.view.isRendered) held.view.render();
    const moved = this.scroller.getBoundingClientRect().top - held.view.el.getBoundingClientRect().top - held.offset;
    if (Math.abs(moved) >= 1) this.scroller.scrollTop -= moved;
  }

  release(): void {
    this.held = undefined;
  }
}
