// The message composer: a native textarea (IME, spellcheck, undo and screen readers all work as everywhere else).
// Enter sends, Shift+Enter is a newline, ArrowUp in an empty box recalls the last message sent.
// Text is never cut: no maxlength (it truncated a paste silently, and Enter sent the cut text). A text over the host's
// limit stays whole in the box, a line under it says by how much, and it is not sent until it fits.
import { countText } from '../src/shared/countText';
import { MAX_MESSAGE_LENGTH } from '../src/shared/messageLimit';
import type { ReferenceChip } from '../src/shared/protocol';
import { hasVisibleText } from '../src/shared/visibleText';
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

export class Composer {
  readonly el: HTMLElement;
  readonly textarea: HTMLTextAreaElement;
  private readonly stopButton: HTMLElement;
  private readonly picker: HashPicker;
  /** Says how far over the limit the text is; hidden while it fits. */
  private readonly limitNote: HTMLElement;

  constructor(private readonly options: ComposerOptions) {
    this.textarea = h('textarea', {
      class: 'vscode-textarea composer-input',
      'data-testid': 'composer',
      'aria-label': 'Message Baton',
      placeholder: 'Ask Baton, or describe a task for a worker… (Enter to send, Shift+Enter for a new line)',
      rows: 1,
      spellcheck: true,
      'aria-describedby': 'composer-limit',
    });
    this.limitNote = h('div', { class: 'composer-limit', id: 'composer-limit', role: 'status', 'data-testid': 'composer-limit' });
    this.setText(options.draft);
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
      this.limitNote,
      h('div', { class: 'composer-buttons' }, attach, h('span', { class: 'composer-spacer' }), this.stopButton, sendButton),
    );

    sendButton.addEventListener('click', () => this.submit());
    this.stopButton.addEventListener('click', () => options.stop());
    this.textarea.addEventListener('keydown', (e) => this.onKeyDown(e));
    this.textarea.addEventListener('input', () => {
      this.checkLength();
      options.onDraft(this.textarea.value);
    });
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

  /** Replaces the box's text without focusing it (another conversation's draft). */
  setText(text: string): void {
    this.textarea.value = text;
    this.checkLength();
  }

  /** Puts text in the box, caret at the end, and focuses it. */
  fill(text: string): void {
    this.setText(text);
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
    // Blank text (spaces, zero-width characters) would only be refused by the host.
    if (!hasVisibleText(text)) return;
    if (!this.checkLength()) {
      // Still over: the note says so; said again, it is announced again, and nothing leaves the box.
      this.limitNote.textContent = '';
      requestAnimationFrame(() => this.checkLength());
      return;
    }
    // Emptied before it goes: sending may put text back (an edit sent gives back the draft it set aside).
    this.textarea.value = '';
    this.options.onDraft('');
    this.options.send(text);
  }

  /** Shows or hides the note under the box; true when the text fits the limit. */
  private checkLength(): boolean {
    const over = this.textarea.value.length - MAX_MESSAGE_LENGTH;
    const text =
      over > 0
        ? `${countText(over)} character${over === 1 ? '' : 's'} over the limit of ${countText(MAX_MESSAGE_LENGTH)}: shorten the message to send it.`
        : '';
    if (this.limitNote.textContent !== text) this.limitNote.textContent = text;
    this.limitNote.hidden = over <= 0;
    if (over > 0) this.textarea.setAttribute('aria-invalid', 'true');
    else this.textarea.removeAttribute('aria-invalid');
    return over <= 0;
  }
}
