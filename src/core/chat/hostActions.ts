// What the panel asks the editor to do (open a link, insert code, run a command ...); implemented by the VS Code layer.
import type { EditorContextPort } from '../context/contextPort';

/** What the panel asks the editor to do; implemented by the VS Code layer. */
export interface HostActions {
  openLink(href: string): void;
  insertCode(code: string): void;
  runCommand(command: string): void;
  toggleRouting(): void;
  /** A worker's transcript, or (from a card's buttons) its changes: review, apply, discard, open its folder. */
  openWorker(
    name: string,
    action?: 'transcript' | 'review' | 'apply' | 'discard' | 'folder' | 'branch' | 'ask' | 'resolve-worker' | 'resolve-editor' | 'undo',
  ): void;
  /** The editor as context (files, selections, problems, changes); absent where there is no editor. */
  context?: EditorContextPort;
  /** Renames or deletes a conversation, asking the user first (an input box, a modal confirmation). */
  conversationAction?(action: 'rename' | 'delete', id: string): void;
}
