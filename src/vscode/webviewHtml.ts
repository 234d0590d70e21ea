// The chat webview's page. No vscode import: it is plain string building, unit-tested in Node, and the same page
// is served by the panel benchmark. The CSP admits scripts and styles only by the per-load nonce (the page's one script
// and one stylesheet, and the highlighter's script the page creates after its first paint with the same nonce), images
// and fonts only from the extension's files; no 'unsafe-inline', no eval.
//
// The bundle and the stylesheet are written into the page, each in an element with the nonce, rather than fetched:
// in VS Code a webview's request goes through its service worker, the workbench and the file service, on the way
// to the first paint (see docs/performance.md, note ⁴). Their text is the extension's own build, never anything a
// message or a model wrote; the first page of messages goes in as JSON data, which is never run.
import { randomBytes } from 'node:crypto';
import { FIRST_PAGE_ELEMENT_ID, HIGHLIGHTER_ELEMENT_ID, type HostMessage } from '../shared/protocol';

export interface WebviewHtmlOptions {
  /** webview.cspSource: the origin the extension's files are served from. */
  cspSource: string;
  nonce: string;
  /** The webview bundle (dist/webview.js): its text, run from the page, or (as before, for the bench's comparison) its URI. */
  script: PageFile;
  /** The stylesheet (dist/webview.css): its text, in the page, or its URI. */
  style: PageFile;
  /**
   * The code highlighter's bundle (dist/webview-highlighter.js), written into the page as `<script type="text/plain">`:
   * text the page does not run as it loads; the panel runs it after its first paint, as a script it creates with the
   * nonce (webview/highlighter.ts). Without it, code is shown plain.
   */
  highlighter?: string;
  /**
   * The first page of the panel (a snapshot message, see firstPage in the protocol), written into the page as a
   * `<script type="application/json">`: data the panel reads at once, never executed, so the CSP stays as it is.
   */
  firstPage?: HostMessage;
}

/** One of the page's two files: written into the page (what the extension does) or loaded from a URI. */
export type PageFile = { text: string } | { uri: string };

/** A fresh nonce for each page load: 32 hex characters from 16 random bytes. */
export function createNonce(): string {
  return randomBytes(16).toString('hex');
}

// For double-quoted attributes; single quotes stay as they are so the policy reads as written ('none', 'nonce-…').
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
function attr(value: string): string {
  return value.replace(/[&<>"]/g, (c) => ESCAPES[c]!);
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return (
    [
      `default-src 'none'`,
      `img-src ${cspSource} data:`,
      `font-src ${cspSource}`,
      // Styles only by nonce: the page's own <style> (and the bench's <link> to the stylesheet, which carries it too).
      `style-src 'nonce-${nonce}'`,
      `script-src 'nonce-${nonce}'`,
    ].join('; ') + ';'
  );
}

// The page is ASCII only: every other character is written as an escape that means the same where it stands. The
// browser decodes a page of ASCII into one-byte text on its fast path, and V8 compiles the script from one-byte text;
// two characters in the bundle (markdown-it's, in regular expressions, which esbuild writes as they are) made it decode
// the whole 410 KB page into two-byte text, about 20 ms of CPU before the first paint (docs/performance.md, note ⁴).
// Each code unit beyond ASCII as \uXXXX: the same in a JSON or JavaScript string, a regular expression (with the u
// flag a pair of them is one code point), a comment; esbuild writes identifiers and template strings escaped already.
// A character escaped as written (`\é`, which means `é`) loses that backslash, or the escape would read as text. In a
// script, U+2028 and U+2029 stay as they are: outside a string they end a line (esbuild escapes them in strings).
// Found by a plain character class and the backslashes counted back from each: a regex that also matched the run of
// backslashes before every character took 4–8 ms over the 330 KB of bundles at each panel open, this 0.2 ms.
function unicodeEscapes(text: string, inScript: boolean): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(inScript ? /[\u0080-\u2027\u202a-\uffff]/g : /[\u0080-\uffff]/g)) {
    const at = m.index;
    let slashes = 0;
    while (text.charCodeAt(at - 1 - slashes) === 0x5c) slashes++;
    out += text.slice(last, slashes % 2 ? at - 1 : at) + `\\u${m[0].charCodeAt(0).toString(16).padStart(4, '0')}`;
    last = at + 1;
  }
  return last === 0 ? text : out + text.slice(last);
}

// JSON inside a <script> element ends at the first `</script`; `<` as \u003c cannot end it (nor open a comment), and
// JSON.parse reads it back as `<`.
function scriptData(value: unknown): string {
  return unicodeEscapes(JSON.stringify(value).replace(/</g, '\\u003c'), false);
}

// The HTML parser ends a <script> element at `</script`, and after `<!--` a `<script` puts it where even that does not
// end it; neither can be in the bundle's text as written. Spelling the `s` of each as \u0073 (\u0053 for `S`) means the
// same in every place JavaScript can hold it: a string, a regular expression (with or without the u flag), a comment,
// an identifier; only a raw template string (String.raw) would read it differently, and the bundles have no `<script`
// but one in a regular expression of highlight.js's (in the highlighter's). CSS has only `</style` to fear; `\/` is
// `/` in CSS.
function scriptText(text: string): string {
  return unicodeEscapes(
    text.replace(/<(\/?)(s)(cript)/gi, (_, slash: string, s: string, rest: string) => `<${slash}\\u00${s === 's' ? '73' : '53'}${rest}`),
    true,
  );
}
// In CSS a character beyond ASCII is `\` and its code point in hex, ended by one space (which the escape takes).
function styleText(text: string): string {
  return text.replace(/<\/(style)/gi, '<\\/$1').replace(/[\u{80}-\u{10ffff}]/gu, (c) => `\\${c.codePointAt(0)!.toString(16)} `);
}

export function renderWebviewHtml(opts: WebviewHtmlOptions): string {
  // Both go into the policy and an attribute: refuse anything that could end either early.
  if (!/^[A-Za-z0-9+/=_-]{16,}$/.test(opts.nonce)) throw new Error('renderWebviewHtml: the nonce must be 16+ base64/hex characters');
  // VS Code's cspSource is a source list such as `'self' https://*.vscode-cdn.net`: quotes are
  // legitimate there, but nothing that could end the directive or the attribute.
  if (/[;"<>\r\n]/.test(opts.cspSource)) throw new Error('renderWebviewHtml: cspSource must be a source list (no ; or ")');
  const csp = contentSecurityPolicy(opts.cspSource, opts.nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(csp)}">
<meta property="csp-nonce" content="${attr(opts.nonce)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${'text' in opts.style ? `<style nonce="${attr(opts.nonce)}">${styleText(opts.style.text)}</style>` : `<link rel="stylesheet" nonce="${attr(opts.nonce)}" href="${attr(opts.style.uri)}">`}
<title>Baton</title>
</head>
<body>
<div id="app" class="app"></div>
${opts.firstPage ? `<script type="application/json" id="${FIRST_PAGE_ELEMENT_ID}">${scriptData(opts.firstPage)}</script>\n` : ''}${opts.highlighter !== undefined ? `<script type="text/plain" id="${HIGHLIGHTER_ELEMENT_ID}">${scriptText(opts.highlighter)}</script>\n` : ''}${'text' in opts.script ? `<script nonce="${attr(opts.nonce)}">${scriptText(opts.script.text)}</script>` : `<script nonce="${attr(opts.nonce)}" src="${attr(opts.script.uri)}"></script>`}
</body>
</html>
`;
}
