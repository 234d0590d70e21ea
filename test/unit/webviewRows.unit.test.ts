// The real webview bundle in Chromium (test/support/webviewPage.ts): long lists and tables streamed in small pieces end
// with exactly the DOM of rendering the reply at once, and an item shown once is never rendered again (the same node
// is still in the page at the end).
import * as assert from 'node:assert/strict';
import type { Snapshot } from '../../src/shared/protocol';
import { renderMarkdown } from '../../webview/markdownStream';
import { SEGMENT_ROWS } from '../../webview/markdownRows';
import { openWebviewPage, useWebviewBrowser } from '../support/webviewPage';

const EMPTY: Snapshot = { messages: [], workers: [], permissions: [], state: { busy: false, model: 'gpt-4.1', routingAuto: true } };

// Posts the reply in pieces of `size` characters, one frame apart every `perFrame` pieces; marks the first list item
// or table row the moment it appears, then completes the message (with `final` as its content, as the host completes
// a turn with the whole reply; with no content if `final` is undefined) and reports the body's HTML and whether the
// marked node is still the one in the page.
const DRIVER = String.raw`(async function (text, size, perFrame, expected, final, role) {
  var seq = 1;
  function post(m) { m.seq = ++seq; window.postMessage(m, '*'); }
  function frame() { return new Promise(function (r) { requestAnimationFrame(function () { setTimeout(r, 0); }); }); }
  post({ type: 'message/append', message: { id: 'r', role: 'assistant', content: '', status: 'streaming', ts: Date.now() } });
  var first = null;
  for (var at = 0, n = 0; at < text.length; at += size, n++) {
    post({ type: 'message/delta', id: 'r', delta: text.slice(at, at + size) });
    if (n % perFrame === perFrame - 1) {
      await frame();
      first = first || document.querySelector('[data-id="r"] .message-body li, [data-id="r"] .message-body tbody tr');
    }
  }
  var patch = final === undefined ? { status: 'complete' } : { status: 'complete', content: final };
  if (role) patch.role = role;
  post({ type: 'message/update', id: 'r', patch: patch });
  // Text still waiting for a frame is shown by the frames after the completion: the first item may appear in them.
  await new Promise(function (done) {
    (function check() {
      first = first || document.querySelector('[data-id="r"] .message-body li, [data-id="r"] .message-body tbody tr');
      var el = document.querySelector('[data-id="r"]'); if (el && el.dataset.status === 'complete') done(); else requestAnimationFrame(check);
    })();
  });
  var body = document.querySelector('[data-id="r"] .message-body');
  // Text rendered anew comes in slices (slicedRender.ts): under load even two blocks can take two frames.
  while (body.hasAttribute('aria-busy')) await new Promise(function (r) { requestAnimationFrame(r); });
  var t = document.createElement('template');
  t.innerHTML = expected;
  return { same: body.innerHTML === t.innerHTML, html: body.innerHTML, expected: t.innerHTML, firstKept: !!first && first.isConnected && body.contains(first) };
})`;

function lines(count: number, head: string, line: (i: number) => string): string {
  let text = head;
  for (let i = 1; i <= count; i++) text += line(i);
  return text;
}

// The reply, and whether its first item stays the same node to the end (a list turning loose renders its items again,
// once; a block that is not one list is rendered whole).
const REPLIES: Array<[string, string, boolean?]> = [
  [
    'a long list between paragraphs',
    `Here are the files:\n\n${lines(SEGMENT_ROWS * 3 + 7, '', (i) => `- \`src/f${i}.ts\`: *${i}* changes\n`)}\nThat is all.\n`,
  ],
  ['a numbered list that runs over several segments', lines(SEGMENT_ROWS * 2 + 3, '', (i) => `${i}. step ${i}\n`)],
  ['a list that turns loose half-way', `${lines(60, '', (i) => `- item ${i}\n`)}\n${lines(40, '', (i) => `- later ${i}\n`)}`, false],
  ['a task list with nested items', lines(150, '', (i) => (i % 3 ? `  - sub ${i}\n` : `- [${i % 2 ? 'x' : ' '}] task ${i}\n`))],
  [
    'a long table, in segments',
    `Results:\n\n${lines(400, '| # | file | before | after |\n|--:|:-----|:------:|------|\n', (i) => `| ${i} | h${i}.ts | 500 | **401** |\n`)}\nDone.`,
  ],
  [
    'a table just past one segment, with columns left out',
    lines(SEGMENT_ROWS + 1, `${'| c '.repeat(66)}|\n${'|---'.repeat(66)}|\n`, (i) => `${'| x '.repeat(65)}| ${i} |\n`),
    // A row is longer than a frame's text here: the first row seen is the open row's, replaced as it grows.
    false,
  ],
  ['a table of one segment', lines(SEGMENT_ROWS, '| # | file |\n|--:|:-----|\n', (i) => `| ${i} | h${i}.ts |\n`)],
  ['a list that is not one list', '- a\n- b\n* c\n- d\n\n1. x\n2. y\n- z\n', false],
];

describe('webview: lists and tables stream a row at a time (Chromium)', function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();

  it('a long table: its segments line their columns up, and assistive technology reads one table with its header cells', async () => {
    const rows = SEGMENT_ROWS * 2 + 50;
    const text = lines(
      rows,
      '| # | file | note | after |\n|--:|:-----|:------:|------|\n',
      (i) => `| ${i} | \`src/h${i}.ts\` | ${i % 9 ? 'ok' : 'slower than the rest'} | 401 |\n`,
    );
    const wp = await openWebviewPage(chromium.browser(), { build: chromium.build(), replyToReady: [{ type: 'snapshot', seq: 1, snapshot: EMPTY }] });
    try {
      await wp.page.waitForSelector('[data-testid="empty-state"]');
      const streamed = (await wp.page.evaluate(`${DRIVER}(${JSON.stringify(text)}, 53, 3, ${JSON.stringify(renderMarkdown(text))})`)) as { same: boolean };
      assert.ok(streamed.same, 'streamed, the DOM is the one-shot render');
      // The left and right edges of each segment's first row's cells (the head's, in the first), in every segment.
      const edges = (await wp.page.evaluate(`[...document.querySelectorAll('[data-id="r"] .md-tseg')].map(function (seg) {
        return [...seg.querySelector('tr').children].map(function (c) { var b = c.getBoundingClientRect(); return [Math.round(b.left * 100) / 100, Math.round(b.right * 100) / 100]; });
      })`)) as number[][][];
      assert.equal(edges.length, 3, 'three segments');
      for (const seg of edges) assert.deepEqual(seg, edges[0], 'columns line up');
      assert.ok(edges[0]![1]![1]! - edges[0]![1]![0]! > edges[0]![0]![1]! - edges[0]![0]![0]!, 'the file column is wider than the number column');

      const tree = await wp.page.locator('[data-id="r"] .message-body').ariaSnapshot();
      const roles = (role: string) => tree.split('\n').filter((l) => new RegExp(`^- ${role}(?:[ :]|$)`).test(l.trim()));
      assert.equal(roles('table').length, 1, tree.slice(0, 500));
      assert.equal(roles('row').length, rows + 1, "every row, the head's included");
      assert.deepEqual(
        roles('columnheader').map((l) => l.trim()),
        ['- columnheader "#"', '- columnheader "file"', '- columnheader "note"', '- columnheader "after"'],
      );
      assert.equal(roles('cell').length, rows * 4);
      const lines_ = tree.split('\n');
      const table = lines_.findIndex((l) => l.trim().startsWith('- table'));
      const indent = (l: string) => l.length - l.trimStart().length;
      const firstRow = lines_.findIndex((l) => /^- row[ :]/.test(l.trim()));
      assert.ok(firstRow > table && indent(lines_[firstRow]!) > indent(lines_[table]!), 'the rows are inside the table');
      assert.deepEqual(wp.errors, []);
      assert.deepEqual(await wp.cspViolations(), []);
    } finally {
      await wp.close();
    }
  });

  // Each new segment of a streamed list restyles its own rows, not every item shown before it (issue 20): in no style
  // pass does Chromium's style invalidation (counted from its trace) visit more than about a segment's items. Styled by
  // a sibling selector (.md-seg + .md-seg), each new segment made it visit every item of the message (1,114 elements in
  // one pass for these 1,200 items). And the segments still read as one list: spaced as the items are.
  it('a streamed list restyles what each frame adds, not the items before it, and its segments read as one list', async () => {
    const items = SEGMENT_ROWS * 12;
    const text = lines(items, '', (i) => `${i}. step ${i} **done**\n`);
    const wp = await openWebviewPage(chromium.browser(), { build: chromium.build(), replyToReady: [{ type: 'snapshot', seq: 1, snapshot: EMPTY }] });
    try {
      await wp.page.waitForSelector('[data-testid="empty-state"]');
      await chromium.browser().startTracing(wp.page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline.invalidationTracking'] });
      const result = (await wp.page.evaluate(`${DRIVER}(${JSON.stringify(text)}, 300, 2, ${JSON.stringify(renderMarkdown(text))})`)) as { same: boolean };
      const trace = JSON.parse((await chromium.browser().stopTracing()).toString()) as {
        traceEvents: Array<{ name: string; ph: string; ts: number; dur?: number }>;
      };
      assert.ok(result.same, 'streamed, the DOM is the one-shot render');
      const visits = trace.traceEvents.filter((e) => e.name === 'StyleInvalidatorInvalidationTracking');
      const passes = trace.traceEvents.filter((e) => e.name === 'UpdateLayoutTree' && e.ph === 'X');
      const perPass = passes.map((p) => visits.filter((v) => v.ts >= p.ts && v.ts <= p.ts + (p.dur ?? 0)).length);
      assert.ok(passes.length > 12 && visits.length > 0, `the trace has the style passes (${passes.length}) and what they visited (${visits.length})`);
      assert.ok(Math.max(...perPass) <= 2 * SEGMENT_ROWS, `elements visited in one style pass, at most: ${Math.max(...perPass)}`);
      // From the last item of each segment to the first of the next, less the spacing from one item to the next.
      const gaps = (await wp.page.evaluate(`(function () {
        var segs = [...document.querySelectorAll('[data-id="r"] ol')], out = [];
        var within = segs[0].children[1].getBoundingClientRect().top - segs[0].children[0].getBoundingClientRect().bottom;
        for (var i = 1; i < segs.length; i++) out.push(Math.round((segs[i].firstElementChild.getBoundingClientRect().top - segs[i - 1].lastElementChild.getBoundingClientRect().bottom - within) * 10) / 10);
        return out;
      })()`)) as number[];
      assert.deepEqual(gaps, Array<number>(11).fill(0), 'twelve segments, spaced as the items are');
      assert.deepEqual(wp.errors, []);
      assert.deepEqual(await wp.cspViolations(), []);
    } finally {
      await wp.close();
    }
  });

  // The host completes a turn with its whole reply as the content, a note after it when there is one
  // (chatController.ts, withNote): what streamed stays in the DOM and only the note is rendered; other content (a turn
  // that was retried) is rendered anew.
  const COMPLETIONS: Array<[string, string, string, boolean]> = [
    ['completed with the streamed text and a note after it', lines(SEGMENT_ROWS * 2 + 3, '', (i) => `${i}. step ${i}\n`), '\n\n_Stopped at the limit._', true],
    ['completed with the streamed text, while text is still waiting for a frame', lines(SEGMENT_ROWS + 9, '', (i) => `- [ ] task ${i}\n`), '', true],
    ['completed with other content', lines(150, '', (i) => `- item ${i}\n`), 'REPLACE', false],
  ];
  for (const [name, text, after, kept] of COMPLETIONS) {
    it(`a long list ${name}: the DOM is the one-shot render of the final content${kept ? ', and the streamed items are kept' : ''}`, async () => {
      const final = after === 'REPLACE' ? 'Something else:\n\n- one\n- two\n' : text + after;
      const wp = await openWebviewPage(chromium.browser(), { build: chromium.build(), replyToReady: [{ type: 'snapshot', seq: 1, snapshot: EMPTY }] });
      try {
        await wp.page.waitForSelector('[data-testid="empty-state"]');
        // The second: pieces of 4,000 characters with no frame between them, so the completion comes with text unshown.
        const [size, perFrame] = after === '' ? [4000, 1000] : [41, 4];
        const result = (await wp.page.evaluate(
          // The note's completion also names the role the message has (no change, so nothing is rendered again).
          `${DRIVER}(${JSON.stringify(text)}, ${size}, ${perFrame}, ${JSON.stringify(renderMarkdown(final))}, ${JSON.stringify(final)}, ${after.startsWith('\n') ? "'assistant'" : 'undefined'})`,
        )) as { same: boolean; html: string; expected: string; firstKept: boolean };
        assert.equal(result.html, result.expected);
        assert.ok(result.same);
        assert.equal(result.firstKept, kept, kept ? 'the first item shown is the node the finished message has' : 'the list was rendered anew');
        assert.deepEqual(wp.errors, []);
        assert.deepEqual(await wp.cspViolations(), []);
      } finally {
        await wp.close();
      }
    });
  }

  for (const [name, text, kept = true] of REPLIES) {
    it(`${name}: streamed, the DOM is the one-shot render's${kept ? ', and the first item is never rendered again' : ''}`, async () => {
      const wp = await openWebviewPage(chromium.browser(), { build: chromium.build(), replyToReady: [{ type: 'snapshot', seq: 1, snapshot: EMPTY }] });
      try {
        await wp.page.waitForSelector('[data-testid="empty-state"]');
        const result = (await wp.page.evaluate(
          `${DRIVER}(${JSON.stringify(text)}, 37, 4, ${JSON.stringify(renderMarkdown(text))}, ${JSON.stringify(text)})`,
        )) as {
          same: boolean;
          html: string;
          expected: string;
          firstKept: boolean;
        };
        if (result.html !== result.expected) {
          let at = 0;
          while (result.html[at] === result.expected[at]) at++;
          assert.fail(
            `differs at ${at}: ${JSON.stringify(result.html.slice(at - 200, at + 200))}\nexpected ${JSON.stringify(result.expected.slice(at - 200, at + 200))}`,
          );
        }
        assert.ok(result.same);
        if (kept) assert.ok(result.firstKept, 'the first item shown is the node the finished message has');
        assert.deepEqual(wp.errors, []);
        assert.deepEqual(await wp.cspViolations(), []);
      } finally {
        await wp.close();
      }
    });
  }
});
