// Room for the conversation, in the real webview bundle (Chromium, test/support/webviewPage.ts): a worker card
// appearing never scrolls away the message being read, and signed out, the setup banner takes its own space above the
// messages with the one call to action for signing in.
import * as assert from 'node:assert/strict';
import type { ChatMessage, Snapshot, WorkerCard } from '../../src/shared/protocol';
import { type WebviewPage, openWebviewPage, useWebviewBrowser } from '../support/webviewPage';

function conversation(count: number): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (let i = 0; i < count; i++) {
    messages.push(
      i % 2 === 0
        ? { id: `m${i}`, role: 'user', content: `Question ${i}: what does h${i}.ts do?`, status: 'complete', ts: Date.now() }
        : {
            id: `m${i}`,
            role: 'assistant',
            content: `Answer ${i}.\n\n- it reads the request\n- it checks the session\n- it answers 401`,
            status: 'complete',
            ts: Date.now(),
          },
    );
  }
  return messages;
}

function worker(name: string): WorkerCard {
  return { name, workingDir: '/work/app', state: 'running', startedAt: Date.now(), lastLine: 'Running the tests' };
}

const STATE = { busy: false, model: 'gpt-4.1', routingAuto: true };

/** Where a message's top is, relative to the top of the scrolling conversation (negative: above it, out of view). */
async function topOf(wp: WebviewPage, id: string): Promise<number> {
  return (await wp.page.evaluate(
    `document.querySelector('[data-id="${id}"]').getBoundingClientRect().top - document.querySelector('.scroller').getBoundingClientRect().top`,
  )) as number;
}

async function frames(wp: WebviewPage, n = 3): Promise<void> {
  await wp.page.evaluate(`new Promise(function (r) { var k = ${n}; (function f() { if (k-- <= 0) r(); else requestAnimationFrame(f); })(); })`);
}

describe('webview: room for the conversation (Chromium)', function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();

  async function open(snapshot: Snapshot, height = 600): Promise<WebviewPage> {
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      viewport: { width: 420, height },
      replyToReady: [{ type: 'snapshot', seq: 1, snapshot }],
    });
    await wp.page.waitForSelector('[data-testid="message"]');
    await frames(wp, 5);
    return wp;
  }

  it('a worker card appearing keeps the newest reply in view from its top, and then the list follows the stream again', async () => {
    const messages = conversation(30);
    const wp = await open({ messages, workers: [], permissions: [], state: STATE });
    try {
      const newest = messages[messages.length - 1]!.id;
      // The panel made shorter until the newest reply starts just below the top: a card's height would push it out.
      const start = await topOf(wp, newest);
      await wp.page.setViewportSize({ width: 420, height: 600 - Math.round(start) + 12 });
      await frames(wp);
      const before = await topOf(wp, newest);
      assert.ok(before >= 0 && before < 40, `the newest reply starts just in view (${before})`);
      await wp.push({ type: 'workers/update', seq: 2, workers: [worker('tests')] });
      await wp.page.waitForSelector('[data-testid="worker-card"]');
      await frames(wp);
      const after = await topOf(wp, newest);
      assert.ok(after >= 0, `the newest reply still starts in view after the card appeared (${before} → ${after})`);
      // A new reply streams in: the list follows it to the bottom, as before the card appeared.
      await wp.push({
        type: 'message/append',
        seq: 3,
        message: { id: 'r', role: 'assistant', content: 'line\n\n'.repeat(40), status: 'complete', ts: Date.now() },
      });
      await frames(wp, 5);
      const gap = (await wp.page.evaluate(
        `(function (s) { return s.scrollHeight - s.scrollTop - s.clientHeight; })(document.querySelector('.scroller'))`,
      )) as number;
      assert.ok(gap <= 2, `following the bottom (${gap} px from it)`);
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });

  it('scrolled up to read an older message, a worker card appearing leaves it exactly where it is', async () => {
    const wp = await open({ messages: conversation(30), workers: [], permissions: [], state: STATE });
    try {
      await wp.page.evaluate(`document.querySelector('.scroller').scrollTop = 600`);
      await frames(wp);
      const id = (await wp.page.evaluate(
        `(function () { var s = document.querySelector('.scroller').getBoundingClientRect(); var m = [...document.querySelectorAll('[data-testid="message"]')].find(function (e) { return e.getBoundingClientRect().top >= s.top; }); return m.dataset.id; })()`,
      )) as string;
      const before = await topOf(wp, id);
      await wp.push({ type: 'workers/update', seq: 2, workers: [worker('a'), worker('b')] });
      await wp.page.waitForSelector('[data-testid="worker-card"]');
      await frames(wp);
      assert.equal(await topOf(wp, id), before);
    } finally {
      await wp.close();
    }
  });

  it('signed out: the banner sits above the messages, and offers the one "Sign in" there is', async () => {
    const messages: ChatMessage[] = [
      { id: 'u1', role: 'user', content: 'hello, can you help?', status: 'complete', ts: Date.now() },
      {
        id: 'e1',
        role: 'error',
        content: 'Baton is not signed in to GitHub Copilot.',
        status: 'failed',
        ts: Date.now(),
        action: { label: 'Sign in', command: 'baton.signIn' },
      },
    ];
    const setupHint =
      'Baton needs GitHub Copilot. Sign in with GitHub, or configure another provider (OpenAI, Azure, Anthropic or a local Ollama) in the baton.provider settings.';
    const wp = await open({ messages, workers: [], permissions: [], state: { ...STATE, setupHint } }, 420);
    try {
      const box = (selector: string) =>
        wp.page.evaluate(
          `(function (r) { return { top: r.top, bottom: r.bottom }; })(document.querySelector('${selector}').getBoundingClientRect())`,
        ) as Promise<{ top: number; bottom: number }>;
      const banner = await box('[data-testid="setup-hint"]');
      const scroller = await box('.scroller');
      assert.ok(banner.bottom <= scroller.top, `the banner (${banner.top}–${banner.bottom}) ends before the messages begin (${scroller.top})`);
      // Both messages are in view, below the banner: the one the user typed too.
      for (const id of ['u1', 'e1']) {
        const m = await box(`[data-id="${id}"]`);
        assert.ok(m.top >= scroller.top && m.bottom <= scroller.bottom, `${id} (${m.top}–${m.bottom}) within ${scroller.top}–${scroller.bottom}`);
      }
      const signIns = await wp.page.getByRole('button', { name: /sign in/i }).all();
      const visible = [];
      for (const b of signIns) if (await b.isVisible()) visible.push(await b.innerText());
      assert.deepEqual(visible, ['Sign in with GitHub']);
      await wp.page.getByRole('button', { name: 'Sign in with GitHub' }).click();
      assert.deepEqual(
        (await wp.posted()).filter((m) => m.type === 'command/run'),
        [{ type: 'command/run', command: 'baton.signIn' }],
      );
      // Signed in, the error's own button is back (the banner is gone).
      await wp.push({ type: 'state', seq: 2, state: STATE });
      await wp.page.locator('[data-testid="setup-hint"]').waitFor({ state: 'hidden' });
      assert.ok(await wp.page.locator('[data-id="e1"] [data-testid="error-action"]').isVisible());
    } finally {
      await wp.close();
    }
  });
});
