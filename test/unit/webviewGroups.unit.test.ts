// The message list mounts messages in groups of 25 (webview/messageList.ts), so that scrolling a long history checks
// about 40 groups against the viewport each frame instead of every message. In the real webview bundle (Chromium,
// test/support/webviewPage.ts): what a reader sees and reaches must not change: every message, in order, for the eye,
// the keyboard and assistive technology; the same borders and spacing where one group ends and the next begins;
// messages arriving and changing in any group.
import * as assert from 'node:assert/strict';
import { firstPage, type ChatMessage, type Snapshot } from '../../src/shared/protocol';
import { HISTORY_BASE_TS, longHistory } from '../support/historyFixture';
import { openWebviewPage, useWebviewBrowser, waitInPage, type WebviewPage } from '../support/webviewPage';

/** A user message every third one, so that group boundaries (25, 50, 75) fall after a user and between two replies. */
function history(count: number): ChatMessage[] {
  return longHistory(count, { userEvery: 3 });
}

function snapshotOf(messages: ChatMessage[]): Snapshot {
  return { messages, workers: [], permissions: [], state: { busy: false, model: 'gpt-4.1', routingAuto: true } };
}

const IDS = `Array.from(document.querySelectorAll('[data-testid="message"]')).map(function (el) { return el.dataset.id; })`;

/** Waits for the panel to hold `count` messages (the older ones are mounted a chunk per frame after the first paint). */
async function allThere(wp: WebviewPage, count: number): Promise<void> {
  await waitInPage(wp.page, `document.querySelectorAll('[data-testid="message"]').length >= ${count}`);
}

/** Whether message `id` is rendered and its box overlaps the scroller's. */
function shownExpr(id: string): string {
  return `(function () {
    var el = document.querySelector('[data-id="${id}"]'), s = document.querySelector('.scroller').getBoundingClientRect();
    var r = el.getBoundingClientRect();
    return el.hasAttribute('data-rendered') && r.bottom > s.top && r.top < s.bottom;
  })()`;
}

describe('webview: the message list in groups (Chromium)', function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();

  it('scrolled to the top a screen at a time, every message is there in order and each is rendered as it comes into view', async () => {
    const all = history(300);
    const wp = await openWebviewPage(chromium.browser(), { build: chromium.build(), replyToReady: [{ type: 'snapshot', seq: 1, snapshot: snapshotOf(all) }] });
    try {
      await allThere(wp, 300);
      assert.deepEqual(
        await wp.page.evaluate(IDS),
        all.map((m) => m.id),
      );
      // A step a frame, as the bench scrolls; after each, the messages on screen must all be rendered within a few
      // frames (they are rendered ahead of the viewport, a frame's budget at a time): those that are not are noted.
      const unrenderedOnScreen = (await wp.page.evaluate(`(async function () {
        var s = document.querySelector('.scroller'), missed = {};
        var frame = function () { return new Promise(function (r) { requestAnimationFrame(r); }); };
        var onScreen = function () {
          var box = s.getBoundingClientRect(), out = [];
          document.querySelectorAll('[data-testid="message"]:not([data-rendered])').forEach(function (el) {
            var r = el.getBoundingClientRect();
            if (r.bottom > box.top && r.top < box.bottom) out.push(el.dataset.id);
          });
          return out;
        };
        while (s.scrollTop > 0) {
          s.scrollTop = Math.max(0, s.scrollTop - 300);
          for (var n = 0; n < 30 && onScreen().length; n++) await frame();
          onScreen().forEach(function (id) { missed[id] = true; });
        }
        return Object.keys(missed);
      })()`)) as string[];
      assert.deepEqual(unrenderedOnScreen, []);
      assert.equal(await wp.page.evaluate(shownExpr('m0')), true, 'the oldest message is shown, rendered, at the top');
      assert.equal(
        await wp.page.evaluate(`document.querySelector('[data-id="m0"] .message-body').textContent.trim()`),
        'Question 0',
        'the oldest message reads as sent',
      );
      assert.deepEqual(wp.errors, []);
      assert.deepEqual(await wp.cspViolations(), []);
    } finally {
      await wp.close();
    }
  });

  it('the newest messages the first page showed stay shown in every frame while the whole history comes in', async () => {
    const full = snapshotOf(history(1000));
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      firstPage: { type: 'snapshot', seq: 1, snapshot: firstPage(full) },
      replyToReady: [{ type: 'snapshot', seq: 2, snapshot: full }],
      // From the first message's arrival, each frame notes whether the newest three are shown or skipped (blank).
      beforeLoad: async (page) => {
        await page.addInitScript(`(function () {
          window.__shown = [];
          new MutationObserver(function (_, observer) {
            if (!document.querySelector('[data-testid="message"]')) return;
            observer.disconnect();
            (function frame() { requestAnimationFrame(function () {
              var newest = Array.from(document.querySelectorAll('[data-testid="message"]')).slice(-3);
              window.__shown.push(newest.map(function (m) { return m.checkVisibility({ contentVisibilityAuto: true }) ? 'shown' : 'blank'; }).join(' '));
              if (window.__shown.length < 8) frame();
            }); })();
          }).observe(document, { childList: true, subtree: true });
        })()`);
      },
    });
    try {
      await waitInPage(wp.page, 'window.__shown.length >= 8');
      assert.deepEqual(await wp.page.evaluate('window.__shown'), Array(8).fill('shown shown shown'));
      await allThere(wp, 1000);
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });

  it('the accessibility tree lists every message in order, off-screen groups included', async () => {
    const all = history(120);
    const wp = await openWebviewPage(chromium.browser(), { build: chromium.build(), replyToReady: [{ type: 'snapshot', seq: 1, snapshot: snapshotOf(all) }] });
    try {
      await allThere(wp, 120);
      const tree = await wp.page.locator('[data-testid="messages"]').ariaSnapshot();
      // Each user question is a "You" article with its text, in the history's order (answers are "Baton"'s).
      const articles = tree.split('\n').filter((line) => /^\s*- article "You"/.test(line));
      assert.equal(articles.length, 40, tree.slice(0, 2000));
      let at = -1;
      for (let i = 0; i < 120; i += 3) {
        const next = tree.indexOf(`Question ${i}\n`, at + 1) >= 0 ? tree.indexOf(`Question ${i}\n`, at + 1) : tree.indexOf(`Question ${i}"`, at + 1);
        assert.ok(next > at, `Question ${i} comes after the one before it in the accessibility tree`);
        at = next;
      }
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });

  it('Home, End and the arrows reach every message across groups, each shown and focused', async () => {
    const all = history(120);
    const wp = await openWebviewPage(chromium.browser(), { build: chromium.build(), replyToReady: [{ type: 'snapshot', seq: 1, snapshot: snapshotOf(all) }] });
    try {
      await allThere(wp, 120);
      await wp.page.locator('[data-testid="messages"]').focus();
      const focused = async (): Promise<string> => (await wp.page.evaluate(`document.activeElement.dataset.id || ''`)) as string;
      await wp.page.keyboard.press('End');
      assert.equal(await focused(), 'm119');
      await wp.page.keyboard.press('Home');
      assert.equal(await focused(), 'm0');
      await waitInPage(wp.page, shownExpr('m0'));
      // Down through the first group's end and the second group's start, one message a press.
      for (let i = 1; i <= 30; i++) {
        await wp.page.keyboard.press('ArrowDown');
        assert.equal(await focused(), `m${i}`);
      }
      await waitInPage(wp.page, shownExpr('m30'));
      await wp.page.keyboard.press('End');
      for (let i = 118; i >= 70; i--) {
        await wp.page.keyboard.press('ArrowUp');
        assert.equal(await focused(), `m${i}`);
      }
      await waitInPage(wp.page, shownExpr('m70'));
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });

  it('where one group ends and the next begins, the border and spacing are those between any two messages', async () => {
    const all = history(100);
    const wp = await openWebviewPage(chromium.browser(), { build: chromium.build(), replyToReady: [{ type: 'snapshot', seq: 1, snapshot: snapshotOf(all) }] });
    try {
      await allThere(wp, 100);
      const look = async (id: string): Promise<{ border: string; gap: number }> => {
        await wp.page.evaluate(`document.querySelector('[data-id="${id}"]').scrollIntoView({ block: 'center' })`);
        await wp.page.evaluate('new Promise(function (r) { requestAnimationFrame(function () { requestAnimationFrame(r); }); })');
        return (await wp.page.evaluate(`(function () {
          var el = document.querySelector('[data-id="${id}"]');
          var all = Array.from(document.querySelectorAll('[data-testid="message"]')), prev = all[all.indexOf(el) - 1];
          var cs = getComputedStyle(el);
          return { border: cs.borderTopWidth + ' ' + cs.borderTopStyle + ' ' + cs.borderTopColor, gap: Math.round((el.getBoundingClientRect().top - prev.getBoundingClientRect().bottom) * 100) / 100 };
        })()`)) as { border: string; gap: number };
      };
      // m50: a reply after a reply, first of the third group; m47 the same inside a group. The border is the theme's.
      const across = await look('m50');
      assert.deepEqual(across, await look('m47'));
      assert.match(across.border, /^1px solid rgb\(49, 49, 49\)$/);
      // m25: a reply after a question, first of the second group (m22 inside one); m75: a question after a reply.
      assert.deepEqual(await look('m25'), await look('m22'));
      assert.deepEqual(await look('m75'), await look('m72'));
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });

  it('a message arriving after a full group starts the next one; a message changed in an older group shows the change', async () => {
    const all = history(50);
    const wp = await openWebviewPage(chromium.browser(), { build: chromium.build(), replyToReady: [{ type: 'snapshot', seq: 1, snapshot: snapshotOf(all) }] });
    try {
      await allThere(wp, 50);
      await wp.page.evaluate(
        `window.postMessage({ type: 'message/append', seq: 2, message: { id: 'm50', role: 'assistant', content: 'The newest reply', status: 'complete', ts: ${HISTORY_BASE_TS + 50 * 61_000} } }, '*')`,
      );
      // In view (the list follows the bottom) and rendered, after the others.
      await waitInPage(wp.page, shownExpr('m50'));
      assert.deepEqual(await wp.page.evaluate(IDS), [...all.map((m) => m.id), 'm50']);
      await wp.page.evaluate(`window.postMessage({ type: 'message/update', seq: 3, id: 'm4', patch: { content: 'Answer 4, corrected.' } }, '*')`);
      // Scrolled to it as a reader would, until it stays in view (the messages above it take their real heights as
      // they are rendered, which moves it).
      await waitInPage(
        wp.page,
        `(function () { var ok = ${shownExpr('m4')}; if (!ok) document.querySelector('[data-id="m4"]').scrollIntoView({ block: 'center' }); return ok; })()`,
      );
      await waitInPage(wp.page, `document.querySelector('[data-id="m4"] .message-body').textContent.trim() === 'Answer 4, corrected.'`);
      assert.deepEqual(await wp.page.evaluate(IDS), [...all.map((m) => m.id), 'm50']);
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });
});
