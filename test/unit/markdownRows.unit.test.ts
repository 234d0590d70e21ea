import * as assert from 'node:assert/strict';
import { renderBlock } from '../../webview/markdownRender';
import { RowBlock, renderRows, SEGMENT_ROWS } from '../../webview/markdownRows';
import { RowCutter, rowShape } from '../../webview/rowCutter';
import { renderMarkdown, splitBlocks } from '../../webview/markdownStream';
import { rng } from '../../bench/panelContent';

/** The rows RowCutter cuts `src` into, when it sees the text whole. */
function rowsOf(src: string): string[] {
  const shape = rowShape(src, true);
  assert.ok(shape, `not a list or table: ${JSON.stringify(src)}`);
  const cutter = new RowCutter(shape);
  cutter.cut(src, true);
  return cutter.ends.map((end, i) => src.slice(cutter.ends[i - 1] ?? shape.headEnd, end));
}

/** Feeds `src` to a RowBlock in random pieces, as a stream does, and returns the HTML it ends with. */
function streamed(src: string, seed: number): string {
  const random = rng(seed);
  let block: RowBlock | null | undefined;
  for (let at = 0; at < src.length;) {
    at = Math.min(src.length, at + 1 + Math.floor(random() * 12));
    const prefix = src.slice(0, at);
    block ??= RowBlock.for(prefix);
    if (block === null) return 'not rows';
    if (block) {
      assert.ok(block.commit(prefix), `commit of ${JSON.stringify(prefix)}`);
      block.openRowHtml(prefix);
    }
  }
  block ??= RowBlock.for(src, true);
  if (!block) return 'not rows';
  return block.commit(src, true) ? block.html() : 'not rows';
}

// Lists and tables in the forms replies use, and the CommonMark corners a row-at-a-time render could get wrong.
const BLOCKS = [
  '- a\n- b\n- c\n',
  '* one\n* two `code`\n* three **bold**\n',
  '+ x\n+ y',
  '1. first\n2. second\n3. third\n',
  '3) three\n4) four\n',
  '1. one\n1. one again\n1. and again\n',
  '- [ ] todo\n- [x] done\n- plain\n',
  '- a\n  - a1\n  - a2\n- b\n  1. b1\n- c\n',
  '- a\n\n- b\n- c\n',
  '- a\n- b\n\n- c\n',
  '- a\n\n  more of a\n- b\n',
  '- a\n  ```ts\n  const x = 1;\n\n  const y = 2;\n  ```\n- b\n',
  '- a\n  - a1\n\n  - a2\n- b\n',
  '- a\nlazy continuation\n- b\n',
  '- a\n-\n- c\n',
  '- a\n * b\n- c\n',
  '- a\n - b\n- c\n',
  '- see https://example.com/x and [docs](https://example.com)\n- `x | y`\n',
  '- a\n> quote\n',
  '- a\n- b\n---\n',
  '- - -\n',
  '- a\n1. b\n',
  '10. ten\n11. eleven\n',
  '- a\n\n',
  '- item\n  > quoted\n  > more\n- next\n',
  '| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 | 4 |\n',
  '| a | b |\n| --- | --- |\n| 1 |\n| 1 | 2 | 3 |\n',
  'a | b\n--|--\n1 | 2\n',
  '| a |\n|---|\n',
  '| x | y |\n|:--|--:|\n| `a\\|b` | **c** |\n| [l](https://e.com) | z |',
  `${'| c '.repeat(70)}|\n${'|---'.repeat(70)}|\n${'| 1 '.repeat(70)}|\n${'| 2 '.repeat(80)}|\n`,
  '| a | b |\n|---|---|\n| 1 | 2 |\n- list after\n',
];

describe('markdown rows (lists and tables a row at a time)', () => {
  it('cuts a list at its siblings and a table at its lines', () => {
    assert.deepEqual(rowsOf('- a\n  - a1\n- b\nlazy\n- c'), ['- a\n  - a1\n', '- b\nlazy\n', '- c']);
    assert.deepEqual(rowsOf('1. a\n2. b\n'), ['1. a\n', '2. b\n']);
    // Another marker is not a sibling (markdown-it starts a new list there, and the block is rendered whole).
    assert.deepEqual(rowsOf('- a\n* b\n'), ['- a\n* b\n']);
    assert.deepEqual(rowsOf('| a |\n|---|\n| 1 |\n| 2 |'), ['| 1 |\n', '| 2 |']);
    assert.equal(rowShape('| a |\nnot a delimiter\n'), null);
    assert.equal(rowShape('| a |'), undefined, 'undecided until the delimiter line is complete');
    assert.equal(rowShape('plain text\n'), null);
  });

  it('renders every list and table exactly as markdown-it renders it whole', () => {
    for (const src of BLOCKS) {
      for (const block of splitBlocks(src)) {
        const rows = renderRows(block);
        if (rows !== null) assert.equal(rows, renderBlock(block), JSON.stringify(block));
      }
    }
  });

  it('renders random lists exactly as markdown-it does, streamed in any pieces or at once', () => {
    const lines = ['- a', '- b *em*', '  - nested', '  continued', '', '- [x] task', '  ```', '  code', '  ```', 'lazy', '-', '  > q'];
    const random = rng(42);
    let rendered = 0;
    for (let n = 0; n < 400; n++) {
      let src = '- start\n';
      const count = 2 + Math.floor(random() * 10);
      for (let i = 0; i < count; i++) src += `${lines[Math.floor(random() * lines.length)]}\n`;
      for (const block of splitBlocks(src)) {
        const rows = renderRows(block);
        if (rows === null) continue;
        rendered++;
        assert.equal(rows, renderBlock(block), JSON.stringify(block));
        assert.equal(streamed(block, n), rows, `streamed ${JSON.stringify(block)}`);
      }
    }
    assert.ok(rendered > 300, `only ${rendered} of the random lists were rendered a row at a time`);
  });

  it('streams the fixed cases to the same HTML as the one-shot render', () => {
    for (const src of BLOCKS) {
      for (const block of splitBlocks(src)) {
        const rows = renderRows(block);
        if (rows !== null) for (let seed = 1; seed <= 5; seed++) assert.equal(streamed(block, seed), rows, JSON.stringify(block));
      }
    }
  });

  it("a long list comes in segments of SEGMENT_ROWS items, numbered on, that join into markdown-it's list", () => {
    let list = '';
    for (let i = 3; i < 3 + 2.5 * SEGMENT_ROWS; i++) list += `${i}. step ${i}\n`;
    const html = renderRows(list)!;
    assert.deepEqual(
      [...html.matchAll(/<ol[^>]*>/g)].map((m) => m[0]),
      [
        '<ol start="3" class="md-seg">',
        `<ol start="${3 + SEGMENT_ROWS}" class="md-seg md-cont">`,
        `<ol start="${3 + 2 * SEGMENT_ROWS}" class="md-seg md-cont">`,
      ],
    );
    const joined = html.replace(/<\/ol>\n<ol[^>]*>\n/g, '').replace(' class="md-seg"', '');
    assert.equal(joined, renderBlock(list));
    assert.equal(streamed(list, 7), html);
  });

  it("a long table comes in segments of SEGMENT_ROWS rows with one column layout, one table by its roles, that join into markdown-it's table", () => {
    let table = '| # | name | note |\n|--:|:-----|:-:|\n';
    for (let i = 1; i <= 2.5 * SEGMENT_ROWS; i++) table += `| ${i} | \`src/h${i}.ts\` | ${i % 7 ? 'ok' : 'a rather longer note than most'} |\n`;
    const html = renderRows(table)!;
    assert.ok(html.startsWith('<div class="md-table" role="table">\n<div class="md-tseg"><table role="presentation">\n<colgroup>'), html.slice(0, 200));
    assert.equal(html.match(/<div class="md-tseg">/g)?.length, 3, 'three segments');
    const colgroups = html.match(/<colgroup>.*<\/colgroup>/g)!;
    assert.equal(new Set(colgroups).size, 1, 'every segment has the same column widths');
    const widths = [...colgroups[0]!.matchAll(/<col width="([\d.]+)%">/g)].map((m) => Number(m[1]));
    assert.equal(widths.length, 3);
    assert.ok(Math.abs(widths.reduce((a, b) => a + b, 0) - 100) < 1e-9, `widths add up to 100 %: ${widths.join(' ')}`);
    assert.ok(widths[0]! < widths[1]! && widths[0]! < widths[2]!, `the number column is the narrowest: ${widths.join(' ')}`);
    assert.equal(html.match(/<thead/g)?.length, 1, 'the head once, in the first segment');
    assert.match(html, /<thead role="rowgroup">\n<tr role="row">\n<th class="align-right" role="columnheader">#<\/th>/);
    assert.equal(html.match(/<td[^>]* role="cell">/g)?.length, 3 * 2.5 * SEGMENT_ROWS, 'every cell has its role');
    // Without the segments' wrappers, column widths and roles, it is markdown-it's table.
    const joined = html
      .replace(/ role="[a-z]+"/g, '')
      .replace(/<colgroup>.*<\/colgroup>\n/g, '')
      .replace(/<\/tbody>\n<\/table><\/div>\n<div class="md-tseg"><table>\n<tbody>\n/g, '')
      .replace('<div class="md-table">\n<div class="md-tseg"><table>', '<table>')
      .replace('</table></div>\n</div>\n', '</table>\n');
    assert.equal(joined, renderBlock(table));
    for (let seed = 1; seed <= 3; seed++) assert.equal(streamed(table, seed), html);
  });

  it('a streamed table turning into segments keeps the rows it committed (their HTML gains the roles)', () => {
    const head = '| a | b |\n|---|---|\n';
    const rows = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `| ${from + i} | x |\n`).join('');
    const block = RowBlock.for(head)!;
    const first = block.commit(head + rows(0, SEGMENT_ROWS));
    assert.equal(first && !first.rerendered && first.added.length, SEGMENT_ROWS);
    assert.equal(first && !first.rerendered && first.added[0], '<tr>\n<td>0</td>\n<td>x</td>\n</tr>\n', 'one table so far');
    const turned = block.commit(head + rows(0, SEGMENT_ROWS + 1));
    assert.deepEqual(turned, {
      rerendered: false,
      added: [`<tr role="row">\n<td role="cell">${SEGMENT_ROWS}</td>\n<td role="cell">x</td>\n</tr>\n`],
      segmented: true,
    });
    assert.ok(block.html().startsWith('<div class="md-table" role="table">\n'), 'the rows before are segment rows in html()');
    assert.match(block.html(), /<tbody role="rowgroup">\n<tr role="row">\n<td role="cell">0<\/td>/);
    const next = block.commit(head + rows(0, SEGMENT_ROWS + 2));
    assert.deepEqual(next, { rerendered: false, added: [`<tr role="row">\n<td role="cell">${SEGMENT_ROWS + 1}</td>\n<td role="cell">x</td>\n</tr>\n`] });
  });

  it('a list turning loose renders its earlier items again, once', () => {
    const block = RowBlock.for('- a\n- b\n- c\n')!;
    const first = block.commit('- a\n- b\n- c\n');
    assert.deepEqual(first, { rerendered: false, added: ['<li>a</li>\n', '<li>b</li>\n'] });
    const loose = block.commit('- a\n- b\n- c\n\n- d\n');
    assert.deepEqual(loose, { rerendered: true, all: ['<li>\n<p>a</p>\n</li>\n', '<li>\n<p>b</p>\n</li>\n', '<li>\n<p>c</p>\n</li>\n'] });
    assert.deepEqual(block.commit('- a\n- b\n- c\n\n- d\n- e\n'), { rerendered: false, added: ['<li>\n<p>d</p>\n</li>\n'] });
  });

  it('a list or table of 100 KB renders as one, not as plain text, and a row too long to render sends it whole', () => {
    let list = '';
    for (let i = 0; list.length < 100_000; i++) list += `- item ${i} *x*\n`;
    const html = renderMarkdown(list);
    const items = list.split('\n').length - 1;
    assert.match(html, /^<ul class="md-seg">\n<li>item 0 <em>x<\/em><\/li>\n/);
    assert.equal(html.match(/<li>/g)?.length, items);
    assert.equal(html.match(/<ul class="md-seg( md-cont)?">/g)?.length, Math.ceil(items / SEGMENT_ROWS), 'in segments');
    let table = '| n | x |\n|---|---|\n';
    for (let i = 0; table.length < 100_000; i++) table += `| ${i} | y |\n`;
    assert.equal(renderMarkdown(table).match(/<tr role="row">/g)?.length, table.split('\n').length - 2);
    assert.equal(renderRows(`- ${'word '.repeat(5000)}\n- b\n`), null, 'a 25 KB item is over the block limit');
  });
});
