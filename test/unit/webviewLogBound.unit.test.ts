// The panel left open: the messages it shows stay within the host's visible log, in the real webview bundle (Chromium,
// test/support/webviewPage.ts). Pruned from the log, the oldest leave the page too, in whole groups, while the view
// follows the newest; never while the user reads back.
import * as assert from 'node:assert/strict';
import type { ChatMessage, HostMessage, Snapshot } from '../../src/shared/protocol';
import { LOG_KEEP } from '../../src/core/store/bounds';
import { PANEL_KEEP } from '../../webview/messageOrder';
import { openWebviewPage, useWebviewBrowser, waitInPage, type WebviewPage } from '../support/webviewPage';

const STATE = { busy: false, model: 'gpt-4.1', routingAuto: true };

function message(i: number): ChatMessage {
  return i % 2 === 0
    ? { id: `m${i}`, role: 'user', content: `Question ${i}`, status: 'complete', ts: Date.now() }
    : { id: `m${i}`, role: 'assistant', content: `Answer ${i}.\n\n- it reads the request\n- it answers`, status: 'complete', ts: Date.now() };
}

describe('webview: the messages an open panel keeps (Chromium)', function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();
  let seq = 1;

  async function open(): Promise<WebviewPage> {
    seq = 1;
    const snapshot: Snapshot = { messages: [], workers: [], permissions: [], state: STATE } as unknown as Snapshot;
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      viewport: { width: 420, height: 600 },
      replyToReady: [{ type: 'snapshot', seq: seq++, snapshot }],
    });
    await wp.page.waitForSelector('[data-testid="composer"]');
    return wp;
  }

  async function append(wp: WebviewPage, from: number, to: number): Promise<void> {
    const batch: HostMessage[] = [];
    for (let i = from; i < to; i++) batch.push({ type: 'message/append', seq: seq++, message: message(i) });
    await wp.push(...batch);
    await wp.page.evaluate(`new Promise(function (r) { requestAnimationFrame(function () { requestAnimationFrame(r); }); })`);
  }

  /** The ids of the messages in the page, oldest first. */
  const shown = (wp: WebviewPage): Promise<string[]> =>
    wp.page.locator('[data-testid="message"]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.id!));

  it('keeps what the host keeps', () => {
    assert.equal(PANEL_KEEP, LOG_KEEP);
  });

  it('lets the oldest go as new ones come while the view follows the newest, and keeps them while the user reads back', async () => {
    const wp = await open();
    try {
      // A turn at a time: a message and its answer, then a frame or two before the next (they come seconds apart).
      for (let i = 0; i < 300; i += 2) await append(wp, i, i + 2);
      await waitInPage(wp.page, `document.querySelector('[data-id="m299"]') !== null`);
      let ids = await shown(wp);
      assert.ok(ids.length >= PANEL_KEEP && ids.length < PANEL_KEEP + 50, `${ids.length} messages in the page`);
      assert.equal(ids.at(-1), 'm299');
      assert.equal(ids[0], `m${300 - ids.length}`, 'the newest, with nothing missing in between');
      assert.equal(new Set(ids).size, ids.length);

      // Scrolled up to read an older message: nothing leaves under the reader.
      const reading = ids[5]!;
      await wp.page.evaluate(`document.querySelector('[data-id="${reading}"]').scrollIntoView({ block: 'start' })`);
      await wp.page.mouse.move(200, 200);
      await wp.page.mouse.wheel(0, -10);
      await waitInPage(wp.page, `document.querySelector('[data-testid="jump-newest"]') && !document.querySelector('[data-testid="jump-newest"]').hidden`);
      const before = ids.length;
      for (let i = 300; i < 360; i += 2) await append(wp, i, i + 2);
      ids = await shown(wp);
      assert.equal(ids.length, before + 60, 'all kept while the user reads back');
      assert.ok(ids.includes(reading));

      // Back at the newest: the next message brings the page back within the bound, the focus not lost.
      await wp.page.locator('[data-testid="jump-newest"]').click();
      // The focus left on the oldest message (a button of it), which is about to go: it goes to the conversation.
      await wp.page.evaluate(`(function (m) { m.tabIndex = -1; m.focus({ preventScroll: true }); })(document.querySelector('[data-id="${ids[0]}"]'))`);
      await append(wp, 360, 361);
      ids = await shown(wp);
      assert.ok(ids.length >= PANEL_KEEP && ids.length < PANEL_KEEP + 50, `${ids.length} messages in the page`);
      assert.deepEqual([ids[0], ids.at(-1)], [`m${361 - ids.length}`, 'm360']);
      assert.equal(await wp.page.evaluate(`document.activeElement.dataset.testid`), 'messages', 'the focus went to the conversation');
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });
});
