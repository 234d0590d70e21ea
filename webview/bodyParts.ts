// A long markdown body's blocks in nested parts, each laid out and painted only near the viewport
// (styles/markdown.css: content-visibility). A 200 KB reply is about 2,000 blocks; as direct children of the body,
// every frame's layout, pre-paint and paint walked them all while it was rendered in slices, 40–55 ms of CPU a task
// near its end (issue 22). Content-visibility keeps a part's text searchable, selectable and copied.
//
// What must stay true: the parts depend only on the blocks' order (markdownStream.ts cuts them, a stream and a whole
// text alike), so the one-shot render, the slices and the stream write the same DOM. The first PART_BLOCKS blocks are
// the body's children as before (nearly every message has fewer); each PART_BLOCKS after them go in one part.

/** Blocks per part. */
export const PART_BLOCKS = 50;

export const PART_OPEN = '<div class="md-part">';
/** A part still being written from the end back (PartsDomFromEnd). */
export const PART_OPEN_CLASS = 'md-open';
export const PART_CLOSE = '</div>';

/** Whether block `index` (0-based, in the body's order) begins a part. */
export function beginsPart(index: number): boolean {
  return index >= PART_BLOCKS && index % PART_BLOCKS === 0;
}

/** A body's rendered blocks joined as HTML, a block at a time: what the one-shot render writes. */
export class PartsHtml {
  private count = 0;

  /** Block `html`'s place in the body: the part it begins opened (the one before closed) first. */
  add(html: string): string {
    if (!beginsPart(this.count++)) return html;
    return (this.count - 1 > PART_BLOCKS ? PART_CLOSE : '') + PART_OPEN + html;
  }

  /** What closes the body's last part, if any. */
  end(): string {
    return this.count > PART_BLOCKS ? PART_CLOSE : '';
  }
}

/** A body's blocks written into the DOM as they come (slices, a stream): the element each goes in. */
export class PartsDom {
  /** Parts made so far (the body's own blocks count as none). */
  private made = 0;
  private part: HTMLElement | undefined;

  constructor(private readonly body: Element) {}

  /**
   * The element block `index` goes in (the body, or its part), blocks asked for in order. A part is made when its
   * first block is asked for, appended to the body; `anchor` (a stream's open block, the body's last node) is moved
   * into it, so the open block's DOM is where its finished DOM will be.
   */
  at(index: number, anchor?: Element): Element {
    const p = index < PART_BLOCKS ? 0 : Math.floor(index / PART_BLOCKS);
    if (p > this.made) {
      const part = document.createElement('div');
      part.className = 'md-part';
      this.body.append(part);
      if (anchor) part.append(anchor);
      this.part = part;
      this.made = p;
    }
    return this.part ?? this.body;
  }
}

/**
 * The same DOM written from a body's last block back to its first (a long message rendered from its end while the
 * view follows the end): the element each goes in, blocks asked for from the last back; what is written in it goes
 * before what is there already. A part is made when its last block is asked for, before the parts made so far.
 * A part made is open (PART_OPEN_CLASS: laid out like any block) until it has been in the page for a frame with its
 * message shown: new, a part is skipped at its estimated height until the browser has seen it near the viewport, and
 * the view that follows the end showed the bottom of that blank box for a frame (Chromium, seen with checkVisibility).
 * Once a part is wholly above the viewport (`look`), it closes, and the parts made before it from then on are made
 * closed: what goes in them is not styled or laid out while it is off screen, as the rest of a long body's parts.
 */
export class PartsDomFromEnd {
  /** The earliest part made so far, and its number (the body's own blocks are part 0). */
  private part: HTMLElement | undefined;
  private made = Infinity;
  /** Slices begun; the open parts with the slice each was made in. */
  private slices = 0;
  private readonly open: Array<[HTMLElement, number]> = [];
  /** The earliest part made is above the viewport: those made before it will be too. */
  private above = false;

  constructor(private readonly body: Element) {}

  at(index: number): Element {
    const p = index < PART_BLOCKS ? 0 : Math.floor(index / PART_BLOCKS);
    if (p === 0) return this.body;
    if (p < this.made) {
      const part = document.createElement('div');
      if (this.above) part.className = 'md-part';
      else {
        part.className = `md-part ${PART_OPEN_CLASS}`;
        this.open.push([part, this.slices]);
      }
      // Only parts are in the body until its own first blocks come, last of all.
      this.body.prepend(part);
      this.part = part;
      this.made = p;
    }
    return this.part!;
  }

  /**
   * A slice begins (an animation frame's): the parts no longer written in that were made two slices ago or more
   * close. Made in the slice before, a part may not have been shown yet (its message is new: the browser skips it
   * whole the first frame). `all`: every block is in. True while parts are open.
   */
  nextSlice(all = false): boolean {
    this.slices++;
    for (let i = this.open.length - 1; i >= 0; i--) {
      const [part, madeIn] = this.open[i]!;
      if ((all || part !== this.part) && madeIn <= this.slices - 2) {
        part.classList.remove(PART_OPEN_CLASS);
        this.open.splice(i, 1);
      }
    }
    return this.isOpen;
  }

  /**
   * Closes the open parts wholly above the viewport (the window's: the log's scroller is inside it). To be called
   * before the frame writes anything, where reading boxes costs no layout; not in the first two slices, while the
   * browser may still be skipping the new message whole.
   */
  look(): void {
    if (this.slices < 2) return;
    for (let i = this.open.length - 1; i >= 0; i--) {
      const part = this.open[i]![0];
      if (part.getBoundingClientRect().bottom >= 0) continue;
      part.classList.remove(PART_OPEN_CLASS);
      this.open.splice(i, 1);
      if (part === this.part) this.above = true;
    }
  }

  get isOpen(): boolean {
    return this.open.length > 0;
  }
}
