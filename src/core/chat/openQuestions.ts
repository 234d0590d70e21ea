// Questions to the user still open (permission prompts, confirms), by the conversation they are for: a turn that ends
// while one of its conversation's questions waits has ended awaiting the user's input (turn.awaiting-input), and any
// open question keeps Baton from being idle (no idle restart, no health check while the user decides).
import type { PermissionBroker } from '../workers/workerPermissions';

/** Where a question for no known conversation is counted: every conversation's turn then awaits it. */
const UNKNOWN = '';

export class OpenQuestions {
  private readonly open = new Map<string, number>();

  /** `broker` with each question counted while it is open; `settled` runs when one closes. */
  track(broker: PermissionBroker, settled: () => void): PermissionBroker {
    return {
      ask: async (prompt, signal) => {
        const key = prompt.conversation ?? UNKNOWN;
        this.add(key, 1);
        try {
          return await broker.ask(prompt, signal);
        } finally {
          this.add(key, -1);
          settled();
        }
      },
    };
  }

  /** Questions open for `conversation` (and those for no known one). */
  for(conversation: string): number {
    return (this.open.get(conversation) ?? 0) + (conversation === UNKNOWN ? 0 : (this.open.get(UNKNOWN) ?? 0));
  }

  get none(): boolean {
    return this.open.size === 0;
  }

  private add(key: string, by: number): void {
    const n = (this.open.get(key) ?? 0) + by;
    if (n > 0) this.open.set(key, n);
    else this.open.delete(key);
  }
}
