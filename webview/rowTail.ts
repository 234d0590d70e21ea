// The open block of a streaming message when it is a list or a table (see markdownRows.ts): finished items and rows
// are sanitized and appended once, the open one is replaced on each frame, so a frame's work is the size of one row,
// not of the block. The list or table is built where it will stay (just before the tail element), so when the block
// ends only its last row is added: moving a list of thousands of items made the browser lay it all out again.
import { tooBusyToRerender } from './markdownRender';
import { RowBlock, SEGMENT_ROWS, type RowChange } from './markdownRows';
import { MAX_OPEN_RENDER, RawTail } from './rawTail';
import { sanitizedFragment } from './sanitize';

export class RowTail {
  /** Every node this view put before the anchor (lists or the table, and the text nodes between them). */
  private placed: ChildNode[] = [];
  /** Where rows go: each segment's list or tbody (see SEGMENT_ROWS), or the table's tbody. */
  private parents: Element[] = [];
  /** A segmented table's wrapper, which its segments go into. */
  private tableEl: Element | undefined;
  /** Rows in the DOM (committed; the open row is not counted). */
  private shown = 0;
  /** Nodes showing the open row inside the last parent; or the open row as text in the anchor (rawTail.ts). */
  private openNodes: ChildNode[] = [];
  private raw: RawTail | undefined;

  private constructor(
    /** The tail element: the rows go before it, the open row shown as text inside it. */
    private readonly anchor: HTMLElement,
    private readonly block: RowBlock,
  ) {}

  /** A row view for the open block `src`; null if it is not a list or table, undefined while that is not known. */
  static for(src: string, anchor: HTMLElement): RowTail | null | undefined {
    const block = RowBlock.for(src);
    return block ? new RowTail(anchor, block) : block;
  }

  /** Takes back what this view put in the DOM (the block turned out not to be rows). */
  discard(): void {
    this.clearOpen();
    for (const node of this.placed) node.remove();
    this.placed = [];
    this.parents = [];
    this.tableEl = undefined;
    this.shown = 0;
  }

  /** Shows `src`, the same block grown. False when the block turned out not to be rows: render it another way. */
  update(src: string): boolean {
    const change = this.block.commit(src);
    if (!change) return false;
    this.apply(change);
    const open = src.slice(this.block.openStart);
    this.showOpen(open, open.length <= MAX_OPEN_RENDER && !tooBusyToRerender(open) ? this.block.openRowHtml(src) : null);
    return true;
  }

  /**
   * The block ended as `src`: commits its last row. Returns the nodes still to insert before the anchor (the note
   * on hidden columns) once the DOM before the anchor is renderAnyBlock(src)'s; undefined when it is not rows after
   * all (this view is then discarded, and the caller renders the block whole).
   */
  finish(src: string): Node[] | undefined {
    const change = this.block.commit(src, true);
    if (!change) {
      this.discard();
      return undefined;
    }
    this.apply(change);
    this.clearOpen();
    this.parent(0);
    if (this.block.kind !== 'table') return [];
    // An empty tbody is not written; the note on hidden columns is, after the table.
    if (this.block.rowCount === 0) {
      const tbody = this.parents[0]!;
      const next = tbody.nextSibling;
      tbody.remove();
      if (next?.nodeType === Node.TEXT_NODE && next.textContent === '\n') next.remove();
    }
    return [...sanitizedFragment(this.block.note).childNodes];
  }

  /** The element rows of segment `s` go into, made (with what goes around it) when first needed. */
  private parent(s: number): Element {
    const existing = this.parents[s];
    if (existing) return existing;
    const isTable = this.block.kind === 'table';
    const segmentedTable = isTable && this.block.segmented;
    // The table's head and an empty body; a segment of a segmented table (the first in the table's wrapper); or a
    // list's opening tag (known from its first item) and closing tag.
    let html = this.block.segmentOpen(s) + this.block.segmentClose;
    if (!segmentedTable && isTable) html = `${this.block.before.replace(/<tbody>\n$/, '')}<tbody>\n</tbody>\n</table>\n`;
    else if (segmentedTable && !this.tableEl) html = RowBlock.tableOpen + html + RowBlock.tableClose;
    const shell = sanitizedFragment(html);
    const top = shell.firstElementChild;
    if (segmentedTable && !this.tableEl) this.tableEl = top ?? undefined;
    const parent = (isTable ? top?.querySelector('tbody') : top) ?? undefined;
    if (!parent) throw new Error('a list or table shell without its element');
    if (segmentedTable && this.tableEl !== top) this.tableEl!.append(shell);
    else {
      this.placed.push(...shell.childNodes);
      this.anchor.before(shell);
    }
    this.parents[s] = parent;
    return parent;
  }

  private apply(change: RowChange): void {
    const rows = change.rerendered ? change.all : change.added;
    if (!rows.length) return;
    this.clearOpen();
    if (!change.rerendered && change.segmented) this.toSegments();
    if (change.rerendered) {
      this.discard();
    }
    const segment = (i: number) => (this.block.segmented ? Math.floor(i / SEGMENT_ROWS) : 0);
    // Past SEGMENT_ROWS rows the first list becomes a segment too (its tag gains the class).
    if (this.block.kind === 'list' && this.block.segmented && this.parents[0] && !this.parents[0].classList.contains('md-seg'))
      this.parents[0].classList.add('md-seg');
    let at = 0;
    while (at < rows.length) {
      const s = segment(this.shown);
      let end = at + 1;
      while (end < rows.length && segment(this.shown + end - at) === s) end++;
      this.parent(s).append(...this.rowNodes(rows.slice(at, end).join('')));
      this.shown += end - at;
      at = end;
    }
  }

  /**
   * The table shown so far has just passed SEGMENT_ROWS rows: it becomes the first segment in place, as RowBlock.html()
   * writes it (the wrapper around it, its <colgroup>, and the roles of its parts), so no row is rendered again.
   */
  private toSegments(): void {
    const table = this.parents[0]?.closest('table');
    if (!table) return;
    const shell = sanitizedFragment(`${RowBlock.tableOpen}<div class="md-tseg"></div>\n${RowBlock.tableClose}`);
    const nodes = [...shell.childNodes];
    const wrapper = shell.firstElementChild!;
    const after = table.nextSibling;
    table.before(shell);
    wrapper.firstElementChild!.append(table);
    // The line break written after the table is now the wrapper's.
    if (after?.nodeType === Node.TEXT_NODE && after.textContent === '\n') after.remove();
    this.placed = [...this.placed.filter((n) => n !== table && n !== after), ...nodes];
    this.tableEl = wrapper;
    const colgroup = sanitizedFragment(`<table>${this.block.columns}</table>`).querySelector('colgroup');
    if (!colgroup) throw new Error('a segmented table without its columns');
    table.querySelector('thead')?.before(colgroup, '\n');
    // In the order the renderer writes them: after any class (markdownRows.ts, withRoles).
    table.setAttribute('role', 'presentation');
    const roles: Array<[string, string]> = [
      ['thead, tbody', 'rowgroup'],
      ['tr', 'row'],
      ['th', 'columnheader'],
      ['td', 'cell'],
    ];
    for (const [selector, role] of roles) for (const el of table.querySelectorAll(selector)) el.setAttribute('role', role);
  }

  private showOpen(open: string, html: string | null): void {
    if (html === '') return this.clearOpen();
    if (html !== null) {
      this.clearOpen();
      this.openNodes = this.rowNodes(html);
      // Until the list has a second segment, its open row goes at the end of the first.
      this.parent(this.block.segmented ? Math.floor(this.shown / SEGMENT_ROWS) : 0).append(...this.openNodes);
      return;
    }
    // Not (yet) a row of this block, or too long to render every frame: shown as text after the list.
    for (const node of this.openNodes) node.remove();
    this.openNodes = [];
    this.raw ??= RawTail.plain();
    if (this.raw.el.parentNode !== this.anchor) this.anchor.replaceChildren(this.raw.el);
    this.raw.update(open);
  }

  private clearOpen(): void {
    for (const node of this.openNodes) node.remove();
    this.openNodes = [];
    this.raw?.el.remove();
    this.raw = undefined;
  }

  /** Sanitizes rows inside their own list or table (a lone <li> or <tr> is not parsed as one) and takes them out. */
  private rowNodes(html: string): ChildNode[] {
    const isTable = this.block.kind === 'table';
    const holder = sanitizedFragment(isTable ? `<table><tbody>${html}</tbody></table>` : `<ul>${html}</ul>`).firstElementChild;
    const inner = isTable ? holder?.querySelector('tbody') : holder;
    return inner ? [...inner.childNodes] : [];
  }
}
