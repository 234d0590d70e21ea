// What was typed just before the view went away is kept: VS Code destroys a hidden webview, and the panel saved its
// state a quarter second after the last keystroke, so a draft typed then switching views at once was lost. In the
// real webview bundle (Chromium, test/support/webviewPage.ts).
import * as assert from 'node:assert/strict';
import type { Snapshot } from '../../src/shared/protocol';
import type { UiState } from '../../webview/vscodeApi';
import { openWebviewPage, useWebviewBrowser } from '../support/webviewPage';

const SNAPSHOT: Snapshot = {
  conversation: 'c1',
  messages: [{ id: 'log-1', role: 'user', content: 'hello', status: 'complete', ts: Date.now() }],
  workers: [],
  permissions: [],
  state: { busy: false, model: 'gpt-4.1', routingAuto: true },
};

describe('webview: the state is saved as the view goes away (Chromium)', function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();

  it('a draft typed a moment before the view is hidden is in the saved state at once', async () => {
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      viewport: { width: 420, height: 700 },
      replyToReady: [{ type: 'snapshot', seq: 1, snapshot: SNAPSHOT }],
    });
    try {
      await wp.page.locator('[data-id="log-1"]').waitFor();
      await wp.page.locator('[data-testid="composer"]').fill('a thought to keep');
      // The view goes away (hidden, then its page unloaded): the save due in 250 ms is made now.
      const saved = (await wp.page.evaluate("window.dispatchEvent(new PageTransitionEvent('pagehide')), window.__batonHost.state")) as UiState | undefined;
      assert.equal(saved?.draft, 'a thought to keep');
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });
});
