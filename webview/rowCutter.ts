// Cuts a list or table block into rows at complete lines: rowShape tells the block's kind, RowCutter its rows.

const LIST_ITEM = /^( {0,3})(?:([-*+])|\d{1,9}([.)]))(?:[ \t]|$)/;
const TABLE_DELIMITER = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
/** A table whose header is longer than this is rendered whole: every row is parsed under its header. */
export const MAX_ROW_HEADER = 4_000;

export interface RowShape {
  kind: 'list' | 'table';
  /** Offset of the first row: 0 for a list, after the delimiter line for a table. */
  headEnd: number;
  /** A list's marker indent and its bullet (`-`, `*`, `+`) or ordered delimiter (`.`, `)`). */
  indent: number;
  marker: string;
}

/**
 * The shape of a block that is a list or a table, null if it is neither, undefined while the lines that decide it
 * are not complete yet (`final`: the text is all there).
 */
export function rowShape(src: string, final = false): RowShape | null | undefined {
  const nl1 = src.indexOf('\n');
  if (nl1 < 0 && !final) return undefined;
  const first = src.slice(0, nl1 < 0 ? src.length : nl1);
  const item = LIST_ITEM.exec(first);
  if (item) return { kind: 'list', headEnd: 0, indent: item[1]!.length, marker: item[2] ?? item[3]! };
  if (!first.includes('|') || nl1 < 0) return null;
  const nl2 = src.indexOf('\n', nl1 + 1);
  if (nl2 < 0 && !final) return undefined;
  const headEnd = nl2 < 0 ? src.length : nl2 + 1;
  const second = src.slice(nl1 + 1, nl2 < 0 ? src.length : nl2);
  if (!second.includes('|') || !TABLE_DELIMITER.test(second) || headEnd > MAX_ROW_HEADER) return null;
  return { kind: 'table', headEnd, indent: 0, marker: '|' };
}

/** Cuts a list or table block, as it grows, into rows. Each line is looked at once. */
export class RowCutter {
  /** Where each complete row ends (the next one's start). */
  readonly ends: number[] = [];
  private scan: number;

  constructor(readonly shape: RowShape) {
    this.scan = shape.headEnd;
  }

  /** Where the open (last) row starts. */
  get openStart(): number {
    return this.ends[this.ends.length - 1] ?? this.shape.headEnd;
  }

  /** Looks at the lines of `src` (the same block, grown) not looked at yet; `final`: its last line is complete too. */
  cut(src: string, final = false): void {
    while (this.scan < src.length) {
      let nl = src.indexOf('\n', this.scan);
      if (nl < 0) {
        if (!final) return;
        nl = src.length;
      }
      const start = this.scan;
      this.scan = Math.min(nl + 1, src.length);
      const line = src.slice(start, nl);
      if (this.shape.kind === 'table') {
        if (/\S/.test(line)) this.ends.push(this.scan);
      } else if (start > this.openStart && this.startsSibling(line)) this.ends.push(start);
    }
    // A list's last item ends with the block.
    if (final && this.shape.kind === 'list' && this.openStart < src.length && /\S/.test(src.slice(this.openStart))) this.ends.push(src.length);
  }

  private startsSibling(line: string): boolean {
    const m = LIST_ITEM.exec(line);
    return !!m && m[1]!.length === this.shape.indent && (m[2] ?? m[3]) === this.shape.marker;
  }
}
