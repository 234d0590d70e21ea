import { launchChromium, openWebviewPage, buildWebview } from '../test/support/webviewPage';
import { benchAnswer, cutIntoDeltas } from './panel.bench';
(async () => {
  const browser = await launchChromium();
  const build = await buildWebview();
  const deltas = cutIntoDeltas(benchAnswer(), 10_000);
  for (const pace of [0, 4, 0, 4, 4]) {
    const wp = await openWebviewPage(browser, { build, replyToReady: [{ type: 'snapshot', seq: 1, snapshot: { messages: [], workers: [], permissions: [], state: { busy: false, model: 'm', routingAuto: true } } }] });
    await wp.page.waitForSelector('[data-testid="empty-state"]');
    const r = await wp.page.evaluate(String.raw`(async function (deltas, pace) {
      var loafs = [];
      new PerformanceObserver(function (l) { l.getEntries().forEach(function (e) { loafs.push({ d: Math.round(e.duration), block: Math.round(e.blockingDuration), work: Math.round(e.renderStart ? e.renderStart - e.startTime : e.duration), render: e.renderStart ? Math.round(e.startTime + e.duration - e.renderStart) : 0, layout: e.styleAndLayoutStart ? Math.round(e.startTime + e.duration - e.styleAndLayoutStart) : 0, scripts: e.scripts.map(function (s) { return s.invoker + ':' + Math.round(s.duration) + (s.forcedStyleAndLayoutDuration ? '(forced ' + Math.round(s.forcedStyleAndLayoutDuration) + ')' : ''); }).slice(0, 6) }); }); }).observe({ type: 'long-animation-frame' });
      var seq = 1; function post(m) { m.seq = ++seq; window.postMessage(m, '*'); }
      var start = performance.now();
      post({ type: 'message/append', message: { id: 'a', role: 'assistant', content: '', status: 'streaming', ts: 1 } });
      var sent = 0, ch = new MessageChannel();
      await new Promise(function (done) { ch.port1.onmessage = function () { var due = Math.min(deltas.length, sent + 100, pace ? Math.floor((performance.now() - start) * pace) : Infinity); for (; sent < due; sent++) post({ type: 'message/delta', id: 'a', delta: deltas[sent] }); if (sent < deltas.length) ch.port2.postMessage(0); else done(); }; ch.port2.postMessage(0); });
      post({ type: 'message/update', id: 'a', patch: { status: 'complete' } });
      await new Promise(function (r) { setTimeout(r, 300); });
      return loafs;
    })(${JSON.stringify(deltas)}, ${pace})`);
    console.log('pace', pace, JSON.stringify(r, null, 0));
    await wp.close();
  }
  await browser.close(); await build.dispose();
})();
