// A message's time in the real webview bundle (Chromium): today's read as the time alone; an earlier day's carry the
// day, so a conversation reopened a week later does not read as this morning's; another year's carry the year.
import * as assert from 'node:assert/strict';
import type { ChatMessage } from '../../src/shared/protocol';
import { openWebviewPage, useWebviewBrowser, waitInPage } from '../support/webviewPage';

const DAY = 24 * 3600_000;

describe('webview: message times (Chromium)', function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();

  it('shows the time alone today, the day before it on an earlier day, and the year in another year', async () => {
    const now = Date.now();
    // Noon, so a run just after midnight or in any time zone keeps "today" and "a week ago" on their days.
    const noon = new Date(now);
    noon.setHours(12, 0, 0, 0);
    const stamps = { today: now, weekAgo: noon.getTime() - 7 * DAY, yearAgo: noon.getTime() - 400 * DAY };
    const messages: ChatMessage[] = Object.entries(stamps).map(([id, ts]) => ({ id, role: 'user', content: `sent ${id}`, status: 'complete', ts }));
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      replyToReady: [
        { type: 'snapshot', seq: 1, snapshot: { messages, workers: [], permissions: [], state: { busy: false, model: 'gpt-4.1', routingAuto: true } } },
      ],
    });
    try {
      await waitInPage(wp.page, `document.querySelectorAll('time.message-time').length === 3 && document.querySelector('time.message-time:empty') === null`);
      // What each reads, and the page's own words for the parts it must (or must not) contain.
      const seen = (await wp.page.evaluate(`(function (stamps) {
        function part(ts, o) { return new Intl.DateTimeFormat(undefined, o).format(new Date(ts)); }
        var out = {};
        Object.keys(stamps).forEach(function (id) {
          var ts = stamps[id];
          var el = document.querySelector('[data-id="' + id + '"] time.message-time');
          out[id] = { text: el.textContent, title: el.title, month: part(ts, { month: 'short' }), year: part(ts, { year: 'numeric' }), thisYear: new Date(ts).getFullYear() === new Date().getFullYear() };
        });
        return out;
      })(${JSON.stringify(stamps)})`)) as Record<string, { text: string; title: string; month: string; year: string; thisYear: boolean }>;

      assert.match(seen.today!.text, /^\d{1,2}:\d{2}( [AP]M)?$/, `today: ${seen.today!.text}`);
      assert.ok(seen.weekAgo!.text.includes(seen.weekAgo!.month), `a week ago names its month: ${seen.weekAgo!.text}`);
      assert.match(seen.weekAgo!.text, /\d{1,2}:\d{2}/, `and its time: ${seen.weekAgo!.text}`);
      assert.equal(seen.weekAgo!.text.includes(seen.weekAgo!.year), !seen.weekAgo!.thisYear, `the year only when it is not this one: ${seen.weekAgo!.text}`);
      assert.ok(seen.yearAgo!.text.includes(seen.yearAgo!.year) && seen.yearAgo!.text.includes(seen.yearAgo!.month), `last year: ${seen.yearAgo!.text}`);
      // The tooltip keeps the full date of each.
      for (const s of Object.values(seen)) assert.ok(s.title.includes(s.year), `tooltip: ${s.title}`);
    } finally {
      await wp.close();
    }
  });

  it('the conversation list says how long ago as of when it is opened, not as of when it was last sent', async () => {
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      replyToReady: [
        { type: 'snapshot', seq: 1, snapshot: { messages: [], workers: [], permissions: [], state: { busy: false, model: 'gpt-4.1', routingAuto: true } } },
      ],
    });
    try {
      const lastActivity = Date.now() - 30_000;
      await wp.push({
        type: 'conversations/update',
        seq: 2,
        active: 'a',
        conversations: [{ id: 'a', title: 'Older talk', lastActivity, messages: 4, busy: false, unread: false }],
      });
      const meta = wp.page.locator('[data-testid="conversation"] .conversation-meta');
      await wp.page.locator('[data-testid="conversations-toggle"]').click();
      assert.equal(await meta.innerText(), 'just now \u00b7 4 messages');
      await wp.page.locator('[data-testid="conversations-toggle"]').click();
      // A minute after its last activity (the page's clock moved on), with nothing sent since: opened again, it says so.
      await wp.page.clock.setSystemTime(lastActivity + 61_000);
      await wp.page.locator('[data-testid="conversations-toggle"]').click();
      // The rows are written again on the list's toggle event, which the browser dispatches a task after the click.
      const metaText = `document.querySelector('[data-testid="conversation"] .conversation-meta').innerText`;
      await waitInPage(wp.page, `${metaText} === '1 min ago \u00b7 4 messages'`, 5_000).catch(() => undefined);
      assert.equal(await meta.innerText(), '1 min ago \u00b7 4 messages');
    } finally {
      await wp.close();
    }
  });
});
