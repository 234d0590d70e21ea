// Webview entry (bundled by esbuild to dist/webview.js; styles are a separate file, dist/webview.css, and so is the code
// highlighter, dist/webview-highlighter.js). The host writes them into the page (src/vscode/webviewHtml.ts).
import type { FIRST_PAGE_ELEMENT_ID } from '../src/shared/protocol';
import { ChatApp } from './chatApp';
import { loadHighlighterSoon } from './deferredHighlight';
import { vscodeApi } from './vscodeApi';
import { warmUp } from './warmUp';

// The protocol's constant, checked by the compiler; imported as a value it would bring the host's validators along.
const FIRST_PAGE: typeof FIRST_PAGE_ELEMENT_ID = 'baton-first-page';

/** The first page the host wrote into the HTML, if any; a page that does not parse is left out, with a warning. */
function firstPage(): unknown {
  const text = document.getElementById(FIRST_PAGE)?.textContent;
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    console.warn('[baton] the first page in the HTML is not JSON; waiting for the snapshot', err);
    return undefined;
  }
}

const root = document.getElementById('app') ?? document.body;
new ChatApp(root, vscodeApi()).start(firstPage());
// highlight.js is not compiled before the first paint: it is run in the first idle time after it (highlighter.ts).
loadHighlighterSoon();
warmUp();
