// The model button's tooltip in the real webview bundle (Chromium, test/support/webviewPage.ts): today's usage reads as a
// line of its own ("No usage today", "Today: …"), where it read "Usage no usage today".
import * as assert from 'node:assert/strict';
import type { PanelState } from '../../src/shared/protocol';
import { openWebviewPage, useWebviewBrowser, waitInPage } from '../support/webviewPage';

const STATE: PanelState = { busy: false, model: 'claude-sonnet-4.5', routingAuto: false, usageToday: 'no usage today' };

describe("webview: the header's usage tooltip (Chromium)", function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();

  it('says "No usage today", and today\'s figures as a sentence', async () => {
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      viewport: { width: 300, height: 600 },
      replyToReady: [{ type: 'snapshot', seq: 1, snapshot: { messages: [], workers: [], permissions: [], state: STATE } }],
    });
    try {
      await wp.page.waitForSelector('[data-testid="model"]');
      const title = (): Promise<string> => wp.page.evaluate(`document.querySelector('[data-testid="model"]').title`) as Promise<string>;
      assert.equal(await title(), 'Model: claude-sonnet-4.5\nNo usage today\nClick to switch the model');
      const usageToday = 'today: 1k in / 10 out tokens · 3 premium requests · 1 request';
      await wp.push({ type: 'state', seq: 2, state: { ...STATE, usageToday } });
      await waitInPage(wp.page, `document.querySelector('[data-testid="model"]').title.includes('Today:')`);
      assert.equal(await title(), `Model: claude-sonnet-4.5\nToday: 1k in / 10 out tokens · 3 premium requests · 1 request\nClick to switch the model`);
    } finally {
      await wp.close();
    }
  });
});
