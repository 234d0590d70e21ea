// The code of the messages a snapshot paints first is shown plain and coloured right after the paint. Highlighting
// it (grammar compiles included) was over half of the time from snapshot to first paint of a 1,000-message history;
// coloured a moment later, the panel shows the same text at once. Blocks are coloured in idle time, in the order they
// were rendered, a frame's share at a time. Only for those first messages: the ones rendered while scrolling colour
// at once within the list's frame budget (see MessageView.render).
//
// The highlighter itself comes after the paint too (highlighter.ts): the first idle slice after it runs the
// highlighter's bundle, then takes every block rendered plain while it was not there (a stream's, a scroll's) into the
// queue, so they end coloured as they would have been.
import { markHiddenHtml } from './hiddenChars';
import { HIGHLIGHT_PENDING, highlighter, loadHighlighter } from './highlighter';
import { setSafeHtml } from './sanitize';

/** Highlighting work per idle slice when the browser is never idle (a long stream): most of a frame stays free. */
const SLICE_MS = 8;

const queue: HTMLElement[] = [];
let scheduled = false;
let loadWanted = false;

/** Queues every deferred code block under `root` to be coloured once the browser is idle. */
export function highlightLater(root: Element): void {
  for (const code of root.querySelectorAll<HTMLElement>(`code.${HIGHLIGHT_PENDING}`)) queue.push(code);
  schedule();
}

/** Loads the highlighter in the first idle time (the panel calls it as it starts, so that is after its first paint). */
export function loadHighlighterSoon(): void {
  loadWanted = true;
  schedule();
}

/** Colours one code block now (the Highlight action of a block shown plain for its size uses it too). */
export function highlightNow(code: HTMLElement): void {
  code.classList.remove(HIGHLIGHT_PENDING);
  const lang = /(?:^|\s)language-(\S+)/.exec(code.className)?.[1] ?? '';
  const html = loadHighlighter()?.highlightCode(code.textContent ?? '', lang);
  // Hidden characters marked again, as markdownRender.ts marks them (the code's textContent is the code as written).
  if (html !== undefined) setSafeHtml(code, markHiddenHtml(html));
}

function schedule(): void {
  if (scheduled || !(queue.length || (loadWanted && !highlighter()))) return;
  scheduled = true;
  // The timeout keeps colouring going while a stream keeps the browser busy.
  requestIdleCallback(run, { timeout: 200 });
}

function run(deadline: IdleDeadline): void {
  scheduled = false;
  if (!highlighter()) {
    loadWanted = false;
    // The load is this slice's work. If the page has no highlighter, its code stays plain (loadHighlighter warns).
    if (!loadHighlighter()) queue.length = 0;
    else for (const code of document.querySelectorAll<HTMLElement>(`code.${HIGHLIGHT_PENDING}`)) queue.push(code);
    schedule();
    return;
  }
  const until = performance.now() + SLICE_MS;
  while (queue.length) {
    if (deadline.didTimeout ? performance.now() > until : deadline.timeRemaining() < 2) break;
    const code = queue.shift()!;
    // A block that left the DOM (a new chat, a re-render) or was coloured meanwhile is skipped.
    if (code.isConnected && code.classList.contains(HIGHLIGHT_PENDING)) highlightNow(code);
  }
  schedule();
}
