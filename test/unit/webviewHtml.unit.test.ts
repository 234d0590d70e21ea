import * as assert from 'node:assert/strict';
import { runInNewContext } from 'node:vm';
import {
  FIRST_PAGE_CHARS,
  FIRST_PAGE_ELEMENT_ID,
  FIRST_PAGE_MESSAGES,
  HIGHLIGHTER_ELEMENT_ID,
  firstPage,
  type ChatMessage,
  type HostMessage,
  type Snapshot,
} from '../../src/shared/protocol';
import { createNonce, renderWebviewHtml } from '../../src/vscode/webviewHtml';

const CSP_SOURCE = 'https://*.vscode-cdn.net';
const SCRIPT = { text: '//# allFunctionsCalledOnLoad\n(()=>{document.body.dataset.ran="1"})();' };
const STYLE = { text: '.app{display:flex}' };

function page(nonce = createNonce()): { html: string; nonce: string; csp: string } {
  const html = renderWebviewHtml({ cspSource: CSP_SOURCE, nonce, script: SCRIPT, style: STYLE });
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1];
  assert.ok(csp, 'the page has a CSP meta tag');
  return { html, nonce, csp };
}

describe('renderWebviewHtml', () => {
  it('has a strict CSP: nothing by default, no unsafe-inline, no unsafe-eval', () => {
    const { csp, nonce } = page();
    assert.match(csp, /^default-src 'none';/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|unsafe-hashes|strict-dynamic/);
    const directives = new Map(
      csp
        .split(';')
        .map((d) => d.trim())
        .filter(Boolean)
        .map((d) => [d.split(' ')[0]!, d.split(' ').slice(1)]),
    );
    assert.deepEqual(directives.get('script-src'), [`'nonce-${nonce}'`], 'scripts only by nonce');
    assert.equal(directives.get('connect-src'), undefined, 'no fetch/XHR anywhere (default-src none)');
    // Styles: only the page's own <style>, by nonce.
    assert.deepEqual(directives.get('style-src'), [`'nonce-${nonce}'`]);
    assert.match(csp, /img-src https:\/\/\*\.vscode-cdn\.net data:;/);
    assert.match(csp, /font-src https:\/\/\*\.vscode-cdn\.net;/);
  });

  it('writes the bundle and the stylesheet into the page, each in the one element of its kind that has the nonce', () => {
    const { html, nonce } = page();
    assert.match(html, new RegExp(`<meta property="csp-nonce" content="${nonce}">`));
    const scripts = html.match(/<script\b[^>]*>/g) ?? [];
    assert.deepEqual(scripts, [`<script nonce="${nonce}">`]);
    // The compile hint stays the script's first line: V8 reads it only there.
    assert.ok(html.includes(`<script nonce="${nonce}">${SCRIPT.text}</script>`));
    assert.deepEqual(html.match(/<style\b[^>]*>/g), [`<style nonce="${nonce}">`]);
    assert.ok(html.includes(`<style nonce="${nonce}">${STYLE.text}</style>`));
    assert.doesNotMatch(html, /<link|\ssrc=|\sstyle=|\son[a-z]+=/i, 'nothing requested, no style attributes or handlers');
  });

  it('can still link the two files instead (the bench compares the page before them)', () => {
    const nonce = createNonce();
    const html = renderWebviewHtml({
      cspSource: CSP_SOURCE,
      nonce,
      script: { uri: 'https://x/dist/webview.js' },
      style: { uri: 'https://x/dist/webview.css' },
    });
    assert.deepEqual(html.match(/<script\b[^>]*>/g), [`<script nonce="${nonce}" src="https://x/dist/webview.js">`]);
    assert.deepEqual(html.match(/<link\b[^>]*>/g), [`<link rel="stylesheet" nonce="${nonce}" href="https://x/dist/webview.css">`]);
    assert.doesNotMatch(html, /<style/);
  });

  it('writes script text that cannot end its element or hide its end, and means the same to JavaScript', () => {
    // Every place JavaScript can hold the words: strings, a template, regular expressions (with the u flag too), an
    // identifier, a comment; and `<!--` then `<script `, which would keep a later `</script>` from ending the element.
    const source = [
      'var script = 1; var a = 2 <script;',
      'var out = ["</script><script>alert(1)</script>", `<SCRIPT src=x>`, "<!-- <script>", "<\\/script>", a];',
      'out.push(/<script(?=\\s|>)/.test("<script "), /<\\/Script>/iu.test("</script>"), new RegExp(/<script>/.source + "x").test("<script>x"));',
      '// a comment: </script> <!-- <script>',
      'globalThis.result = out;',
    ].join('\n');
    const html = renderWebviewHtml({ cspSource: CSP_SOURCE, nonce: createNonce(), script: { text: source }, style: STYLE });
    const body = /<script nonce="[^"]+">([^]*)<\/script>\n<\/body>/.exec(html)?.[1];
    assert.ok(body, 'one script element, ended by its own end tag');
    assert.doesNotMatch(body, /<\/?script/i, 'no `<script` or `</script` left in the text');
    // (A regular expression's `source` spells the escape, and a RegExp made from it matches the same.)
    const run = (code: string): unknown => {
      const context: { result?: unknown } = {};
      runInNewContext(code, context);
      return JSON.parse(JSON.stringify(context.result));
    };
    assert.deepEqual(run(body), run(source));
    assert.deepEqual(run(body), ['</script><script>alert(1)</script>', '<SCRIPT src=x>', '<!-- <script>', '</script>', false, true, true, true]);
  });

  it('writes a page of ASCII only, the script meaning the same to JavaScript (the browser decodes such a page on its fast path)', () => {
    // What esbuild leaves as written (markdown-it's regular expressions), and what it could: strings, a template, a
    // comment, characters beyond the BMP, with and without the u flag.
    const source = [
      'var out = ["\u00e9\u2026 \ud83d\ude00", `\u2192`, /\u1e9e/g.test("\u1e9e"), "a..b".replace(/[.]{2}/, "\u2026")];',
      'out.push(/^[\ud83d\ude00]$/u.test("\ud83d\ude00"), /^.$/u.test("\u{1f600}"), /^..$/.test("\u{1f600}"), /([?!])\u2026/.test("?\u2026"));',
      'out.push("\\\u00e9\\\\\u00e9", /^\\\u2026$/.test("\u2026"), /^\\\\\u2026$/.test("\\\\\u2026"));',
      '// a comment: \u00e9 \u{1f600}\u2028out.push("after a line separator");',
      'globalThis.result = out;',
    ].join('\n');
    assert.match(source, /[\u0080-\uffff]/, 'the source has characters beyond ASCII');
    const style = '.a::after{content:"\u2026 \u{1f600}"}.b\u00e9{color:red}';
    const message: HostMessage = {
      type: 'snapshot',
      seq: 1,
      snapshot: {
        messages: [{ id: 'm1', role: 'assistant', content: 'caf\u00e9 \u2192 \u{1f600} \u2028 \ud800', status: 'complete', ts: 1 }],
        workers: [],
        permissions: [],
        state: { busy: false, model: 'm', routingAuto: true },
      },
    };
    const html = renderWebviewHtml({
      cspSource: CSP_SOURCE,
      nonce: createNonce(),
      script: { text: source },
      style: { text: style },
      highlighter: source,
      firstPage: message,
    });
    // But for a line separator in the script, where it ends a line comment.
    assert.deepEqual(html.match(/[\u0080-\uffff]/g), ['\u2028', '\u2028'], 'nothing else beyond ASCII in the page');
    const run = (code: string): unknown => {
      const context: { result?: unknown } = {};
      runInNewContext(code, context);
      return JSON.parse(JSON.stringify(context.result));
    };
    const body = /<script nonce="[^"]+">([^]*)<\/script>\n<\/body>/.exec(html)?.[1];
    const highlighter = new RegExp(`<script type="text/plain" id="${HIGHLIGHTER_ELEMENT_ID}">([^]*?)</script>`).exec(html)?.[1];
    assert.deepEqual(run(body!), run(source));
    assert.deepEqual(run(highlighter!), run(source));
    assert.deepEqual(run(source), [
      '\u00e9\u2026 \u{1f600}',
      '\u2192',
      true,
      'a\u2026b',
      true,
      true,
      true,
      true,
      '\u00e9\\\u00e9',
      true,
      true,
      'after a line separator',
    ]);
    const island = new RegExp(`<script type="application/json" id="${FIRST_PAGE_ELEMENT_ID}">([^]*?)</script>`).exec(html)?.[1];
    assert.deepEqual(JSON.parse(island!), message, 'the first page reads back as the message');
    // In CSS, the code point in hex and the one space the escape takes.
    assert.ok(html.includes('<style nonce="'), 'the stylesheet is in the page');
    assert.ok(html.includes('.a::after{content:"\\2026  \\1f600 "}.b\\e9 {color:red}</style>'), 'each character as its CSS escape');
  });

  it('writes style text that cannot end its element', () => {
    const html = renderWebviewHtml({
      cspSource: CSP_SOURCE,
      nonce: createNonce(),
      script: SCRIPT,
      style: { text: '.a::after{content:"</style><script>alert(1)</script>"}' },
    });
    assert.deepEqual(html.match(/<\/style/gi), ['</style'], "only the element's own end tag");
    assert.ok(html.includes('{content:"<\\/style><script>alert(1)</script>"}</style>\n<title>'), 'the rest stays inside it, as CSS text');
  });

  it('uses a different nonce on every call', () => {
    const nonces = new Set(Array.from({ length: 50 }, () => createNonce()));
    assert.equal(nonces.size, 50);
    for (const n of nonces) assert.match(n, /^[0-9a-f]{32}$/);
    assert.notEqual(page().nonce, page().nonce);
  });

  it('escapes URIs and refuses values that could break out of the policy', () => {
    const html = renderWebviewHtml({
      cspSource: CSP_SOURCE,
      nonce: createNonce(),
      script: { uri: 'https://x/a.js?"><script>' },
      style: { uri: 'https://x/a.css' },
    });
    assert.doesNotMatch(html, /"><script>/);
    assert.throws(() => renderWebviewHtml({ cspSource: CSP_SOURCE, nonce: "x' 'unsafe-inline", script: SCRIPT, style: STYLE }));
    assert.throws(() => renderWebviewHtml({ cspSource: "x; script-src 'unsafe-eval'", nonce: createNonce(), script: SCRIPT, style: STYLE }));
  });

  it('writes the first page as JSON data that nothing in it can end early, and the CSP stays as strict', () => {
    const nonce = createNonce();
    const hostile = '</script><script>alert(1)</script><!-- \u2028 & "quotes"';
    const message: HostMessage = {
      type: 'snapshot',
      seq: 7,
      snapshot: {
        messages: [{ id: 'm1', role: 'user', content: hostile, status: 'complete', ts: 1 }],
        workers: [],
        permissions: [],
        state: { busy: false, model: 'm', routingAuto: true },
      },
    };
    const html = renderWebviewHtml({ cspSource: CSP_SOURCE, nonce, script: SCRIPT, style: STYLE, firstPage: message });
    const island = new RegExp(`<script type="application/json" id="${FIRST_PAGE_ELEMENT_ID}">([^]*?)</script>`).exec(html);
    assert.ok(island, 'the page is in the HTML');
    assert.doesNotMatch(island[1]!, /</, 'no < inside the data: it cannot close the element or open a comment');
    assert.deepEqual(JSON.parse(island[1]!), message, 'it reads back as the message');
    // The only executable script is still the bundle, by nonce; the policy is the same as without a page.
    assert.deepEqual(
      (html.match(/<script\b[^>]*>/g) ?? []).filter((t) => !t.includes('type="application/json"')),
      [`<script nonce="${nonce}">`],
    );
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1];
    const without = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(
      renderWebviewHtml({ cspSource: CSP_SOURCE, nonce, script: SCRIPT, style: STYLE }),
    )?.[1];
    assert.equal(csp, without);
    assert.doesNotMatch(csp!, /unsafe|sha256/);
  });
});

describe('renderWebviewHtml: the code highlighter', () => {
  // A stand-in for dist/webview-highlighter.js with what could end its element early, as the real one has.
  const HIGHLIGHTER = 'globalThis.result = ["</script><script>alert(1)</script>", /<script(?=\\s|>)/.test("<script ")];';

  it('carries the highlighter as text that does not run, before the bundle that runs it with the nonce; the CSP is unchanged', () => {
    const nonce = createNonce();
    const html = renderWebviewHtml({ cspSource: CSP_SOURCE, nonce, script: SCRIPT, style: STYLE, highlighter: HIGHLIGHTER });
    const element = new RegExp(`<script type="text/plain" id="${HIGHLIGHTER_ELEMENT_ID}">([^]*?)</script>\n<script nonce="${nonce}">`).exec(html);
    assert.ok(element, 'a text/plain element with no nonce, just before the bundle');
    // The bundle (webview/highlighter.ts) gives the script it creates the nonce it reads here.
    assert.match(html, new RegExp(`<meta property="csp-nonce" content="${nonce}">`));
    assert.doesNotMatch(element[1]!, /<\/?script/i, 'nothing in it can end the element');
    const run = (code: string): unknown => {
      const context: { result?: unknown } = {};
      runInNewContext(code, context);
      return JSON.parse(JSON.stringify(context.result));
    };
    assert.deepEqual(run(element[1]!), run(HIGHLIGHTER), 'it means the same to JavaScript');
    assert.deepEqual(
      (html.match(/<script\b[^>]*>/g) ?? []).filter((t) => !t.includes('type="text/plain"')),
      [`<script nonce="${nonce}">`],
      'the only script that runs as the page loads is the bundle',
    );
    const csp = (page: string) => /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(page)?.[1];
    assert.equal(csp(html), csp(renderWebviewHtml({ cspSource: CSP_SOURCE, nonce, script: SCRIPT, style: STYLE })));
    assert.equal(
      csp(html),
      `default-src 'none'; img-src ${CSP_SOURCE} data:; font-src ${CSP_SOURCE}; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}';`,
    );
  });
});

describe('firstPage', () => {
  const state = { busy: false, model: 'm', routingAuto: true };
  const message = (i: number, content = `m${i}`): ChatMessage => ({ id: `m${i}`, role: 'user', content, status: 'complete', ts: i });
  const snapshot = (messages: ChatMessage[]): Snapshot => ({ messages, workers: [], permissions: [], state, conversation: 'c1', conversations: [] });

  it('keeps the newest messages up to its bound and says how many older ones it left out', () => {
    const all = Array.from({ length: 1000 }, (_, i) => message(i));
    const page = firstPage(snapshot(all));
    assert.equal(page.messages.length, FIRST_PAGE_MESSAGES);
    assert.equal(page.older, 1000 - FIRST_PAGE_MESSAGES);
    assert.deepEqual(page.messages, all.slice(-FIRST_PAGE_MESSAGES));
    assert.equal(page.conversation, 'c1');
  });

  it('is the snapshot itself when everything fits', () => {
    const small = snapshot([message(1), message(2)]);
    assert.equal(firstPage(small), small);
    assert.equal(firstPage(snapshot([])).older, undefined);
  });

  it('stops at its bound on characters: long answers are left to the snapshot that follows', () => {
    const long = 'x'.repeat(FIRST_PAGE_CHARS / 2 + 10);
    const page = firstPage(snapshot([message(1), message(2, long), message(3, long), message(4, 'short')]));
    assert.deepEqual(
      page.messages.map((m) => m.id),
      ['m3', 'm4'],
    );
    assert.equal(page.older, 2);
    const huge = firstPage(snapshot([message(1), message(2, 'x'.repeat(FIRST_PAGE_CHARS + 1))]));
    assert.deepEqual(huge.messages, [], 'one message over the bound: the page has the panel without messages');
    assert.equal(huge.older, 2);
  });
});
