import { launchChromium, openWebviewPage, buildWebview } from '../test/support/webviewPage';
import { historySnapshot } from './panel.bench';
(async () => {
  const browser = await launchChromium();
  const build = await buildWebview();
  const wp = await openWebviewPage(browser, { build, replyToReady: [{ type: 'snapshot', seq: 1, snapshot: historySnapshot(1000) }] });
  await wp.page.waitForFunction('window.__batonHost.firstPaintAt !== undefined');
  await wp.page.waitForTimeout(500);
  await browser.startTracing(wp.page, { categories: ['devtools.timeline', 'blink', 'disabled-by-default-devtools.timeline'] });
  await wp.page.evaluate(String.raw`(async function (step) {
    var scroller = document.querySelector('.scroller');
    await new Promise(function (done) { (function loop() { requestAnimationFrame(function () { if (scroller.scrollTop <= 0) return done(); scroller.scrollTop = Math.max(0, scroller.scrollTop - step); loop(); }); })(); });
  })(600)`);
  const buf = await browser.stopTracing();
  const trace = JSON.parse(buf.toString());
  const events = (trace.traceEvents ?? trace).filter((e: any) => e.ph === 'X' && e.dur);
  const agg = new Map<string, { n: number; total: number; max: number }>();
  for (const e of events) { const a = agg.get(e.name) ?? { n: 0, total: 0, max: 0 }; a.n++; a.total += e.dur / 1000; a.max = Math.max(a.max, e.dur / 1000); agg.set(e.name, a); }
  console.log([...agg.entries()].sort((a, b) => b[1].total - a[1].total).slice(0, 25).map(([k, v]) => `${k.padEnd(40)} n=${v.n} total=${v.total.toFixed(0)} max=${v.max.toFixed(1)}`).join('\n'));
  const layouts = events.filter((e: any) => e.name === 'Layout').sort((a: any, b: any) => b.dur - a.dur).slice(0, 3);
  console.log(JSON.stringify(layouts.map((e: any) => ({ dur: e.dur / 1000, args: e.args })), null, 0).slice(0, 1500));
  await wp.close(); await browser.close(); await build.dispose();
})();
