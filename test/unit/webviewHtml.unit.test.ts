import * as assert from 'node:assert/strict';
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
});
