import * as assert from 'node:assert/strict';
import { pathologicalInputs } from '../../bench/pathologicalInputs';
import { highlightCode } from '../../webview/codeHighlight';
import '../../webview/highlighterBundle';
import { HIGHLIGHT_LIMIT } from '../../webview/highlighter';
import { blockStageTokens, CHUNK, chunkEnd, MAX_COLUMNS, MAX_DELIMITERS, MAX_RENDERED_BLOCK, openFenceShell, renderBlock } from '../../webview/markdownRender';
import { BlockSplitter, MarkdownStream, renderMarkdown, splitBlocks } from '../../webview/markdownStream';

/** A small deterministic PRNG, so a failing chunking can be replayed from its seed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function streamInChunks(text: string, seed: number, maxChunk: number): string {
  const random = rng(seed);
  const stream = new MarkdownStream();
  let html = '';
  for (let i = 0; i < text.length;) {
    const n = 1 + Math.floor(random() * maxChunk);
    html += stream.push(text.slice(i, i + n)).done;
    i += n;
  }
  return html + stream.finalHtml();
}

/** The text a user reads in some HTML: tags dropped, the entities markdown-it and highlight.js emit decoded. */
function textOf(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))
    .replace(/&amp;/g, '&');
}

const md = (text: string): string => renderMarkdown(text).replace(/\n/g, '');

const SAMPLE = [
  '# Plan',
  '',
  'Here is **what** I will do, with `npm test` and a [link](https://example.com "Example").',
  'A second line of the same paragraph.',
  '## Steps',
  '1. Read the code',
  '2. Change it:',
  '   ```ts',
  '   export const x: number = 1;',
  '',
  '   // a blank line above stays inside the fence',
  '   ```',
  '3. Run the tests',
  '',
  '| file | lines |',
  '|:-----|------:|',
  '| a.ts | 10 |',
  '| b.ts | 20 |',
  '',
  '> Note: *quoted*',
  '',
  '~~~python',
  'def f(x):',
  '    return "#" + x  # comment',
  '~~~',
  '- [x] done',
  '- [ ] not yet',
  '  - nested',
  '',
  '  still the same item',
  '- last',
  '',
  '---',
  'Trailing text with <b>html</b> & entities and an unclosed `code span',
].join('\n');

describe('markdown renderer (markdown-it)', () => {
  describe('blocks', () => {
    it('renders headings, paragraphs with line breaks, and rules', () => {
      assert.equal(md('# One'), '<h1>One</h1>');
      assert.equal(md('### Three ###'), '<h3>Three</h3>');
      assert.equal(md('####### seven'), '<p>####### seven</p>');
      assert.equal(md('a\nb\n\nc'), '<p>a<br>b</p><p>c</p>');
      assert.equal(md('a\n\n---\n\nb'), '<p>a</p><hr><p>b</p>');
    });

    it('renders unordered, ordered, nested, loose and task lists', () => {
      assert.equal(md('- a\n- b'), '<ul><li>a</li><li>b</li></ul>');
      assert.equal(md('3) c\n4) d'), '<ol start="3"><li>c</li><li>d</li></ol>');
      assert.equal(md('- a\n  - b\n- d'), '<ul><li>a<ul><li>b</li></ul></li><li>d</li></ul>');
      // A blank line between items keeps one (loose) list, numbering included.
      assert.equal(md('1. a\n\n2. b\n\nafter\n'), '<ol><li><p>a</p></li><li><p>b</p></li></ol><p>after</p>');
      assert.equal(
        md('- [x] done\n- [ ] todo'),
        '<ul><li class="task"><input type="checkbox" disabled checked aria-label="done"> done</li><li class="task"><input type="checkbox" disabled aria-label="not done"> todo</li></ul>',
      );
    });

    it('renders tables with alignment as classes (the CSP admits no style attribute)', () => {
      const html = md('| a | b | c |\n|:--|:-:|--:|\n| 1 | **2** | `x` |');
      assert.match(html, /<th class="align-left">a<\/th><th class="align-center">b<\/th><th class="align-right">c<\/th>/);
      assert.match(html, /<td class="align-center"><strong>2<\/strong><\/td><td class="align-right"><code>x<\/code><\/td>/);
      assert.doesNotMatch(html, /style=/);
    });

    it('renders block quotes and strikethrough', () => {
      assert.equal(md('> a **b**\n> > c'), '<blockquote><p>a <strong>b</strong></p><blockquote><p>c</p></blockquote></blockquote>');
      assert.equal(md('~~gone~~'), '<p><s>gone</s></p>');
    });
  });

  describe('code fences', () => {
    it('renders a fence with its language, highlighting and the Copy / Insert buttons', () => {
      const html = md('```ts\nconst a = "x"; // c\n```');
      assert.match(html, /^<div class="code-block"><div class="code-toolbar"><span class="code-lang">ts<\/span>/);
      assert.match(html, /data-action="copy" data-testid="code-copy"/);
      assert.match(html, /data-action="insert" data-testid="code-insert"/);
      assert.match(
        html,
        /<pre class="code"><code class="language-ts"><span class="tok-keyword">const<\/span> a = <span class="tok-string">&quot;x&quot;<\/span>; <span class="tok-comment">\/\/ c<\/span><\/code><\/pre>/,
      );
    });

    it('keeps markdown and HTML inside a fence literal', () => {
      const html = md('```\n# not a heading\n<script>alert(1)</script>\n\n**x**\n```');
      assert.match(html, /<code># not a heading&lt;script&gt;alert\(1\)&lt;\/script&gt;\*\*x\*\*<\/code>/);
      assert.doesNotMatch(html, /<h1>|<script>|<strong>/);
    });

    it('supports tilde fences, longer closers, fences in list items and unclosed fences', () => {
      assert.match(md('~~~py\nx = 1\n~~~~'), /class="language-py">x = <span class="tok-number">1<\/span><\/code>/);
      assert.match(renderMarkdown('````\n```\ninner\n```\n````'), /<code>```\ninner\n```<\/code>/);
      assert.match(
        md('1. step\n   ```bash\n   npm test\n   ```\n2. next'),
        /<ol><li>step<div class="code-block">.*<code class="language-bash">npm <span class="tok-built_in">test<\/span><\/code>.*<\/li><li>next<\/li><\/ol>/,
      );
      assert.match(md('text\n```js\nlet a'), /<p>text<\/p><div class="code-block">.*<code class="language-js"><span class="tok-keyword">let<\/span> a<\/code>/);
    });

    it('shows a block over the highlight limit plain, with a Highlight button', () => {
      const code = 'const x = 1;\n'.repeat(Math.ceil(HIGHLIGHT_LIMIT / 13) + 1);
      const html = renderMarkdown(`\`\`\`ts\n${code}\`\`\``);
      assert.match(html, /data-action="highlight" data-testid="code-highlight"/);
      assert.doesNotMatch(html, /tok-/);
      assert.equal(textOf(/<code[^>]*>([\s\S]*)<\/code>/.exec(html)![1]!), code.slice(0, -1));
      assert.doesNotMatch(renderMarkdown('```ts\nconst x = 1;\n```'), /code-highlight/);
    });

    it('leaves the code of a message rendered whole plain, marked for colouring after the paint', () => {
      const html = renderMarkdown('```ts\nconst a = 1;\n```\n\n```nosuchlang\nx\n```', { deferHighlight: true });
      assert.match(html, /<code class="language-ts hl-pending">const a = 1;<\/code>/);
      assert.doesNotMatch(html, /tok-/);
      // Only a block a grammar will colour is marked: an unknown language stays plain for good.
      assert.match(html, /<code class="language-nosuchlang">x<\/code>/);
      const long = 'const x = 1;\n'.repeat(Math.ceil(HIGHLIGHT_LIMIT / 13) + 1);
      assert.doesNotMatch(renderMarkdown(`\`\`\`ts\n${long}\`\`\``, { deferHighlight: true }), /hl-pending/);
    });

    it('does not highlight the open block of a stream, and highlights it once the stream ends', () => {
      const stream = new MarkdownStream();
      assert.doesNotMatch(stream.push('```ts\nconst a = 1;\n').tail, /tok-/);
      assert.match(stream.finalHtml(), /<span class="tok-keyword">const<\/span>/);
    });
  });

  describe('inline', () => {
    it('renders emphasis, strong, code spans and escapes', () => {
      assert.equal(md('*a* _b_ **c** __d__ ***e***'), '<p><em>a</em> <em>b</em> <strong>c</strong> <strong>d</strong> <em><strong>e</strong></em></p>');
      assert.equal(md('snake_case_name and 2*3'), '<p>snake_case_name and 2*3</p>');
      assert.equal(md('`a **b** <c>`'), '<p><code>a **b** &lt;c&gt;</code></p>');
      assert.equal(md('\\*not em\\*'), '<p>*not em*</p>');
    });

    it('renders links, autolinks and URLs with a scheme, but not file names', () => {
      assert.equal(md('[a *b*](https://x.io/p?q=1&r=2 "T")'), '<p><a href="https://x.io/p?q=1&amp;r=2" title="T">a <em>b</em></a></p>');
      assert.equal(md('<https://x.io>'), '<p><a href="https://x.io">https://x.io</a></p>');
      assert.equal(md('see https://x.io/a_(b). next'), '<p>see <a href="https://x.io/a_(b)">https://x.io/a_(b)</a>. next</p>');
      assert.equal(md('edit utils.ts and example.com'), '<p>edit utils.ts and example.com</p>');
      assert.equal(md('[rel](src/a.ts) [f](file:///ws/a.ts)'), '<p><a href="src/a.ts">rel</a> <a href="file:///ws/a.ts">f</a></p>');
    });

    it('shows images as links to them, never loading them', () => {
      assert.equal(md('![alt](https://x.io/i.png)'), '<p><a href="https://x.io/i.png" class="md-image-link">alt</a></p>');
    });
  });

  describe('streaming', () => {
    it('keeps an open fence as the open block, blank lines included', () => {
      const splitter = new BlockSplitter();
      assert.deepEqual(splitter.push('Intro\n\n```ts\nconst a = 1;\n\n'), ['Intro\n']);
      assert.equal(splitter.tail, '```ts\nconst a = 1;\n\n');
      assert.deepEqual(splitter.push('const b = 2;\n```'), []);
      assert.deepEqual(splitter.push('\nAfter'), ['```ts\nconst a = 1;\n\nconst b = 2;\n```\n']);
      assert.equal(splitter.tail, 'After');
    });

    it('finishes a block only on a complete line, and treats CRLF like LF', () => {
      const splitter = new BlockSplitter();
      assert.deepEqual(splitter.push('para'), []);
      assert.deepEqual(splitter.push('\n'), []);
      assert.deepEqual(splitter.push('\n# Head'), ['para\n']);
      assert.deepEqual(splitter.push('ing\nmore'), ['# Heading\n']);
      const crlf = new BlockSplitter();
      crlf.push('a\r');
      assert.deepEqual(crlf.push('\n\r\nb'), ['a\n']);
    });

    it('keeps a list open across blank lines until a line that does not continue it', () => {
      assert.deepEqual(splitBlocks('- a\n\n  more\n\n- b\n\nafter\n'), ['- a\n\n  more\n\n- b\n', 'after\n']);
    });

    it('takes the last line as complete when the text ends, so a note after a list is a block of its own', () => {
      // The host completes a reply with a note after it, without a line break at the end (withNote).
      const text = '- a\n- b\n\n_Stopped at the limit._';
      assert.deepEqual(splitBlocks(text), ['- a\n- b\n', '_Stopped at the limit._\n']);
      assert.deepEqual(splitBlocks('para\n# Heading'), ['para\n', '# Heading\n']);
      for (let seed = 1; seed <= 20; seed++) assert.equal(streamInChunks(text, seed, 1 + (seed % 7)), renderMarkdown(text), `seed ${seed}`);
      const splitter = new BlockSplitter();
      splitter.push(text);
      assert.deepEqual(splitter.end(), ['- a\n- b\n']);
      assert.equal(splitter.tail, '_Stopped at the limit._\n');
      assert.deepEqual(splitter.end(), [], 'ended once');
    });

    it('yields the same HTML streamed in random chunk sizes as rendered at once', () => {
      const whole = renderMarkdown(SAMPLE);
      assert.ok(splitBlocks(SAMPLE).length >= 8);
      for (let seed = 1; seed <= 200; seed++) assert.equal(streamInChunks(SAMPLE, seed, 1 + (seed % 40)), whole, `seed ${seed}`);
      assert.equal(streamInChunks(SAMPLE, 7, 1), whole, 'one character at a time');
    });

    it('reports finished blocks once and re-renders only the tail', () => {
      const stream = new MarkdownStream();
      const first = stream.push('# T\n\nHello **wor');
      assert.equal(first.done, '<h1>T</h1>\n');
      assert.equal(first.tail, '<p>Hello **wor</p>\n');
      const second = stream.push('ld**\n\nNext');
      assert.equal(second.done, '<p>Hello <strong>world</strong></p>\n');
      assert.equal(second.tail, '<p>Next</p>\n');
    });
  });

  describe('highlighter', () => {
    it('keeps the text intact and escapes it', () => {
      const code = 'if (a < b && c > "d") { return `<x>`; } // <!-- -->';
      const html = highlightCode(code, 'typescript')!;
      assert.equal(textOf(html), code);
      assert.doesNotMatch(html.replace(/<\/?span[^>]*>/g, ''), /[<>]/);
    });

    it('colours the common languages and leaves unknown ones plain', () => {
      assert.match(highlightCode('def f(): return None', 'python')!, /tok-keyword">def<.*tok-title function_">f<.*tok-literal">None</);
      assert.match(
        highlightCode('echo "$HOME" # x', 'bash')!,
        /tok-built_in">echo<.*tok-string">&quot;<span class="tok-variable">\$HOME<\/span>&quot;<.*tok-comment"># x</,
      );
      assert.match(highlightCode('{"k": 1}', 'json')!, /tok-attr">&quot;k&quot;<.*tok-number">1</);
      assert.match(highlightCode('<a href="x">', 'html')!, /tok-name">a<.*tok-attr">href<.*tok-string">&quot;x&quot;</);
      assert.match(highlightCode('const a = 1', 'tsx')!, /tok-keyword">const</);
      assert.equal(highlightCode('x <y>', 'brainfuck'), undefined);
    });

    it('puts long words back unchanged, and still colours the rest', () => {
      const word = 'A'.repeat(5000);
      const code = `.a { color: red; background: ${word}; }\n.b { margin: 0 }`;
      const html = highlightCode(code, 'css')!;
      assert.equal(textOf(html), code);
      assert.match(html, /tok-selector-class">\.a<.*tok-attribute">color<.*tok-selector-class">\.b</s);
    });
  });

  describe('time on pathological input (issue 14: the old renderer took up to 15 s)', () => {
    // Ten times the 50 ms target: loose enough for a slow CI machine, tight enough that a quadratic path fails. Counted
    // in this process's CPU time, not wall time: other jobs on a shared machine stretch the wall clock (a 2-core machine
    // at load 16 read 506 ms for a render that takes ~60), never the CPU a render itself uses.
    const BOUND_MS = 500;
    const cpuMs = (since: NodeJS.CpuUsage): number => {
      const used = process.cpuUsage(since);
      return (used.user + used.system) / 1000;
    };
    for (const input of pathologicalInputs(100_000)) {
      it(`${input.name} (${(input.text.length / 1024).toFixed(0)} KB) renders and streams in under ${BOUND_MS} ms of CPU`, () => {
        renderMarkdown('warm *up*\n\n```ts\nconst a = 1;\n```');
        let started = process.cpuUsage();
        const html = renderMarkdown(input.text);
        const oneShot = cpuMs(started);
        assert.ok(oneShot < BOUND_MS, `one-shot render took ${oneShot.toFixed(0)} ms of CPU`);
        // Streamed 4 KB a frame, as the panel applies it: no single step may take long either.
        const stream = new MarkdownStream();
        let streamed = '';
        let longest = 0;
        for (let i = 0; i < input.text.length; i += 4096) {
          started = process.cpuUsage();
          streamed += stream.push(input.text.slice(i, i + 4096)).done;
          longest = Math.max(longest, cpuMs(started));
        }
        streamed += stream.finalHtml();
        assert.ok(longest < BOUND_MS, `a streaming step took ${longest.toFixed(0)} ms of CPU`);
        assert.equal(streamed, html, 'streamed equals one-shot');
      });
    }

    const unchunked = (html: string): string => html.replace(/<\/?span[^>]*>/g, '');

    it('shows a block with more than MAX_DELIMITERS delimiters as written', () => {
      const text = '*a'.repeat(MAX_DELIMITERS + 1);
      assert.equal(unchunked(renderBlock(text)), `<p class="md-plain">${text}</p>\n`, 'shown as written');
      assert.match(renderBlock('*a* '.repeat(100)), /<em>a<\/em>/);
    });

    it('shows a block longer than MAX_RENDERED_BLOCK as written, and code of any length as code', () => {
      const text = `[a](${'x'.repeat(MAX_RENDERED_BLOCK)}`;
      assert.equal(unchunked(renderBlock(text)), `<p class="md-plain">${text}</p>\n`);
      assert.match(renderBlock(`[a](${'x'.repeat(100)}) *b*`), /<em>b<\/em>/);
      assert.match(renderBlock(`\`\`\`ts\n${'const a = 1;\n'.repeat(3000)}\`\`\`\n`), /<code class="language-ts">/);
    });

    it('cuts long plain text into chunks at line ends, keeping every character', () => {
      const code = Array.from({ length: 2000 }, (_, i) => `line ${i} <tag> & "q"`).join('\n');
      const html = renderBlock(`\`\`\`\n${code}\n\`\`\`\n`);
      const chunks = [...html.matchAll(/<span class="md-chunk">([^<]*)<\/span>/g)].map((m) => m[1]!);
      assert.ok(chunks.length > 10, `${chunks.length} chunks`);
      assert.ok(
        chunks.slice(0, -1).every((c) => c.endsWith('\n') && c.length <= CHUNK * 2),
        'cut after a line',
      );
      const decode = (t: string) =>
        t
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&quot;/g, '"')
          .replace(/&amp;/g, '&');
      assert.equal(decode(chunks.join('')), code);
      // A word with no line break is cut at CHUNK, never inside a surrogate pair.
      const word = 'a'.repeat(CHUNK - 1) + '😀'.repeat(CHUNK);
      assert.equal(chunkEnd(word, 0), CHUNK - 1);
    });

    it('keeps a finished chunk of a growing text unchanged', () => {
      const text = pathologicalInputs(100_000).find((i) => i.name === 'long word in a paragraph')!.text + '\nmore\n'.repeat(500);
      const cuts = (t: string) => {
        const ends: number[] = [];
        for (let at = 0; at < t.length; at = ends[ends.length - 1]!) ends.push(chunkEnd(t, at));
        return ends;
      };
      const whole = cuts(text);
      for (const n of [5000, 33_333, 99_000, 100_500]) {
        const partial = cuts(text.slice(0, n));
        assert.deepEqual(partial.slice(0, -1), whole.slice(0, partial.length - 1), `prefix of ${n}`);
      }
    });

    it(`shows the first ${MAX_COLUMNS} columns of a wide table and says how many are left out`, () => {
      // 1,000 columns: 12 KB, under MAX_RENDERED_BLOCK (the bench's 2,000 columns are over it, so shown as written).
      const html = renderBlock(`${'| a '.repeat(1000)}|\n${'|---'.repeat(1000)}|\n${'| 1 '.repeat(1000)}|\n`);
      assert.equal(html.match(/<th>/g)?.length, MAX_COLUMNS);
      assert.equal(html.match(/<td>/g)?.length, MAX_COLUMNS);
      assert.match(html, /<\/table>\n<p class="md-note">936 more columns not shown<\/p>/);
      assert.doesNotMatch(renderBlock('| a | b |\n|---|---|\n| 1 | 2 |\n'), /md-note/);
    });

    it('makes no tokens for the columns a wide table leaves out', () => {
      // markdown-it's table rule pushes every cell; the cells left out were tokens dropped after the block stage (6,000
      // for the bench's 1,000 columns, made and collected in the frame that shows the table).
      const cells = blockStageTokens(`${'| a '.repeat(1000)}|\n${'|---'.repeat(1000)}|\n${'| 1 '.repeat(1000)}|\n`).filter(
        (t) => t.type === 'th_open' || t.type === 'td_open',
      );
      assert.equal(cells.length, 2 * MAX_COLUMNS);
    });

    it('says, for each wide table, how many of its columns are left out, inside a list or a quote too, aligned as written', () => {
      const row = (n: number, cell: string): string => `${`| ${cell} `.repeat(n)}|\n`;
      const html = renderBlock(`> ${row(70, 'a')}> ${'|--:'.repeat(70)}|\n> ${row(3, '1')}\n${row(100, 'b')}${'|---'.repeat(100)}|\n${row(100, '*2*')}`);
      assert.match(html, /<blockquote>\n<table>[^]*<\/table>\n<p class="md-note">6 more columns not shown<\/p>\n<\/blockquote>/);
      assert.match(html, /<\/blockquote>\n<table>[^]*<\/table>\n<p class="md-note">36 more columns not shown<\/p>\n$/);
      // The quoted table's short row is filled to the shown columns, each right-aligned as its delimiter says.
      assert.equal(html.match(/<td class="align-right">/g)?.length, MAX_COLUMNS);
      assert.equal(html.match(/<td><em>2<\/em><\/td>/g)?.length, MAX_COLUMNS);
      const listed = renderBlock(`- item\n\n  ${row(65, 'a')}  ${'|---'.repeat(65)}|\n`);
      assert.match(listed, /<li>\n<p>item<\/p>\n<table>[^]*<\/table>\n<p class="md-note">1 more column not shown<\/p>\n<\/li>/);
    });

    it('gives a streamed fence an empty code block of its language to fill', () => {
      assert.match(openFenceShell('```ts') ?? '', /<code class="language-ts"><\/code>/);
      assert.match(openFenceShell('~~~ {.python title="x"}') ?? '', /language-python/);
      assert.equal(openFenceShell('```a`b'), null);
      assert.equal(openFenceShell('  ```ts'), null);
      assert.equal(openFenceShell('text'), null);
    });
  });
});
