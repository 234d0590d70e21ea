// Typing `#` in the composer (at the start or after a space) opens a small list of what can be attached:
// #file, #folder, #selection, #problems, #changes. Typing narrows it, arrows move, Enter or Tab picks,
// Escape closes. Picking removes the `#word` from the text and asks the host, which shows VS Code's own
// pickers where a choice is needed (which file, which scope).
// Enter is the composer's Send as much as the list's pick: as in VS Code's chat, it picks only what the user chose
// (moved to with the arrows, narrowed to by typing after `#`, or opened the list for with the # button). A bare `#`
// then Enter sends "issue #" as written. A key with a modifier (Shift+Enter, Shift+Tab) is never the list's.
import type { ReferenceChip } from '../src/shared/protocol';
import { h } from './dom';

type Kind = ReferenceChip['ref']['kind'];

const OPTIONS: ReadonlyArray<{ kind: Kind; hint: string }> = [
  { kind: 'file', hint: 'a file of the workspace' },
  { kind: 'folder', hint: 'a folder: its list of files' },
  { kind: 'selection', hint: "the active editor's selection" },
  { kind: 'problems', hint: 'errors and warnings of a file or the workspace' },
  { kind: 'changes', hint: "the working tree's git diff" },
];

/** `#wo` right before the caret, at the start or after whitespace. */
const TRIGGER = /(^|\s)#(\w*)$/;

export class HashPicker {
  readonly el: HTMLElement;
  private shown: Kind[] = [];
  private active = 0;
  private open = false;
  /** The user moved in the list, or opened it with the # button: Enter picks (see the top of the file). */
  private moved = false;

  constructor(
    private readonly textarea: HTMLTextAreaElement,
    private readonly onPick: (kind: Kind) => void,
  ) {
    this.el = h('div', { class: 'hash-picker', role: 'listbox', id: 'hash-picker', 'aria-label': 'Attach context', 'data-testid': 'hash-picker' });
    this.el.hidden = true;
    // A textarea cannot be a combobox (no aria-expanded or aria-haspopup on a textbox): it names the list it controls,
    // and aria-activedescendant, which a textbox supports, has screen readers read the active option.
    textarea.setAttribute('aria-controls', 'hash-picker');
    textarea.addEventListener('input', () => this.update());
    textarea.addEventListener('blur', () => this.close());
    textarea.addEventListener('click', () => this.update());
  }

  /** Opens the list with every kind (the composer's "#" button). */
  openAll(): void {
    this.show(OPTIONS.map((o) => o.kind));
    this.moved = true;
  }

  /** Handles a key while the list is open; true when it was the picker's. */
  handleKey(e: KeyboardEvent): boolean {
    if (!this.open || e.shiftKey || e.altKey || e.ctrlKey || e.metaKey) return false;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      this.active = (this.active + (e.key === 'ArrowDown' ? 1 : this.shown.length - 1)) % this.shown.length;
      this.moved = true;
      this.render();
    } else if (e.key === 'Enter' && !this.moved && !this.typedWord()) {
      // Nothing chosen: Enter is the composer's (it sends), and the list goes with the text it was opened for.
      this.close();
      return false;
    } else if (e.key === 'Enter' || e.key === 'Tab') {
      this.choose(this.shown[this.active]!);
    } else if (e.key === 'Escape') {
      this.close();
    } else return false;
    e.preventDefault();
    e.stopPropagation();
    return true;
  }

  private update(): void {
    const typed = this.typedWord();
    if (typed === undefined) return this.close();
    this.show(OPTIONS.map((o) => o.kind).filter((k) => k.startsWith(typed)));
  }

  /** The word typed after `#` before the caret, lower case ('' for a bare `#`); undefined when there is no `#word`. */
  private typedWord(): string | undefined {
    const before = this.textarea.value.slice(0, this.textarea.selectionStart);
    const m = TRIGGER.exec(before);
    return m ? m[2]!.toLowerCase() : undefined;
  }

  private show(kinds: Kind[]): void {
    if (!kinds.length) return this.close();
    this.shown = kinds;
    this.active = Math.min(this.active, kinds.length - 1);
    this.open = true;
    this.el.hidden = false;
    this.render();
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    this.active = 0;
    this.moved = false;
    this.el.hidden = true;
    this.textarea.removeAttribute('aria-activedescendant');
  }

  private choose(kind: Kind): void {
    // The `#word` typed to open the list is removed: the chip stands for it.
    const caret = this.textarea.selectionStart;
    const before = this.textarea.value.slice(0, caret);
    const m = TRIGGER.exec(before);
    if (m) {
      const start = caret - m[0].length + m[1]!.length;
      this.textarea.value = this.textarea.value.slice(0, start) + this.textarea.value.slice(caret);
      this.textarea.setSelectionRange(start, start);
      this.textarea.dispatchEvent(new Event('input'));
    }
    this.close();
    this.onPick(kind);
  }

  private render(): void {
    const items = this.shown.map((kind, i) => {
      const option = OPTIONS.find((o) => o.kind === kind)!;
      const el = h(
        'div',
        {
          class: 'hash-option',
          role: 'option',
          id: `hash-option-${kind}`,
          'data-kind': kind,
          'aria-selected': String(i === this.active),
          'data-testid': 'hash-option',
        },
        h('span', { class: 'hash-option-name' }, `#${kind}`),
        h('span', { class: 'hash-option-hint' }, option.hint),
      );
      // mousedown, not click: the textarea must keep the focus (its blur closes the list).
      el.addEventListener('mousedown', (e) => {
        e.preventDefault();
        this.choose(kind);
      });
      return el;
    });
    this.el.replaceChildren(...items);
    this.textarea.setAttribute('aria-activedescendant', `hash-option-${this.shown[this.active]}`);
  }
}
