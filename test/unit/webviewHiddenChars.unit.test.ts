// What a reply shows is what Copy and Insert at cursor take. A bidi override showed `git status ‮; rm -rf ~ #` as
// "git status # ~ fr- mr ;" while Copy took the original; a lone carriage return joined "50%" and "progress". Hidden
// characters are shown as marked ⟨U+202E⟩ (the text itself kept, so Copy takes it), a code block holding some says so,
// and \r and \r\n are line breaks, also when a \r\n comes split across two deltas.
import * as assert from 'node:assert/strict';
import type { HostMessage, WorkerCard } from '../../src/shared/protocol';
import '../../webview/highlighterBundle';
import { BlockSplitter, renderMarkdown } from '../../webview/markdownStream';
import { HIGHLIGHTER_LOADED, openWebviewPage, useWebviewBrowser, waitInPage, type WebviewPage } from '../support/webviewPage';

const STATE = { busy: false, model: 'gpt-4.1', routingAuto: true };
const CODE = 'git status \u202E; rm -rf ~ #';
const REPLY = 'Run:\n\n```bash\n' + CODE + '\n```\n\nand `' + CODE + '` in report\u202Etxt.exe';

/** What a person sees of an element and what Copy takes of its code: the marks' shown text, where "#" and "rm" sit. */
const LOOK = String.raw`(function (sel) {
  var el = document.querySelector(sel);
  if (!el) return null;
  var walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT), n, nodes = [];
  while ((n = walker.nextNode())) nodes.push(n);
  function x(s) {
    for (var i = 0; i < nodes.length; i++) {
      var k = nodes[i].data.indexOf(s);
      if (k >= 0) { var r = document.createRange(); r.setStart(nodes[i], k); r.setEnd(nodes[i], k + s.length); return r.getBoundingClientRect().left; }
    }
    return null;
  }
  var marks = [].slice.call(el.querySelectorAll('[data-testid="hidden-char"]'));
  return {
    text: el.textContent,
    marks: marks.map(function (m) { return getComputedStyle(m, '::before').content; }),
    rmLeftOfHash: x('rm') !== null && x('#') !== null ? x('rm') < x('#') : null,
  };
})`;

interface Look {
  text: string;
  marks: string[];
  rmLeftOfHash: boolean | null;
}

async function look(wp: WebviewPage, sel: string): Promise<Look> {
  return (await wp.page.evaluate(`${LOOK}(${JSON.stringify(sel)})`)) as Look;
}

const TOKEN = '"⟨U+202E⟩"';

describe('webview: hidden characters and carriage returns in replies', function () {
  this.timeout(180_000);

  describe('in Node', () => {
    it('cuts \\r and \\r\\n as line breaks, the same however the text is cut, a \\r\\n split across deltas one break', () => {
      const text = 'progress 50%\rprogress 100%\r\n\r\n```\nold\rnew\r\n```\r';
      const whole = new BlockSplitter();
      const wholeBlocks = [...whole.push(text), ...whole.end()];
      for (let cut = 1; cut < text.length; cut++) {
        const s = new BlockSplitter();
        const blocks = [...s.push(text.slice(0, cut)), ...s.push(text.slice(cut)), ...s.end()];
        assert.deepEqual(blocks, wholeBlocks, `cut at ${cut}`);
      }
      assert.deepEqual(wholeBlocks, ['progress 50%\nprogress 100%\n', '```\nold\nnew\n```\n']);
      // A \r the stream ends with is a break too, not lost.
      const s = new BlockSplitter();
      assert.deepEqual([...s.push('a\r'), ...s.end()], []);
      assert.equal(s.tail, 'a\n');
      assert.match(renderMarkdown('progress 50%\rprogress 100%'), /progress 50%<br>\nprogress 100%/);
    });

    it('marks hidden characters in code, highlighted or not, inline code and prose, and warns on the code block', () => {
      const html = renderMarkdown(REPLY);
      assert.equal(html.match(/data-testid="hidden-char"/g)?.length, 3);
      assert.equal(html.match(/data-testid="code-hidden-warning"/g)?.length, 1);
      assert.equal(renderMarkdown('```\nplain\n```').includes('code-hidden-warning'), false);
      // Highlighted code (bash is coloured) keeps its colours around the mark.
      assert.match(html, /<code class="language-bash">.*tok-.*hidden-char.*<\/code>/s);
    });
  });

  describe('in Chromium', () => {
    const chromium = useWebviewBrowser();
    let wp: WebviewPage;
    afterEach(async () => {
      assert.deepEqual(wp.errors, []);
      assert.deepEqual(await wp.cspViolations(), []);
      await wp.close();
    });
    async function open(snapshot: Partial<{ messages: unknown[]; workers: WorkerCard[] }>): Promise<void> {
      const s = { messages: [], workers: [], permissions: [], state: STATE, ...snapshot } as unknown as Extract<HostMessage, { type: 'snapshot' }>['snapshot'];
      wp = await openWebviewPage(chromium.browser(), { build: chromium.build(), replyToReady: [{ type: 'snapshot', seq: 1, snapshot: s }] });
      await wp.page.waitForSelector('[data-testid="composer"]');
    }

    async function checkReply(id: string): Promise<void> {
      const block = await look(wp, `.message[data-id="${id}"] pre code`);
      assert.equal(block.text, CODE, 'Copy takes the code as written');
      assert.deepEqual(block.marks, [TOKEN]);
      assert.equal(block.rmLeftOfHash, true, 'the code reads left to right as written');
      const inline = await look(wp, `.message[data-id="${id}"] p code`);
      assert.equal(inline.text, CODE);
      assert.deepEqual(inline.marks, [TOKEN]);
      assert.equal(inline.rmLeftOfHash, true);
      const prose = await look(wp, `.message[data-id="${id}"] .message-body`);
      assert.equal(prose.marks.length, 3);
      assert.ok(prose.text.includes('report\u202Etxt.exe'));
      const warning = wp.page.locator(`.message[data-id="${id}"] [data-testid="code-hidden-warning"]`);
      assert.equal(await warning.count(), 1);
      assert.match((await warning.textContent()) ?? '', /invisible or direction-changing/);
      await wp.page.locator(`.message[data-id="${id}"] [data-testid="code-insert"]`).click();
      const inserted = (await wp.posted()).filter((m) => m.type === 'code/insert');
      assert.deepEqual(inserted.at(-1), { type: 'code/insert', code: CODE });
    }

    it('F1: a reply from history shows a bidi override as a marked ⟨U+202E⟩ in code (once coloured too), inline code and prose', async () => {
      await open({ messages: [{ id: 'a', role: 'assistant', content: REPLY, status: 'complete', ts: Date.now() }] });
      await wp.page.waitForSelector('.message[data-id="a"] pre code');
      await waitInPage(wp.page, HIGHLIGHTER_LOADED);
      await waitInPage(wp.page, `document.querySelector('.message[data-id="a"] pre code.hl-pending') === null`);
      assert.ok(await wp.page.locator('.message[data-id="a"] pre code [class^="tok-"]').count(), 'the code is coloured');
      await checkReply('a');
    });

    it('F1: a streamed reply ends the same, its open code block marked while it streams', async () => {
      await open({});
      const now = Date.now();
      let seq = 1;
      await wp.push({ type: 'message/append', seq: ++seq, message: { id: 's', role: 'assistant', content: '', status: 'streaming', ts: now } });
      await wp.push({ type: 'message/delta', seq: ++seq, id: 's', delta: 'Run:\n\n```bash\n' + CODE.slice(0, 12) });
      await wp.push({ type: 'message/delta', seq: ++seq, id: 's', delta: CODE.slice(12) });
      await waitInPage(wp.page, `(document.querySelector('.message[data-id="s"] pre code') || {}).textContent === ${JSON.stringify(CODE)}`);
      const streaming = await look(wp, '.message[data-id="s"] pre code');
      assert.deepEqual(streaming.marks, [TOKEN]);
      assert.equal(streaming.rmLeftOfHash, true);
      await wp.push({ type: 'message/delta', seq: ++seq, id: 's', delta: REPLY.slice(('Run:\n\n```bash\n' + CODE).length) });
      await wp.push({ type: 'message/update', seq: ++seq, id: 's', patch: { status: 'complete' } });
      await waitInPage(wp.page, `document.querySelector('.message[data-id="s"] p code') !== null`);
      await checkReply('s');
    });

    it("F1: a worker card's last line shows a bidi override marked", async () => {
      await open({ workers: [{ name: 'w', workingDir: '/work/app', state: 'running', startedAt: Date.now(), lastLine: 'run \u202Eabc' }] });
      await wp.page.waitForSelector('.worker-last');
      const last = await look(wp, '.worker-last');
      assert.equal(last.text, 'run \u202Eabc');
      assert.deepEqual(last.marks, [TOKEN]);
      assert.equal(await wp.page.locator('.worker-last').innerText(), 'run abc');
    });

    it('F2: a lone \\r is a line break, in prose and code, from history and streamed with \\r\\n split across deltas', async () => {
      await open({
        messages: [{ id: 'a', role: 'assistant', content: 'progress 50%\rprogress 100%\n\n```\nold\rnew\n```', status: 'complete', ts: Date.now() }],
      });
      await wp.page.waitForSelector('.message[data-id="a"] pre code');
      const shown = async (id: string): Promise<{ p: string; code: string }> =>
        (await wp.page.evaluate(
          `({ p: document.querySelector('.message[data-id="${id}"] .message-body p').innerText, code: document.querySelector('.message[data-id="${id}"] pre code').textContent })`,
        )) as { p: string; code: string };
      assert.deepEqual(await shown('a'), { p: 'progress 50%\nprogress 100%', code: 'old\nnew' });
      let seq = 1;
      await wp.push({ type: 'message/append', seq: ++seq, message: { id: 's', role: 'assistant', content: '', status: 'streaming', ts: Date.now() } });
      for (const delta of ['progress 50%\r', 'progress 100%\r', '\n\r', '\n```\r', '\nold\rnew\r', '\n```\r'])
        await wp.push({ type: 'message/delta', seq: ++seq, id: 's', delta });
      await wp.push({ type: 'message/update', seq: ++seq, id: 's', patch: { status: 'complete' } });
      await waitInPage(wp.page, `document.querySelector('.message[data-id="s"][data-status="complete"] pre code') !== null`);
      assert.deepEqual(await shown('s'), { p: 'progress 50%\nprogress 100%', code: 'old\nnew' });
    });
  });
});
