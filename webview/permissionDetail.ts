// What a permission prompt shows of the command (or tool call) it asks about: the user must read what will run, all of
// it, before allowing it. The text itself is never changed; only how it is shown:
// - a hidden character (a bidi override, a zero-width space, a control character: src/shared/visibleText.ts) is shown
//   as a marked ⟨U+202E⟩, and a warning line says the text holds some;
// - a run of blank lines is one marked line that says how many (40 blank lines pushed a `curl … | sh` out of the
//   box, which showed only `npm test`);
// - a detail longer than a few lines, or longer than its box, has a line saying how long it is and to scroll.
import { countText } from '../src/shared/countText';
import { hasHiddenChars, hiddenCharToken, splitHidden } from '../src/shared/visibleText';
import { h, setText } from './dom';

/** A detail with more lines than this says how long it is, even when it fits its box. */
const FEW_LINES = 3;
/** Nor longer than this: a few lines of 1,000 characters each are more than anyone reads at a glance. */
const FEW_CHARS = 300;
/** A line of only spaces and tabs: as invisible as an empty one. */
const BLANK = /^[ \t]*$/;

/** The detail's children: its text, with hidden characters and runs of blank lines marked. */
export function detailNodes(detail: string): Node[] {
  const nodes: Node[] = [];
  const lines = detail.split('\n');
  for (let i = 0; i < lines.length;) {
    const newline = i > 0 ? '\n' : '';
    let run = i;
    while (run < lines.length && BLANK.test(lines[run]!)) run++;
    if (run - i > 1) {
      // Several blank lines: one marked line in their place (the last line of a text ending in them has them too).
      nodes.push(document.createTextNode(newline), mark('permission-blank-run', `⟨${countText(run - i)} blank lines⟩`, 'Blank lines'));
      i = run;
      continue;
    }
    nodes.push(document.createTextNode(newline));
    splitHidden(lines[i]!).forEach((part, at) => {
      if (at % 2) nodes.push(mark('permission-hidden-char', hiddenCharToken(part), 'An invisible or direction-changing character'));
      else if (part) nodes.push(document.createTextNode(part));
    });
    i++;
  }
  return nodes;
}

function mark(className: string, text: string, title: string): HTMLElement {
  return h('span', { class: className, title, 'data-testid': 'permission-mark' }, text);
}

/** The warning for a detail that holds hidden characters; null when it holds none. */
export function hiddenWarning(detail: string, id: string): HTMLElement | null {
  if (!hasHiddenChars(detail)) return null;
  return h(
    'p',
    { class: 'permission-warning', id, 'data-testid': 'permission-warning' },
    '\u26a0 This text holds invisible or direction-changing characters, shown as \u27e8U+\u2026\u27e9: it may not run as it would read.',
  );
}

/** Says how long the detail is ("41 lines, 64 characters"), and to scroll while it is longer than its box. */
export function sizeNote(detail: string, box: HTMLElement, id: string): HTMLElement {
  const lines = detail.split('\n').length;
  const size = `${countText(lines)} line${lines === 1 ? '' : 's'}, ${countText(detail.length)} character${detail.length === 1 ? '' : 's'}`;
  const long = lines > FEW_LINES || detail.length > FEW_CHARS;
  const note = h('p', { class: 'permission-size', id, 'data-testid': 'permission-size' });
  const show = (overflows: boolean): void => {
    note.hidden = !long && !overflows;
    setText(note, overflows ? `${size}: scroll to read it all` : size);
  };
  show(false);
  // Whether the box overflows is known once it is laid out (and changes with the panel's width).
  watched.set(box, show);
  observer().observe(box);
  return note;
}

/** Stops watching a detail's box (its prompt is gone). */
export function unwatchDetail(box: Element | null): void {
  if (!box) return;
  watched.delete(box);
  sizes?.unobserve(box);
}

const watched = new WeakMap<Element, (overflows: boolean) => void>();
let sizes: ResizeObserver | undefined;

function observer(): ResizeObserver {
  sizes ??= new ResizeObserver((entries) => {
    for (const { target } of entries) watched.get(target)?.(target.scrollHeight > target.clientHeight + 1);
  });
  return sizes;
}
