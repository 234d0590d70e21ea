// Root hooks for the integration run (scripts/test.mjs requires this file): the run fails when a test leaves a
// scripted server listening, a temp folder on disk or a Copilot runtime running (see leaks.ts).
import type { Context } from 'mocha';
import { leftovers, setCurrentTest } from './leaks';

const SETTLE_MS = 3000;

export const mochaHooks = {
  beforeEach(this: Context): void {
    setCurrentTest(this.currentTest?.fullTitle() ?? '(unknown test)');
  },
  async afterAll(this: Context): Promise<void> {
    this.timeout(SETTLE_MS + 2000);
    // A runtime that was told to stop may take a moment to exit.
    let left = leftovers();
    for (const until = Date.now() + SETTLE_MS; left.length && Date.now() < until; left = leftovers()) await new Promise((r) => setTimeout(r, 100));
    if (left.length) throw new Error(`The integration tests left ${left.length} thing(s) behind:\n  ${left.join('\n  ')}`);
  },
};
