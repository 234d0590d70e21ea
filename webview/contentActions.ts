// What a click inside the conversation does: a message's buttons (copy a code block or a reply's Markdown, colour a
// long code block on request, insert code, edit your message, take a queued one back) and its links (opened by the
// host). The in-page ones say for a moment that they were done.
import { highlightNow } from './deferredHighlight';
import { h } from './dom';
import type { Post } from './messageView';

export interface ContentClickDeps {
  post: Post;
  /** A message's text as it came (a reply's Markdown). */
  contentOf(id: string): string | undefined;
  /** Edit was clicked on your message `id`. */
  edit(id: string): void;
  /** Retry was clicked on the reply `id`. */
  retry(id: string): void;
}

export function onContentClick(e: MouseEvent, deps: ContentClickDeps): void {
  const target = e.target as Element;
  const button = target.closest<HTMLButtonElement>('button[data-action]');
  const messageId = (): string | undefined => button?.closest<HTMLElement>('.message[data-id]')?.dataset.id;
  if (button?.dataset.action === 'edit-message') {
    const id = messageId();
    if (id !== undefined) deps.edit(id);
    return;
  }
  if (button?.dataset.action === 'retry-message') {
    const id = messageId();
    if (id !== undefined) deps.retry(id);
    return;
  }
  if (button?.dataset.action === 'withdraw-message') {
    const id = messageId();
    if (id !== undefined) deps.post({ type: 'chat/withdraw', id });
    return;
  }
  if (button?.dataset.action === 'copy-message') {
    const id = messageId();
    const text = id === undefined ? undefined : deps.contentOf(id);
    if (text) void copyText(text, button).then((ok) => flash(button, ok ? 'Copied' : 'Copy failed'));
    return;
  }
  if (button) {
    const code = button.closest('.code-block')?.querySelector('code');
    if (!code) return;
    const text = code.textContent ?? '';
    if (button.dataset.action === 'highlight') highlightInPlace(button, code);
    else if (button.dataset.action === 'insert') deps.post({ type: 'code/insert', code: text });
    else if (button.dataset.action === 'copy') void copyText(text, button).then((ok) => flash(button, ok ? 'Copied' : 'Copy failed'));
    return;
  }
  const link = target.closest('a[href]');
  if (link) {
    e.preventDefault();
    const href = link.getAttribute('href');
    if (href && href.length <= 4096) deps.post({ type: 'link/open', href });
  }
}

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
  // The button goes (and disabled, it loses the focus at once): the focus it had goes to the block's Copy, or its
  // message, rather than to <body>.
  if (document.activeElement === button) {
    const copy = button.closest('.code-block')?.querySelector<HTMLElement>('button[data-action="copy"]');
    const message = button.closest<HTMLElement>('.message');
    if (!copy && message) message.tabIndex = -1;
    (copy ?? message)?.focus({ preventScroll: true });
  }
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
