// Webview entry (bundled by esbuild to dist/webview.js; styles are a separate file, dist/webview.css, because the
// CSP admits stylesheets only from the extension, never inline).
import { ChatApp } from './chatApp';
import { warmUpHighlighter } from './codeHighlight';
import { vscodeApi } from './vscodeApi';

const root = document.getElementById('app') ?? document.body;
new ChatApp(root, vscodeApi()).start();
warmUpHighlighter();
