// The folders the user answered "Allow in this folder" for: a worker Baton cannot isolate there changes the folder
// itself without a question, until the window closes (never stored: a new window asks again). Bounded: past
// MAX_FOLDER_APPROVALS the oldest is forgotten, and its next worker is asked again. While a question about a folder is
// open, the workers started there meanwhile wait for its answer rather than stacking questions of their own: "Allow in
// this folder" then covers them too, and after "Allow once" or Deny the next of them asks (one question at a time).

/** The most folders kept. */
export const MAX_FOLDER_APPROVALS = 50;

export class FolderApprovals {
  private readonly folders = new Set<string>();
  /** The question open about each folder (one at most; gone once answered or withdrawn). */
  private readonly open = new Map<string, Promise<unknown>>();

  has(folder: string): boolean {
    return this.folders.has(folder);
  }

  add(folder: string): void {
    this.folders.delete(folder);
    this.folders.add(folder);
    if (this.folders.size > MAX_FOLDER_APPROVALS) this.folders.delete(this.folders.values().next().value!);
  }

  /** The folders kept, the one approved longest ago first. */
  list(): string[] {
    return [...this.folders];
  }

  /** Forgets every folder: the next worker in each is asked again. */
  clear(): number {
    const n = this.folders.size;
    this.folders.clear();
    return n;
  }

  get size(): number {
    return this.folders.size;
  }

  /**
   * Asks about `folder` with `question` once no other question about it is open (or `signal` aborts), unless an answer
   * meanwhile allowed the folder: then `question` is never called and the result is 'earlier'. An answer `allows`
   * accepts keeps the folder before anyone waiting wakes, so they all see it.
   */
  async ask<T>(folder: string, signal: AbortSignal, question: () => Promise<T>, allows: (answer: T) => boolean): Promise<T | 'earlier'> {
    for (let other = this.open.get(folder); other && !signal.aborted; other = this.open.get(folder)) await settledOrAborted(other, signal);
    if (this.folders.has(folder)) return 'earlier';
    const asked = (async () => {
      try {
        const answer = await question();
        if (allows(answer)) this.add(folder);
        return answer;
      } finally {
        this.open.delete(folder);
      }
    })();
    this.open.set(folder, asked);
    return asked;
  }
}

function settledOrAborted(p: Promise<unknown>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    p.then(done, done);
  });
}
