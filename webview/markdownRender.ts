// Markdown to HTML with markdown-it (CommonMark, GFM tables and strikethrough, autolinks of URLs that carry a
// scheme) and a small rule for GFM task lists. Pure string work, no DOM, so it runs in Node tests too; the webview
// puts the result through DOMPurify (sanitize.ts) before it reaches the DOM.
//
// Safety invariants, kept here and checked again by the sanitizer:
// - `html: false`: raw HTML in a reply is text, never markup. The only tags are markdown-it's own and the ones
//   written literally in this file.
// - Every link target passes safeHref: http(s), mailto, file and scheme-less (relative) targets only. markdown-it
//   decodes entities and percent-escapes before asking, so `&#106;avascript:` is seen as `javascript:`.
// - Images are not loaded (a reply must not make the panel fetch anything): they render as links to their target.
// - No `style` attribute is emitted (the CSP admits none): table alignment becomes a class.
// - Every hidden character (a bidi override, a zero-width space) the reply shows is marked (hiddenChars.ts): in text,
//   inline code, code blocks (after highlighting), image text and plain blocks, never inside an attribute.
import MarkdownIt from 'markdown-it';
import type { StateCore, Token } from 'markdown-it';
import { countText } from '../src/shared/countText';
import { hasHiddenChars } from '../src/shared/visibleText';
import { HIDDEN_CODE_WARNING, markHiddenHtml } from './hiddenChars';
import { HIGHLIGHT_LIMIT, HIGHLIGHT_PENDING, highlighter } from './highlighter';
import { knowsLanguage } from './languageNames';

/** How a block is rendered: an open block is still streaming, so its code is not highlighted yet. */
export interface RenderEnv {
  open?: boolean;
  /**
   * Code is left plain, marked with HIGHLIGHT_PENDING, for deferredHighlight.ts to colour after the paint (a settled
   * message rendered whole, as history is). Code rendered before the highlighter has loaded is marked so too.
   */
  deferHighlight?: boolean;
}

const md = new MarkdownIt({ html: false, linkify: true, breaks: true, typographer: false });
// Only links with a scheme (https://…, mailto:…) are linkified: fuzzy matching would turn file names like
// utils.ts (.ts is a top-level domain) into web links.
md.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });
md.validateLink = (url) => safeHref(url) !== null;

const { escapeHtml, unescapeAll } = md.utils;

/** A link target that is safe to put in href, or null. Admits http(s), mailto, file and relative targets. */
export function safeHref(raw: string): string | null {
  const href = raw.trim();
  if (!href) return null;
  // Browsers ignore control characters and whitespace inside a scheme ("java\tscript:"), so the check does too.
  // eslint-disable-next-line no-control-regex
  const probe = href.replace(/[\u0000-\u0020\u007f-\u009f]/g, '').toLowerCase();
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(probe)?.[1];
  // Scheme-relative (//host) would resolve against the webview's own origin scheme: not a place to send anyone.
  if (scheme === undefined) return probe.startsWith('//') || probe.startsWith('\\\\') ? null : href;
  if (scheme.length === 1) return href; // a Windows drive letter, C:\…
  return scheme === 'http' || scheme === 'https' || scheme === 'mailto' || scheme === 'file' ? href : null;
}

const TASK = /^\[([ xX])\](?=\s|$)/;

/** GFM task list items: `- [x] done` gets a disabled checkbox and `class="task"` on its <li>. */
function taskLists(state: StateCore): void {
  const tokens = state.tokens;
  for (let i = 2; i < tokens.length; i++) {
    const inline = tokens[i]!;
    if (inline.type !== 'inline' || tokens[i - 1]!.type !== 'paragraph_open' || tokens[i - 2]!.type !== 'list_item_open') continue;
    const first = inline.children?.[0];
    const m = first?.type === 'text' ? TASK.exec(first.content) : null;
    if (!first || !m) continue;
    const done = m[1] !== ' ';
    first.content = first.content.slice(m[0].length).replace(/^[ \t]/, '');
    const box = new state.Token('html_inline', '', 0);
    box.content = `<input type="checkbox" disabled${done ? ' checked' : ''} aria-label="${done ? 'done' : 'not done'}"> `;
    inline.children!.unshift(box);
    tokens[i - 2]!.attrJoin('class', 'task');
  }
}
// After text_join, so `[x] rest` is one text token.
md.core.ruler.after('text_join', 'task_lists', taskLists);

/** markdown-it aligns table cells with a style attribute, which the CSP refuses; a class does the same. */
function alignClasses(state: StateCore): void {
  for (const token of state.tokens) {
    if (token.type !== 'th_open' && token.type !== 'td_open') continue;
    const style = token.attrGet('style');
    if (style === null) continue;
    token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style');
    const align = /text-align:(left|center|right)/.exec(style)?.[1];
    if (align) token.attrJoin('class', `align-${align}`);
  }
}
md.core.ruler.push('align_classes', alignClasses);

/** Table columns shown; the rest are left out with a note. 2,000 columns took the browser 200–300 ms to lay out. */
export const MAX_COLUMNS = 64;

/** The note after a table whose widest row had `hidden` columns left out. */
export function columnNote(hidden: number): string {
  return `<p class="md-note">${countText(hidden)} more column${hidden === 1 ? '' : 's'} not shown</p>\n`;
}

/**
 * markdown-it's block state, except that a table's cells past MAX_COLUMNS are never made into tokens: the table rule
 * pushes every cell of every row (tokens later dropped cost 6,000 objects and their collection for the bench's
 * 1,000-column table, 10 ms of script in its frame, traced), so its pushes are filtered as they come. The table rule
 * is the only one that sets parentType 'table', and it parses nothing else while it does (its terminator checks are
 * silent), so every push in between is one of its tokens. A cell left out is handed a scratch token to fill.
 */
class ColumnCappedState extends md.block.State {
  private column = 0;
  private hidden = 0;
  private skipUntil = '';
  private scratch: Token | undefined;

  override push(type: string, tag: string, nesting: Token['nesting']): Token {
    // parentType's declared union leaves 'table' out; markdown-it's table rule sets it.
    if ((this.parentType as string) !== 'table') return super.push(type, tag, nesting);
    if (this.skipUntil) {
      if (type === this.skipUntil) this.skipUntil = '';
      return this.scratchToken();
    }
    if (type === 'tr_open') this.column = 0;
    else if ((type === 'th_open' || type === 'td_open') && ++this.column > MAX_COLUMNS) {
      this.hidden = Math.max(this.hidden, this.column - MAX_COLUMNS);
      this.skipUntil = type === 'th_open' ? 'th_close' : 'td_close';
      return this.scratchToken();
    }
    const token = super.push(type, tag, nesting);
    if (type === 'table_close' && this.hidden) {
      const note = super.push('html_block', '', 0);
      note.content = columnNote(this.hidden);
      // Read by markdownRows.ts, which renders a table row by row and writes one note for the widest row.
      note.meta = { hiddenColumns: this.hidden };
      this.hidden = 0;
    }
    return token;
  }

  private scratchToken(): Token {
    this.scratch ??= new this.Token('', '', 0);
    return this.scratch;
  }
}
md.block.State = ColumnCappedState;

/**
 * markdown-it stops parsing a block at maxNesting (100 levels: 100 `>`, or a list 50 deep, each level being a list and
 * an item) and drops the rest of it: the text in there, and every line the deepest quote or item takes in, vanished.
 * Past the limit the lines are shown as written instead, the way renderBlock shows a block too busy to render. The
 * limit stays markdown-it's: each quote level indents 24 px, so deeper structure is nothing a reader could see in the
 * panel anyway, and the parse redoes each line once per level (a higher limit makes it slower, not more readable).
 */
export const MAX_NESTING = 100;
// markdown-it's own default, set here so that the check below reads the same number (its types leave the option out).
Object.assign(md.options, { maxNesting: MAX_NESTING });
const tokenizeBlocks = md.block.tokenize.bind(md.block);
md.block.tokenize = (state, startLine, endLine) => {
  // Rules push opening and closing tokens in pairs, so the level on entry is the level of every line of this call.
  if (state.level < MAX_NESTING) return tokenizeBlocks(state, startLine, endLine);
  let end = startLine;
  // The lines markdown-it's own loop would have taken: up to one indented less than this block (the end of a list item).
  while (end < endLine && (state.isEmpty(end) || state.sCount[end]! >= state.blkIndent)) end++;
  const text = state.getLines(startLine, end, state.blkIndent, false).trim();
  if (text) {
    const token = state.push('html_block', '', 0);
    token.content = plainBlock(text);
    token.map = [startLine, end];
  }
  state.line = end;
};

md.renderer.rules.image = (tokens, idx) => {
  const token = tokens[idx]!;
  const alt = markHiddenHtml(escapeHtml(token.content || 'image'));
  return `<a href="${escapeHtml(token.attrGet('src') ?? '')}" class="md-image-link">${alt}</a>`;
};

md.renderer.rules.fence = (tokens, idx, _options, env: RenderEnv) => {
  const token = tokens[idx]!;
  const info = token.info ? unescapeAll(token.info).trim() : '';
  return codeBlock(token.content, /^\{?\.?([^\s{}]+)/.exec(info)?.[1] ?? '', env);
};
md.renderer.rules.code_block = (tokens, idx, _options, env: RenderEnv) => codeBlock(tokens[idx]!.content, '', env);
// Text and inline code are escaped content alone (inline code's <code> has no attributes): marked whole.
const { text: textRule, code_inline: inlineCodeRule } = md.renderer.rules;
md.renderer.rules.text = (...args) => markHiddenHtml(textRule!(...args));
md.renderer.rules.code_inline = (...args) => markHiddenHtml(inlineCodeRule!(...args));

const FENCE_LINE = /^(`{3,}|~{3,})(.*)$/;

/**
 * The empty code block a streamed fence opened by `line` will fill (rawTail.ts appends its text), or null when the
 * line does not open a fence at the start of a line. The language is read as markdown-it reads it.
 */
export function openFenceShell(line: string): string | null {
  const m = FENCE_LINE.exec(line);
  if (!m || (m[1]![0] === '`' && m[2]!.includes('`'))) return null;
  const info = unescapeAll(m[2]!).trim();
  return codeBlock('', /^\{?\.?([^\s{}]+)/.exec(info)?.[1] ?? '', { open: true });
}

function codeBlock(raw: string, lang: string, env: RenderEnv): string {
  const code = raw.endsWith('\n') ? raw.slice(0, -1) : raw;
  const langClass = lang.toLowerCase().replace(/[^a-z0-9+#-]/g, '');
  const tooLong = code.length > HIGHLIGHT_LIMIT;
  // An open block is highlighted once it is complete (the last block when the stream ends): re-highlighting a
  // growing block every frame is the work that must not land in a frame.
  const known = !env.open && !tooLong && knowsLanguage(langClass);
  // Before the highlighter's bundle has run (just after the first paint, see highlighter.ts), code is left plain and
  // marked like deferred code: deferredHighlight.ts colours every marked block once it has run.
  const now = known && env.deferHighlight !== true ? highlighter() : undefined;
  const deferred = known && !now;
  const hidden = hasHiddenChars(code);
  // Marked after highlighting: the highlighter sees the code as written, and its markup holds no hidden character.
  const html = (now && now.highlightCode(code, langClass)) || chunkedHtml(code);
  const body = hidden ? markHiddenHtml(html) : html;
  const codeClass = langClass ? `language-${langClass}${deferred ? ` ${HIGHLIGHT_PENDING}` : ''}` : '';
  const highlightButton =
    tooLong && langClass
      ? '<button type="button" class="code-btn" data-action="highlight" data-testid="code-highlight" aria-label="Highlight this long code block">Highlight</button>'
      : '';
  return (
    `<div class="code-block"><div class="code-toolbar"><span class="code-lang">${lang ? markHiddenHtml(escapeHtml(lang)) : 'text'}</span>` +
    highlightButton +
    '<button type="button" class="code-btn" data-action="copy" data-testid="code-copy" aria-label="Copy code">Copy</button>' +
    '<button type="button" class="code-btn" data-action="insert" data-testid="code-insert" aria-label="Insert at cursor (this code)">Insert at cursor</button>' +
    '</div>' +
    (hidden ? HIDDEN_CODE_WARNING : '') +
    `<pre class="code"><code${codeClass ? ` class="${codeClass}"` : ''}>${body}</code></pre></div>\n`
  );
}

/**
 * Inline delimiters one block may hold before it is shown as plain text. markdown-it is linear, but spends about
 * 1–2 µs on each `*`, `_`, `[`, backtick… (a token, a delimiter record): 100 KB of `[` or `*a` took 100–300 ms.
 * Prose has a few per line; only a pathological block gets near this, and it is then shown as it was written.
 */
export const MAX_DELIMITERS = 10_000;
const FENCED = /^[ \t]*(?:```|~~~)/;

/**
 * A block (other than a code block) longer than this is shown as written. Prose is cut into blocks at blank lines,
 * so only a pathological reply has one this long: 100 KB of an unclosed link target, a URL or raw tags cost markdown-it
 * 10–50 ms and the browser as much again; 20 KB of it stays well inside a frame.
 */
export const MAX_RENDERED_BLOCK = 20_000;

/** Renders one block of a reply (see markdownStream.ts for how replies are cut into blocks). */
export function renderBlock(src: string, env: RenderEnv = {}): string {
  if (!/\S/.test(src)) return '';
  if (!FENCED.test(src) && !fitsMarkdownRender(src)) return plainBlock(src.trim());
  return md.render(src, { ...env });
}

/** Whether markdown-it may render this (non-fence) source: short enough, and not too many delimiters. */
export function fitsMarkdownRender(src: string): boolean {
  return src.length <= MAX_RENDERED_BLOCK && !tooManyDelimiters(src);
}

/** markdown-it's tokens for a piece of a block (markdownRows.ts renders lists and tables a row at a time). */
export function parseBlock(src: string, env: RenderEnv = {}): Token[] {
  return md.parse(src, { ...env });
}

/** markdown-it's block stage alone: what it makes before the inline stage (a unit test counts a wide table's cells). */
export function blockStageTokens(src: string): Token[] {
  const tokens: Token[] = [];
  md.block.parse(src, md, {}, tokens);
  return tokens;
}

/**
 * The HTML of tokens[from, to) exactly as md.renderer.render(tokens) writes it: each token is rendered with the whole
 * array around it, since markdown-it decides line breaks from a token's neighbours.
 */
export function renderTokenRange(tokens: Token[], from: number, to: number, env: RenderEnv = {}): string {
  const renderer = md.renderer;
  const e = { ...env };
  let html = '';
  for (let i = from; i < to; i++) {
    const token = tokens[i]!;
    const rule = renderer.rules[token.type];
    if (token.type === 'inline') html += renderer.renderInline(token.children ?? [], md.options, e);
    else if (rule) html += rule(tokens, i, md.options, e, renderer);
    else html += renderer.renderToken(tokens, i, md.options);
  }
  return html;
}

/** A block shown as written (see .md-plain in styles/markdown.css). */
export function plainBlock(text: string): string {
  return `<p class="md-plain">${markHiddenHtml(chunkedHtml(text))}</p>\n`;
}

/** Plain text longer than this is cut into chunks of about this many characters. */
export const CHUNK = 2048;

/**
 * Escaped text; a long one as a run of `<span class="md-chunk">`, blocks that the browser skips laying out and
 * painting while they are off screen (content-visibility): laying out 100 KB of text at once took 30–80 ms. The
 * spans add no characters, so the code's textContent (Copy, Insert) is unchanged.
 */
export function chunkedHtml(text: string): string {
  if (text.length <= CHUNK) return escapeHtml(text);
  let html = '';
  for (let at = 0; at < text.length;) {
    const end = chunkEnd(text, at);
    html += `<span class="md-chunk">${escapeHtml(text.slice(at, end))}</span>`;
    at = end;
  }
  return html;
}

/**
 * Where the chunk that starts at `at` ends: after the last line break in its window of CHUNK characters (so lines
 * are not cut), else at the window's end (never between the halves of a surrogate pair); text.length when the rest
 * fits. It reads only that window, so a chunk of a growing text, once followed by more than CHUNK characters, never
 * changes: the streamed plain tail (rawTail.ts) relies on it.
 */
export function chunkEnd(text: string, at: number): number {
  if (text.length - at <= CHUNK) return text.length;
  const nl = text.lastIndexOf('\n', at + CHUNK - 1);
  if (nl >= at + CHUNK / 2) return nl + 1;
  const last = text.charCodeAt(at + CHUNK - 1);
  return last >= 0xd800 && last <= 0xdbff ? at + CHUNK - 1 : at + CHUNK;
}

function tooManyDelimiters(src: string, max = MAX_DELIMITERS): boolean {
  if (src.length < max) return false;
  let count = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src.charCodeAt(i);
    // * _ [ ] ` ~ < ! \ — the characters that start or end an inline construct.
    if (c === 42 || c === 95 || c === 91 || c === 93 || c === 96 || c === 126 || c === 60 || c === 33 || c === 92) {
      if (++count > max) return true;
    }
  }
  return false;
}

/**
 * Delimiters an open block may hold and still be re-rendered on each frame (rawTail.ts): 8 KB of `*a` is 4,000
 * emphasis elements to parse, sanitize and lay out every frame. A finished block is rendered once, with MAX_DELIMITERS.
 */
export const MAX_OPEN_DELIMITERS = 1_000;

/** Whether an open block is too busy to re-render every frame. */
export function tooBusyToRerender(src: string): boolean {
  return tooManyDelimiters(src, MAX_OPEN_DELIMITERS);
}
