// The integration tests' afterEach, once: a test that passed ends by checking the scripted model server got exactly
// what was scripted; whatever happened, the core is disposed (its runtime, scripted server and temp folders with it;
// test/support/leakCheck.ts fails the run on anything left behind).
import { checkAfterTest } from './checkAfterTest';
import type { CoreFixture } from './orchestratorFixture';

export interface AfterEachCoreOptions {
  /** Before the check, in a passed test: wait for what it left running to settle (background turns, say). */
  settle?: () => Promise<unknown>;
  /** Before the core is disposed, whatever happened: what the test built on it (an API, extra clients). */
  beforeDispose?: () => Promise<unknown> | void;
  /** After the core is disposed: what the test started beside it (its own servers). */
  afterDispose?: () => Promise<unknown>;
}

/** `core`: read at the end of each test (the fixture is rebuilt in each beforeEach). */
export function afterEachCore(core: () => CoreFixture, options: AfterEachCoreOptions = {}): void {
  afterEach(async function () {
    try {
      if (this.currentTest?.state === 'passed') {
        await options.settle?.();
        checkAfterTest(this, () => core().assertScriptDone());
      }
    } finally {
      try {
        await options.beforeDispose?.();
      } finally {
        await core().dispose();
        await options.afterDispose?.();
      }
    }
  });
}
