// A text the user typed into an input box is never lost to a refusal: whatever refuses it once typed (the worker
// limit, a protected folder, a worker whose changes are being applied) is shown with Edit and Try Again, which opens
// the box again holding what was typed. The box stays open when focus moves to the editor to look something up.
import * as vscode from 'vscode';

export interface AskUntilTaken {
  box: Omit<vscode.InputBoxOptions, 'value' | 'ignoreFocusOut'>;
  /** Takes the text (trimmed, not empty); throws when it is refused. */
  take: (text: string) => Promise<void>;
  /** The error message for a refusal. */
  refused: (err: unknown) => string;
}

/** True when the text was taken; false when the user closed the box or let a refusal go. */
export async function askUntilTaken(opts: AskUntilTaken): Promise<boolean> {
  for (let typed: string | undefined; ;) {
    const text = await vscode.window.showInputBox({ ...opts.box, value: typed, ignoreFocusOut: true });
    if (!text?.trim()) return false;
    try {
      await opts.take(text.trim());
      return true;
    } catch (err) {
      const again = await vscode.window.showErrorMessage(opts.refused(err), 'Edit and Try Again');
      if (!again) return false;
      typed = text;
    }
  }
}
