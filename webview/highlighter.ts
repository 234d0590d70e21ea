// The page's way to the code highlighter, which is a bundle of its own (highlighterBundle.ts: highlight.js and ~23
// grammars, a third of the panel's script). Compiled with the page's script, it was on the way to the first paint,
// although that paint shows its code plain anyway (deferredHighlight.ts). So the host writes it into the page as text
// in an element that does not run (HIGHLIGHTER_ELEMENT_ID), and loadHighlighter runs it, after the first paint, as a
// <script> that carries the page's nonce: the CSP stays nonce-only, with no eval.
//
// What must stay true: until it has run, code a message renders is shown plain and marked HIGHLIGHT_PENDING (see
// markdownRender.ts), and deferredHighlight.ts colours every such block once it has; after, colouring is as before.
import type { HIGHLIGHTER_ELEMENT_ID } from '../src/shared/protocol';

/** What the highlighter's bundle leaves on the global object. */
export interface Highlighter {
  /** Highlighted HTML for `code`, or undefined when the language is not bundled (the caller shows it plain). */
  highlightCode(code: string, lang: string): string | undefined;
  /** Compiles the common grammars in long idle periods. */
  warmUp(): void;
}

declare global {
  /** Set by the highlighter's bundle when it runs (or by importing it, in Node tests). */
  var batonHighlighter: Highlighter | undefined;
}

/** Code blocks longer than this (characters) are shown plain, with a Highlight button. */
export const HIGHLIGHT_LIMIT = 20_000;
/** The class a code element whose colouring was deferred carries (see deferredHighlight.ts). */
export const HIGHLIGHT_PENDING = 'hl-pending';

// The protocol's constant, checked by the compiler (as main.ts does for the first page's id).
const ELEMENT_ID: typeof HIGHLIGHTER_ELEMENT_ID = 'baton-highlighter';

let tried = false;

/** The highlighter, once its bundle has run; undefined before. */
export function highlighter(): Highlighter | undefined {
  return globalThis.batonHighlighter;
}

/**
 * Runs the highlighter's bundle now, if it has not run, and returns the highlighter. Undefined when the page does not
 * carry it (then code stays plain, as for a language that is not bundled); it is tried once.
 */
export function loadHighlighter(): Highlighter | undefined {
  if (highlighter() || tried) return highlighter();
  tried = true;
  const source = document.getElementById(ELEMENT_ID);
  // The nonce the host wrote for this load (the page's scripts hide theirs from the DOM; the meta does not).
  const nonce = document.querySelector('meta[property="csp-nonce"]')?.getAttribute('content');
  if (source?.textContent && nonce) {
    const script = document.createElement('script');
    script.nonce = nonce;
    script.textContent = source.textContent;
    // An inline script put in the document runs at once, before append returns.
    document.head.append(script);
    script.remove();
    source.remove();
  }
  if (!highlighter()) console.warn('[baton] the code highlighter did not load: code is shown without colours');
  return highlighter();
}
