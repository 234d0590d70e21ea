// Webview entry (bundled by esbuild to dist/webview.js; styles are a separate file, dist/webview.css, because the
// CSP admits stylesheets only from the extension, never inline).
import { ChatApp } from './chatApp';
import { vscodeApi } from './vscodeApi';
import { warmUp } from './warmUp';

const root = document.getElementById('app') ?? document.body;
new ChatApp(root, vscodeApi()).start();
warmUp();
