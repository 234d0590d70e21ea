// What the host gives back to the composer: a message it did not send (a reference failed), an edit it did not make
// (an answer runs), a queued message taken out (Remove). The text and its chips come back (a refusal's unless another
// message is being written: the refused one is still in the log or the panel; a removed one's after it); what happened
// is shown and announced.
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
  /** The chips of the last message sent (a refused one had these). */
  lastSentChips(): ReferenceChip[];
  announce(text: string): void;
}

export function onComposerReturn(message: ComposerReturn, deps: ComposerReturnDeps): void {
  const { composer, contextBar } = deps;
  const writing = composer.textarea.value !== '';
  switch (message.type) {
    case 'chat/refused':
      // Nothing was sent: the text and its chips come back.
      if (!writing) {
        composer.fill(message.text);
        contextBar.restore(deps.lastSentChips());
      }
      contextBar.showNotice(`Not sent: ${message.message}`);
      deps.announce(`Not sent: ${message.message}`);
      break;
    case 'edit/refused':
      // Nothing was taken back: the edited text comes back, still an edit.
      if (!writing) {
        composer.fill(message.text);
        contextBar.restore(deps.lastSentChips());
        if (deps.shows(message.id)) deps.edit.resume(message.id);
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
