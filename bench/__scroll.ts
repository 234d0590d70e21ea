import { launchChromium, openWebviewPage, buildWebview } from '../test/support/webviewPage';
import { historySnapshot } from './panel.bench';
(async () => {
  const browser = await launchChromium();
  const build = await buildWebview();
  const wp = await openWebviewPage(browser, { build, replyToReady: [{ type: 'snapshot', seq: 1, snapshot: historySnapshot(1000) }] });
  await wp.page.waitForFunction('window.__batonHost.firstPaintAt !== undefined');
  console.log(await wp.page.evaluate('JSON.stringify(window.__batonHost, (k,v)=> k==="posted"||k==="state"?undefined:v)'));
  await wp.page.waitForTimeout(500);
  const r = await wp.page.evaluate(String.raw`(async function (step) {
  var scroller = document.querySelector('.scroller');
  var gaps = [], last = 0, info=[];
  var loafs = [];
  new PerformanceObserver(function (l) { l.getEntries().forEach(function (e) { loafs.push({ at: Math.round(e.startTime), d: Math.round(e.duration), work: Math.round(e.renderStart ? e.renderStart - e.startTime : e.duration), render: e.renderStart ? Math.round(e.startTime + e.duration - e.renderStart) : 0, layout: e.styleAndLayoutStart ? Math.round(e.startTime + e.duration - e.styleAndLayoutStart) : 0, scripts: e.scripts.map(function (s) { return s.invoker + ' ' + s.sourceFunctionName + ':' + Math.round(s.duration) + (s.forcedStyleAndLayoutDuration ? '(forced ' + Math.round(s.forcedStyleAndLayoutDuration) + ')' : ''); }).slice(0, 6) }); }); }).observe({ type: 'long-animation-frame' });
  await new Promise(function (r) { requestAnimationFrame(function (t) { last = t; r(); }); });
  await new Promise(function (done) {
    (function loop() {
      requestAnimationFrame(function (t) {
        var g = t-last; gaps.push(g); last = t;
        if (g > 30) info.push({i: gaps.length, g: Math.round(g), top: scroller.scrollTop, h: scroller.scrollHeight, rendered: document.querySelectorAll('[data-rendered]').length});
        if (scroller.scrollTop <= 0) return done();
        scroller.scrollTop = Math.max(0, scroller.scrollTop - step);
        loop();
      });
    })();
  });
  return { frames: gaps.length, info: info.filter(function(x){return x.g>40}), h: scroller.scrollHeight, loafs: loafs };
})(600)`);
  console.log(JSON.stringify(r));
  await wp.close(); await browser.close(); await build.dispose();
})();
