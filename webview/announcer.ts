// The panel's one polite live region. What is said in one frame is said together: a region rewritten twice before a
// paint is read once, with the last text only (two workers finishing in one update lost the first).
import { h } from './dom';
import { resultCardSpeech } from './resultCard';
import { sentence, spokenText } from './spokenText';

/** Pending texts kept at most (a hidden panel paints no frame): the newest, the older ones being stale by then. */
const MAX_PENDING = 8;

export class Announcer {
  readonly el = h('div', { class: 'sr-only', role: 'status', 'aria-live': 'polite', 'data-testid': 'announcer' });
  private pending: string[] = [];
  private scheduled = false;

  /**
   * Says `text` soon. The region is emptied in one frame and written in the next, so a text said again is heard again;
   * what is said until then joins it, each once. A text written is painted before the region is emptied again: a
   * request made during a frame's callbacks empties it in the next frame at the earliest.
   */
  say(text: string): void {
    const said = text.trim();
    if (!said) return;
    if (!this.pending.includes(said)) this.pending.push(said);
    if (this.pending.length > MAX_PENDING) this.pending.splice(0, this.pending.length - MAX_PENDING);
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => {
      this.el.textContent = '';
      requestAnimationFrame(() => {
        const texts = this.pending;
        this.pending = [];
        this.scheduled = false;
        this.el.textContent = texts.map((t) => (texts.length > 1 ? sentence(t) : t)).join(' ');
      });
    });
  }
}

/**
 * A copy button shows "Copied" (or "Copy failed") on itself for a moment (contentActions.ts): that is said too, as a
 * focused button's new text is not read out (the code block's button keeps its aria-label).
 */
export function announceCopies(root: HTMLElement, say: (text: string) => void): void {
  root.addEventListener('click', (e) => {
    const button = (e.target as Element).closest?.('button[data-action="copy"], button[data-action="copy-message"]');
    if (!button) return;
    const watch = new MutationObserver(() => {
      const text = button.textContent?.trim();
      if (text !== 'Copied' && text !== 'Copy failed') return;
      watch.disconnect();
      clearTimeout(stop);
      say(text);
    });
    watch.observe(button, { childList: true, characterData: true, subtree: true });
    const stop = setTimeout(() => watch.disconnect(), 3000);
  });
}

/** What is said of a message that settled: who, then the start of what it says (a worker's card, from its fields). */
export function settledSpeech(message: Element): string {
  const body = message.querySelector('.message-body');
  const card = body?.querySelector('.result-card');
  if (card) return clip(resultCardSpeech(card), 300);
  return `${message.getAttribute('aria-label') ?? 'Baton'}: ${clip(body ? spokenText(body) : '', 240)}`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\u2026` : text;
}
