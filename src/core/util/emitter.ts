/** A minimal typed event emitter for core (VS Code's EventEmitter is not available in plain Node). */
export class Emitter<T> {
  private listeners = new Set<(value: T) => void>();

  /** Subscribes; the returned function unsubscribes. */
  readonly event = (listener: (value: T) => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  fire(value: T): void {
    // A copy, so one added meanwhile waits for the next event; one removed meanwhile (by a listener before it) is not
    // called: who disposed it expects no more events, as with VS Code's own emitter.
    for (const listener of [...this.listeners]) {
      if (!this.listeners.has(listener)) continue;
      try {
        listener(value);
      } catch (err) {
        // A faulty subscriber must never break the producer (e.g. the streaming loop).
        console.error('[baton] event listener failed', err);
      }
    }
  }

  dispose(): void {
    this.listeners.clear();
  }
}
