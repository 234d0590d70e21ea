// The mocha root hooks the two Playwright suites (ui, ai) share around their one window. Each test that passes ends by
// checking that the scripted model server got exactly what was scripted since the test began; a failed test marks the
// window failed (so its logs are kept) and leaves a screenshot; at the end the window, the server and the scratch
// folder go.
import { rm } from 'node:fs/promises';
import type { Context, Test } from 'mocha';
import type { Page } from 'playwright-core';
import type { ScriptedModelServer } from '../support/scriptedModelServer';
import type { CodeServer } from './codeServer';
import { checkAfterTest } from '../support/checkAfterTest';
import { saveFailureScreenshot } from './failureScreenshot';

export interface SuiteWindow {
  readonly server: ScriptedModelServer;
  readonly vscode: CodeServer;
  readonly page: Page;
}

export interface SuiteHooksOptions {
  /** The suite's window once it started; undefined before. */
  window(): SuiteWindow | undefined;
  /** Forgets the window, at the end, before it is stopped (tests after that get a clear error). */
  forget(): void;
  /** The suite's scratch folder, removed at the end. */
  root(): string | undefined;
  resultsDir: string;
  screenshotPrefix: string;
  /** What else a failed test should print before its screenshot (the workbench console's errors, say). */
  onFailed?(test: Test): void;
}

export interface SuiteHooks {
  beforeEach(): void;
  afterEach(this: Context): Promise<void>;
  afterAll(this: Context): Promise<void>;
}

export function suiteHooks(o: SuiteHooksOptions): SuiteHooks {
  // The server's mark when the running test began: a test may reset the server, the mark stays valid.
  let testStart = 0;
  return {
    beforeEach(): void {
      testStart = o.window()?.server.mark() ?? 0;
    },

    async afterEach(this: Context): Promise<void> {
      const test = this.currentTest;
      const window = o.window();
      if (!window || !test) return;
      // A failed check fails this test (not the hook), so the rest of the suite still runs.
      const checked = test.state !== 'passed' || checkAfterTest(this, () => window.server.assertScriptDone(testStart));
      if (test.state !== 'failed' && checked) return;
      window.vscode.markFailed();
      o.onFailed?.(test);
      await saveFailureScreenshot(window.page, test, o.resultsDir, o.screenshotPrefix);
    },

    async afterAll(this: Context): Promise<void> {
      this.timeout(30_000);
      const window = o.window();
      o.forget();
      await window?.vscode.stop();
      await window?.server.close();
      const root = o.root();
      if (root) await rm(root, { recursive: true, force: true }).catch(() => undefined);
    },
  };
}

/** A window that failed to start: its code-server (if it got that far) is stopped keeping its logs, its server closed. */
export async function abandonStart(server: ScriptedModelServer, vscode: CodeServer | undefined): Promise<void> {
  vscode?.markFailed();
  await vscode?.stop();
  await server.close();
}
