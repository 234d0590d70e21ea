// The real webview bundle in Chromium (test/support/webviewPage.ts): a settled message is rendered in frame-sized
// slices (webview/slicedRender.ts) and ends with exactly the DOM of rendering it at once, for every pathological reply
// of the panel bench and a long ordinary one; a reply whose ending brings its whole text keeps the blocks it streamed.
import * as assert from 'node:assert/strict';
import type { Snapshot } from '../../src/shared/protocol';
import { benchAnswer } from '../../bench/panelContent';
import { pathologicalInputs } from '../../bench/pathologicalInputs';
// The one-shot render in Node colours code as the page does once its highlighter has run (see page() below).
import '../../webview/highlighterBundle';
import { PART_BLOCKS } from '../../webview/bodyParts';
import { renderMarkdown, splitBlocks } from '../../webview/markdownStream';
import { HIGHLIGHTER_LOADED, openWebviewPage, useWebviewBrowser, waitInPage } from '../support/webviewPage';

const EMPTY: Snapshot = { messages: [], workers: [], permissions: [], state: { busy: false, model: 'gpt-4.1', routingAuto: true } };

// Appends a complete message; reports whether the body was still busy (rendering in slices) right after the append's
// task, how many frames it took, and its HTML once done next to the expected one, parsed the same way.
const ONE_SHOT = String.raw`(async function (text, expected, id, seq) {
  window.postMessage({ type: 'message/append', seq: seq, message: { id: id, role: 'assistant', content: text, status: 'complete', ts: Date.now() } }, '*');
  await new Promise(function (r) { setTimeout(r, 0); });
  var body = document.querySelector('[data-id="' + id + '"] .message-body');
  var busyAtFirst = body.getAttribute('aria-busy') === 'true', shownAtFirst = body.childNodes.length;
  var frames = 0;
  while (body.hasAttribute('aria-busy')) { frames++; await new Promise(function (r) { requestAnimationFrame(r); }); }
  var t = document.createElement('template');
  t.innerHTML = expected;
  return { busyAtFirst: busyAtFirst, shownAtFirst: shownAtFirst, frames: frames, html: body.innerHTML, expected: t.innerHTML };
})`;

// Streams `text` in pieces, then ends the reply as the host does: one patch with its status and its whole text
// (here with a note after it). Marks the first block shown, and reports whether it is still the node in the page.
const STREAM_THEN_WHOLE = String.raw`(async function (text, note, expected) {
  var seq = 1;
  function post(m) { m.seq = ++seq; window.postMessage(m, '*'); }
  function frame() { return new Promise(function (r) { requestAnimationFrame(function () { setTimeout(r, 0); }); }); }
  post({ type: 'message/append', message: { id: 's', role: 'assistant', content: '', status: 'streaming', ts: Date.now() } });
  for (var at = 0; at < text.length; at += 2000) { post({ type: 'message/delta', id: 's', delta: text.slice(at, at + 2000) }); await frame(); }
  var first = document.querySelector('[data-id="s"] .message-body > :first-child');
  post({ type: 'message/update', id: 's', patch: { status: 'complete', content: text + note } });
  await new Promise(function (done) {
    (function check() { var el = document.querySelector('[data-id="s"]'); if (el && el.dataset.status === 'complete') done(); else requestAnimationFrame(check); })();
  });
  await frame();
  var body = document.querySelector('[data-id="s"] .message-body');
  var t = document.createElement('template');
  t.innerHTML = expected;
  return { firstKept: !!first && body.contains(first), html: body.innerHTML, expected: t.innerHTML };
})`;

// Appends a long message, and while it is still rendering in slices replaces its text: the end is the new text's DOM.
const REPLACED_MIDWAY = String.raw`(async function (text, other, expected) {
  window.postMessage({ type: 'message/append', seq: 2, message: { id: 'r', role: 'assistant', content: text, status: 'complete', ts: Date.now() } }, '*');
  await new Promise(function (r) { requestAnimationFrame(function () { setTimeout(r, 0); }); });
  var body = document.querySelector('[data-id="r"] .message-body');
  var busyBefore = body.hasAttribute('aria-busy');
  window.postMessage({ type: 'message/update', seq: 3, id: 'r', patch: { content: other } }, '*');
  await new Promise(function (r) { setTimeout(r, 0); });
  for (var i = 0; i < 10; i++) await new Promise(function (r) { requestAnimationFrame(r); });
  var t = document.createElement('template');
  t.innerHTML = expected;
  return { busyBefore: busyBefore, busyAfter: body.hasAttribute('aria-busy'), html: body.innerHTML, expected: t.innerHTML };
})`;

// Appends a long complete message while the view follows the end, and in every frame until it is all in notes what
// the user sees: whether the view is at the bottom, whether the last block on the page is the reply's own last block
// and on screen, and whether anything in the body is on screen at all.
const FOLLOWED = String.raw`(async function (text, expectedLast, expected) {
  window.postMessage({ type: 'message/append', seq: 2, message: { id: 'f', role: 'assistant', content: text, status: 'complete', ts: Date.now() } }, '*');
  var s = document.querySelector('.scroller'), seen = [];
  var frame = function () { return new Promise(function (r) { requestAnimationFrame(function () { setTimeout(r, 0); }); }); };
  var body, after = 2;
  do {
    await frame();
    body = document.querySelector('[data-id="f"] .message-body');
    var box = s.getBoundingClientRect();
    var last = body.lastElementChild;
    while (last && last.classList.contains('md-part')) last = last.lastElementChild;
    var r = last ? last.getBoundingClientRect() : null;
    var t = document.createElement('template');
    t.innerHTML = expectedLast;
    seen.push({
      atBottom: s.scrollHeight - s.scrollTop - s.clientHeight <= 2,
      endShown: !!last && last.textContent.trim() === t.content.textContent.trim() && r.bottom > box.top && r.top < box.bottom,
      busy: body.hasAttribute('aria-busy'),
      shown: !!last && last.checkVisibility({ contentVisibilityAuto: true }),
    });
  } while (body.hasAttribute('aria-busy') || after-- > 0);
  var all = document.createElement('template');
  all.innerHTML = expected;
  return { seen: seen, same: body.innerHTML === all.innerHTML };
})`;

describe('webview: settled messages render in slices (Chromium)', function () {
  this.timeout(180_000);
  const web = useWebviewBrowser();

  async function page() {
    const wp = await openWebviewPage(web.browser(), { build: web.build(), replyToReady: [{ type: 'snapshot', seq: 1, snapshot: EMPTY }] });
    await wp.page.waitForSelector('[data-testid="empty-state"]');
    // Code rendered before the highlighter has run is coloured later (test/unit/webviewHighlighter.unit.test.ts):
    // these compare the DOM at the end of a render with the one-shot render's.
    await waitInPage(wp.page, HIGHLIGHTER_LOADED);
    return wp;
  }

  it('a 200 KB ordinary reply: a first slice is shown at once, the rest over later frames, and the end is the one-shot DOM', async () => {
    const text = benchAnswer(200_000);
    const wp = await page();
    try {
      const r = (await wp.page.evaluate(`${ONE_SHOT}(${JSON.stringify(text)}, ${JSON.stringify(renderMarkdown(text))}, 'm', 2)`)) as Record<string, unknown>;
      assert.equal(r.busyAtFirst, true, 'the reply is still rendering after the first slice');
      assert.ok((r.shownAtFirst as number) > 0, 'the first slice is in the page at once');
      assert.ok((r.frames as number) > 1, `rendered over ${String(r.frames)} frames`);
      assert.ok(r.html === r.expected, 'the DOM is the one-shot render');
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });

  // 200 KB: about 1,200 blocks in 24 parts over many frames; 15 KB: one part, a slice or two.
  for (const size of [200_000, 15_000])
    it(`a ${size / 1000} KB reply the view follows shows its own end in every frame, at the bottom, while the rest comes in above`, async () => {
      const text = benchAnswer(size);
      const blocks = splitBlocks(text);
      assert.ok(blocks.length > PART_BLOCKS, `${blocks.length} blocks: more than the body's own`);
      const wp = await page();
      try {
        const r = (await wp.page.evaluate(
          `${FOLLOWED}(${JSON.stringify(text)}, ${JSON.stringify(renderMarkdown(blocks[blocks.length - 1]!))}, ${JSON.stringify(renderMarkdown(text))})`,
        )) as { seen: Array<{ atBottom: boolean; endShown: boolean; shown: boolean; busy: boolean }>; same: boolean };
        if (size > 100_000) assert.ok(r.seen.filter((f) => f.busy).length > 10, `still rendering over ${r.seen.length} frames`);
        // From the second frame on: in the first, the browser has not yet seen the new message near the viewport
        // (content-visibility: auto), so it may skip it whole at its estimated height, as it does any message appended.
        const off = r.seen.map((f, i) => (i === 0 || (f.atBottom && f.endShown && f.shown) ? -1 : i)).filter((i) => i >= 0);
        assert.deepEqual(off, [], `in every frame the view is at the bottom with the reply's last block on screen (frames off: ${off.join(', ')})`);
        assert.ok(r.same, 'the DOM is the one-shot render');
        assert.deepEqual(wp.errors, []);
      } finally {
        await wp.close();
      }
    });

  it('every pathological reply ends with the DOM of rendering it at once, nothing lost', async () => {
    const wp = await page();
    try {
      let seq = 2;
      for (const input of pathologicalInputs(100_000)) {
        const id = `p${seq}`;
        const r = (await wp.page.evaluate(
          `${ONE_SHOT}(${JSON.stringify(input.text)}, ${JSON.stringify(renderMarkdown(input.text))}, ${JSON.stringify(id)}, ${seq++})`,
        )) as Record<string, unknown>;
        // The one-shot render loses nothing (test/unit/markdown.unit.test.ts); this is exactly it.
        assert.ok(r.html === r.expected, `${input.name}: the DOM is the one-shot render`);
        await wp.page.evaluate(`document.querySelector('[data-id="${id}"]').remove()`);
      }
      assert.deepEqual(wp.errors, []);
      assert.deepEqual(await wp.cspViolations(), []);
    } finally {
      await wp.close();
    }
  });

  it('a reply whose ending brings its whole text keeps the blocks it streamed, and adds what is new', async () => {
    const text = benchAnswer(30_000);
    const note = '\n\n_Stopped at the token limit._\n';
    const wp = await page();
    try {
      const r = (await wp.page.evaluate(
        `${STREAM_THEN_WHOLE}(${JSON.stringify(text)}, ${JSON.stringify(note)}, ${JSON.stringify(renderMarkdown(text + note))})`,
      )) as Record<string, unknown>;
      assert.equal(r.firstKept, true, 'the first block streamed is still the node shown');
      assert.ok(r.html === r.expected, 'the DOM is the one-shot render of the whole text');
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });

  it("a worker's long report in its card is rendered in slices too, and ends with the one-shot DOM", async () => {
    const report = benchAnswer(100_000);
    const wp = await page();
    try {
      const r = (await wp.page.evaluate(
        String.raw`(async function (report, expected) {
          var card = { worker: 'w1', state: 'done', durationMs: 4200, report: report };
          window.postMessage({ type: 'message/append', seq: 2, message: { id: 'b', role: 'background', source: 'w1', content: 'wrapper', status: 'complete', ts: Date.now(), workerResult: card } }, '*');
          await new Promise(function (r) { setTimeout(r, 0); });
          var el = document.querySelector('[data-id="b"] [data-testid="result-report"]');
          var busyAtFirst = el.getAttribute('aria-busy') === 'true';
          while (el.hasAttribute('aria-busy')) await new Promise(function (r) { requestAnimationFrame(r); });
          var t = document.createElement('template');
          t.innerHTML = expected;
          return { busyAtFirst: busyAtFirst, same: el.innerHTML === t.innerHTML };
        })(${JSON.stringify(report)}, ${JSON.stringify(renderMarkdown(report))})`,
      )) as Record<string, unknown>;
      assert.equal(r.busyAtFirst, true, 'the report is still rendering after the first slice');
      assert.equal(r.same, true, 'the report is the one-shot render');
      assert.deepEqual(wp.errors, []);
    } finally {
      await wp.close();
    }
  });

  it('a message given a new text while it renders in slices ends with the new text, and no slice of the old one', async () => {
    const text = benchAnswer(200_000);
    const other = 'Replaced: **short** now.\n';
    const wp = await page();
    try {
      const r = (await wp.page.evaluate(
        `${REPLACED_MIDWAY}(${JSON.stringify(text)}, ${JSON.stringify(other)}, ${JSON.stringify(renderMarkdown(other))})`,
      )) as Record<string, unknown>;
      assert.equal(r.busyBefore, true);
      assert.equal(r.busyAfter, false);
      assert.equal(r.html, r.expected);
    } finally {
      await wp.close();
    }
  });
});
