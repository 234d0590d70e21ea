// What a screen reader is told of a message: its words, not its controls. The body's textContent ran a code block's
// language label and buttons into its code ("tsCopyInsert at cursorconst x = 1;") and blocks into each other.

/** Left out with all they hold: controls, what is hidden from assistive technology, a code block's toolbar. */
const SKIP = 'button, [aria-hidden="true"], [hidden], .code-toolbar, script, style, template';
/** Elements whose text reads as a sentence of its own. */
const BLOCK = 'p, li, pre, blockquote, h1, h2, h3, h4, h5, h6, td, th, dt, dd, div, figcaption';

/**
 * The words of `root`, a block apart as sentences ("Fix. Changed two files:"), without its controls. Stops after about
 * `max` characters, so a 100 KB reply is not walked whole.
 */
export function spokenText(root: Element, max = 1000): string {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
    acceptNode: (node) => (node instanceof Element && node.matches(SKIP) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  let out = '';
  let block: Element | null = null;
  for (let node = walker.nextNode(); node && out.length < max; node = walker.nextNode()) {
    if (node.nodeType !== Node.TEXT_NODE) continue;
    const text = (node.nodeValue ?? '').replace(/\s+/g, ' ');
    if (!text.trim()) continue;
    const within = node.parentElement?.closest(BLOCK) ?? null;
    if (within !== block && out.trim()) out = `${sentence(out)} `;
    block = within;
    out += text;
  }
  return out.replace(/\s+/g, ' ').trim();
}

/** The text with a full stop unless it already ends in a mark a voice pauses at. */
export function sentence(text: string): string {
  const t = text.trimEnd();
  return t && !/[.!?:;,…]$/.test(t) ? `${t}.` : t;
}
