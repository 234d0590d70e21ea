// What a hostile reply can put in the panel's HTML: nothing that runs. These check markdown-it's output, which is what
// DOMPurify receives in the webview (the e2e suite checks the DOM after both, in the real webview).
import * as assert from 'node:assert/strict';
import { safeHref } from '../../webview/markdownRender';
import { renderMarkdown } from '../../webview/markdownStream';
import { ALLOWED_ATTR, ALLOWED_TAGS } from '../../webview/sanitizePolicy';

/** Every casing of a word: 2^n variants ("javascript" gives 1,024). */
function casings(word: string): string[] {
  const out: string[] = [];
  for (let mask = 0; mask < 1 << word.length; mask++) {
    out.push([...word].map((c, i) => (mask & (1 << i) ? c.toUpperCase() : c)).join(''));
  }
  return out;
}

// The sanitizer's own allowlist: markdown-it must emit nothing it would have to strip.
const TAGS = new Set(ALLOWED_TAGS);
const ATTRS = new Set(ALLOWED_ATTR);

/** Each tag and attribute in markdown-it's output (it quotes every attribute value and escapes `"` inside). */
function elements(html: string): Array<{ tag: string; attrs: Record<string, string> }> {
  const found: Array<{ tag: string; attrs: Record<string, string> }> = [];
  for (const m of html.matchAll(/<([a-zA-Z][\w-]*)([^>]*)>/g)) {
    const attrs: Record<string, string> = {};
    for (const a of m[2]!.matchAll(/([^\s=]+)(?:="([^"]*)")?/g)) attrs[a[1]!.toLowerCase()] = a[2] ?? '';
    found.push({ tag: m[1]!.toLowerCase(), attrs });
  }
  return found;
}

function decode(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

function assertInert(markdown: string): void {
  const html = renderMarkdown(markdown);
  for (const { tag, attrs } of elements(html)) {
    assert.ok(TAGS.has(tag), `unexpected <${tag}> from ${JSON.stringify(markdown)}: ${html}`);
    for (const [name, value] of Object.entries(attrs)) {
      assert.ok(ATTRS.has(name) && !name.startsWith('on'), `unexpected attribute ${name} from ${JSON.stringify(markdown)}: ${html}`);
      if (name === 'href') assert.notEqual(safeHref(decode(value)), null, `unsafe href ${value} from ${JSON.stringify(markdown)}`);
    }
    if (tag === 'input') assert.equal(attrs.type, 'checkbox');
  }
  assert.doesNotMatch(html, /<(script|img|svg|iframe|object|embed|style|form|math|link|meta)\b/i);
}

const PAYLOADS = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '<svg onload=alert(1)>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<a href="javascript:alert(1)">x</a>',
  '[x](javascript:alert(1))',
  '[x](JaVaScRiPt:alert(1))',
  '[x](java\tscript:alert(1))',
  '[x](&#106;avascript:alert(1))',
  '[x](&#x6A;avascript&#x3A;alert(1))',
  '[x](javascript&colon;alert(1))',
  '[x](jav&#x09;ascript:alert(1))',
  '[x](%6Aavascript:alert(1))',
  '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '[x](vbscript:msgbox(1))',
  '[x](//evil.example/x)',
  '![x](javascript:alert(1))',
  '![x](data:image/svg+xml,<svg onload=alert(1)>)',
  '<javascript:alert(1)>',
  '<JAVASCRIPT:alert(1)>',
  '<data:text/html,<script>alert(1)</script>>',
  'javascript:alert(1) and data:text/html,x',
  '[x](https://ok.example "\\" onmouseover=\\"alert(1)")',
  '[x](https://ok.example \'" onmouseover="alert(1)\')',
  '[x](<https://a.io/"onmouseover="alert(1)>)',
  '[ref]\n\n[ref]: javascript:alert(1)',
  '[ref]\n\n[ref]: https://ok.example "t\\" onclick=\\"x"',
  '```\n</code></pre><img src=x onerror=alert(1)>\n```',
  '```js" onmouseover="alert(1)\ncode\n```',
  '```<script>\ncode\n```',
  '~~~\n<script>alert(1)</script>\n',
  '`</code><script>alert(1)</script>`',
  '- [x] <img src=x onerror=alert(1)>',
  '| <svg onload=alert(1)> |\n|---|\n| <script>x</script> |',
  '> <style>body{display:none}</style>',
  '# <b onclick="alert(1)">h</b>',
  'https://ok.example/"><img src=x onerror=alert(1)>',
  '<a href="https://ok" onclick="alert(1)">x</a>',
];

describe('markdown safety', () => {
  for (const payload of PAYLOADS) {
    it(`renders inert: ${JSON.stringify(payload).slice(0, 70)}`, () => assertInert(payload));
  }

  it('blocks javascript: and data: links in every casing, as links, autolinks and references', () => {
    for (const scheme of [...casings('javascript'), ...casings('data')]) {
      const target = `${scheme}:alert(1)`;
      for (const md of [`[x](${target})`, `<${target}>`, `[r]\n\n[r]: ${target}`, `![x](${target})`]) {
        const html = renderMarkdown(md);
        assert.doesNotMatch(html, /<a /, md);
      }
    }
  });

  it('keeps raw HTML as visible text', () => {
    assert.match(renderMarkdown('<b>bold?</b> <img src=x onerror=alert(1)>'), /&lt;b&gt;bold\?&lt;\/b&gt; &lt;img src=x onerror=alert\(1\)&gt;/);
  });

  it('admits only http(s), mailto, file and relative targets', () => {
    for (const ok of ['https://ok.example/', 'http://a', 'mailto:a@b.c', 'file:///ws/a.ts', 'src/a.ts', '#section', 'C:\\x'])
      assert.notEqual(safeHref(ok), null, ok);
    for (const bad of [
      'javascript:x',
      ' JavaScript:x',
      'java\nscript:x',
      'data:x',
      'vbscript:x',
      'blob:x',
      'ftp://x',
      'command:workbench.action.x',
      'vscode://x',
      '//evil.example',
      '\\\\evil\\share',
    ])
      assert.equal(safeHref(bad), null, bad);
  });
});
