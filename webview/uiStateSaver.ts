// Saves the panel's UI intent (drafts, scroll position, an edit in progress) through vscode.setState, a few times a
// second at most (setState serialises the whole object each time), and at once when the view goes away: VS Code
// destroys a hidden webview, so what was typed in the last quarter second before switching views was lost.

export class UiStateSaver {
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    /** Writes the state now. */
    private readonly write: () => void,
    private readonly delayMs = 250,
  ) {
    window.addEventListener('pagehide', () => this.flush());
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'hidden') this.flush();
    });
  }

  /** Something changed: written within `delayMs`, once for all the changes meanwhile. */
  soon(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), this.delayMs);
  }

  /** Writes what waits, if anything does. */
  flush(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.write();
  }
}
