// The focus in the log across a snapshot, which takes every message out of the log and puts the new ones in
// (MessageList.reset): a control that had it is detached, even when its message's view is kept, and the browser
// gives the focus to <body>, where a screen reader starts again from the top of the panel (Retry by keyboard did
// that: the snapshot that takes the reply away). What had it is found again by its message's id and, within the
// message, by what the control is (its test id or action, or its tag) and which of those it was.
import type { MessageView } from './messageView';
import { focusMessage } from './messageKeys';

export interface LogFocus {
  /** The message that had the focus, or a control in it. */
  message: string;
  /** The control, as a selector within the message, and which of its matches it was; none when the message had it. */
  control?: { selector: string; nth: number };
}

/** What in `log`'s messages has the focus, if anything does. */
export function logFocus(log: HTMLElement): LogFocus | undefined {
  const active = document.activeElement as HTMLElement | null;
  const message = active && active !== log && log.contains(active) ? active.closest<HTMLElement>('.message[data-id]') : null;
  if (!active || !message) return undefined;
  if (active === message) return { message: message.dataset.id! };
  const selector = active.dataset.testid
    ? `[data-testid="${CSS.escape(active.dataset.testid)}"]`
    : active.dataset.action
      ? `[data-action="${CSS.escape(active.dataset.action)}"]`
      : active.tagName.toLowerCase();
  return { message: message.dataset.id!, control: { selector, nth: Array.from(message.querySelectorAll(selector)).indexOf(active) } };
}

/**
 * Gives the focus back after the log was rebuilt: to the same control of the same message, or the message if the
 * control is not there or not shown now; the log itself when the message is gone or not mounted (its neighbours'
 * places changed, and the arrows go on from the log). Nothing when the focus is somewhere else by now.
 */
export function restoreLogFocus(was: LogFocus | undefined, log: HTMLElement, view: MessageView | undefined): void {
  if (!was || (document.activeElement !== document.body && document.activeElement !== null)) return;
  if (!view?.isMounted || !log.contains(view.el)) return log.focus({ preventScroll: true });
  if (was.control) {
    view.render();
    const control = view.el.querySelectorAll<HTMLElement>(was.control.selector)[was.control.nth];
    // Shown (not hidden by its attribute or the stylesheet: Retry while busy) and enabled; one layout, once a snapshot.
    if (control && control.getClientRects().length > 0 && !(control as HTMLButtonElement).disabled) return control.focus({ preventScroll: true });
  }
  focusMessage(view);
}
