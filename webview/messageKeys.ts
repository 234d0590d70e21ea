// Keyboard movement through the message log: arrow keys, Home and End move the focus from message to message, each
// taking it with tabindex -1 while it has it (Escape, which leaves the log, is the list's own). From a control inside
// a message (a link, a code block's Copy) they move from that message, not from the newest.
import { isPlainEscape } from './composerFocus';
import type { MessageView } from './messageView';

/** A key in the conversation: Escape leaves it (`leave`); the arrows, Home and End move among the `mounted` messages. */
export function onLogKey(e: KeyboardEvent, mounted: () => readonly MessageView[], leave: () => void): void {
  if (isPlainEscape(e)) {
    e.preventDefault();
    leave();
    return;
  }
  focusByKey(e, mounted());
}

/** Moves the focus among `mounted` for an unmodified arrow, Home or End key; other keys are left alone. */
export function focusByKey(e: KeyboardEvent, mounted: readonly MessageView[]): void {
  if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || !mounted.length) return;
  const at = document.activeElement?.closest('.message');
  const current = at ? mounted.findIndex((v) => v.el === at) : -1;
  let next: number;
  if (e.key === 'ArrowUp') next = current < 0 ? mounted.length - 1 : Math.max(0, current - 1);
  else if (e.key === 'ArrowDown') next = current < 0 ? mounted.length - 1 : Math.min(mounted.length - 1, current + 1);
  else if (e.key === 'Home') next = 0;
  else if (e.key === 'End') next = mounted.length - 1;
  else return;
  e.preventDefault();
  const view = mounted[next]!;
  focusMessage(view);
  view.el.scrollIntoView({ block: 'nearest' });
}

/** Gives `view`'s message the focus, rendered first; tabindex -1 keeps it out of the browser's Tab order. */
export function focusMessage(view: MessageView): void {
  view.render();
  view.el.tabIndex = -1;
  view.el.focus({ preventScroll: true });
}
