// Markdown nested deeper than markdown-it parses (MAX_NESTING in markdownRender.ts: 100 `>`, or a list 50 deep) is shown as written
// rather than dropped: its text and every line after it in the same block used to vanish. In the real webview bundle
// (Chromium, test/support/webviewPage.ts), and as HTML (renderMarkdown, what the sanitizer receives).
import * as assert from 'node:assert/strict';
import type { ChatMessage, HostMessage } from '../../src/shared/protocol';
import { renderMarkdown } from '../../webview/markdownStream';
import { openWebviewPage, useWebviewBrowser } from '../support/webviewPage';

const STATE = { busy: false, model: 'gpt-4.1', routingAuto: true };

/** Each case: a reply, and the words the user must find in it. */
const DEEP: Array<{ name: string; content: string; words: string[] }> = [
  { name: 'a quote 150 deep and its lazy line', content: `${'>'.repeat(150)} deep-150\nTAIL-QUOTE visible text`, words: ['deep-150', 'TAIL-QUOTE'] },
  {
    name: 'a quote just past the limit, then a paragraph, then another with a lazy line',
    content: `${'>'.repeat(101)} x-1\n\nafter\n\n${'>'.repeat(120)} y-2\nlazy TAIL-LAZY`,
    words: ['x-1', 'after', 'y-2', 'TAIL-LAZY'],
  },
  {
    name: 'a list 120 deep',
    content: `${Array.from({ length: 120 }, (_, i) => `${' '.repeat(i * 2)}- item${i}`).join('\n')}\n${' '.repeat(240)}- TAIL-LIST`,
    words: [...Array.from({ length: 120 }, (_, i) => `item${i}`), 'TAIL-LIST'],
  },
];

function words(text: string, expected: string[]): string[] {
  return expected.filter((w) => !new RegExp(`${w}(?!\\d)`).test(text));
}

describe('markdown nested past the parser’s limit', () => {
  for (const c of DEEP) {
    it(`keeps every word in the HTML: ${c.name}`, () => {
      const text = renderMarkdown(c.content).replace(/<[^>]*>/g, '');
      assert.deepEqual(words(text, c.words), [], 'words missing from the HTML');
    });
  }

  it('still renders structure up to the limit: 60 quotes are 60 nested blockquotes', () => {
    const html = renderMarkdown(`${'>'.repeat(60)} sixty`);
    assert.equal(html.match(/<blockquote>/g)?.length, 60);
    assert.match(html, /<p>sixty<\/p>/);
  });

  describe('in the panel (Chromium)', function () {
    this.timeout(120_000);
    const chromium = useWebviewBrowser();

    it('shows every word of each deeply nested reply', async () => {
      const messages: ChatMessage[] = DEEP.map((c, i) => ({ id: `a${i}`, role: 'assistant', content: c.content, status: 'complete', ts: Date.now() }));
      const snapshot: HostMessage = { type: 'snapshot', seq: 1, snapshot: { messages, workers: [], permissions: [], state: STATE } };
      const wp = await openWebviewPage(chromium.browser(), { build: chromium.build(), replyToReady: [snapshot] });
      try {
        await wp.page.waitForSelector(`.message[data-id="a${DEEP.length - 1}"] .message-body`);
        for (const [i, c] of DEEP.entries()) {
          const shown = (await wp.page.locator(`.message[data-id="a${i}"] .message-body`).textContent()) ?? '';
          assert.deepEqual(words(shown, c.words), [], `${c.name}: words the user cannot see`);
        }
        assert.deepEqual(wp.errors, []);
      } finally {
        await wp.close();
      }
    });
  });
});
