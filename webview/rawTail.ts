// The open block of a streaming message shown as text rather than re-rendered as markdown on every frame: an open
// code fence (its code is shown plain until the fence closes anyway) and any other open block longer than
// MAX_OPEN_RENDER or with more than MAX_OPEN_DELIMITERS delimiters. Re-rendering and re-sanitizing a 100 KB open block each frame made frames of 50–300 ms.
//
// What stays true: a frame's work does not grow with the block. Finished chunks (see chunkEnd) stay in the DOM
// untouched; a frame rewrites only the last chunk's text and appends the new ones. Everything here is text (a hidden
// character in a mark of ours, hiddenChars.ts), so nothing the model wrote is parsed as HTML (the fence's shell is our
// own markup, sanitized once). When the block ends, MessageView replaces this view with the block's real render, so
// the final DOM is the one-shot render's.
import { h } from './dom';
import { setMarkedText } from './hiddenChars';
import { chunkEnd, openFenceShell, tooBusyToRerender } from './markdownRender';
import { sanitizedFragment } from './sanitize';

/** An open block (not a fence) longer than this streams as text until it is complete. */
export const MAX_OPEN_RENDER = 8_000;

export class RawTail {
  private readonly chunks: HTMLElement[] = [];
  private readonly starts: number[] = [];

  private constructor(
    readonly el: Element,
    private readonly target: Element,
    /** Characters of the block's source before the shown text (a fence's opening line). */
    private readonly skip: number,
  ) {}

  /** A text view for the open block `src`, or undefined while the block is re-rendered as markdown. */
  static for(src: string): RawTail | undefined {
    const nl = src.indexOf('\n');
    const shell = nl >= 0 ? openFenceShell(src.slice(0, nl)) : null;
    if (shell !== null) {
      const el = sanitizedFragment(shell).firstElementChild;
      const code = el?.querySelector('code');
      if (el && code) return new RawTail(el, code, nl + 1);
    }
    if (src.length <= MAX_OPEN_RENDER && !tooBusyToRerender(src)) return undefined;
    return RawTail.plain();
  }

  /** A text view of any open text (the open row of a list or table too long to render every frame: rowTail.ts). */
  static plain(): RawTail {
    const p = h('p', { class: 'md-plain' });
    return new RawTail(p, p, 0);
  }

  /** Shows `src`, the same block grown (never a different block: MessageView drops this view when a block ends). */
  update(src: string): void {
    const text = src.slice(this.skip);
    // The last chunk may have been cut at the end of the text then; it is the first that can change.
    let i = Math.max(0, this.chunks.length - 1);
    for (let at = this.starts[i] ?? 0; at < text.length; i++) {
      const end = chunkEnd(text, at);
      const piece = text.slice(at, end);
      const chunk = this.chunks[i];
      if (!chunk) {
        this.chunks.push(h('span', { class: 'md-chunk' }));
        setMarkedText(this.chunks[i]!, piece);
        this.starts.push(at);
        this.target.append(this.chunks[i]!);
      } else setMarkedText(chunk, piece);
      at = end;
    }
  }
}
