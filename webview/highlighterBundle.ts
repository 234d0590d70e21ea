// Entry of the code highlighter's bundle (dist/webview-highlighter.js): highlight.js and its grammars, kept out of the
// page's main bundle so they are not compiled before the first paint. The host writes it into the page as text that
// does not run; highlighter.ts runs it after the paint and takes what it leaves on the global object.
import { highlightCode, warmUpHighlighter } from './codeHighlight';
import type { Highlighter } from './highlighter';

const highlighter: Highlighter = { highlightCode, warmUp: warmUpHighlighter };
globalThis.batonHighlighter = highlighter;
