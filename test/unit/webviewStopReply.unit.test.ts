// The Stop button names the reply the panel shows streaming (chat/stop's `id`), so the host stops that reply only
// while it still runs: a double click with a message queued stopped the queued message's answer too (host side:
// stopDoubleClick.unit.test.ts). With no reply streaming (the message waits for its session), Stop names none. In the
// real webview bundle (Chromium, test/support/webviewPage.ts).
import * as assert from 'node:assert/strict';
import type { ChatMessage, Snapshot } from '../../src/shared/protocol';
import { openWebviewPage, useWebviewBrowser, waitInPage } from '../support/webviewPage';

const BUSY = { busy: true, queued: 1, model: 'gpt-4.1', routingAuto: true };
const now = Date.now();
const MESSAGES: ChatMessage[] = [
  { id: 'log-1', role: 'user', content: 'long question', status: 'complete', ts: now },
  { id: 'turn-t1-1', role: 'assistant', content: 'Working on', status: 'streaming', ts: now },
  { id: 'log-2', role: 'user', content: 'second question', status: 'pending', ts: now },
];
const SNAPSHOT: Snapshot = { conversation: 'c1', messages: MESSAGES, workers: [], permissions: [], state: BUSY };

describe('webview: Stop names the reply it stops (Chromium)', function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();

  it('posts the streaming reply’s id; after it ended, the next streaming one’s; none while nothing streams', async () => {
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      viewport: { width: 420, height: 700 },
      replyToReady: [{ type: 'snapshot', seq: 1, snapshot: SNAPSHOT }],
    });
    try {
      const stop = wp.page.locator('[data-testid="stop"]');
      await stop.waitFor({ state: 'visible' });
      await stop.click();
      // The host stopped it and the queued message's turn started: its reply is the one streaming now.
      await wp.push(
        { type: 'message/update', seq: 2, id: 'turn-t1-1', patch: { status: 'cancelled' } },
        { type: 'message/update', seq: 3, id: 'log-2', patch: { status: 'complete' } },
        { type: 'message/append', seq: 4, message: { id: 'turn-t2-2', role: 'assistant', content: 'Next', status: 'streaming', ts: now } },
        { type: 'state', seq: 5, state: { ...BUSY, queued: 0 } },
      );
      await waitInPage(wp.page, `document.querySelector('[data-id="turn-t2-2"]')?.dataset.status === 'streaming'`);
      await stop.click();
      // A message waiting for its session: Stop shows, no reply streams yet.
      await wp.push(
        { type: 'message/update', seq: 6, id: 'turn-t2-2', patch: { status: 'cancelled' } },
        { type: 'message/append', seq: 7, message: { id: 'log-3', role: 'user', content: 'third', status: 'pending', ts: now } },
      );
      await waitInPage(wp.page, `document.querySelector('[data-id="turn-t2-2"]')?.dataset.status === 'cancelled'`);
      await stop.click();
      assert.deepEqual(
        (await wp.posted()).filter((m) => m.type === 'chat/stop'),
        [{ type: 'chat/stop', id: 'turn-t1-1' }, { type: 'chat/stop', id: 'turn-t2-2' }, { type: 'chat/stop' }],
      );
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });
});
