import * as assert from 'node:assert/strict';
import {
  FIRST_PAGE_CHARS,
  FIRST_PAGE_ELEMENT_ID,
  FIRST_PAGE_MESSAGES,
  firstPage,
  type ChatMessage,
  type HostMessage,
  type Snapshot,
} from '../../src/shared/protocol';
import { createNonce, renderWebviewHtml } from '../../src/vscode/webviewHtml';

const CSP_SOURCE = 'https://*.vscode-cdn.net';

function page(nonce = createNonce()): { html: string; nonce: string; csp: string } {
  const html = renderWebviewHtml({
    cspSource: CSP_SOURCE,
    nonce,
    scriptUri: 'https://x.vscode-cdn.net/dist/webview.js',
    styleUri: 'https://x.vscode-cdn.net/dist/webview.css',
  });
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
    // Styles: the extension's files, plus <style> elements carrying the nonce (FAST's one :focus-visible probe).
    assert.deepEqual(directives.get('style-src'), [CSP_SOURCE, `'nonce-${nonce}'`]);
    assert.match(csp, /img-src https:\/\/\*\.vscode-cdn\.net data:;/);
    assert.match(csp, /font-src https:\/\/\*\.vscode-cdn\.net;/);
  });

  it('puts the nonce on the one script tag, which loads the bundle, and links the stylesheet', () => {
    const { html, nonce } = page();
    assert.match(html, new RegExp(`<meta property="csp-nonce" content="${nonce}">`));
    const scripts = html.match(/<script\b[^>]*>/g) ?? [];
    assert.equal(scripts.length, 1);
    assert.equal(scripts[0], `<script nonce="${nonce}" src="https://x.vscode-cdn.net/dist/webview.js">`);
    assert.match(html, /<link rel="stylesheet" href="https:\/\/x\.vscode-cdn\.net\/dist\/webview\.css">/);
    assert.doesNotMatch(html, /\sstyle=|<style|\son[a-z]+=/i, 'no inline styles or handlers');
  });

  it('uses a different nonce on every call', () => {
    const nonces = new Set(Array.from({ length: 50 }, () => createNonce()));
    assert.equal(nonces.size, 50);
    for (const n of nonces) assert.match(n, /^[0-9a-f]{32}$/);
    assert.notEqual(page().nonce, page().nonce);
  });

  it('escapes URIs and refuses values that could break out of the policy', () => {
    const html = renderWebviewHtml({ cspSource: CSP_SOURCE, nonce: createNonce(), scriptUri: 'https://x/a.js?"><script>', styleUri: 'https://x/a.css' });
    assert.doesNotMatch(html, /"><script>/);
    assert.throws(() => renderWebviewHtml({ cspSource: CSP_SOURCE, nonce: "x' 'unsafe-inline", scriptUri: 'a', styleUri: 'b' }));
    assert.throws(() => renderWebviewHtml({ cspSource: "x; script-src 'unsafe-eval'", nonce: createNonce(), scriptUri: 'a', styleUri: 'b' }));
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
    const html = renderWebviewHtml({ cspSource: CSP_SOURCE, nonce, scriptUri: 'https://x/a.js', styleUri: 'https://x/a.css', firstPage: message });
    const island = new RegExp(`<script type="application/json" id="${FIRST_PAGE_ELEMENT_ID}">([^]*?)</script>`).exec(html);
    assert.ok(island, 'the page is in the HTML');
    assert.doesNotMatch(island[1]!, /</, 'no < inside the data: it cannot close the element or open a comment');
    assert.deepEqual(JSON.parse(island[1]!), message, 'it reads back as the message');
    // The only executable script is still the bundle, by nonce; the policy is the same as without a page.
    assert.deepEqual(
      (html.match(/<script\b[^>]*>/g) ?? []).filter((t) => !t.includes('type="application/json"')),
      [`<script nonce="${nonce}" src="https://x/a.js">`],
    );
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1];
    const without = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(
      renderWebviewHtml({ cspSource: CSP_SOURCE, nonce, scriptUri: 'https://x/a.js', styleUri: 'https://x/a.css' }),
    )?.[1];
    assert.equal(csp, without);
    assert.doesNotMatch(csp!, /unsafe|sha256/);
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
