// What the buttons inside a message do in the page itself: copy text (a code block's, a reply's Markdown), colour a
// long code block on request, and say for a moment that it was done. ChatApp.onContentClick routes the clicks here.
import { highlightNow } from './deferredHighlight';
import { h } from './dom';

export async function copyText(text: string, from: HTMLElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Older webview hosts deny the async clipboard; a selected text box plus execCommand still works there. It holds
    // the text itself (a reply's Markdown, not what the page shows of it), and the focus goes back where it was.
    const box = h('textarea', { class: 'copy-buffer', 'aria-hidden': 'true', tabindex: '-1' }) as HTMLTextAreaElement;
    box.value = text;
    document.body.append(box);
    box.select();
    const ok = document.execCommand('copy');
    box.remove();
    from.focus({ preventScroll: true });
    return ok;
  }
}

/** Colours a code block that was shown plain for its size, at the user's request. */
export function highlightInPlace(button: HTMLButtonElement, code: HTMLElement): void {
  button.disabled = true;
  button.textContent = 'Highlighting…';
  // After a frame, so the button shows it is working: a very long block can take a moment.
  setTimeout(() => {
    highlightNow(code);
    button.remove();
  }, 30);
}

export function flash(button: HTMLElement, text: string): void {
  const original = button.dataset.label ?? button.textContent ?? '';
  button.dataset.label = original;
  button.textContent = text;
  setTimeout(() => {
    button.textContent = original;
  }, 1500);
}
