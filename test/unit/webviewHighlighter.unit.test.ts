// The code highlighter is a bundle of its own that the page runs just after its first paint (webview/highlighter.ts).
// In Node: code rendered before it has run is plain and marked for colouring, and every name the page marks has a
// grammar. In the real webview in Chromium (test/support/webviewPage.ts): the first page's code and code a stream
// rendered before the highlighter ran both end coloured exactly as the highlighter colours them, under the page's CSP.
import * as assert from 'node:assert/strict';
import type { ChatMessage, HostMessage, Snapshot } from '../../src/shared/protocol';
import { highlightCode, WARM_STEPS } from '../../webview/codeHighlight';
import '../../webview/highlighterBundle';
import { GRAMMARS } from '../../webview/languageNames';
import { renderMarkdown } from '../../webview/markdownStream';
import type { Page } from 'playwright-core';
import { HIGHLIGHTER_LOADED, openWebviewPage, useWebviewBrowser, waitInPage } from '../support/webviewPage';

describe('code highlighter, in Node', () => {
  it('before the highlighter has run, code is left plain and marked as deferred code is; after, coloured as before', () => {
    const text = '```ts\nconst a = 1;\n```\n\n```nosuchlang\nx\n```';
    const coloured = renderMarkdown(text);
    const loaded = globalThis.batonHighlighter;
    globalThis.batonHighlighter = undefined;
    try {
      // What a stream or a scroll renders before the page has run the highlighter's bundle.
      assert.equal(renderMarkdown(text), renderMarkdown(text, { deferHighlight: true }));
      assert.match(renderMarkdown(text), /<code class="language-ts hl-pending">const a = 1;<\/code>/);
      // A language no grammar colours is not marked: it stays plain for good.
      assert.match(renderMarkdown(text), /<code class="language-nosuchlang">x<\/code>/);
    } finally {
      globalThis.batonHighlighter = loaded;
    }
    assert.equal(renderMarkdown(text), coloured);
    assert.match(coloured, /<code class="language-ts"><span class="tok-keyword">const<\/span> a = <span class="tok-number">1<\/span>;<\/code>/);
  });

  it("warms up each common grammar's inner modes on one-byte and two-byte text, not its top level alone", () => {
    // A block of each warmed grammar as replies hold them: every kind of token it shows, the warm-up has coloured too
    // (each kind is a mode whose regex V8 compiles on its first run), and again in a text with a character past U+00FF.
    const typical: Record<string, string> = {
      typescript: TS,
      javascript: "const a = require('b'); // c\nfunction d(e) { return `f${e}` + 1; }",
      python: PY,
      bash: 'if [ -f "$a" ]; then echo "b $(c)" | grep d; fi # e',
      json: '{"a": 1, "b": [true, null, "c"]}',
      css: '.a { background: url(b.png); color: #fff; margin: 0 auto; }',
      xml: '<div class="a"><!-- b --><p>c &amp; d</p></div>',
      shell: '$ npm test',
      yaml: 'a: 1\nb:\n  - "c" # d',
      diff: '--- a\n+++ b\n@@ -1 +1 @@\n-c\n+d',
    };
    const kinds = (html: string): Set<string> => new Set([...html.matchAll(/class="(tok-[^"]+)"/g)].map((m) => m[1]!));
    for (const [grammar, code] of Object.entries(typical)) {
      const steps = WARM_STEPS.filter(([g]) => g === grammar).map(([, text]) => text);
      const oneByte = steps.filter((text) => !/[\u0100-\uffff]/.test(text) && highlightCode(text, grammar) !== undefined);
      const twoByte = steps.filter((text) => /\S{121}/.test(text));
      const warmed = new Set(oneByte.flatMap((text) => [...kinds(highlightCode(text, grammar)!)]));
      const missing = [...kinds(highlightCode(code, grammar)!)].filter((kind) => !warmed.has(kind));
      assert.deepEqual(missing, [], `${grammar}: kinds of token the warm-up never coloured`);
      assert.ok(kinds(highlightCode(code, grammar)!).size > 0, grammar);
      // The two-byte pass: the same sample with a long word, which the highlighter swaps for a private-use character.
      assert.ok(
        twoByte.some((text) => oneByte.some((sample) => sample !== 'x' && text.startsWith(sample))),
        `${grammar}: no two-byte pass over its sample`,
      );
    }
  });

  it('has a grammar for every name the page marks for colouring (webview/languageNames.ts)', () => {
    assert.equal(GRAMMARS.length, 23);
    for (const name of GRAMMARS) assert.notEqual(highlightCode('x', name), undefined, name);
  });
});

const TS = 'export function add(a: number, b: number): number {\n  return a + b; // sum\n}';
const PY = 'def f(x):\n    return "x" * 2  # twice';
const STATE = { busy: false, model: 'gpt-4.1', routingAuto: true };

function message(id: string, content: string, status: ChatMessage['status'] = 'complete'): ChatMessage {
  return { id, role: 'assistant', content, status, ts: Date.UTC(2026, 10, 20, 9, 0) };
}

function firstPageOf(messages: ChatMessage[]): HostMessage {
  const snapshot: Snapshot = { messages, workers: [], permissions: [], state: STATE };
  return { type: 'snapshot', seq: 1, snapshot };
}

// Runs before the page's scripts: notes, when the first message is put in the page and when the first code block
// in `language-<lang>` is, whether the highlighter had run and how that block was shown.
const WATCH = String.raw`(function (lang) {
  var seen = (window.__seen = {});
  new MutationObserver(function () {
    if (!seen.message && document.querySelector('[data-testid="message"]'))
      seen.message = { loaded: window.batonHighlighter !== undefined, source: !!document.getElementById('baton-highlighter') };
    var code = document.querySelector('code.language-' + lang);
    if (!seen.code && code)
      seen.code = { loaded: window.batonHighlighter !== undefined, pending: code.classList.contains('hl-pending'), spans: code.querySelectorAll('span').length };
  }).observe(document, { childList: true, subtree: true });
})`;

/** Each code block of the page, once none waits for colouring: its language class, HTML and text. */
const COLOURED_CODE = `Array.from(document.querySelectorAll('pre.code code')).map(function (c) { return { cls: c.className, html: c.innerHTML, text: c.textContent }; })`;

/** `html` as the page serializes it (`"` in text is written as is there). */
function asInPage(page: Page, html: string | undefined): Promise<string> {
  return page.evaluate(
    `(function (h) { var t = document.createElement('template'); t.innerHTML = h; return t.innerHTML; })(${JSON.stringify(html)})`,
  ) as Promise<string>;
}

describe('code highlighter, in the webview (Chromium)', function () {
  this.timeout(120_000);
  const web = useWebviewBrowser();

  async function open(firstPage: HostMessage, lang: string) {
    const wp = await openWebviewPage(web.browser(), {
      build: web.build(),
      firstPage,
      beforeLoad: async (page) => {
        await page.addInitScript({ content: `${WATCH}(${JSON.stringify(lang)});` });
      },
    });
    await waitInPage(wp.page, 'window.__batonHost.firstPaintAt !== undefined');
    await waitInPage(wp.page, `${HIGHLIGHTER_LOADED} && !document.querySelector('code.hl-pending')`);
    return wp;
  }

  it("colours the first page's code after its paint, exactly as the highlighter does, with the highlighter not run before", async () => {
    const first = firstPageOf([message('a1', `In TypeScript:\n\n\`\`\`ts\n${TS}\n\`\`\``), message('a2', `And Python:\n\n\`\`\`python\n${PY}\n\`\`\``)]);
    const wp = await open(first, 'ts');
    try {
      const seen = (await wp.page.evaluate('window.__seen')) as { message: { loaded: boolean; source: boolean }; code: { loaded: boolean; pending: boolean } };
      assert.deepEqual(seen.message, { loaded: false, source: true }, 'the first page is rendered before the highlighter has run');
      assert.equal(seen.code.pending, true, 'its code is shown plain first, marked for colouring');
      const code = (await wp.page.evaluate(COLOURED_CODE)) as Array<{ cls: string; html: string; text: string }>;
      assert.deepEqual(code, [
        { cls: 'language-ts', html: await asInPage(wp.page, highlightCode(TS, 'ts')), text: TS },
        { cls: 'language-python', html: await asInPage(wp.page, highlightCode(PY, 'python')), text: PY },
      ]);
      assert.match(code[0]!.html, /<span class="tok-keyword">export<\/span>/);
      // The bundle's text element is gone once run; the script that ran it carried the nonce: no CSP report.
      assert.equal(await wp.page.evaluate(`document.getElementById('baton-highlighter')`), null);
      assert.deepEqual(wp.errors, []);
      assert.deepEqual(await wp.cspViolations(), []);
    } finally {
      await wp.close();
    }
  });

  it('colours code a stream rendered before the highlighter ran, and the finished reply is the one-shot render', async () => {
    const start = `Here it is:\n\n\`\`\`py\n${PY}\n\`\`\`\n\nIt`;
    const rest = ' doubles the string.\n';
    const wp = await open(firstPageOf([message('s', start, 'streaming')]), 'py');
    try {
      const seen = (await wp.page.evaluate('window.__seen')) as { code: { loaded: boolean; pending: boolean; spans: number } };
      assert.deepEqual(seen.code, { loaded: false, pending: true, spans: 0 }, 'the streamed block was rendered plain, before the highlighter ran');
      const code = (await wp.page.evaluate(COLOURED_CODE)) as Array<{ cls: string; html: string; text: string }>;
      assert.deepEqual(code, [{ cls: 'language-py', html: await asInPage(wp.page, highlightCode(PY, 'py')), text: PY }]);
      // The stream goes on and ends: its DOM is the one a one-shot render of the whole text gives.
      await wp.push({ type: 'message/delta', seq: 2, id: 's', delta: rest }, { type: 'message/update', seq: 3, id: 's', patch: { status: 'complete' } });
      await waitInPage(wp.page, `document.querySelector('[data-id="s"]').dataset.status === 'complete'`);
      const same = await wp.page.evaluate(
        `(function (expected) { var t = document.createElement('template'); t.innerHTML = expected; return document.querySelector('[data-id="s"] .message-body').innerHTML === t.innerHTML; })(${JSON.stringify(renderMarkdown(start + rest))})`,
      );
      assert.equal(same, true, 'the finished reply is the one-shot render');
      assert.deepEqual(wp.errors, []);
      assert.deepEqual(await wp.cspViolations(), []);
    } finally {
      await wp.close();
    }
  });
});
