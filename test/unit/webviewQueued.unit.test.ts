// A message of yours waiting behind the answer running now, in the real webview bundle (Chromium,
// test/support/webviewPage.ts): it says "Queued" and offers Remove (by pointer and by keyboard), which posts
// chat/withdraw with its id; once its turn starts (or the host's snapshot drops it) the offer goes, and a message
// taken out comes back into the composer with its references.
import * as assert from 'node:assert/strict';
import type { ChatMessage, Snapshot } from '../../src/shared/protocol';
import { axeSerious } from '../support/axeInPage';
import { openWebviewPage, useWebviewBrowser, waitInPage } from '../support/webviewPage';

const BUSY = { busy: true, queued: 2, model: 'gpt-4.1', routingAuto: true };
const now = Date.now();
const MESSAGES: ChatMessage[] = [
  { id: 'log-1', role: 'user', content: 'long question', status: 'complete', ts: now },
  { id: 'turn-t1', role: 'assistant', content: 'Working on', status: 'streaming', ts: now },
  { id: 'log-2', role: 'user', content: 'second question', status: 'pending', ts: now },
  { id: 'log-3', role: 'user', content: 'third question', status: 'pending', ts: now },
  // Sent from this window to the one that runs the conversation: queued there (Remove cancels it there).
  { id: 'log-4', role: 'user', content: 'fourth question', status: 'pending', queuedElsewhere: true, ts: now },
];
const SNAPSHOT: Snapshot = { conversation: 'c1', messages: MESSAGES, workers: [], permissions: [], state: BUSY };

describe('webview: a queued message (Chromium)', function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();

  it('says Queued and offers Remove, by pointer and by keyboard; the offer goes when its turn starts', async () => {
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      viewport: { width: 420, height: 700 },
      replyToReady: [{ type: 'snapshot', seq: 1, snapshot: SNAPSHOT }],
    });
    try {
      await wp.page.locator('[data-id="log-4"]').waitFor();
      const removes = wp.page.locator('[data-testid="message-withdraw"]');
      assert.equal(await removes.count(), 3, 'on every queued message, the one queued in the window that runs the conversation too');
      assert.equal(await wp.page.locator('[data-id="log-4"] [data-testid="message-status"]').innerText(), 'Queued');
      assert.equal(await wp.page.locator('[data-id="log-2"] [data-testid="message-status"]').innerText(), 'Queued');
      // Shown without hovering (it waits a moment only) and not hidden while Baton answers, as Edit and Retry are.
      const remove2 = wp.page.locator('[data-id="log-2"] [data-testid="message-withdraw"]');
      assert.equal(await remove2.evaluate((el) => getComputedStyle(el).opacity), '1');
      assert.equal(await remove2.evaluate((el) => getComputedStyle(el).visibility), 'visible');
      assert.equal(await wp.page.locator('[data-id="log-2"] [data-testid="message-edit"]').count(), 0, 'no Edit while queued');
      assert.deepEqual(await axeSerious(wp), [], 'no serious accessibility finding');
      // Stop says what follows the answer it stops: the messages queued here.
      const stop = wp.page.locator('[data-testid="stop"]');
      assert.equal(await stop.getAttribute('aria-label'), 'Stop the answer (the 2 queued messages are sent next)');
      assert.equal(await stop.getAttribute('title'), 'Stop the answer (the 2 queued messages are sent next)');

      await remove2.click();
      // By keyboard: the log, End to the newest message, Up to the one before, Tab into it, Enter.
      await wp.page.locator('[data-testid="messages"]').focus();
      await wp.page.keyboard.press('End');
      await wp.page.keyboard.press('ArrowUp');
      await wp.page.keyboard.press('Tab');
      assert.equal(await wp.page.evaluate('document.activeElement.dataset.testid'), 'message-withdraw');
      await wp.page.keyboard.press('Enter');
      assert.deepEqual(
        (await wp.posted()).filter((m) => m.type === 'chat/withdraw'),
        [
          { type: 'chat/withdraw', id: 'log-2' },
          { type: 'chat/withdraw', id: 'log-3' },
        ],
      );

      // The host took log-2 out (its snapshot drops it) and gives its text and reference back: into the empty composer,
      // which gets the focus (the button it was on is gone). log-3's turn started before its removal arrived.
      const composer = wp.page.locator('[data-testid="composer"]');
      const chip = { key: 'file:/w/notes.md', ref: { kind: 'file' as const, path: '/w/notes.md' }, label: 'notes.md', detail: 'notes.md' };
      await wp.push(
        { type: 'snapshot', seq: 2, snapshot: { ...SNAPSHOT, messages: [MESSAGES[0]!, MESSAGES[1]!, MESSAGES[3]!, MESSAGES[4]!] } },
        { type: 'chat/withdrawn', seq: 3, id: 'log-2', text: 'second question', chips: [chip] },
      );
      await waitInPage(wp.page, `!document.querySelector('[data-id="log-2"]')`);
      assert.equal(await composer.inputValue(), 'second question');
      assert.match(await wp.page.locator('[data-testid="context-bar"]').innerText(), /notes\.md/);
      assert.equal(await wp.page.evaluate('document.activeElement.dataset.testid'), 'composer');
      await waitInPage(wp.page, `document.querySelector('[data-testid="announcer"]').textContent.includes('its text is back in the message box')`);
      // Something being written is never replaced, and the removed text is not lost either: it goes after it.
      await composer.fill('a new thought');
      await wp.push({ type: 'chat/withdrawn', seq: 4, id: 'log-9', text: 'older text', chips: [] });
      assert.equal(await composer.inputValue(), 'a new thought\n\nolder text');
      await waitInPage(wp.page, `document.querySelector('[data-testid="announcer"]').textContent.includes('its text is added to the message box')`);
      await wp.push({ type: 'state', seq: 5, state: { ...BUSY, queued: 1 } });
      await waitInPage(wp.page, `document.querySelector('[data-testid="stop"]').title === 'Stop the answer (the queued message is sent next)'`);
      await wp.push({ type: 'message/update', seq: 6, id: 'log-3', patch: { status: 'complete' } }, { type: 'state', seq: 7, state: { ...BUSY, queued: 0 } });
      await waitInPage(wp.page, `!document.querySelector('[data-id="log-3"] [data-testid="message-withdraw"]')`);
      assert.equal(await wp.page.locator('[data-id="log-3"] [data-testid="message-status"]').count(), 0, 'no longer Queued');
      assert.equal(await stop.getAttribute('aria-label'), 'Stop the answer');
      assert.equal(await stop.getAttribute('title'), 'Stop');
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });
});
