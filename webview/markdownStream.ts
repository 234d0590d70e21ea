// Streaming markdown: a reply is cut into blocks that are rendered independently, so a block that is finished never
// changes as more text arrives and the webview keeps its DOM, re-rendering only the open (last) block.
//
// What must stay true: block ends are decided from complete lines only, and all state resets at each end. So cutting
// a text into any number of pieces yields the same blocks as cutting it at once, and a streamed message renders to
// exactly the HTML of the same text rendered in one go (renderMarkdown uses the same cut).
//
// A block ends at a blank line outside a code fence (for a list, only when the next line does not continue it: an
// indented line or another item keeps a loose list one list), before a fence that opens at the start of a line or
// an ATX heading, after a heading line, and after such a fence's closing line. Every step looks at each line once.
import { PartsHtml } from './bodyParts';
import { renderBlock, type RenderEnv } from './markdownRender';
import { renderAnyBlock } from './markdownRows';

interface Fence {
  ch: string;
  len: number;
  /** The fence began the block (rather than sitting inside a list item), so its closing line ends the block. */
  ownsBlock: boolean;
}

const BLANK = /^[ \t]*$/;
const ATX = /^ {0,3}#{1,6}(?:[ \t]|$)/;
const FENCE_OPEN = /^([ \t]*)(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSE = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;
const ITEM = /^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;
const INDENTED = /^[ \t]/;

function fenceOpen(line: string): { ch: string; len: number; indented: boolean } | null {
  const m = FENCE_OPEN.exec(line);
  if (!m) return null;
  const run = m[2]!;
  // CommonMark: a backtick fence's info string may not contain backticks (else it is an inline code span).
  if (run[0] === '`' && m[3]!.includes('`')) return null;
  return { ch: run[0]!, len: run.length, indented: m[1] !== '' };
}

function closesFence(line: string, fence: Fence): boolean {
  const m = FENCE_CLOSE.exec(line);
  return !!m && m[1]![0] === fence.ch && m[1]!.length >= fence.len;
}

/** Cuts streamed markdown into blocks. The consumed text is dropped, so memory stays the size of the open block. */
export class BlockSplitter {
  private buf = '';
  /** Offset in buf of the first line not yet looked at. */
  private scan = 0;
  private hasContent = false;
  private isList = false;
  /** Offset of the blank line that will end a list block unless the next line continues the list; -1 if none. */
  private blankAt = -1;
  private fence: Fence | null = null;
  /** The last delta ended in \r: held back, so that a \r\n cut between two deltas is one line break. */
  private heldCr = false;

  /**
   * Appends text and returns the source of each block this text finished, in order. \r\n and a lone \r are line
   * breaks (a lone \r dropped joined `50%` and `progress` of a progress line, and `old` and `new` in code).
   */
  push(delta: string): string[] {
    let text = this.heldCr ? `\r${delta}` : delta;
    this.heldCr = false;
    if (text.includes('\r')) {
      this.heldCr = text.endsWith('\r');
      text = (this.heldCr ? text.slice(0, -1) : text).replace(/\r\n?/g, '\n');
    }
    this.buf += text;
    const done: string[] = [];
    for (let nl = this.buf.indexOf('\n', this.scan); nl !== -1; nl = this.buf.indexOf('\n', this.scan)) {
      this.line(done, this.scan, nl + 1);
    }
    return done;
  }

  /**
   * The text has ended: its last line is complete, so the blocks it ends are finished (returned, in order) and the
   * tail is the last block. A list followed by a last line without a line break (the note the host adds after a
   * reply) was one block with it, rendered whole instead of a row at a time.
   */
  end(): string[] {
    // A \r held back is the text's last line break.
    if (this.heldCr) return this.push('\n');
    return this.buf && !this.buf.endsWith('\n') ? this.push('\n') : [];
  }

  /** The open block's source so far (may be empty or whitespace). */
  get tail(): string {
    return this.buf;
  }

  private line(done: string[], start: number, end: number): void {
    const line = this.buf.slice(start, end - 1);
    if (this.fence) {
      if (!closesFence(line, this.fence)) this.scan = end;
      else if (this.fence.ownsBlock) this.finish(done, end, end);
      else {
        this.fence = null;
        this.scan = end;
      }
      return;
    }
    if (BLANK.test(line)) {
      if (!this.hasContent) this.drop(end);
      else if (!this.isList) this.finish(done, start, end);
      else {
        if (this.blankAt < 0) this.blankAt = start;
        this.scan = end;
      }
      return;
    }
    if (this.blankAt >= 0) {
      if (INDENTED.test(line) || ITEM.test(line)) this.blankAt = -1;
      else {
        // The list ended at the blank line; this line starts the next block at offset 0.
        const offset = end - start;
        this.finish(done, this.blankAt, start);
        this.line(done, 0, offset);
        return;
      }
    }
    const fence = fenceOpen(line);
    if (fence) {
      const ownsBlock = !this.hasContent || !fence.indented;
      // A new block starts at this line: finish the one before it, after which the line sits at offset 0.
      if (this.hasContent && ownsBlock) this.finish(done, start, start);
      this.fence = { ch: fence.ch, len: fence.len, ownsBlock };
      this.hasContent = true;
      this.scan = this.buf.indexOf('\n', this.scan) + 1;
      return;
    }
    if (ATX.test(line)) {
      if (this.hasContent) this.finish(done, start, start);
      // The heading line is a block of its own.
      const lineEnd = this.buf.indexOf('\n', this.scan) + 1;
      this.finish(done, lineEnd, lineEnd);
      return;
    }
    if (!this.hasContent) this.isList = ITEM.test(line);
    this.hasContent = true;
    this.scan = end;
  }

  /** Ends the open block at `end` (exclusive) and starts the next one at `next`. */
  private finish(done: string[], end: number, next: number): void {
    done.push(this.buf.slice(0, end));
    this.drop(next);
  }

  private drop(next: number): void {
    this.buf = this.buf.slice(next);
    this.scan = 0;
    this.hasContent = false;
    this.isList = false;
    this.blankAt = -1;
    this.fence = null;
  }
}

/** All blocks of a complete text, the last (unterminated) one included. */
export function splitBlocks(text: string): string[] {
  const splitter = new BlockSplitter();
  const blocks = [...splitter.push(text), ...splitter.end()];
  if (/\S/.test(splitter.tail)) blocks.push(splitter.tail);
  return blocks;
}

/** Renders a whole markdown text to HTML, block by block (a long one in parts, bodyParts.ts), exactly as a stream of it ends up. */
export function renderMarkdown(text: string, env: RenderEnv = {}): string {
  const parts = new PartsHtml();
  let html = '';
  for (const block of splitBlocks(text)) html += parts.add(renderAnyBlock(block, env));
  return html + parts.end();
}

/**
 * Incremental rendering of one streamed message. The concatenation of every push's `done`, then finalHtml(), equals
 * renderMarkdown(all text): finished blocks are rendered once, the open block on demand (unhighlighted).
 */
export class MarkdownStream {
  private readonly splitter = new BlockSplitter();
  private readonly parts = new PartsHtml();

  /** Appends text; returns the HTML of the blocks it finished (a part they begin left open, see finalHtml). */
  pushBlocks(delta: string): string {
    let done = '';
    for (const block of this.pushSources(delta)) done += this.parts.add(renderAnyBlock(block));
    return done;
  }

  /** Appends text; returns the source of each block it finished, for the caller to render. */
  pushSources(delta: string): string[] {
    return this.splitter.push(delta);
  }

  push(delta: string): { done: string; tail: string } {
    const done = this.pushBlocks(delta);
    return { done, tail: this.tailHtml() };
  }

  /** The text has ended: the sources of the blocks its last line finishes (see BlockSplitter.end). */
  endSources(): string[] {
    return this.splitter.end();
  }

  /** The open block's source so far. */
  get tailSource(): string {
    return this.splitter.tail;
  }

  /** The open block rendered as still open (its code not highlighted). */
  tailHtml(): string {
    return renderBlock(this.splitter.tail, { open: true });
  }

  /** The blocks the end of the text finishes and the last one, rendered: what follows the pushes' blocks. */
  finalHtml(): string {
    let html = '';
    for (const block of this.splitter.end()) html += this.parts.add(renderAnyBlock(block));
    if (/\S/.test(this.splitter.tail)) html += this.parts.add(renderAnyBlock(this.splitter.tail));
    return html + this.parts.end();
  }
}
