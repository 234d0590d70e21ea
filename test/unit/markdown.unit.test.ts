import * as assert from 'node:assert/strict';
import { highlight } from '../../webview/highlight';
import { BlockSplitter, MarkdownStream, renderInline, renderMarkdown, safeHref, splitBlocks } from '../../webview/markdown';

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
  for (let i = 0; i < text.length; ) {
    const n = 1 + Math.floor(random() * maxChunk);
    html += stream.push(text.slice(i, i + n)).done;
    i += n;
  }
  return html + stream.tailHtml();
}

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
  '---',
  'Trailing text with <b>html</b> & entities and an unclosed `code span',
].join('\n');

describe('markdown renderer', () => {
  describe('blocks', () => {
    it('renders headings of each level, with closing hashes removed', () => {
      assert.equal(renderMarkdown('# One'), '<h1>One</h1>');
      assert.equal(renderMarkdown('### Three ###'), '<h3>Three</h3>');
      assert.equal(renderMarkdown('###### Six'), '<h6>Six</h6>');
      assert.equal(renderMarkdown('####### seven'), '<p>####### seven</p>');
      assert.equal(renderMarkdown('#no space'), '<p>#no space</p>');
    });

    it('renders paragraphs with line breaks and rules', () => {
      assert.equal(renderMarkdown('a\nb\n\nc'), '<p>a<br>b</p><p>c</p>');
      assert.equal(renderMarkdown('a\n\n---\n\nb'), '<p>a</p><hr><p>b</p>');
    });

    it('renders unordered, ordered, nested and task lists', () => {
      assert.equal(renderMarkdown('- a\n- b'), '<ul><li>a</li><li>b</li></ul>');
      assert.equal(renderMarkdown('1. a\n2. b'), '<ol><li>a</li><li>b</li></ol>');
      assert.equal(renderMarkdown('3) c\n4) d'), '<ol start="3"><li>c</li><li>d</li></ol>');
      assert.equal(renderMarkdown('- a\n  - b\n  - c\n- d'), '<ul><li>a<ul><li>b</li><li>c</li></ul></li><li>d</li></ul>');
      assert.equal(renderMarkdown('* wrapped\n  text'), '<ul><li>wrapped<br>text</li></ul>');
      assert.match(renderMarkdown('- [x] done\n- [ ] todo'), /<li class="task"><input type="checkbox" disabled checked[^>]*> done<\/li><li class="task"><input type="checkbox" disabled aria-label="not done"> todo/);
    });

    it('keeps numbering when a blank line splits an ordered list', () => {
      assert.equal(renderMarkdown('1. a\n\n2. b'), '<ol><li>a</li></ol><ol start="2"><li>b</li></ol>');
    });

    it('renders tables with alignment, and needs a matching delimiter row', () => {
      const html = renderMarkdown('| a | b | c |\n|:--|:-:|--:|\n| 1 | **2** | `x|y` |');
      assert.match(html, /<table><thead><tr><th class="align-left">a<\/th><th class="align-center">b<\/th><th class="align-right">c<\/th><\/tr><\/thead>/);
      assert.match(html, /<tbody><tr><td class="align-left">1<\/td><td class="align-center"><strong>2<\/strong><\/td><td class="align-right"><code>x\|y<\/code><\/td><\/tr><\/tbody>/);
      assert.doesNotMatch(renderMarkdown('| a | b |\n|---|'), /<table>/);
      assert.match(renderMarkdown('| a |\n|---|\n| 1 |\n| 2 |'), /<tbody><tr><td>1<\/td><\/tr><tr><td>2<\/td><\/tr><\/tbody>/);
    });

    it('renders block quotes recursively', () => {
      assert.equal(renderMarkdown('> a **b**\n> > c'), '<blockquote><p>a <strong>b</strong></p><blockquote><p>c</p></blockquote></blockquote>');
    });
  });

  describe('code fences', () => {
    it('renders a fence with its language, highlighting and the copy/insert buttons', () => {
      const html = renderMarkdown('```ts\nconst a = "x"; // c\n```');
      assert.match(html, /<div class="code-block"><div class="code-toolbar"><span class="code-lang">ts<\/span>/);
      assert.match(html, /data-action="copy" data-testid="code-copy"/);
      assert.match(html, /data-action="insert" data-testid="code-insert"/);
      assert.match(html, /<pre class="code"><code class="language-ts"><span class="tok-keyword">const<\/span> a = <span class="tok-string">&quot;x&quot;<\/span>; <span class="tok-comment">\/\/ c<\/span><\/code><\/pre>/);
    });

    it('keeps markdown and HTML inside a fence literal', () => {
      const html = renderMarkdown('```\n# not a heading\n<script>alert(1)</script>\n\n**x**\n```');
      assert.match(html, /<code># not a heading\n&lt;script&gt;alert\(1\)&lt;\/script&gt;\n\n\*\*x\*\*<\/code>/);
      assert.doesNotMatch(html, /<h1>|<script>|<strong>/);
    });

    it('supports tilde fences, longer closers and indented fences', () => {
      assert.match(renderMarkdown('~~~py\nx = 1\n~~~~'), /class="language-py">x = <span class="tok-number">1<\/span><\/code>/);
      assert.match(renderMarkdown('````\n```\ninner\n```\n````'), /<code>```\ninner\n```<\/code>/);
      assert.match(renderMarkdown('1. step\n   ```bash\n   npm test\n   ```'), /<div class="code-block md-indent">.*<code class="language-bash">npm test<\/code>/s);
    });

    it('renders an unclosed fence as code up to the end', () => {
      assert.match(renderMarkdown('text\n```js\nlet a'), /<p>text<\/p><div class="code-block">.*<code class="language-js"><span class="tok-keyword">let<\/span> a<\/code>/s);
    });
  });

  describe('inline', () => {
    it('renders emphasis, strong, strikethrough and code spans', () => {
      assert.equal(renderInline('*a* _b_ **c** __d__ ***e*** ~~f~~'), '<em>a</em> <em>b</em> <strong>c</strong> <strong>d</strong> <em><strong>e</strong></em> <del>f</del>');
      assert.equal(renderInline('snake_case_name and 2*3'), 'snake_case_name and 2*3');
      assert.equal(renderInline('`a **b** <c>` and `` x`y ``'), '<code>a **b** &lt;c&gt;</code> and <code>x`y</code>');
      assert.equal(renderInline('\\*not em\\*'), '*not em*');
      assert.equal(renderInline('**unclosed'), '**unclosed');
    });

    it('renders links, autolinks and bare URLs', () => {
      assert.equal(renderInline('[a *b*](https://x.io/p?q=1&r=2 "T")'), '<a href="https://x.io/p?q=1&amp;r=2" title="T">a <em>b</em></a>');
      assert.equal(renderInline('<https://x.io>'), '<a href="https://x.io">https://x.io</a>');
      assert.equal(renderInline('see https://x.io/a_(b). next'), 'see <a href="https://x.io/a_(b)">https://x.io/a_(b)</a>. next');
      assert.equal(renderInline('[rel](src/a.ts)'), '<a href="src/a.ts">rel</a>');
      assert.equal(renderInline('![alt](https://x.io/i.png)'), '<a href="https://x.io/i.png" class="md-image-link">alt</a>');
    });

    it('blocks javascript:, data: and other unsafe link targets', () => {
      for (const href of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'java\tscript:alert(1)', ' javascript:x', 'data:text/html,<b>', 'vbscript:x', 'file:///etc/passwd', '//evil.example']) {
        assert.equal(safeHref(href), null, href);
        const html = renderMarkdown(`[x](${href.replace(/ /g, '')})`);
        assert.doesNotMatch(html, /<a /, href);
      }
      assert.doesNotMatch(renderMarkdown('<javascript:alert(1)>'), /<a /);
      assert.equal(safeHref('https://ok.example/'), 'https://ok.example/');
      assert.equal(safeHref('mailto:a@b.c'), 'mailto:a@b.c');
      assert.equal(safeHref('#section'), '#section');
    });
  });

  describe('escaping', () => {
    it('never passes raw HTML through', () => {
      const html = renderMarkdown('<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n# <b>h</b>\n\n- <i>x</i>\n\n| <a> |\n|---|\n| "q" |');
      assert.doesNotMatch(html, /<script|<img|<b>|<i>|<a>/);
      assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
      assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
      assert.match(html, /&quot;q&quot;/);
    });

    it('escapes quotes inside attributes', () => {
      const html = renderInline('[x](https://a.io/"onmouseover="alert(1))');
      assert.doesNotMatch(html, /href="[^"]*"onmouseover/);
    });
  });

  describe('incremental splitting', () => {
    it('keeps an open fence as the open block, blank lines included', () => {
      const splitter = new BlockSplitter();
      assert.deepEqual(splitter.push('Intro\n\n```ts\nconst a = 1;\n\n'), ['Intro\n']);
      assert.equal(splitter.tail, '```ts\nconst a = 1;\n\n');
      assert.deepEqual(splitter.push('const b = 2;\n```'), []);
      assert.deepEqual(splitter.push('\nAfter'), ['```ts\nconst a = 1;\n\nconst b = 2;\n```\n']);
      assert.equal(splitter.tail, 'After');
    });

    it('finishes a block only on a complete line', () => {
      const splitter = new BlockSplitter();
      assert.deepEqual(splitter.push('para'), []);
      assert.deepEqual(splitter.push('\n'), []);
      assert.deepEqual(splitter.push('\n# Head'), ['para\n']);
      assert.deepEqual(splitter.push('ing\nmore'), ['# Heading\n']);
      assert.equal(splitter.tail, 'more');
    });

    it('treats CRLF like LF, even split across chunks', () => {
      const splitter = new BlockSplitter();
      splitter.push('a\r');
      assert.deepEqual(splitter.push('\n\r\nb'), ['a\n']);
    });

    it('splits a whole text into the same blocks as a stream', () => {
      const blocks = splitBlocks(SAMPLE);
      assert.ok(blocks.length >= 10);
      assert.ok(blocks.some((b) => b.startsWith('   ```ts') && b.includes('\n\n')), 'the fence with a blank line is one block');
    });

    it('yields the same HTML streamed in random chunk sizes as rendered at once', () => {
      const whole = renderMarkdown(SAMPLE);
      for (let seed = 1; seed <= 200; seed++) {
        assert.equal(streamInChunks(SAMPLE, seed, 1 + (seed % 40)), whole, `seed ${seed}`);
      }
      assert.equal(streamInChunks(SAMPLE, 7, 1), whole, 'one character at a time');
    });

    it('reports finished blocks once and re-renders only the tail', () => {
      const stream = new MarkdownStream();
      const first = stream.push('# T\n\nHello **wor');
      assert.equal(first.done, '<h1>T</h1>');
      assert.equal(first.tail, '<p>Hello **wor</p>');
      const second = stream.push('ld**\n\nNext');
      assert.equal(second.done, '<p>Hello <strong>world</strong></p>');
      assert.equal(second.tail, '<p>Next</p>');
    });
  });

  describe('highlighter', () => {
    it('keeps the text intact and escapes it', () => {
      const code = 'if (a < b && c > "d") { return `<x>`; } // <!-- -->';
      const html = highlight(code, 'typescript');
      const text = html.replace(/<span class="tok-[a-z]+">|<\/span>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
      assert.equal(text, code);
      assert.doesNotMatch(html.replace(/<\/?span[^>]*>/g, ''), /[<>]/);
    });

    it('colours the common languages and leaves unknown ones plain', () => {
      assert.match(highlight('def f(): return None', 'python'), /tok-keyword">def<.*tok-function">f<.*tok-literal">None</);
      assert.match(highlight('echo "$HOME" --all # x', 'bash'), /tok-string">&quot;\$HOME&quot;<.*tok-attr">--all<.*tok-comment"># x</);
      assert.match(highlight('{"k": 1}', 'json'), /tok-property">&quot;k&quot;<.*tok-number">1</);
      assert.match(highlight('a { color: red; }', 'css'), /tok-property">color</);
      assert.match(highlight('<a href="x">', 'html'), /tok-tag">&lt;a<.*tok-attr">href<.*tok-string">&quot;x&quot;</);
      assert.equal(highlight('x <y>', 'brainfuck'), 'x &lt;y&gt;');
    });
  });
});
