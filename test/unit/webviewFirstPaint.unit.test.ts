// Opening the panel on a long history, in the real webview bundle (Chromium, test/support/webviewPage.ts): what the
// first paint shows is the newest messages, rendered, with their times (written just after that paint, see
// timeText.ts) and their token counts; then every message comes, once each, in the history's order.
import * as assert from 'node:assert/strict';
import type { ChatMessage, Snapshot } from '../../src/shared/protocol';
import { countText } from '../../src/shared/countText';
import { longHistory } from '../support/historyFixture';
import { openWebviewPage, useWebviewBrowser, waitInPage } from '../support/webviewPage';

function history(count: number): ChatMessage[] {
  return longHistory(count, { userEvery: 2, withUsage: true });
}

describe('webview: opening on a long history (Chromium)', function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();

  it('the first paint shows the newest messages rendered, with their times and token counts; then all 1,000, once each, in order', async () => {
    const snapshot: Snapshot = { messages: history(1000), workers: [], permissions: [], state: { busy: false, model: 'gpt-4.1', routingAuto: true } };
    const wp = await openWebviewPage(chromium.browser(), { build: chromium.build(), replyToReady: [{ type: 'snapshot', seq: 1, snapshot }] });
    try {
      await waitInPage(wp.page, 'window.__batonHost.firstPaintAt !== undefined');
      // Just after the first paint (the page's stub notes the first frame after the first message appeared): the times
      // are written in the first idle time after it.
      await wp.page.evaluate('new Promise(function (r) { requestIdleCallback(function () { r(); }); })');
      const first = (await wp.page.evaluate(`Array.from(document.querySelectorAll('[data-rendered]')).map(function (el) {
        var t = el.querySelector('time');
        var d = new Date(t.getAttribute('datetime'));
        return {
          id: el.dataset.id,
          time: t.textContent,
          title: t.title,
          // The time alone today; an earlier day's carries the day (and another year's the year): webviewTimes tests each.
          expectedTime: new Intl.DateTimeFormat(
            undefined,
            d.toDateString() === new Date().toDateString()
              ? { hour: '2-digit', minute: '2-digit' }
              : d.getFullYear() === new Date().getFullYear()
                ? { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }
                : { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' },
          ).format(d),
          expectedTitle: new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(d),
          usage: (el.querySelector('[data-testid="usage"]') || {}).textContent || '',
        };
      })`)) as Array<{ id: string; time: string; title: string; expectedTime: string; expectedTitle: string; usage: string }>;
      assert.ok(first.length >= 1, 'something is rendered at the first paint');
      assert.equal(first[first.length - 1]!.id, 'm999', 'the newest message is rendered at the first paint');
      for (const m of first) {
        assert.equal(m.time, m.expectedTime, `${m.id}: its time`);
        assert.equal(m.title, m.expectedTitle, `${m.id}: its full date in the tooltip`);
        const n = Number(m.id.slice(1));
        if (n % 2) assert.equal(m.usage, `${countText(1000 + n)} in / ${countText(300 + n)} out tokens`);
      }
      assert.equal(first.find((m) => m.id === 'm999')!.usage, '1,999 in / 1,299 out tokens');

      // The older ones follow, a chunk per frame, above the newest: each once, in the history's order.
      await waitInPage(wp.page, `document.querySelectorAll('[data-testid="message"]').length >= 1000`);
      const ids = (await wp.page.evaluate(
        `Array.from(document.querySelectorAll('[data-testid="message"]')).map(function (el) { return el.dataset.id; })`,
      )) as string[];
      assert.deepEqual(
        ids,
        snapshot.messages.map((m) => m.id),
      );
      assert.deepEqual(wp.errors, []);
      assert.deepEqual(await wp.cspViolations(), []);
    } finally {
      await wp.close();
    }
  });
});

describe('countText', () => {
  it('groups thousands as en-US does, for any integer; other numbers as JavaScript writes them', () => {
    const en = new Intl.NumberFormat('en-US');
    for (const n of [0, 7, 42, 999, 1000, 1001, 12_345, 999_999, 1_000_000, 123_456_789, -5, -1234, -1_000_000, Number.MAX_SAFE_INTEGER])
      assert.equal(countText(n), en.format(n), String(n));
    assert.equal(countText(1.5), '1.5');
    assert.equal(countText(Number.NaN), 'NaN');
  });
});
