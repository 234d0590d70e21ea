// Tab in the conversation, as in VS Code's own lists: the log is one tab stop, the arrows move through the messages,
// and Tab goes into the focused message's controls (links, a code block's Copy and Insert, a reply's Copy) and then
// out of the log, not on through every control of every message. Without it, Shift+Tab from the composer walked back
// through each rendered message's buttons and links before it reached the log: dozens of stops in a long conversation.
// Coming back from outside by Shift+Tab lands on the log itself, where the arrows take over.

const TABBABLE = 'a[href], button:not([disabled]), input:not([disabled]), textarea:not([disabled]), select:not([disabled]), summary, [tabindex]';

/**
 * Elements Tab can reach under `root`, in document order: enabled, shown, and not taken out of the tab order. Shown
 * means checkVisibility too: the content of a closed <details> (the conversation list's) still has boxes, but it is
 * not rendered and cannot take the focus.
 */
function tabbables(root: ParentNode): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(TABBABLE)).filter(
    (el) => el.tabIndex >= 0 && el.getClientRects().length > 0 && (typeof el.checkVisibility !== 'function' || el.checkVisibility()),
  );
}

/** The first tab stop after `log` outside it (forward), or the last one before it (backward). */
function outside(log: HTMLElement, forward: boolean): HTMLElement | undefined {
  const all = tabbables(document).filter((el) => el !== log && !log.contains(el));
  const after = (el: HTMLElement): boolean => (log.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
  return forward ? all.find(after) : all.filter((el) => !after(el)).pop();
}

export function installLogTabbing(log: HTMLElement, messageOf: (el: Element) => HTMLElement | null): void {
  let tabbing = false;
  // A Tab pressed anywhere in the page: the focus that arrives in the log next came by the keyboard, not by a click
  // or by the panel's own code (the clipboard fallback gives the focus back to the button that copied).
  document.addEventListener(
    'keydown',
    (e) => {
      if (e.key !== 'Tab') return;
      tabbing = true;
      setTimeout(() => (tabbing = false), 0);
    },
    true,
  );

  log.addEventListener('focusin', (e) => {
    const from = e.relatedTarget as Node | null;
    if (!tabbing || e.target === log || (from && log.contains(from))) return;
    // Into a message's control from outside (Shift+Tab from the composer): the log takes the focus instead.
    log.focus({ preventScroll: true });
  });

  log.addEventListener('keydown', (e) => {
    if (e.key !== 'Tab' || e.altKey || e.ctrlKey || e.metaKey) return;
    const active = document.activeElement as HTMLElement | null;
    if (!active || !log.contains(active)) return;
    const message = active === log ? null : messageOf(active);
    let next: HTMLElement | undefined;
    if (!message) {
      // On the log itself: forward leaves it; backward is the browser's own (the stop before the log).
      if (e.shiftKey) return;
      next = outside(log, true);
    } else {
      const controls = tabbables(message).filter((el) => el !== message);
      const at = controls.indexOf(active);
      if (e.shiftKey) next = active === message ? outside(log, false) : at > 0 ? controls[at - 1] : message;
      else next = active === message ? (controls[0] ?? outside(log, true)) : (controls[at + 1] ?? outside(log, true));
    }
    if (!next) return;
    e.preventDefault();
    // A message takes the focus only from the panel's code (see focusByKey): -1 keeps it out of the browser's order.
    if (next === message && !next.hasAttribute('tabindex')) next.tabIndex = -1;
    next.focus();
  });
}
