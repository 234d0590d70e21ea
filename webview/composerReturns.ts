// What the host gives back to the composer: a message it did not send (a reference failed), an edit it did not make
// (an answer runs), a queued message taken out (Remove). The text and its chips come back, after what is being written
// when another message is (neither is in the log: this is its only copy); what happened is shown and announced.
import type { HostMessage, ReferenceChip } from '../src/shared/protocol';
import type { Composer } from './composer';
import type { ContextBar } from './contextChips';
import type { MessageEdit } from './messageEdit';

export type ComposerReturn = Extract<HostMessage, { type: 'chat/refused' | 'edit/refused' | 'chat/withdrawn' }>;

export interface ComposerReturnDeps {
  composer: Composer;
  contextBar: ContextBar;
  edit: MessageEdit;
  /** The panel still shows message `id`. */
  shows(id: string): boolean;
  /** The chips a message of this text was sent with (SentChips). */
  chipsSent(text: string): ReferenceChip[];
  announce(text: string): void;
}

export function onComposerReturn(message: ComposerReturn, deps: ComposerReturnDeps): void {
  const { composer, contextBar } = deps;
  const writing = composer.textarea.value !== '';
  switch (message.type) {
    case 'chat/refused':
      // Nothing was sent: the text and its chips come back.
      composer.fill(writing ? `${composer.textarea.value}\n\n${message.text}` : message.text);
      contextBar.add(deps.chipsSent(message.text));
      contextBar.showNotice(`Not sent: ${message.message}`);
      deps.announce(`Not sent: ${message.message}`);
      break;
    case 'edit/refused':
      // Nothing was taken back: the edited text and its chips come back, still an edit, and what the composer holds
      // (the draft given back when the edit was sent) is set aside again for Escape. With the message gone, or another
      // edit begun, it is a plain return, after what is being written.
      if (deps.edit.id === undefined && deps.shows(message.id)) deps.edit.refused(message.id, message.text, deps.chipsSent(message.text));
      else {
        composer.fill(writing ? `${composer.textarea.value}\n\n${message.text}` : message.text);
        contextBar.add(deps.chipsSent(message.text));
      }
      contextBar.showNotice(`Not edited: ${message.message}`);
      deps.announce(`Not edited: ${message.message}`);
      break;
    case 'chat/withdrawn':
      // Taken out of the queue: its text and chips come back to be sent again or changed. Its row is gone from the log,
      // so this is the only copy left: with another message being written, it goes after that one, never dropped.
      // The focus, on its Remove a moment ago, goes to the composer (fill focuses it).
      composer.fill(writing ? `${composer.textarea.value}\n\n${message.text}` : message.text);
      contextBar.add(message.chips);
      deps.announce(`Removed from the queue; its text is ${writing ? 'added to' : 'back in'} the message box.`);
      break;
  }
}

/** The chips of the last messages sent, by their text: a refusal names its message by its text alone. */
export class SentChips {
  private static readonly KEEP = 20;
  private readonly byText = new Map<string, ReferenceChip[]>();

  note(text: string, chips: ReferenceChip[]): void {
    this.byText.delete(text);
    this.byText.set(text, chips);
    for (const oldest of this.byText.keys()) {
      if (this.byText.size <= SentChips.KEEP) break;
      this.byText.delete(oldest);
    }
  }

  of(text: string): ReferenceChip[] {
    return this.byText.get(text) ?? [];
  }
}
