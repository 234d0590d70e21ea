// An afterEach's end-of-test check fails the test it checked, not the hook. A failing afterEach is a hook failure, and
// mocha then skips every test left in that describe, so a run would stop reporting at the first test that left
// something unscripted. Mocha's runner reads `hook.error()` after each hook and fails the current test with it.
import type { Context, Hook } from 'mocha';

/**
 * Runs `check` (an assertion) and, when it throws, marks the test that just ran failed with its error (once the hook
 * returns; until then the test still reads as passed). Returns whether the check passed.
 */
export function checkAfterTest(ctx: Context, check: () => void): boolean {
  try {
    check();
    return true;
  } catch (err) {
    (ctx.test as Hook).error(err);
    return false;
  }
}
