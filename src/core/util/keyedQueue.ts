// Tasks of one key run one after the other, in the order they came; tasks of different keys run at once. A task's
// failure is its own caller's: the next one runs all the same.
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.tails.get(key) ?? Promise.resolve()).then(fn);
    const settled = run.catch(() => undefined);
    this.tails.set(key, settled);
    void settled.then(() => {
      if (this.tails.get(key) === settled) this.tails.delete(key);
    });
    return run;
  }

  /** Keys with a task running or waiting (kept bounded: a key goes once its last task settled). */
  get size(): number {
    return this.tails.size;
  }
}
