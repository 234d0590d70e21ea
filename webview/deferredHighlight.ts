// Code in a settled message is shown plain and coloured right after the panel has painted. Highlighting the code of
// the few messages visible when a 1,000-message history opened was over half of the time from snapshot to first
// paint (grammar compiles included); coloured a moment later, the panel shows the same text at once. Blocks are
// coloured in idle time, in the order they were rendered (the visible ones first), a frame's share at a time.
import { HIGHLIGHT_PENDING, highlightCode } from './codeHighlight';
import { setSafeHtml } from './sanitize';

/** Highlighting work per idle slice when the browser is never idle (a long stream): most of a frame stays free. */
const SLICE_MS = 8;

const queue: HTMLElement[] = [];
let scheduled = false;

/** Queues every deferred code block under `root` to be coloured once the browser is idle. */
export function highlightLater(root: Element): void {
  for (const code of root.querySelectorAll<HTMLElement>(`code.${HIGHLIGHT_PENDING}`)) queue.push(code);
  schedule();
}

/** Colours one code block now (the Highlight action of a block shown plain for its size uses it too). */
export function highlightNow(code: HTMLElement): void {
  code.classList.remove(HIGHLIGHT_PENDING);
  const lang = /(?:^|\s)language-(\S+)/.exec(code.className)?.[1] ?? '';
  const html = highlightCode(code.textContent ?? '', lang);
  if (html !== undefined) setSafeHtml(code, html);
}

function schedule(): void {
  if (scheduled || !queue.length) return;
  scheduled = true;
  // The timeout keeps colouring going while a stream keeps the browser busy.
  requestIdleCallback(run, { timeout: 200 });
}

function run(deadline: IdleDeadline): void {
  scheduled = false;
  const until = performance.now() + SLICE_MS;
  while (queue.length) {
    if (deadline.didTimeout ? performance.now() > until : deadline.timeRemaining() < 2) break;
    const code = queue.shift()!;
    // A block that left the DOM (a new chat, a re-render) or was coloured meanwhile is skipped.
    if (code.isConnected && code.classList.contains(HIGHLIGHT_PENDING)) highlightNow(code);
  }
  schedule();
}
