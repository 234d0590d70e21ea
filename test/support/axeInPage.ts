// axe-core in a Chromium page of the webview bundle (test/support/webviewPage.ts): its serious and critical findings,
// by the rules the e2e suite runs in code-server.
import { readFileSync } from 'node:fs';
import type { WebviewPage } from './webviewPage';

export async function axeSerious(wp: WebviewPage): Promise<string[]> {
  await wp.page.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  return (await wp.page
    .evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] }, resultTypes: ['violations'] })
    .then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`)) as string[];
}
