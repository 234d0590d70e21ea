// What was typed in each conversation and not sent: switching to another conversation puts the composer's text aside
// under the one left, and brings back the one opened's (as VS Code's chat keeps each session's input). Kept in the
// webview state, so a reload keeps them too.

/**
 * Bound: the drafts of this many conversations besides the one shown (the oldest put aside goes first). Each is at
 * most the composer's 100,000 characters, so the webview state holds at most about 2 MB of them.
 */
export const MAX_DRAFTS = 20;

export class Drafts {
  private readonly aside: Map<string, string>;

  constructor(saved: unknown) {
    this.aside = new Map(
      saved && typeof saved === 'object'
        ? Object.entries(saved as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '')
        : [],
    );
    this.trim();
  }

  /** Puts `text` aside as the draft of `from` (none when it is blank) and returns the draft of `to` (or ''). */
  swap(from: string, text: string, to: string): string {
    if (from !== to) {
      this.aside.delete(from);
      if (text.trim()) this.aside.set(from, text);
    }
    const draft = this.aside.get(to) ?? '';
    this.aside.delete(to);
    this.trim();
    return draft;
  }

  /** For the webview state: a plain object, oldest first. */
  toJSON(): Record<string, string> {
    return Object.fromEntries(this.aside);
  }

  private trim(): void {
    for (const key of this.aside.keys()) {
      if (this.aside.size <= MAX_DRAFTS) break;
      this.aside.delete(key);
    }
  }
}
