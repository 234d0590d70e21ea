// Editing one of your sent messages: its text goes into the composer, a bar above the composer says what sending will
// do, and the messages it would take back are marked. Sending posts chat/edit (the host takes the conversation back
// to just before the message and sends the new text); Cancel or Escape puts back what the composer held before.
// What the composer held (the draft and its chips) is only set aside, never dropped: sending the edit gives it back,
// and an edit the host refuses sets aside again whatever the composer holds by then.
import type { ReferenceChip } from '../src/shared/protocol';
import { button, h } from './dom';
import { chipsOf, contentOf, markFrom } from './messageOrder';
import type { MessageView } from './messageView';

export interface MessageEditDeps {
  /** The composer's text, and putting text in it (focused, caret at the end). */
  text(): string;
  fill(text: string): void;
  /** The panel's messages, in order. */
  messages(): readonly MessageView[];
  /** The chips attached in the composer, and putting others there. */
  chips(): ReferenceChip[];
  setChips(chips: readonly ReferenceChip[]): void;
  announce(text: string): void;
  /** The edit as the webview state keeps it (undefined: none), so a reload of the view goes on with it. */
  save(editing: EditInProgress | undefined): void;
}

/** An edit in progress: the message, and what the composer held before it (its text and chips). */
export interface EditInProgress {
  id: string;
  draft: string;
  chips?: ReferenceChip[];
}

export class MessageEdit {
  readonly el: HTMLElement;
  private editing: EditInProgress | undefined;

  constructor(private readonly deps: MessageEditDeps) {
    const cancel = button('secondary', { class: 'edit-cancel', 'data-testid': 'edit-cancel', title: 'Cancel the edit (Escape)' }, 'Cancel');
    cancel.addEventListener('click', () => this.cancel());
    this.el = h(
      'div',
      { class: 'edit-bar', 'data-testid': 'edit-bar', role: 'status', hidden: true },
      h('span', { class: 'edit-bar-text' }, 'Editing your message. Sending it takes back that message and everything after it.'),
      cancel,
    );
  }

  /** The message being edited, if one is. */
  get id(): string | undefined {
    return this.editing?.id;
  }

  /**
   * Starts editing your message `id` (another edit in progress ends first, its draft kept): its text, and the chips it
   * was sent with, go into the composer, so sending sends what it carried unless a chip is removed.
   */
  start(id: string): void {
    const content = contentOf(this.deps.messages(), id);
    if (content === undefined) return;
    this.open(id, content, chipsOf(this.deps.messages(), id));
    this.deps.announce('Editing your message. Escape cancels.');
  }

  /**
   * The host refused to send the edit of `id` (nothing was taken back): the edit goes on with its `text` and `chips`,
   * and what the composer holds now (the draft given back when it was sent, and what was typed since) is set aside.
   */
  refused(id: string, text: string, chips: readonly ReferenceChip[]): void {
    this.open(id, text, chips);
  }

  private open(id: string, text: string, chips: readonly ReferenceChip[]): void {
    const before = this.editing ?? { draft: this.deps.text(), chips: this.deps.chips() };
    this.editing = { id, draft: before.draft, chips: before.chips ?? [] };
    this.el.hidden = false;
    this.markFrom(id);
    this.deps.save(this.editing);
    this.deps.setChips(chips);
    this.deps.fill(text);
  }

  /** Back into the edit of `id` after a reload of the view (hidden and shown again), its text already in the composer. */
  resume(id: string, draft: string, chips: ReferenceChip[] = []): void {
    this.editing = { id, draft, chips };
    this.el.hidden = false;
    this.markFrom(id);
    this.deps.save(this.editing);
  }

  /**
   * A snapshot was shown (`has`: whether it holds a message): the edit's message gone, the edit ends. `saved`: the edit
   * in progress when the view was reloaded (hidden and shown again) goes on, or Enter would send its text as a new message.
   */
  afterSnapshot(has: (id: string) => boolean, saved: EditInProgress | undefined): void {
    if (this.editing) {
      if (has(this.editing.id)) this.markFrom(this.editing.id);
      else this.end();
    } else if (saved && has(saved.id)) this.resume(saved.id, saved.draft, saved.chips);
  }

  /** Marks the messages from `id` on, those sending would take back (undefined: none). */
  private markFrom(id: string | undefined): void {
    markFrom(this.deps.messages(), id);
  }

  /** Ends the edit and puts back what the composer held before it. */
  cancel(): void {
    this.giveBack();
  }

  /**
   * The edit was sent (its text and chips taken from the composer): it ends, and what the composer held before it
   * comes back, as if the user had never left it. Returns the edit that was in progress, if one was.
   */
  sent(): EditInProgress | undefined {
    return this.giveBack();
  }

  private giveBack(): EditInProgress | undefined {
    const editing = this.end();
    if (!editing) return undefined;
    this.deps.setChips(editing.chips ?? []);
    this.deps.fill(editing.draft);
    return editing;
  }

  /** Ends the edit as it is (its message gone): the composer keeps what it holds. */
  end(): EditInProgress | undefined {
    const editing = this.editing;
    this.editing = undefined;
    this.el.hidden = true;
    if (editing) {
      this.markFrom(undefined);
      this.deps.save(undefined);
    }
    return editing;
  }
}
