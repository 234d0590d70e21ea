// A message Search Conversations… picked, in the real webview bundle (Chromium, test/support/webviewPage.ts): the
// snapshot that carries it brings it into view, focused and marked, however far back it is; the panel then does not
// pull the view down to the newest message, and ↓ Newest is offered.
import * as assert from 'node:assert/strict';
import type { ChatMessage, Snapshot } from '../../src/shared/protocol';
import { openWebviewPage, useWebviewBrowser, waitInPage } from '../support/webviewPage';

function conversation(count: number): ChatMessage[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `log-${i}`,
    role: i % 2 ? ('assistant' as const) : ('user' as const),
    content: i % 2 ? `Answer ${i}.\n\n- first point\n- second point` : `Question ${i}`,
    status: 'complete' as const,
    ts: Date.now(),
  }));
}

const STATE = { busy: false, model: 'gpt-4.1', routingAuto: true };

describe('webview: a message revealed by search (Chromium)', function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();

  it('an old message is brought into view, focused and marked; the view stays there', async () => {
    const messages = conversation(200);
    const snapshot: Snapshot = { messages, workers: [], permissions: [], state: STATE, reveal: 'log-7' };
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      viewport: { width: 420, height: 600 },
      replyToReady: [{ type: 'snapshot', seq: 1, snapshot }],
    });
    try {
      await waitInPage(wp.page, `document.activeElement && document.activeElement.dataset.id === 'log-7'`);
      const target = wp.page.locator('[data-id="log-7"]');
      assert.equal(await target.getAttribute('class'), 'message revealed');
      assert.match(await target.innerText(), /Answer 7\./, 'rendered, not a placeholder');
      // In view, and still there a few frames later (nothing pulls the view back to the newest message).
      const inView = async (): Promise<boolean> =>
        (await wp.page.evaluate(
          `(function (m, s) { var a = m.getBoundingClientRect(), b = s.getBoundingClientRect(); return a.top >= b.top - 1 && a.top < b.bottom; })(document.querySelector('[data-id="log-7"]'), document.querySelector('.scroller'))`,
        )) as boolean;
      assert.ok(await inView(), 'the message is on screen');
      await wp.page.evaluate(`new Promise(function (r) { var k = 10; (function f() { if (k-- <= 0) r(); else requestAnimationFrame(f); })(); })`);
      assert.ok(await inView(), 'and stays there');
      assert.ok(await wp.page.locator('[data-testid="jump-newest"]').isVisible(), '↓ Newest is offered');
      await wp.page.locator('[data-id="log-7"].revealed').waitFor({ state: 'detached', timeout: 5_000 });
      // A snapshot without it (a later one) leaves the view alone.
      await wp.push({ type: 'snapshot', seq: 2, snapshot: { ...snapshot, reveal: undefined } });
      await wp.page.evaluate(`new Promise(function (r) { requestAnimationFrame(function () { requestAnimationFrame(r); }); })`);
      assert.equal(await wp.page.locator('.message.revealed').count(), 0);
      // An id the panel does not have changes nothing and throws nothing.
      await wp.push({ type: 'snapshot', seq: 3, snapshot: { ...snapshot, reveal: 'log-999' } });
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });
});
