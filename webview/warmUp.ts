// Idle-time warm-up after the panel starts: the first answer's first frame ran the renderer cold (markdown-it,
// DOMPurify and the TypeScript grammar not yet compiled by the JIT) and took 30–40 ms of script where a warm one
// takes a few. One sample with the usual constructs, rendered and sanitized off-DOM, pays that before anyone waits;
// the time formatters' locale data is loaded too.
import { loadHighlighter } from './highlighter';
import { LONG_IDLE_MS } from './idleTime';
import { renderMarkdown } from './markdownStream';
import { sanitizedFragment } from './sanitize';
import { timeFormatters } from './timeText';

const SAMPLE = [
  '# Plan',
  '',
  'The **handler** in `src/h.ts` reads the *request* first. See [the docs](https://example.com) and https://example.com/x.',
  '',
  '- one',
  '  - [x] two',
  '',
  '> quoted',
  '',
  '| a | b |',
  '|:--|--:|',
  '| 1 | 2 |',
  '',
  '```ts',
  'export async function f(x?: number): Promise<string> { return `${x ?? 0}`; }',
  '```',
].join('\n');

export function warmUp(): void {
  const step = (deadline: IdleDeadline): void => {
    // Only when nothing is due soon (see LONG_IDLE_MS): a cold render must not land between two frames of a scroll.
    if (deadline.timeRemaining() < LONG_IDLE_MS) {
      requestIdleCallback(step);
      return;
    }
    // The highlighter has loaded by now, in the first idle time after the paint (deferredHighlight.ts); if not, now, so
    // the sample's code is coloured as an answer's would be.
    const highlighter = loadHighlighter();
    sanitizedFragment(renderMarkdown(SAMPLE));
    // The locale data in a slice of its own: with the render above, it would be a task of up to 70 ms.
    requestIdleCallback(timeStep);
    highlighter?.warmUp();
  };
  const timeStep = (deadline: IdleDeadline): void => {
    if (deadline.timeRemaining() < LONG_IDLE_MS) requestIdleCallback(timeStep);
    else timeFormatters();
  };
  requestIdleCallback(step);
}
