// Lists and tables rendered a row at a time: a list item or a table row, once the next one has begun, never changes
// how it renders, so a streamed list of thousands of items renders each item once instead of the whole open block
// on every frame (issue 20: ~100 ms a frame for a few thousand short items). The one-shot render (renderMarkdown,
// history) assembles the very same rows, so a streamed message ends with exactly the DOM of rendering it whole.
//
// What must stay true:
// - Rows are cut at complete lines only, by the same RowCutter for a stream and for a whole text, so both see the
//   same rows (a list item ends where a line starts a sibling: same indent, same marker; a table row is a line).
// - A row is rendered by markdown-it alone (a table row under its header), and accepted only if it renders as one
//   list (one table body row) of the block's kind; otherwise the whole block is rendered the usual way.
// - A list's looseness belongs to the whole list (CommonMark): each item is told the list's, and when a later item
//   makes the list loose, the items before it are rendered again, once.
// - A table of more than SEGMENT_ROWS rows is written as segments too (see TABLE_OPEN): when a streamed table passes
//   that many, the table shown so far becomes the first segment where it is.
import type { Token } from 'markdown-it';
import { columnNote, fitsMarkdownRender, parseBlock, renderBlock, renderTokenRange, type RenderEnv } from './markdownRender';
import { RowCutter, rowShape, type RowShape } from './rowCutter';
import { cellLengths, listItemsHtml, parseListRow, parseTableHead, parseTableRow, tableRowHtml, withRoles, type ParsedRow, type TableFrame } from './rowParse';

/**
 * A list of more rows than this is written as consecutive lists of this many (class md-seg, numbered on), each
 * laid out and painted only near the viewport (styles/markdown.css): with thousands of items in one list, every
 * frame's style, layout and paint walked them all, 100–250 ms a frame.
 */
export const SEGMENT_ROWS = 100;

/**
 * A table of more rows than SEGMENT_ROWS: one table for assistive technology (the wrapper's role, and explicit roles
 * on its row groups, rows and cells), drawn as consecutive tables of SEGMENT_ROWS rows, each laid out and painted only
 * near the viewport (styles/markdown.css). In one table, the browser laid out every cell again on each streamed frame:
 * 20–40 ms a frame at 3,000 rows. The segments share one fixed column layout (table-layout: fixed, the same <col>
 * widths), so their columns line up exactly; the widths are the text lengths of the header and the first segment's
 * cells, known from the source, so the one-shot render and the stream write the same markup.
 */
const TABLE_OPEN = '<div class="md-table" role="table">\n';
const TABLE_CLOSE = '</div>\n';
const TABLE_SEGMENT_CLOSE = '</tbody>\n</table></div>\n';
/**
 * A column's share is its longest cell's text length, within these bounds (so a long cell does not starve the rest),
 * plus about what a cell's padding takes in characters (so a column of short numbers does not wrap them).
 */
const MIN_COLUMN_CHARS = 3;
const MAX_COLUMN_CHARS = 40;
const COLUMN_PADDING_CHARS = 3;

/** A committed row's HTML and what it needs to be rendered again. */
interface Row {
  parsed: ParsedRow;
  html: string;
}

/**
 * What a commit did to the rows' HTML. `segmented`: the table has just turned into segments; the rows shown so far
 * are its first segment's, given their roles where they are (see RowTail).
 */
export type RowChange = { rerendered: false; added: string[]; segmented?: true } | { rerendered: true; all: string[] };

/**
 * One list or table block, rendered a row at a time as it grows. Finished rows are rendered once (all again, once,
 * when a list turns loose); the open row is rendered on demand. `html()` is renderRows' result for the whole block.
 */
export class RowBlock {
  private readonly cutter: RowCutter;
  private readonly rows: Row[] = [];
  private loose = false;
  private hidden = 0;
  private frame: TableFrame | null = null;
  private listOpen = '';
  private listClose = '';
  /** The ordered list's first number. */
  private start = 1;
  /** Items before each segment of SEGMENT_ROWS rows. */
  private readonly itemsBefore: number[] = [0];
  /** A segmented table's <colgroup> and head, set when it becomes segmented. */
  private colgroup = '';
  private segmentHead = '';

  private constructor(
    readonly shape: RowShape,
    private readonly env: RenderEnv,
    private readonly head: string,
  ) {
    this.cutter = new RowCutter(shape);
  }

  /** A row view of `src` if it is a list or table whose head renders as one; undefined while undecided; null if not. */
  static for(src: string, final = false, env: RenderEnv = {}): RowBlock | null | undefined {
    const shape = rowShape(src, final);
    if (!shape) return shape;
    const block = new RowBlock(shape, env, src.slice(0, shape.headEnd));
    if (shape.kind === 'table') {
      block.frame = parseTableHead(block.head, env);
      if (!block.frame) return null;
      block.hidden = block.frame.hidden;
    }
    return block;
  }

  get kind(): RowShape['kind'] {
    return this.shape.kind;
  }

  /** Where the open (last) row starts in the block's source. */
  get openStart(): number {
    return this.cutter.openStart;
  }

  get rowCount(): number {
    return this.rows.length;
  }

  /**
   * Renders the rows `src` (the same block, grown) completes; `final`: the block is complete, its last row too. Null
   * when a row is not what the block's shape promised: the block must then be rendered whole.
   */
  commit(src: string, final = false): RowChange | null {
    this.cutter.cut(src, final);
    const ends = this.cutter.ends;
    const added: Row[] = [];
    const wasLoose = this.loose;
    const wasSegmented = this.segmented;
    // A table's new rows are parsed together, under the head once (a row never changes another's HTML).
    const batch = this.shape.kind === 'table' && ends.length > this.rows.length ? this.parseTableBatch(src, ends) : undefined;
    if (batch === null) return null;
    for (let i = this.rows.length; i < ends.length; i++) {
      const start = ends[i - 1] ?? this.shape.headEnd;
      const last = final && i === ends.length - 1;
      const parsed = batch ? batch[i - this.rows.length]! : this.parse(src.slice(start, ends[i]), last);
      if (!parsed) return null;
      if (this.rows.length === 0 && added.length === 0 && this.shape.kind === 'list') this.openList(parsed.tokens);
      this.loose ||= parsed.loose;
      this.hidden = Math.max(this.hidden, parsed.hidden);
      added.push({ parsed, html: '' });
    }
    const shown = this.rows.length;
    this.rows.push(...added);
    const tableSegmented = this.shape.kind === 'table' && !wasSegmented && this.segmented;
    if (tableSegmented) this.segmentTable();
    // A list turning loose renders the items before again, once. A table turning into segments keeps its rows in the
    // DOM (RowTail gives them their roles); their HTML here gains the roles for html().
    const rerender = shown > 0 && this.loose !== wasLoose;
    for (const row of rerender || tableSegmented ? this.rows : added) row.html = this.rowHtml(row.parsed);
    if (rerender) return { rerendered: true, all: this.rows.map((r) => r.html) };
    const change: RowChange = { rerendered: false, added: added.map((r) => r.html) };
    if (tableSegmented && shown > 0) change.segmented = true;
    return change;
  }

  /** Whether the list or table is written in segments (it has more than SEGMENT_ROWS rows). */
  get segmented(): boolean {
    return this.rows.length > SEGMENT_ROWS;
  }

  /**
   * What opens segment `s`: a list's opening tag (the whole list's, while it is not segmented), or a segmented
   * table's segment up to its <tbody> (the first with the head). A segmented table's segments go inside TABLE_OPEN.
   */
  segmentOpen(s: number): string {
    if (this.shape.kind === 'table') {
      const head = s === 0 ? this.segmentHead : '';
      return `<div class="md-tseg"><table role="presentation">\n${this.colgroup}${head}<tbody role="rowgroup">\n`;
    }
    if (!this.segmented) return this.listOpen;
    const ordered = this.shape.marker === '.' || this.shape.marker === ')';
    for (let i = this.itemsBefore.length; i <= s; i++) {
      let items = this.itemsBefore[i - 1]!;
      for (const row of this.rows.slice((i - 1) * SEGMENT_ROWS, i * SEGMENT_ROWS)) items += row.parsed.items;
      this.itemsBefore.push(items);
    }
    const start = this.start + this.itemsBefore[s]!;
    // The segments after the first carry on the list (no margin above them): a class, not `.md-seg + .md-seg`, for
    // Chromium answered a new segment after such a sibling selector by restyling every item of the message.
    const cls = s ? 'md-seg md-cont' : 'md-seg';
    return ordered ? `<ol${start !== 1 ? ` start="${start}"` : ''} class="${cls}">\n` : `<ul class="${cls}">\n`;
  }

  /**
   * The open row of `src` rendered as still open, or null when it cannot be (not yet one row of this block's kind):
   * shown as text until it is complete.
   */
  openRowHtml(src: string): string | null {
    const open = src.slice(this.cutter.openStart);
    if (!/\S/.test(open)) return '';
    const parsed =
      this.shape.kind === 'list'
        ? parseListRow(open, this.shape, true, { ...this.env, open: true })
        : parseTableRow(this.head, open, { ...this.env, open: true });
    if (!parsed) return null;
    if (this.shape.kind === 'list' && this.rows.length === 0) this.openList(parsed.tokens);
    return this.shape.kind === 'list'
      ? listItemsHtml(parsed, this.loose || parsed.loose, { ...this.env, open: true })
      : tableRowHtml(parsed, { ...this.env, open: true }, this.segmented);
  }

  /** A segmented table's <colgroup> (and the line break after it). */
  get columns(): string {
    return this.colgroup;
  }

  /** What closes each segment (see segmentOpen). */
  get segmentClose(): string {
    return this.shape.kind === 'table' ? TABLE_SEGMENT_CLOSE : this.listClose;
  }

  /** What wraps a segmented table's segments. */
  static readonly tableOpen = TABLE_OPEN;
  static readonly tableClose = TABLE_CLOSE;

  /** The note after a table on the columns it leaves out ('' when none are). */
  get note(): string {
    return this.shape.kind === 'table' && this.hidden ? columnNote(this.hidden) : '';
  }

  /** The HTML before the rows (a list's opening tag; a table's head and `<tbody>`), once a row is committed. */
  get before(): string {
    if (this.shape.kind === 'list') return this.listOpen;
    return renderTokenRange(this.frame!.tokens, 0, this.frame!.theadEnd, this.env) + (this.rows.length ? '<tbody>\n' : '');
  }

  /** The HTML after the rows, the note on hidden columns included. */
  get after(): string {
    if (this.shape.kind === 'list') return this.listClose;
    return `${this.rows.length ? '</tbody>\n' : ''}</table>\n${this.hidden ? columnNote(this.hidden) : ''}`;
  }

  /** The whole block's HTML: what renderRows gives for it, once `commit(src, true)` has succeeded. */
  html(): string {
    if (this.segmented) {
      const table = this.shape.kind === 'table';
      let html = table ? TABLE_OPEN : '';
      for (let at = 0; at < this.rows.length; at += SEGMENT_ROWS) {
        html += this.segmentOpen(at / SEGMENT_ROWS);
        for (const row of this.rows.slice(at, at + SEGMENT_ROWS)) html += row.html;
        html += this.segmentClose;
      }
      return table ? html + TABLE_CLOSE + this.note : html;
    }
    let html = this.before;
    for (const row of this.rows) html += row.html;
    return html + this.after;
  }

  /** The table rows from the first not yet committed to the last of `ends`, from one parse; null if not one row each. */
  private parseTableBatch(src: string, ends: readonly number[]): ParsedRow[] | null {
    const from = ends[this.rows.length - 1] ?? this.shape.headEnd;
    const rows: string[] = [];
    for (let i = this.rows.length; i < ends.length; i++) rows.push(src.slice(ends[i - 1] ?? this.shape.headEnd, ends[i]));
    if (!rows.every((r) => fitsMarkdownRender(r))) return null;
    const body = src.slice(from, ends[ends.length - 1]);
    const tokens = parseBlock(this.head + (body.endsWith('\n') ? body : `${body}\n`), this.env);
    const tbody = tokens.findIndex((t) => t.type === 'tbody_open');
    const close = tokens.findIndex((t) => t.type === 'table_close');
    if (tokens[0]?.type !== 'table_open' || tbody < 0 || close < 0 || tokens[close - 1]?.type !== 'tbody_close') return null;
    const rest = tokens.slice(close + 1);
    if (rest.length > 1 || (rest.length === 1 && rest[0]!.meta?.hiddenColumns === undefined)) return null;
    const hidden = (rest[0]?.meta as { hiddenColumns?: number } | undefined)?.hiddenColumns ?? 0;
    const starts: number[] = [];
    for (let i = tbody + 1; i < close - 1; i++) if (tokens[i]!.type === 'tr_open') starts.push(i);
    if (starts.length !== rows.length) return null;
    return starts.map((at, k) => ({
      // As parseTableRow gives a row: tbody_open, the row, tbody_close, table_close (its neighbours when rendered).
      tokens: [tokens[tbody]!, ...tokens.slice(at, starts[k + 1] ?? close - 1), tokens[close - 1]!, tokens[close]!],
      loose: false,
      items: 1,
      hidden,
    }));
  }

  private parse(src: string, last: boolean): ParsedRow | null {
    return this.shape.kind === 'list' ? parseListRow(src, this.shape, last, this.env) : parseTableRow(this.head, src, this.env);
  }

  private rowHtml(parsed: ParsedRow): string {
    return this.shape.kind === 'list' ? listItemsHtml(parsed, this.loose, this.env) : tableRowHtml(parsed, this.env, this.segmented);
  }

  /** The table has just become segmented: its column widths, from the head and the first segment, and its head. */
  private segmentTable(): void {
    const frame = this.frame!;
    const lengths = cellLengths(frame.tokens.slice(0, frame.theadEnd), []);
    for (const row of this.rows.slice(0, SEGMENT_ROWS)) cellLengths(row.parsed.tokens, lengths);
    const chars = lengths.map((n) => Math.min(MAX_COLUMN_CHARS, Math.max(MIN_COLUMN_CHARS, n)) + COLUMN_PADDING_CHARS);
    const total = chars.reduce((a, b) => a + b, 0);
    let left = 100;
    const widths = chars.map((n, i) => {
      // The last column takes what is left, so the widths add up to exactly 100 %.
      const w = i === chars.length - 1 ? left : Math.round((10_000 * n) / total) / 100;
      left = Math.round((left - w) * 100) / 100;
      return w;
    });
    this.colgroup = `<colgroup>${widths.map((w) => `<col width="${w}%">`).join('')}</colgroup>\n`;
    withRoles(frame.tokens, 0, frame.theadEnd);
    this.segmentHead = renderTokenRange(frame.tokens, 1, frame.theadEnd, this.env);
  }

  private openList(tokens: Token[]): void {
    this.start = Number(tokens[0]!.attrGet('start') ?? 1);
    this.listOpen = renderTokenRange(tokens, 0, 1, this.env);
    this.listClose = renderTokenRange(tokens, tokens.length - 1, tokens.length, this.env);
  }
}

/** A whole list or table block rendered row by row, or null when it is neither (or a row is not what it seemed). */
export function renderRows(src: string, env: RenderEnv = {}): string | null {
  const block = RowBlock.for(src, true, env);
  if (!block) return null;
  return block.commit(src, true) ? block.html() : null;
}

/** Renders one block of a reply: lists and tables row by row, anything else whole. */
export function renderAnyBlock(src: string, env: RenderEnv = {}): string {
  if (!/\S/.test(src)) return '';
  return renderRows(src, env) ?? renderBlock(src, env);
}
