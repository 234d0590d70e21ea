import { launchChromium, openWebviewPage, buildWebview } from '../test/support/webviewPage';
import { historySnapshot } from './panel.bench';
(async () => {
  const browser = await launchChromium();
  const build = await buildWebview();
  let cdp: any;
  const wp = await openWebviewPage(browser, { build, replyToReady: [{ type: 'snapshot', seq: 1, snapshot: historySnapshot(1000) }], beforeLoad: async (page) => {
    cdp = await page.context().newCDPSession(page);
    await cdp.send('Profiler.enable'); await cdp.send('Profiler.setSamplingInterval', { interval: 100 }); await cdp.send('Profiler.start');
  } });
  await wp.page.waitForTimeout(600);
  const { profile } = await cdp.send('Profiler.stop');
  console.log(await wp.page.evaluate(`JSON.stringify({ready: __batonHost.readyAt, msg: __batonHost.firstMessageAt, paint: __batonHost.firstPaintAt})`));
  // bucket samples by time window with top functions
  const byId = new Map<number, any>(profile.nodes.map((n: any) => [n.id, n]));
  const parent = new Map<number, number>(); for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  let t = 0; const t0 = profile.startTime;
  const buckets = new Map<string, number>();
  profile.samples.forEach((id: number, i: number) => { t += profile.timeDeltas[i];
    const n = byId.get(id); let top = id; let chain: string[] = [];
    for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) { const f = byId.get(x).callFrame; if (f.functionName) chain.push(f.functionName); }
    const k = `${Math.floor((t) / 1000 / 25) * 25}ms ${n.callFrame.functionName || '(anon)'} <- ${chain.slice(1, 4).join('<')}`;
    buckets.set(k, (buckets.get(k) ?? 0) + profile.timeDeltas[i] / 1000);
  });
  console.log([...buckets.entries()].filter(([, v]) => v > 2).sort((a, b) => parseInt(a[0]) - parseInt(b[0]) || b[1] - a[1]).map(([k, v]) => `${v.toFixed(1)} ${k}`).join('\n'));
  await wp.close(); await browser.close(); await build.dispose();
})();
