// Where the focus goes back to from the panel's parts outside the log (Escape on a worker card, a permission prompt or
// the conversation list; the last worker card leaving; a conversation opened): the composer, as Escape in the log
// does. Found in the page by its test id rather than handed in, so that the strip and the list need no handle on the
// Composer that ChatApp builds after them.

/** Gives the focus to the composer's text box (see Composer.focus). */
export function focusComposer(): void {
  document.querySelector<HTMLElement>('textarea[data-testid="composer"]')?.focus();
}

/** Escape with no modifier: the key that leaves a part of the panel for the composer. */
export function isPlainEscape(e: KeyboardEvent): boolean {
  return e.key === 'Escape' && !(e.altKey || e.ctrlKey || e.metaKey || e.shiftKey);
}

/** Runs `leave` for a plain Escape pressed in `el` that nothing inside it took first. */
export function onPlainEscape(el: HTMLElement, leave: () => void): void {
  el.addEventListener('keydown', (e) => {
    if (!isPlainEscape(e) || e.defaultPrevented) return;
    e.preventDefault();
    leave();
  });
}
