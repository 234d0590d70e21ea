// The message composer: a native textarea (IME, spellcheck, undo and screen readers all work as everywhere else).
// Enter sends, Shift+Enter is a newline, ArrowUp in an empty box recalls the last message sent.
import { h } from './dom';

export interface ComposerOptions {
  draft: string;
  send(text: string): void;
  stop(): void;
  /** The last message sent, for ArrowUp recall. */
  recall(): string | undefined;
  onDraft(text: string): void;
}

/** The protocol's limit for chat/send. */
const MAX_LENGTH = 100_000;

export class Composer {
  readonly el: HTMLElement;
  readonly textarea: HTMLTextAreaElement;
  private readonly stopButton: HTMLElement;

  constructor(private readonly options: ComposerOptions) {
    this.textarea = h('textarea', {
      class: 'composer-input',
      'data-testid': 'composer',
      'aria-label': 'Message Baton',
      placeholder: 'Ask Baton, or describe a task for a worker… (Enter to send, Shift+Enter for a new line)',
      rows: 1,
      maxlength: MAX_LENGTH,
      spellcheck: true,
    });
    this.textarea.value = options.draft;
    const sendButton = h('vscode-button', { 'data-testid': 'send', 'aria-label': 'Send message', title: 'Send (Enter)' }, 'Send');
    this.stopButton = h('vscode-button', { appearance: 'secondary', 'data-testid': 'stop', 'aria-label': 'Stop the answer', title: 'Stop' }, 'Stop');
    this.stopButton.hidden = true;
    // A div, not a form: the toolkit's buttons are form-associated and would submit it as well as click.
    this.el = h('div', { class: 'composer', role: 'group', 'aria-label': 'Compose a message' }, this.textarea, h('div', { class: 'composer-buttons' }, this.stopButton, sendButton));

    sendButton.addEventListener('click', () => this.submit());
    this.stopButton.addEventListener('click', () => options.stop());
    this.textarea.addEventListener('keydown', (e) => this.onKeyDown(e));
    this.textarea.addEventListener('input', () => options.onDraft(this.textarea.value));
  }

  setBusy(busy: boolean): void {
    this.stopButton.hidden = !busy;
  }

  focus(): void {
    this.textarea.focus();
  }

  /** Puts text in the box, caret at the end, and focuses it. */
  fill(text: string): void {
    this.textarea.value = text;
    this.options.onDraft(text);
    this.focus();
    this.textarea.setSelectionRange(text.length, text.length);
  }

  private onKeyDown(e: KeyboardEvent): void {
    // While an IME composes, Enter confirms the composition; it must not send.
    if (e.isComposing || e.keyCode === 229) return;
    if (e.key === 'Enter' && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
      e.preventDefault();
      this.submit();
    } else if (e.key === 'ArrowUp' && this.textarea.value === '' && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
      const last = this.options.recall();
      if (last) {
        e.preventDefault();
        this.fill(last);
      }
    }
  }

  private submit(): void {
    const text = this.textarea.value;
    if (!text.trim()) return;
    this.options.send(text);
    this.textarea.value = '';
    this.options.onDraft('');
  }
}
