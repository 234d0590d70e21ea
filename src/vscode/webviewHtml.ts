// The chat webview's page. No vscode import: it is plain string building, unit-tested in Node, and the same page
// is served by the panel benchmark. The CSP admits only the extension's own script (by per-load nonce) and files;
// no 'unsafe-inline', no eval. The toolkit's styles use adoptedStyleSheets, which style-src does not govern.
//
// One exception, by nonce rather than 'unsafe-inline': FAST (under the toolkit) probes :focus-visible support once by
// adding a <style> element, which it tags with the nonce from <meta property="csp-nonce">. Without the nonce in
// style-src that probe is a CSP violation and FAST falls back to :focus, so buttons show focus rings on mouse clicks.
import { randomBytes } from 'node:crypto';
import { FIRST_PAGE_ELEMENT_ID, type HostMessage } from '../shared/protocol';

export interface WebviewHtmlOptions {
  /** webview.cspSource: the origin the extension's files are served from. */
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
  /**
   * The first page of the panel (a snapshot message, see firstPage in the protocol), written into the page as a
   * `<script type="application/json">`: data the panel reads at once, never executed, so the CSP stays as it is.
   */
  firstPage?: HostMessage;
}

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
      `style-src ${cspSource} 'nonce-${nonce}'`,
      `script-src 'nonce-${nonce}'`,
    ].join('; ') + ';'
  );
}

// JSON inside a <script> element ends at the first `</script`; `<` as \u003c cannot end it (nor open a comment), and
// JSON.parse reads it back as `<`.
function scriptData(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
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
<link rel="stylesheet" href="${attr(opts.styleUri)}">
<title>Baton</title>
</head>
<body>
<div id="app" class="app"></div>
${opts.firstPage ? `<script type="application/json" id="${FIRST_PAGE_ELEMENT_ID}">${scriptData(opts.firstPage)}</script>\n` : ''}<script nonce="${attr(opts.nonce)}" src="${attr(opts.scriptUri)}"></script>
</body>
</html>
`;
}
