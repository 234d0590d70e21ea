// The runtime's idle restart, in the real webview bundle (Chromium, test/support/webviewPage.ts): the header says
// "Restarting Copilot…" while it lasts, in a 300 px side bar beside the model name, and a message typed meanwhile is
// sent once and shown as the user's, to be answered after the restart (the core side: runtimeRecycler.unit.test.ts and
// the runtimeRestart integration test).
import * as assert from 'node:assert/strict';
import type { PanelState } from '../../src/shared/protocol';
import { openWebviewPage, useWebviewBrowser, waitInPage, type WebviewPage } from '../support/webviewPage';

const IDLE: PanelState = { busy: false, model: 'claude-sonnet-4.5', routingAuto: false };

async function header(wp: WebviewPage): Promise<{ status: string; visible: boolean; role: string | null; model: string; fits: boolean }> {
  return (await wp.page.evaluate(`(function () {
    var status = document.querySelector('[data-testid="header-status"]');
    var model = document.querySelector('[data-testid="model"]');
    var header = document.querySelector('.header');
    var r = status.getBoundingClientRect();
    return { status: status.textContent, visible: r.width > 0 && r.height > 0, role: status.getAttribute('role'), model: model.textContent,
      fits: header.scrollWidth <= header.clientWidth && r.right <= header.getBoundingClientRect().right };
  })()`)) as { status: string; visible: boolean; role: string | null; model: string; fits: boolean };
}

describe('webview: the runtime restart in the header (Chromium)', function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();

  it('says "Restarting Copilot…" while it lasts, accepts a message meanwhile once, and clears when it ends', async () => {
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      viewport: { width: 300, height: 600 },
      replyToReady: [{ type: 'snapshot', seq: 1, snapshot: { messages: [], workers: [], permissions: [], state: IDLE } }],
    });
    try {
      await wp.page.waitForSelector('[data-testid="model"]');
      assert.deepEqual(await header(wp), { status: '', visible: false, role: 'status', model: 'claude-sonnet-4.5', fits: true });

      // The host holds the queues (busy) and then says the runtime restarts.
      await wp.push({ type: 'state', seq: 2, state: { ...IDLE, busy: true, runtimeRestarting: true } });
      await waitInPage(wp.page, `document.body.dataset.runtime === 'restarting'`);
      assert.deepEqual(await header(wp), { status: 'Restarting Copilot\u2026', visible: true, role: 'status', model: 'claude-sonnet-4.5', fits: true });

      // Typed meanwhile: sent once, and the composer is ready for the next one.
      await wp.page.fill('textarea', 'are you there?');
      await wp.page.keyboard.press('Enter');
      await waitInPage(wp.page, `window.__batonHost.posted.some(function (m) { return m.type === 'chat/send'; })`);
      assert.deepEqual(
        (await wp.posted()).filter((m) => m.type === 'chat/send'),
        [{ type: 'chat/send', text: 'are you there?' }],
      );
      assert.equal(await wp.page.inputValue('textarea'), '');
      await wp.push({
        type: 'message/append',
        seq: 3,
        message: { id: 'u1', role: 'user', content: 'are you there?', status: 'complete', ts: Date.now() },
      });
      await wp.page.waitForSelector('[data-testid="message"][data-id="u1"]');

      // The restart ends; the held message now runs, an ordinary busy turn.
      await wp.push({ type: 'state', seq: 4, state: { ...IDLE, busy: true } });
      await waitInPage(wp.page, `document.body.dataset.runtime === 'ready'`);
      assert.deepEqual(await header(wp), { status: '', visible: false, role: 'status', model: 'claude-sonnet-4.5', fits: true });
      await wp.push({
        type: 'message/append',
        seq: 5,
        message: { id: 'a1', role: 'assistant', content: 'Yes, here.', status: 'complete', ts: Date.now() },
      });
      await wp.push({ type: 'state', seq: 6, state: IDLE });
      await wp.page.waitForSelector('[data-testid="message"][data-id="a1"]');
      assert.equal(await wp.page.locator('[data-testid="message"]').count(), 2, 'the question once and its answer once');
      assert.equal((await wp.posted()).filter((m) => m.type === 'chat/send').length, 1);
      assert.deepEqual(wp.errors, []);
      assert.deepEqual(await wp.cspViolations(), []);
    } finally {
      await wp.close();
    }
  });
});
