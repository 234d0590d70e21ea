// Webview entry (bundled by esbuild to dist/webview.js; styles are a separate file, dist/webview.css, because the
// CSP admits stylesheets only from the extension, never inline).
import { provideVSCodeDesignSystem, vsCodeButton, vsCodeCheckbox } from '@vscode/webview-ui-toolkit';
import { ChatApp } from './chatApp';
import { warmUpHighlighter } from './codeHighlight';
import { vscodeApi } from './vscodeApi';

// Only the components the panel uses, so the rest of the toolkit stays out of the bundle.
provideVSCodeDesignSystem().register(vsCodeButton(), vsCodeCheckbox());

const root = document.getElementById('app') ?? document.body;
new ChatApp(root, vscodeApi()).start();
warmUpHighlighter();
