// A small, safe markdown renderer for chat answers (CommonMark/GFM subset: headings, paragraphs, emphasis, code spans,
// fenced code, lists, task items, tables, block quotes, rules, links). Pure functions, no DOM, so it runs in Node tests.
//
// Safety invariants: every character of the source reaches the output through escapeHtml (raw HTML is shown as text,
// never parsed); the only tags and attributes are the ones written literally in this file; link targets pass
// safeHref, which admits only http(s), mailto and scheme-less (relative) targets.
//
// Streaming: the text is cut into blocks by BlockSplitter, which decides block ends from complete lines only and
// resets all of its state at each end. So a finished block never changes as more text arrives, and cutting a text in
// any number of pieces yields the same blocks as cutting it at once: the webview keeps finished blocks' DOM and
// re-renders only the open tail.
import { escapeHtml, highlight } from './highlight';

export { escapeHtml };

interface Fence {
  ch: string;
  len: number;
}

const BLANK = /^[ \t]*$/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+|$)/;
const FENCE_OPEN = /^([ \t]*)(`{3,}|~{3,})([^\n]*)$/;
const FENCE_CLOSE = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;
const HR = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}>/;
const ITEM = /^([ \t]*)([-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$/;
const TASK = /^\[([ xX])\][ \t]+/;
const TABLE_DELIM = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
const MAX_DEPTH = 8;

function fenceOpen(line: string): (Fence & { indent: number; info: string }) | null {
  const m = FENCE_OPEN.exec(line);
  if (!m) return null;
  const run = m[2]!;
  const info = m[3]!.trim();
  // CommonMark: a backtick fence's info string may not contain backticks (else it is an inline code span).
  if (run[0] === '`' && info.includes('`')) return null;
  return { ch: run[0]!, len: run.length, indent: indentWidth(m[1]!), info };
}

function closesFence(line: string, fence: Fence): boolean {
  const m = FENCE_CLOSE.exec(line);
  return !!m && m[1]![0] === fence.ch && m[1]!.length >= fence.len;
}

function indentWidth(ws: string): number {
  let n = 0;
  for (const c of ws) n += c === '\t' ? 4 - (n % 4) : 1;
  return n;
}

/**
 * Cuts streamed markdown into blocks. A block ends at a blank line outside a code fence, before a fence opener or an
 * ATX heading, after a heading line, and after a fence's closing line. Only complete lines decide; the text after the
 * last block end is the open tail. The consumed text is dropped, so memory stays the size of the open block.
 */
export class BlockSplitter {
  private buf = '';
  /** Offset in buf of the first line not yet looked at. */
  private scan = 0;
  private hasContent = false;
  private fence: Fence | null = null;

  /** Appends text and returns the source of each block this text finished, in order. */
  push(delta: string): string[] {
    this.buf += delta.includes('\r') ? delta.replace(/\r/g, '') : delta;
    const done: string[] = [];
    for (let nl = this.buf.indexOf('\n', this.scan); nl !== -1; nl = this.buf.indexOf('\n', this.scan)) {
      const lineStart = this.scan;
      const line = this.buf.slice(lineStart, nl);
      const lineEnd = nl + 1;
      if (this.fence) {
        if (closesFence(line, this.fence)) this.finish(done, lineEnd, lineEnd);
        else this.scan = lineEnd;
        continue;
      }
      if (BLANK.test(line)) {
        if (this.hasContent) this.finish(done, lineStart, lineEnd);
        else this.drop(lineEnd);
        continue;
      }
      // Both cases below start a new block at this line: finish the one before it, after which the line sits at
      // offset 0 (with no content since the last block end, only dropped blank lines came before, so it already does).
      const fence = fenceOpen(line);
      if (fence) {
        if (this.hasContent) this.finish(done, lineStart, lineStart);
        this.fence = fence;
        this.hasContent = true;
        this.scan = lineEnd - lineStart;
        continue;
      }
      if (ATX.test(line)) {
        if (this.hasContent) this.finish(done, lineStart, lineStart);
        this.finish(done, lineEnd - lineStart, lineEnd - lineStart);
        continue;
      }
      this.hasContent = true;
      this.scan = lineEnd;
    }
    return done;
  }

  /** The open block's source so far (may be empty or whitespace). */
  get tail(): string {
    return this.buf;
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
    this.fence = null;
  }
}

/** All blocks of a complete text, the last (unterminated) one included. */
export function splitBlocks(text: string): string[] {
  const splitter = new BlockSplitter();
  const blocks = splitter.push(text);
  if (/\S/.test(splitter.tail)) blocks.push(splitter.tail);
  return blocks;
}

/** Renders a whole markdown text to HTML. */
export function renderMarkdown(text: string, depth = 0): string {
  let html = '';
  for (const block of splitBlocks(text)) html += renderBlock(block, depth);
  return html;
}

/**
 * Incremental rendering of one streamed message. The concatenation of every push's `done`, followed by end(), equals
 * renderMarkdown(all text): finished blocks are rendered once, the open tail on every push.
 */
export class MarkdownStream {
  private readonly splitter = new BlockSplitter();

  push(delta: string): { done: string; tail: string } {
    let done = '';
    for (const block of this.splitter.push(delta)) done += renderBlock(block);
    return { done, tail: this.tailHtml() };
  }

  /** HTML of the open block, which is the last block once the stream has ended. */
  tailHtml(): string {
    return renderBlock(this.splitter.tail);
  }

  get source(): string {
    return this.splitter.tail;
  }
}

/** Renders one block as cut by BlockSplitter. */
export function renderBlock(src: string, depth = 0): string {
  const lines = src.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  while (lines.length && BLANK.test(lines[0]!)) lines.shift();
  if (!lines.length) return '';
  const fence = fenceOpen(lines[0]!);
  if (fence) return renderFence(lines, fence);
  return renderLines(lines, depth);
}

function renderFence(lines: string[], fence: Fence & { indent: number; info: string }): string {
  let body = lines.slice(1);
  if (body.length && closesFence(body[body.length - 1]!, fence)) body = body.slice(0, -1);
  // Code nested under a list item is indented like the fence; take that indentation off every line.
  if (fence.indent) {
    const strip = new RegExp(`^[ \\t]{0,${fence.indent}}`);
    body = body.map((l) => l.replace(strip, ''));
  }
  const code = body.join('\n');
  const lang = /^\{?\.?([^\s{}]+)/.exec(fence.info)?.[1] ?? '';
  const langClass = lang.toLowerCase().replace(/[^a-z0-9+#-]/g, '');
  const label = lang ? escapeHtml(lang) : 'text';
  return (
    `<div class="code-block${fence.indent >= 2 ? ' md-indent' : ''}">` +
    `<div class="code-toolbar"><span class="code-lang">${label}</span>` +
    '<button type="button" class="code-btn" data-action="copy" data-testid="code-copy" aria-label="Copy code">Copy</button>' +
    '<button type="button" class="code-btn" data-action="insert" data-testid="code-insert" aria-label="Insert code at cursor">Insert at cursor</button>' +
    `</div><pre class="code"><code${langClass ? ` class="language-${langClass}"` : ''}>` +
    `${highlight(code, lang)}</code></pre></div>`
  );
}

function isTableStart(lines: string[], i: number): boolean {
  const head = lines[i]!;
  const delim = lines[i + 1];
  if (delim === undefined || !head.includes('|') || !TABLE_DELIM.test(delim) || !delim.includes('-')) return false;
  // GFM: the header must have as many cells as the delimiter row.
  return splitCells(head).length === splitCells(delim).length;
}

function startsConstruct(lines: string[], i: number, inParagraph: boolean): boolean {
  const line = lines[i]!;
  if (BLANK.test(line) || ATX.test(line) || HR.test(line) || QUOTE.test(line) || fenceOpen(line)) return true;
  if (isTableStart(lines, i)) return true;
  const item = ITEM.exec(line);
  if (!item) return false;
  // As in CommonMark, a list interrupts a paragraph only with content, and an ordered one only when it starts at 1.
  if (!inParagraph) return true;
  return !!item[3] && (!/^\d/.test(item[2]!) || parseInt(item[2]!, 10) === 1);
}

function renderLines(lines: string[], depth: number): string {
  let out = '';
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (BLANK.test(line)) {
      i++;
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      const level = atx[1]!.length;
      const text = line.slice(atx[0].length).replace(/(?:^|[ \t]+)#+[ \t]*$/, '').trim();
      out += `<h${level}>${renderInline(text)}</h${level}>`;
      i++;
      continue;
    }
    if (HR.test(line)) {
      out += '<hr>';
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const inner: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i]!)) inner.push(lines[i++]!.replace(/^ {0,3}> ?/, ''));
      out +=
        depth < MAX_DEPTH
          ? `<blockquote>${renderMarkdown(inner.join('\n'), depth + 1)}</blockquote>`
          : `<blockquote><p>${escapeHtml(inner.join('\n'))}</p></blockquote>`;
      continue;
    }
    if (isTableStart(lines, i)) {
      i = renderTable(lines, i, (html) => (out += html));
      continue;
    }
    if (ITEM.test(line)) {
      i = renderList(lines, i, (html) => (out += html));
      continue;
    }
    const fence = fenceOpen(line);
    if (fence) {
      // Only reachable for text that did not come through BlockSplitter; treat the rest as the fence.
      out += renderFence(lines.slice(i), fence);
      break;
    }
    const para: string[] = [line];
    for (i++; i < lines.length && !startsConstruct(lines, i, true); i++) para.push(lines[i]!);
    const indented = indentWidth(/^[ \t]*/.exec(line)![0]) >= 2;
    out += `<p${indented ? ' class="md-indent"' : ''}>${renderInline(para.map((l) => l.trim()).join('\n'))}</p>`;
  }
  return out;
}

function splitCells(row: string): string[] {
  let s = row.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  const cells: string[] = [];
  let cell = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\' && s[i + 1] === '|') {
      cell += '|';
      i++;
    } else if (c === '`') {
      // Unlike GFM, a | inside a closed code span does not split the cell: `a|b` in a table is what authors mean.
      let k = i;
      while (s[k] === '`') k++;
      const close = findBacktickRun(s, k, k - i);
      const end = close < 0 ? k : close + (k - i);
      cell += s.slice(i, end);
      i = end - 1;
    } else if (c === '|') {
      cells.push(cell.trim());
      cell = '';
    } else cell += c;
  }
  cells.push(cell.trim());
  return cells;
}

function renderTable(lines: string[], i: number, emit: (html: string) => void): number {
  const head = splitCells(lines[i]!);
  const aligns = splitCells(lines[i + 1]!).map((d) => {
    const left = d.startsWith(':');
    const right = d.endsWith(':');
    return left && right ? ' class="align-center"' : right ? ' class="align-right"' : left ? ' class="align-left"' : '';
  });
  const row = (cells: string[], tag: 'th' | 'td'): string =>
    '<tr>' + head.map((_, c) => `<${tag}${aligns[c]}>${renderInline(cells[c] ?? '')}</${tag}>`).join('') + '</tr>';
  let html = `<table><thead>${row(head, 'th')}</thead>`;
  let j = i + 2;
  let body = '';
  for (; j < lines.length && lines[j]!.includes('|') && !BLANK.test(lines[j]!); j++) body += row(splitCells(lines[j]!), 'td');
  if (body) html += `<tbody>${body}</tbody>`;
  emit(html + '</table>');
  return j;
}

interface ListItem {
  text: string[];
  task?: boolean;
  children: List[];
}
interface List {
  ordered: boolean;
  start: number;
  indent: number;
  items: ListItem[];
}

function renderList(lines: string[], i: number, emit: (html: string) => void): number {
  let root: List | undefined;
  const stack: List[] = [];
  let j = i;
  for (; j < lines.length; j++) {
    const line = lines[j]!;
    const m = HR.test(line) ? null : ITEM.exec(line);
    if (m) {
      const indent = indentWidth(m[1]!);
      const ordered = /^\d/.test(m[2]!);
      let text = m[3] ?? '';
      const task = TASK.exec(text);
      if (task) text = text.slice(task[0].length);
      const item: ListItem = { text: [text], task: task ? task[1] !== ' ' : undefined, children: [] };
      const list = (): List => ({ ordered, start: ordered ? parseInt(m[2]!, 10) : 1, indent, items: [item] });
      if (!root) {
        root = list();
        stack.push(root);
        continue;
      }
      while (stack.length > 1 && stack[stack.length - 1]!.indent > indent) stack.pop();
      const top = stack[stack.length - 1]!;
      if (indent > top.indent + 1 && stack.length < MAX_DEPTH) {
        const nested = list();
        top.items[top.items.length - 1]!.children.push(nested);
        stack.push(nested);
      } else top.items.push(item);
      continue;
    }
    // Anything that starts another construct ends the list; other lines continue the deepest item (CommonMark's
    // lazy continuation), which keeps wrapped item text inside its item.
    if (startsConstruct(lines, j, false)) break;
    const top = stack[stack.length - 1]!;
    top.items[top.items.length - 1]!.text.push(line.trim());
  }
  emit(listHtml(root!, true));
  return j;
}

function listHtml(list: List, outer: boolean): string {
  const tag = list.ordered ? 'ol' : 'ul';
  const attrs = (list.ordered && list.start !== 1 ? ` start="${list.start}"` : '') + (outer && list.indent >= 2 ? ' class="md-indent"' : '');
  let html = `<${tag}${attrs}>`;
  for (const item of list.items) {
    const check =
      item.task === undefined ? '' : `<input type="checkbox" disabled${item.task ? ' checked' : ''} aria-label="${item.task ? 'done' : 'not done'}"> `;
    html += `<li${item.task === undefined ? '' : ' class="task"'}>${check}${renderInline(item.text.join('\n'))}`;
    for (const child of item.children) html += listHtml(child, false);
    html += '</li>';
  }
  return html + `</${tag}>`;
}

/** A link target that is safe to put in href, or null. Blocks javascript:, data:, vbscript:, file: and the rest. */
export function safeHref(raw: string): string | null {
  const href = raw.trim();
  if (!href) return null;
  // Browsers ignore control characters and whitespace inside a scheme ("java\tscript:"), so the check does too.
  // eslint-disable-next-line no-control-regex
  const probe = href.replace(/[\u0000-\u0020\u007f-\u009f]/g, '').toLowerCase();
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(probe)?.[1];
  if (scheme === undefined) return probe.startsWith('//') ? null : href;
  if (scheme.length === 1) return href; // a Windows drive letter, C:\…
  return scheme === 'http' || scheme === 'https' || scheme === 'mailto' ? href : null;
}

interface Delim {
  ch: string;
  count: number;
  readonly orig: number;
  canOpen: boolean;
  canClose: boolean;
  openTags: string[];
  closeTags: string[];
}

const PUNCT = /[!-/:-@[-`{-~\p{P}\p{S}]/u;
const SPECIAL = /[\\`![<*_~]|\bhttps?:\/\//g;

function isSpace(c: string): boolean {
  return c === '' || /\s/.test(c);
}

/** Renders inline markdown (one paragraph, heading, cell or item) to HTML. */
export function renderInline(src: string, allowLinks = true): string {
  const tokens: Array<string | Delim> = [];
  let text = '';
  const flush = (): void => {
    if (text) tokens.push(escapeHtml(text).replace(/\n/g, '<br>'));
    text = '';
  };
  const re = new RegExp(SPECIAL.source, 'g');
  let i = 0;
  while (i < src.length) {
    re.lastIndex = i;
    const m = re.exec(src);
    if (!m) {
      text += src.slice(i);
      break;
    }
    text += src.slice(i, m.index);
    i = m.index;
    const c = src[i]!;
    if (c === '\\') {
      const next = src[i + 1];
      if (next !== undefined && PUNCT.test(next) && next.charCodeAt(0) < 128) {
        text += next;
        i += 2;
      } else {
        text += c;
        i++;
      }
      continue;
    }
    if (c === '`') {
      let k = i;
      while (src[k] === '`') k++;
      const run = k - i;
      const close = findBacktickRun(src, k, run);
      if (close < 0) {
        text += src.slice(i, k);
        i = k;
        continue;
      }
      let code = src.slice(k, close).replace(/\n/g, ' ');
      if (code.startsWith(' ') && code.endsWith(' ') && /\S/.test(code)) code = code.slice(1, -1);
      flush();
      tokens.push(`<code>${escapeHtml(code)}</code>`);
      i = close + run;
      continue;
    }
    if (c === '[' || c === '!') {
      const image = c === '!';
      const link = allowLinks && (!image || src[i + 1] === '[') ? parseLink(src, image ? i + 1 : i) : null;
      if (link) {
        flush();
        const label = image ? escapeHtml(link.text || 'image') : renderInline(link.text, false);
        const href = safeHref(link.href);
        const title = link.title ? ` title="${escapeHtml(link.title)}"` : '';
        // Images are shown as links: img-src admits only the extension's own files, and remote images leak reads.
        tokens.push(href === null ? `<span class="md-blocked-link">${label}</span>` : `<a href="${escapeHtml(href)}"${title}${image ? ' class="md-image-link"' : ''}>${label}</a>`);
        i = link.end;
        continue;
      }
      text += c;
      i++;
      continue;
    }
    if (c === '<') {
      const auto = /^<((?:https?|mailto):[^\s<>]*)>/i.exec(src.slice(i, i + 2048));
      if (auto && allowLinks) {
        flush();
        tokens.push(`<a href="${escapeHtml(auto[1]!)}">${escapeHtml(auto[1]!)}</a>`);
        i += auto[0].length;
        continue;
      }
      text += c;
      i++;
      continue;
    }
    if (c === 'h' || c === 'H') {
      const url = allowLinks ? bareUrl(src, i) : '';
      if (url) {
        flush();
        tokens.push(`<a href="${escapeHtml(url)}">${escapeHtml(url)}</a>`);
        i += url.length;
      } else {
        text += src.slice(i, i + 4);
        i += 4;
      }
      continue;
    }
    // A run of *, _ or ~: a potential emphasis delimiter (CommonMark flanking rules).
    let k = i;
    while (src[k] === c) k++;
    const count = k - i;
    if (c === '~' && count !== 2) {
      text += src.slice(i, k);
      i = k;
      continue;
    }
    const before = src[i - 1] ?? '';
    const after = src[k] ?? '';
    const left = !isSpace(after) && (!PUNCT.test(after) || isSpace(before) || PUNCT.test(before));
    const right = !isSpace(before) && (!PUNCT.test(before) || isSpace(after) || PUNCT.test(after));
    flush();
    tokens.push({
      ch: c,
      count,
      orig: count,
      canOpen: c === '_' ? left && (!right || PUNCT.test(before)) : left,
      canClose: c === '_' ? right && (!left || PUNCT.test(after)) : right,
      openTags: [],
      closeTags: [],
    });
    i = k;
  }
  flush();
  processEmphasis(tokens);
  let html = '';
  for (const t of tokens) {
    html += typeof t === 'string' ? t : t.closeTags.join('') + t.ch.repeat(t.count) + t.openTags.join('');
  }
  return html;
}

function findBacktickRun(src: string, from: number, run: number): number {
  for (let j = src.indexOf('`', from); j !== -1; j = src.indexOf('`', j)) {
    let k = j;
    while (src[k] === '`') k++;
    if (k - j === run) return j;
    j = k;
  }
  return -1;
}

function bareUrl(src: string, i: number): string {
  if (i > 0 && /[\p{L}\p{N}_]/u.test(src[i - 1]!)) return '';
  const m = /^https?:\/\/[^\s<>"`]+/i.exec(src.slice(i, i + 2048));
  if (!m) return '';
  let url = m[0];
  // Trailing punctuation belongs to the sentence, and a ) only to the URL when it balances a ( inside it.
  for (;;) {
    const last = url[url.length - 1]!;
    if (/[.,:;!?'*_~\]]/.test(last)) url = url.slice(0, -1);
    else if (last === ')' && (url.match(/\(/g)?.length ?? 0) < (url.match(/\)/g)?.length ?? 0)) url = url.slice(0, -1);
    else break;
  }
  return /^https?:\/\/[^/]/i.test(url) ? url : '';
}

function parseLink(src: string, open: number): { text: string; href: string; title: string; end: number } | null {
  // The label: up to the matching ], skipping escapes and code spans.
  let depth = 0;
  let j = open;
  for (; j < src.length; j++) {
    const c = src[j];
    if (c === '\\') j++;
    else if (c === '`') {
      let k = j;
      while (src[k] === '`') k++;
      const close = findBacktickRun(src, k, k - j);
      j = close < 0 ? k - 1 : close + (k - j) - 1;
    } else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) break;
  }
  if (j >= src.length || src[j + 1] !== '(') return null;
  const text = src.slice(open + 1, j);
  let k = j + 2;
  while (src[k] === ' ' || src[k] === '\n') k++;
  let href = '';
  if (src[k] === '<') {
    const close = src.indexOf('>', k);
    if (close < 0 || src.slice(k, close).includes('\n')) return null;
    href = src.slice(k + 1, close);
    k = close + 1;
  } else {
    let parens = 0;
    const start = k;
    for (; k < src.length; k++) {
      const c = src[k]!;
      if (c === '\\' && k + 1 < src.length) k++;
      else if (c === '(') parens++;
      else if (c === ')') {
        if (parens === 0) break;
        parens--;
      } else if (/\s/.test(c)) break;
    }
    href = src.slice(start, k).replace(/\\([!-/:-@[-`{-~])/g, '$1');
  }
  while (src[k] === ' ' || src[k] === '\n') k++;
  let title = '';
  const q = src[k];
  if (q === '"' || q === "'" || q === '(') {
    const closeCh = q === '(' ? ')' : q;
    const close = src.indexOf(closeCh, k + 1);
    if (close < 0) return null;
    title = src.slice(k + 1, close);
    k = close + 1;
    while (src[k] === ' ' || src[k] === '\n') k++;
  }
  if (src[k] !== ')') return null;
  return { text, href, title, end: k + 1 };
}

function processEmphasis(tokens: Array<string | Delim>): void {
  // Where the last failed search for an opener of each character stopped: later closers never look below it,
  // which keeps long runs of unmatched delimiters linear.
  const bottom: Record<string, number> = {};
  for (let c = 0; c < tokens.length; c++) {
    const closer = tokens[c]!;
    if (typeof closer === 'string' || !closer.canClose) continue;
    while (closer.count > 0) {
      let o = -1;
      let skipped = false;
      const floor = bottom[closer.ch] ?? -1;
      for (let k = c - 1; k > floor; k--) {
        const t = tokens[k]!;
        if (typeof t === 'string' || t.ch !== closer.ch || !t.canOpen || t.count === 0) continue;
        if (closer.ch === '~' && t.count < 2) continue;
        // CommonMark's "rule of 3" for runs that can both open and close.
        if ((t.canClose || closer.canOpen) && (t.orig + closer.orig) % 3 === 0 && (t.orig % 3 !== 0 || closer.orig % 3 !== 0)) {
          skipped = true;
          continue;
        }
        o = k;
        break;
      }
      if (o < 0) {
        if (!skipped) bottom[closer.ch] = c - 1;
        break;
      }
      const opener = tokens[o] as Delim;
      const use = closer.ch === '~' ? 2 : opener.count >= 2 && closer.count >= 2 ? 2 : 1;
      const tag = closer.ch === '~' ? 'del' : use === 2 ? 'strong' : 'em';
      opener.count -= use;
      closer.count -= use;
      opener.openTags.unshift(`<${tag}>`);
      closer.closeTags.push(`</${tag}>`);
      // Delimiters between a matched pair can no longer match across it.
      for (let k = o + 1; k < c; k++) {
        const t = tokens[k]!;
        if (typeof t !== 'string') t.canOpen = t.canClose = false;
      }
    }
  }
}
