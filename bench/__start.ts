import { launchChromium, openWebviewPage, buildWebview } from '../test/support/webviewPage';
import { historySnapshot } from './panel.bench';
(async () => {
  const browser = await launchChromium();
  const build = await buildWebview();
  for (const n of [0, 1000, 1000, 1000]) {
    const wp = await openWebviewPage(browser, { build, replyToReady: [{ type: 'snapshot', seq: 1, snapshot: historySnapshot(n) }] });
    await wp.page.waitForTimeout(800);
    console.log(n, await wp.page.evaluate(`JSON.stringify({marks: window.__marks, host: {ready: __batonHost.readyAt, parsed: __batonHost.parsedAt, posted: __batonHost.postedAt, received: __batonHost.receivedAt, msg: __batonHost.firstMessageAt, paint: __batonHost.firstPaintAt}, nav: (function(e){return {reqStart:e.requestStart, respEnd: e.responseEnd, domInteractive: e.domInteractive, dcl: e.domContentLoadedEventEnd, load: e.loadEventEnd}})(performance.getEntriesByType('navigation')[0]), res: performance.getEntriesByType('resource').map(function(r){return r.name.split('/').pop()+' '+Math.round(r.startTime)+'-'+Math.round(r.responseEnd)}), fcp: performance.getEntriesByType('paint').map(function(p){return p.name+' '+Math.round(p.startTime)}) })`));
    await wp.close();
  }
  await browser.close(); await build.dispose();
})();
