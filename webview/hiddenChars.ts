// Hidden characters in what a reply or a worker card shows (code, inline code, prose, a worker's last line): a bidi
// override showed `git status ‮; rm -rf ~ #` as "git status # ~ fr- mr ;" while Copy and Insert at cursor took the
// text as written. Each one is shown as a marked ⟨U+202E⟩, as a permission prompt does (permissionDetail.ts).
//
// What stays true: the text itself is kept. The mark holds the character, in an element that is not displayed (so it
// neither shows nor reorders anything), and shows its token from CSS (styles/code.css, `content: attr(aria-label)`).
// So an element's textContent, which Copy, Insert, the highlighter and the streamed tail read, is the text as written.
import { hasHiddenChars, hiddenCharToken, replaceHidden, splitHidden } from '../src/shared/visibleText';
import { h } from './dom';

const TITLE = 'An invisible or direction-changing character';

/** The warning a code block holding hidden characters carries (markdownRender.ts). */
export const HIDDEN_CODE_WARNING =
  '<p class="code-warning" data-testid="code-hidden-warning">\u26a0 This code holds invisible or direction-changing characters, shown as \u27e8U+\u2026\u27e9: it may not run as it reads, and Copy and Insert at cursor take them as they are.</p>';

function markHtml(ch: string): string {
  return `<span class="hidden-char" title="${TITLE}" aria-label="${hiddenCharToken(ch)}" data-testid="hidden-char"><span class="hidden-char-raw">${ch}</span></span>`;
}

/**
 * Escaped text (or markup of ours around escaped text: highlighted code) with each hidden character marked. Only for
 * text positions: our tags and attribute values hold none of these characters. One pass, none when there is none.
 */
export function markHiddenHtml(html: string): string {
  return hasHiddenChars(html) ? replaceHidden(html, markHtml) : html;
}

/** Sets an element's text with its hidden characters marked, touching the DOM only when the text changed. */
export function setMarkedText(el: Element, text: string): void {
  if (el.textContent === text) return;
  if (!hasHiddenChars(text)) {
    el.textContent = text;
    return;
  }
  const nodes: (Node | string)[] = [];
  splitHidden(text).forEach((part, i) => {
    if (i % 2) nodes.push(markElement(part));
    else if (part) nodes.push(part);
  });
  el.replaceChildren(...nodes);
}

function markElement(ch: string): HTMLElement {
  const attrs = { class: 'hidden-char', title: TITLE, 'aria-label': hiddenCharToken(ch), 'data-testid': 'hidden-char' };
  return h('span', attrs, h('span', { class: 'hidden-char-raw' }, ch));
}
