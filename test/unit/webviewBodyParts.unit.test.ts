// The real webview bundle in Chromium (test/support/webviewPage.ts): a long reply's blocks go in parts laid out and
// painted only near the viewport (webview/bodyParts.ts). Rendered at once (in slices) or streamed, it ends with the
// one-shot render's DOM, parts included; a part off screen is skipped, and its text is still found, selected and
// copied as a user expects.
import * as assert from 'node:assert/strict';
import type { Snapshot } from '../../src/shared/protocol';
import { benchAnswer } from '../../bench/panelContent';
// The one-shot render in Node colours code as the page does once its highlighter has run.
import '../../webview/highlighterBundle';
import { PART_BLOCKS } from '../../webview/bodyParts';
import { renderMarkdown, splitBlocks } from '../../webview/markdownStream';
import { HIGHLIGHTER_LOADED, openWebviewPage, useWebviewBrowser, waitInPage } from '../support/webviewPage';

const EMPTY: Snapshot = { messages: [], workers: [], permissions: [], state: { busy: false, model: 'gpt-4.1', routingAuto: true } };
const MARKER = 'zebra-quartz-7';

// Appends the text as a settled reply ('a', rendered in slices) and streams it as another ('b', then completed as the
// host does); reports both bodies' HTML next to the expected one, parsed the same way, and what the parts are.
const RENDER_BOTH = String.raw`(async function (text, expected) {
  var seq = 1;
  function post(m) { m.seq = ++seq; window.postMessage(m, '*'); }
  function frame() { return new Promise(function (r) { requestAnimationFrame(function () { setTimeout(r, 0); }); }); }
  function body(id) { return document.querySelector('[data-id="' + id + '"] .message-body'); }
  post({ type: 'message/append', message: { id: 'a', role: 'assistant', content: text, status: 'complete', ts: Date.now() } });
  await frame();
  while (body('a').hasAttribute('aria-busy')) await frame();
  post({ type: 'message/append', message: { id: 'b', role: 'assistant', content: '', status: 'streaming', ts: Date.now() } });
  for (var at = 0; at < text.length; at += 1500) { post({ type: 'message/delta', id: 'b', delta: text.slice(at, at + 1500) }); await frame(); }
  post({ type: 'message/update', id: 'b', patch: { status: 'complete' } });
  while (document.querySelector('[data-id="b"]').dataset.status !== 'complete') await frame();
  await frame();
  var t = document.createElement('template');
  t.innerHTML = expected;
  var parts = body('a').querySelectorAll(':scope > .md-part');
  return {
    sliced: body('a').innerHTML, streamed: body('b').innerHTML, expected: t.innerHTML,
    parts: parts.length, contentVisibility: parts.length ? getComputedStyle(parts[0]).contentVisibility : '',
  };
})`;

// Scrolls the log to its end, so the settled reply's part with the marker is far off screen; reports whether that
// part is skipped (not rendered) and copied with the rest, then finds the marker as find-in-page does, scrolls to it
// and reports what the user then sees.
const FIND_OFF_SCREEN = String.raw`(async function (marker) {
  function frame() { return new Promise(function (r) { requestAnimationFrame(function () { setTimeout(r, 0); }); }); }
  var b = document.querySelector('[data-id="b"]');
  b.lastElementChild.scrollIntoView({ block: 'end' });
  await frame(); await frame();
  var p = Array.prototype.find.call(document.querySelectorAll('[data-id="a"] .md-part p'), function (el) { return el.textContent.indexOf(marker) >= 0; });
  var part = p.closest('.md-part');
  var skippedBefore = !p.checkVisibility({ contentVisibilityAuto: true });
  var body = document.querySelector('[data-id="a"] .message-body');
  var all = document.createRange();
  all.selectNodeContents(body);
  var copied = all.toString().indexOf(marker) >= 0;
  getSelection().removeAllRanges();
  var found = window.find(marker, true, false, false, false, false, false);
  var selected = getSelection().toString(), selectionInPart = part.contains(getSelection().anchorNode);
  // window.find selects without scrolling here (the panel's find bar scrolls to the match): the user's scroll to it.
  getSelection().anchorNode.parentElement.scrollIntoView({ block: 'center' });
  await frame(); await frame();
  var box = p.getBoundingClientRect();
  return {
    skippedBefore: skippedBefore, copied: copied, found: found, selected: selected, selectionInPart: selectionInPart,
    renderedAfter: p.checkVisibility({ contentVisibilityAuto: true }),
    onScreen: box.height > 0 && box.bottom > 0 && box.top < innerHeight, 
  };
})`;

describe('webview: a long reply in parts laid out only near the viewport (Chromium)', function () {
  this.timeout(180_000);
  const web = useWebviewBrowser();

  it('rendered at once, in slices and streamed it is the one-shot DOM in parts; text in a part off screen is found, shown and copied', async () => {
    // A paragraph only this part has, a quarter of the way in.
    const long = benchAnswer(60_000);
    const at = long.indexOf('## Step 25:');
    const text = `${long.slice(0, at)}The marker is ${MARKER}.\n\n${long.slice(at)}`;
    const blocks = splitBlocks(text).length;
    assert.ok(blocks > 4 * PART_BLOCKS, `${blocks} blocks`);
    const wp = await openWebviewPage(web.browser(), { build: web.build(), replyToReady: [{ type: 'snapshot', seq: 1, snapshot: EMPTY }] });
    try {
      await wp.page.waitForSelector('[data-testid="empty-state"]');
      await waitInPage(wp.page, HIGHLIGHTER_LOADED);
      const r = (await wp.page.evaluate(`${RENDER_BOTH}(${JSON.stringify(text)}, ${JSON.stringify(renderMarkdown(text))})`)) as Record<string, unknown>;
      assert.ok(r.sliced === r.expected, 'rendered in slices, the DOM is the one-shot render');
      assert.ok(r.streamed === r.expected, 'streamed, the DOM is the one-shot render');
      // The first PART_BLOCKS blocks are the body's own; each PART_BLOCKS after them one part.
      assert.equal(r.parts, Math.ceil(blocks / PART_BLOCKS) - 1);
      assert.equal(r.contentVisibility, 'auto');

      const f = (await wp.page.evaluate(`${FIND_OFF_SCREEN}(${JSON.stringify(MARKER)})`)) as Record<string, unknown>;
      assert.equal(f.skippedBefore, true, 'the part off screen is not rendered');
      assert.equal(f.copied, true, 'selecting the whole reply copies the part off screen too');
      assert.equal(f.found, true, 'find-in-page finds the text of a part off screen');
      assert.equal(f.selected, MARKER);
      assert.equal(f.selectionInPart, true);
      assert.equal(f.renderedAfter, true, 'scrolled to, the part found is rendered');
      assert.equal(f.onScreen, true, 'scrolled to, it is on screen');
      assert.deepEqual(wp.errors, []);
      assert.deepEqual(await wp.cspViolations(), []);
    } finally {
      await wp.close();
    }
  });
});
