// A reply's Copy, in the real webview bundle (Chromium, test/support/webviewPage.ts): it puts the reply's Markdown on
// the clipboard as written (fences, links, lists), shows on hover and while the focus is in the reply, is reached by
// the keyboard, and is not offered while the reply streams.
import * as assert from 'node:assert/strict';
import type { ChatMessage, Snapshot } from '../../src/shared/protocol';
import { axeSerious } from '../support/axeInPage';
import { type WebviewPage, openWebviewPage, useWebviewBrowser } from '../support/webviewPage';

const REPLY = [
  'The handler **rejects** expired tokens; see [the spec](https://example.com/spec#expiry).',
  '',
  '- it reads the `Authorization` header',
  '- it answers 401',
  '',
  '```ts',
  'if (token.exp < now) return reply(401);',
  '```',
].join('\n');

function snapshot(messages: ChatMessage[]): Snapshot {
  return { messages, workers: [], permissions: [], state: { busy: false, model: 'gpt-4.1', routingAuto: true } };
}

const QUESTION: ChatMessage = { id: 'q', role: 'user', content: 'What does auth.ts do with expired tokens?', status: 'complete', ts: Date.now() };
const ANSWER: ChatMessage = { id: 'a', role: 'assistant', content: REPLY, status: 'complete', ts: Date.now(), usage: { inputTokens: 900, outputTokens: 60 } };

async function clipboard(wp: WebviewPage): Promise<string> {
  return (await wp.page.evaluate('navigator.clipboard.readText()')) as string;
}

async function opacity(wp: WebviewPage, id: string): Promise<string> {
  return wp.page.locator(`[data-id="${id}"] [data-testid="message-copy"]`).evaluate((el) => getComputedStyle(el).opacity);
}

describe("webview: a reply's Copy (Chromium)", function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();

  async function open(messages: ChatMessage[]): Promise<WebviewPage> {
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      replyToReady: [{ type: 'snapshot', seq: 1, snapshot: snapshot(messages) }],
    });
    await wp.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(wp.url).origin });
    await wp.page.locator('[data-id="a"] .message-body code').first().waitFor();
    return wp;
  }

  it("copies the reply's Markdown as written, shows on hover, and says it copied", async () => {
    const wp = await open([QUESTION, ANSWER]);
    try {
      assert.equal(await wp.page.locator('[data-id="q"] [data-testid="message-copy"]').count(), 0, 'a question of yours has no Copy');
      assert.equal(await opacity(wp, 'a'), '0', 'out of sight until the pointer or the focus is on the reply');
      await wp.page.locator('[data-id="a"] .message-body').hover();
      assert.equal(await opacity(wp, 'a'), '1');
      assert.deepEqual(await axeSerious(wp), [], 'no serious accessibility finding with Copy shown (its size and spacing too)');
      const copy = wp.page.locator('[data-id="a"] [data-testid="message-copy"]');
      await copy.click();
      await copy.filter({ hasText: 'Copied' }).waitFor();
      assert.equal(await clipboard(wp), REPLY);
      await copy.filter({ hasText: /^Copy$/ }).waitFor({ timeout: 5_000 });
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });

  it('is reached from the keyboard: the arrows to the reply, then Tab, then Enter', async () => {
    const wp = await open([QUESTION, ANSWER]);
    try {
      await wp.page.locator('[data-testid="messages"]').focus();
      await wp.page.keyboard.press('End');
      assert.equal(await wp.page.evaluate(`document.activeElement.dataset.id`), 'a');
      let reached = false;
      for (let i = 0; i < 8 && !reached; i++) {
        await wp.page.keyboard.press('Tab');
        reached = (await wp.page.evaluate(`document.activeElement.dataset.testid`)) === 'message-copy';
      }
      assert.ok(reached, 'Tab reaches the Copy of the focused reply');
      assert.equal(await opacity(wp, 'a'), '1', 'shown while it has the focus');
      await wp.page.keyboard.press('Enter');
      await wp.page.locator('[data-id="a"] [data-testid="message-copy"]', { hasText: 'Copied' }).waitFor();
      assert.equal(await clipboard(wp), REPLY);
    } finally {
      await wp.close();
    }
  });

  it('where the async clipboard is refused, copies the Markdown through a selected text box, and the focus stays on Copy', async () => {
    const wp = await open([QUESTION, ANSWER]);
    try {
      // Older webview hosts refuse navigator.clipboard.writeText; the panel then copies with execCommand.
      await wp.page.evaluate(`navigator.clipboard.writeText = () => Promise.reject(new DOMException('denied', 'NotAllowedError'))`);
      const copy = wp.page.locator('[data-id="a"] [data-testid="message-copy"]');
      await copy.focus();
      await wp.page.keyboard.press('Enter');
      await copy.filter({ hasText: 'Copied' }).waitFor();
      assert.equal(await clipboard(wp), REPLY);
      assert.equal(await wp.page.evaluate(`document.activeElement.dataset.testid`), 'message-copy');
      assert.equal(await wp.page.locator('textarea.copy-buffer').count(), 0, 'the text box is gone');
    } finally {
      await wp.close();
    }
  });

  it('is not offered while the reply streams, and is once it has ended', async () => {
    const wp = await open([QUESTION, ANSWER]);
    try {
      await wp.push({ type: 'message/append', seq: 2, message: { id: 's', role: 'assistant', content: 'Checking', status: 'streaming', ts: Date.now() } });
      await wp.push({ type: 'message/delta', seq: 3, id: 's', delta: ' the tests…' });
      await wp.page.locator('[data-id="s"] .message-body', { hasText: 'Checking the tests' }).waitFor();
      assert.equal(await wp.page.locator('[data-id="s"] [data-testid="message-copy"]').count(), 0);
      await wp.push({ type: 'message/update', seq: 4, id: 's', patch: { status: 'complete' } });
      await wp.page.locator('[data-id="s"] [data-testid="message-copy"]').waitFor({ state: 'attached' });
      await wp.page.locator('[data-id="s"] .message-body').hover();
      await wp.page.locator('[data-id="s"] [data-testid="message-copy"]').click();
      await wp.page.locator('[data-id="s"] [data-testid="message-copy"]', { hasText: 'Copied' }).waitFor();
      assert.equal(await clipboard(wp), 'Checking the tests…');
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });
});
