// One row of a list or table block, parsed by markdown-it alone and checked to be what the block needs (markdownRows.ts
// assembles the rows): a list item that is one list of the block's kind, or a table row that is one body row under
// its header; and the parts of a segmented table (its roles, its columns' text lengths).
import type { Token } from 'markdown-it';
import { fitsMarkdownRender, parseBlock, renderTokenRange, type RenderEnv } from './markdownRender';
import type { RowShape } from './rowCutter';

const LIST_OPEN = new Set(['bullet_list_open', 'ordered_list_open']);

/** A row as markdown-it rendered it. */
export interface ParsedRow {
  tokens: Token[];
  /** List: the item makes the list loose. */
  loose: boolean;
  /** Table: columns left out of this row. */
  hidden: number;
  /** List: items in the row (siblings at an odd indent share one). */
  items: number;
}

function withoutTrailingBlankLines(src: string): string {
  const lines = src.split('\n');
  while (lines.length > 1 && !/\S/.test(lines[lines.length - 1]!)) lines.pop();
  return `${lines.join('\n')}\n`;
}

/** One list item (or several siblings at an odd indent) alone, checked to be one list of the block's kind. */
export function parseListRow(src: string, shape: RowShape, last: boolean, env: RenderEnv): ParsedRow | null {
  if (!fitsMarkdownRender(src)) return null;
  const tokens = parseBlock(src, env);
  if (!isOneList(tokens, shape, src)) return null;
  const inner = withoutTrailingBlankLines(src);
  // A blank line after the item, with a sibling after it, makes the list loose; so may one inside it, between two of
  // its blocks (not inside a fence): markdown-it decides that, told by a sibling appended after the item.
  let loose = !last && inner.length < src.length && /\n[ \t]*\n/.test(src.slice(inner.length - 1));
  if (!loose && /\n[ \t]*\n/.test(inner)) {
    const probe = parseBlock(`${inner}${shape.marker === '.' || shape.marker === ')' ? `1${shape.marker}` : shape.marker} x\n`, env);
    if (!isOneList(probe, shape)) return null;
    // The appended sibling's paragraph is the last one directly in an item: hidden when the list is tight.
    for (let i = probe.length - 1; i >= 0; i--) {
      const t = probe[i]!;
      if (t.type === 'paragraph_open' && t.level === 2) {
        loose = !t.hidden;
        break;
      }
    }
  }
  let items = 0;
  for (const t of tokens) if (t.type === 'list_item_open' && t.level === 1) items++;
  return { tokens, loose, hidden: 0, items };
}

/**
 * Whether `tokens` are one list of the block's marker and, given `src`, one that runs to its last line: a list that
 * stops short (after an empty item and a blank line, say) would stop there in the whole block too.
 */
function isOneList(tokens: Token[], shape: RowShape, src?: string): boolean {
  const open = tokens[0];
  const close = tokens[tokens.length - 1];
  if (!open || !close || !LIST_OPEN.has(open.type) || close.type !== open.type.replace('_open', '_close') || open.markup !== shape.marker) return false;
  for (let i = 1; i < tokens.length - 1; i++) if (tokens[i]!.level === 0) return false;
  return src === undefined || open.map?.[1] === lineCount(src);
}

/** Lines as markdown-it counts them: a last line without a line break counts too. */
function lineCount(src: string): number {
  let n = 0;
  for (let i = src.indexOf('\n'); i >= 0; i = src.indexOf('\n', i + 1)) n++;
  return src.endsWith('\n') ? n : n + 1;
}

/** A list's items, their paragraphs shown or hidden as the whole list is loose or tight (markdown-it's rule). */
export function listItemsHtml(row: ParsedRow, loose: boolean, env: RenderEnv): string {
  const { tokens } = row;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.type === 'paragraph_open' && t.level === 2) t.hidden = tokens[i + 2]!.hidden = !loose;
  }
  return renderTokenRange(tokens, 1, tokens.length - 1, env);
}

/** The parts of a table around its body rows. */
export interface TableFrame {
  tokens: Token[];
  theadEnd: number;
  hidden: number;
}

export function parseTableHead(head: string, env: RenderEnv): TableFrame | null {
  const tokens = parseBlock(head, env);
  const theadEnd = tokens.findIndex((t) => t.type === 'thead_close') + 1;
  const close = tokens.findIndex((t) => t.type === 'table_close');
  if (tokens[0]?.type !== 'table_open' || theadEnd < 1 || close !== theadEnd) return null;
  const rest = tokens.slice(close + 1);
  if (rest.length > 1 || (rest.length === 1 && rest[0]!.meta?.hiddenColumns === undefined)) return null;
  return { tokens, theadEnd, hidden: (rest[0]?.meta as { hiddenColumns?: number } | undefined)?.hiddenColumns ?? 0 };
}

/** One table row under its header, checked to be one body row. Its tokens run from tbody_open to table_close. */
export function parseTableRow(head: string, src: string, env: RenderEnv): ParsedRow | null {
  if (!fitsMarkdownRender(src)) return null;
  const tokens = parseBlock(head + src, env);
  const body = tokens.findIndex((t) => t.type === 'tbody_open');
  const close = tokens.findIndex((t) => t.type === 'table_close');
  if (tokens[0]?.type !== 'table_open' || body < 0 || close < 0) return null;
  if (tokens[body + 1]?.type !== 'tr_open' || tokens[close - 2]?.type !== 'tr_close' || tokens[close - 1]?.type !== 'tbody_close') return null;
  for (let i = body + 2; i < close - 2; i++) if (tokens[i]!.type === 'tr_open') return null;
  const rest = tokens.slice(close + 1);
  if (rest.length > 1 || (rest.length === 1 && rest[0]!.meta?.hiddenColumns === undefined)) return null;
  return {
    tokens: tokens.slice(body, close + 1),
    loose: false,
    items: 1,
    hidden: (rest[0]?.meta as { hiddenColumns?: number } | undefined)?.hiddenColumns ?? 0,
  };
}

/** A table row's `<tr>…</tr>\n` (its tokens run from tbody_open to table_close); `roles`: a segmented table's row. */
export function tableRowHtml(row: ParsedRow, env: RenderEnv, roles = false): string {
  if (roles) withRoles(row.tokens, 1, row.tokens.length - 2);
  return renderTokenRange(row.tokens, 1, row.tokens.length - 2, env);
}

const TABLE_ROLES: Record<string, string> = { thead_open: 'rowgroup', tr_open: 'row', th_open: 'columnheader', td_open: 'cell' };

/** Gives a segmented table's parts their roles: its <table> elements are presentational (see TABLE_OPEN). */
export function withRoles(tokens: Token[], from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const role = TABLE_ROLES[tokens[i]!.type];
    if (role) tokens[i]!.attrSet('role', role);
  }
}

/** Grows `lengths` (one per header column) to the text length of each cell of `tokens` (a table's rows). */
export function cellLengths(tokens: Token[], lengths: number[]): number[] {
  let column = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.type === 'tr_open') column = 0;
    else if (t.type === 'th_open' || t.type === 'td_open') {
      const inline = tokens[i + 1];
      const n = inline?.type === 'inline' ? inline.content.length : 0;
      if (t.type === 'th_open') lengths[column] = Math.max(lengths[column] ?? 0, n);
      else if (column < lengths.length) lengths[column] = Math.max(lengths[column]!, n);
      column++;
    }
  }
  return lengths;
}
