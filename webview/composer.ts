// The message composer: a native textarea (IME, spellcheck, undo and screen readers all work as everywhere else).
// Enter sends, Shift+Enter is a newline, ArrowUp in an empty box recalls the last message sent.
import type { ReferenceChip } from '../src/shared/protocol';
import type { ContextBar } from './contextChips';
import { button, h } from './dom';
import { HashPicker } from './hashPicker';

export interface ComposerOptions {
  draft: string;
  send(text: string): void;
  stop(): void;
  /** The last message sent, for ArrowUp recall. */
  recall(): string | undefined;
  onDraft(text: string): void;
  /** Escape in the box (nothing else took it): true when it was used (an edit cancelled). */
  onEscape?(): boolean;
  /** The chips above the box (the composer places them). */
  context: ContextBar;
  /** A kind was picked from the `#` list. */
  pick(kind: ReferenceChip['ref']['kind']): void;
}

/** The protocol's limit for chat/send. */
const MAX_LENGTH = 100_000;

export class Composer {
  readonly el: HTMLElement;
  readonly textarea: HTMLTextAreaElement;
  private readonly stopButton: HTMLElement;
  private readonly picker: HashPicker;

  constructor(private readonly options: ComposerOptions) {
    this.textarea = h('textarea', {
      class: 'vscode-textarea composer-input',
      'data-testid': 'composer',
      'aria-label': 'Message Baton',
      placeholder: 'Ask Baton, or describe a task for a worker… (Enter to send, Shift+Enter for a new line)',
      rows: 1,
      maxlength: MAX_LENGTH,
      spellcheck: true,
    });
    this.textarea.value = options.draft;
    const sendButton = button('primary', { 'data-testid': 'send', 'aria-label': 'Send message', title: 'Send (Enter)' }, 'Send');
    this.stopButton = button('secondary', { 'data-testid': 'stop', 'aria-label': 'Stop the answer', title: 'Stop' }, 'Stop');
    this.stopButton.hidden = true;
    this.picker = new HashPicker(this.textarea, (kind) => options.pick(kind));
    const attach = button(
      'secondary',
      {
        class: 'composer-attach',
        'data-testid': 'attach',
        'aria-label': 'Attach context (#)',
        title: 'Attach a file, folder, selection, problems or changes (#)',
      },
      '#',
    );
    attach.addEventListener('click', () => {
      this.focus();
      this.picker.openAll();
    });
    // A div, not a form: Enter is handled by the textarea, and a form would submit on it as well.
    this.el = h(
      'div',
      { class: 'composer', role: 'group', 'aria-label': 'Compose a message' },
      options.context.el,
      this.picker.el,
      this.textarea,
      h('div', { class: 'composer-buttons' }, attach, h('span', { class: 'composer-spacer' }), this.stopButton, sendButton),
    );

    sendButton.addEventListener('click', () => this.submit());
    this.stopButton.addEventListener('click', () => options.stop());
    this.textarea.addEventListener('keydown', (e) => this.onKeyDown(e));
    this.textarea.addEventListener('input', () => options.onDraft(this.textarea.value));
  }

  /** Shows Stop while Baton answers; it says that `queued` messages are sent after the answer it stops. */
  setBusy(busy: boolean, queued: number): void {
    // A hidden button loses the focus to nowhere: it goes to the box the user will type in next.
    const hadFocus = !busy && document.activeElement === this.stopButton;
    this.stopButton.hidden = !busy;
    const label = queued ? `Stop the answer (${queued === 1 ? 'the queued message is' : `the ${queued} queued messages are`} sent next)` : 'Stop the answer';
    this.stopButton.setAttribute('aria-label', label);
    this.stopButton.title = queued ? label : 'Stop';
    if (hadFocus) this.focus();
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
    if (this.picker.handleKey(e)) return;
    if (e.key === 'Enter' && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
      e.preventDefault();
      this.submit();
    } else if (e.key === 'Escape' && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey && this.options.onEscape?.()) {
      e.preventDefault();
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
