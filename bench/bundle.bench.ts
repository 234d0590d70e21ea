// Size of what Baton adds to the extension host and the webview (the SDK's native runtime excluded).
import { stat } from 'node:fs/promises';
import type { BenchFigure } from './figure';

export async function benchBundle(): Promise<BenchFigure[]> {
  const host = (await stat('dist/extension.js')).size;
  const webview = (await stat('dist/webview.js')).size + (await stat('dist/webview.css')).size;
  return [
    { name: 'bundle: extension host (dist/extension.js)', value: host / 1024 / 1024, unit: 'MB', target: '≤ 1.5' },
    { name: 'bundle: webview (js + css)', value: webview / 1024, unit: 'KB' },
  ];
}
