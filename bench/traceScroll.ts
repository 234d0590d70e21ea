// Diagnostic, not part of the bench: the panel bench's scroll (a 1,000-message history from the bottom to the top,
// 600 px a frame) with and without Chromium tracing, and the renderer main thread's CPU (thread time) per frame by
// kind (script, style, layout, intersection checks, pre-paint, paint, commit…), which other processes on a shared
// machine stretch far less than the frames' wall-clock length.
//
//   node --import tsx bench/traceScroll.ts [runs] [--base DIR]... [--untraced | --traced-only]
//
// --base DIR: also builds DIR's webview/ (say, a `git archive` of main with node_modules linked in) and takes turns
// with each build, so before and after are compared in one run on the same machine load.
import { firstPage } from '../src/shared/protocol';
import type { Browser } from 'playwright-core';
import { buildWebview, launchChromium, openWebviewPage, waitInPage, type WebviewBuild } from '../test/support/webviewPage';
import { median } from './figure';
import { historySnapshot } from './panelContent';
import { SCROLL_DRIVER } from './panelDrivers';
import type { TraceEvent } from './traceOpen';

/** Kinds of main-thread work; an event counts as the innermost kind it is inside of. */
const KINDS: Array<[string, (e: TraceEvent) => boolean]> = [
  ['gc', (e) => e.name === 'MinorGC' || e.name === 'MajorGC' || e.name.startsWith('V8.GC') || e.name === 'BlinkGC.AtomicPhase'],
  ['intersection', (e) => e.name.startsWith('IntersectionObserver') || e.name.includes('DisplayLock')],
  ['observers', (e) => e.name === 'ResizeObserver::BroadcastObservations'],
  ['style', (e) => e.name === 'UpdateLayoutTree'],
  ['layout', (e) => e.name === 'Layout'],
  ['pre-paint', (e) => e.name === 'PrePaint'],
  ['paint', (e) => e.name === 'Paint'],
  ['layerize + commit', (e) => ['Layerize', 'Commit', 'UpdateLayer'].includes(e.name)],
  ['script', (e) => ['FunctionCall', 'v8.run', 'v8.callFunction', 'EvaluateScript', 'v8.compile', 'V8.CompileCode'].includes(e.name)],
];

function kindOf(stack: TraceEvent[]): string {
  for (let i = stack.length - 1; i >= 0; i--) for (const [name, test] of KINDS) if (test(stack[i]!)) return name;
  return 'other';
}

interface ScrollRun {
  maxFrameMs: number;
  framesOver50: number;
  frames: number;
  /** Traced runs only: main-thread thread time per frame, in all and by kind, and the five longest tasks'. */
  cpuPerFrame?: number;
  kinds?: Map<string, number>;
  longestCpu?: number[];
  /** The longest tasks' thread time by kind. */
  longestKinds?: string[];
}

async function scrollOnce(browser: Browser, build: WebviewBuild, traced: boolean): Promise<ScrollRun> {
  const snapshot = historySnapshot(1000);
  const wp = await openWebviewPage(browser, {
    build,
    firstPage: { type: 'snapshot', seq: 1, snapshot: firstPage(snapshot) },
    replyToReady: [{ type: 'snapshot', seq: 2, snapshot }],
  });
  try {
    await waitInPage(wp.page, 'window.__batonHost.firstPaintAt !== undefined');
    await waitInPage(wp.page, `document.querySelectorAll('[data-testid="message"]').length >= ${snapshot.messages.length}`);
    await wp.page.waitForTimeout(500);
    if (traced)
      await browser.startTracing(wp.page, {
        categories: ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink', 'blink.user_timing', 'v8'],
      });
    const run = (await wp.page.evaluate(
      `(async function () { performance.mark('baton-scroll-start'); var r = await (${SCROLL_DRIVER})(600); performance.mark('baton-scroll-end'); return r; })()`,
    )) as ScrollRun;
    if (!traced) return run;
    const events = (JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: TraceEvent[] }).traceEvents;
    const start = events.find((e) => e.name === 'baton-scroll-start');
    const end = events.find((e) => e.name === 'baton-scroll-end');
    if (!start || !end) throw new Error('the trace has no scroll marks');
    const main = events
      .filter((e) => e.pid === start.pid && e.tid === start.tid && e.ph === 'X' && e.ts >= start.ts && e.ts < end.ts)
      .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
    const kinds = new Map<string, number>();
    const stack: TraceEvent[] = [];
    const child = new Map<TraceEvent, number>();
    const tasks: Array<{ cpu: number; kinds: Map<string, number> }> = [];
    let taskKinds = new Map<string, number>();
    let total = 0;
    const close = (until: number): void => {
      while (stack.length && stack[stack.length - 1]!.ts + (stack[stack.length - 1]!.dur ?? 0) <= until) {
        const e = stack.pop()!;
        const own = ((e.tdur ?? e.dur ?? 0) - (child.get(e) ?? 0)) / 1000;
        const kind = kindOf([...stack, e]);
        kinds.set(kind, (kinds.get(kind) ?? 0) + own);
        taskKinds.set(kind, (taskKinds.get(kind) ?? 0) + own);
        const parent = stack[stack.length - 1];
        if (parent) child.set(parent, (child.get(parent) ?? 0) + (e.tdur ?? e.dur ?? 0));
        else {
          // Capped at its wall time (see streamCpuOnce in panel.bench.ts).
          const cpu = Math.min(e.tdur ?? e.dur ?? 0, e.dur ?? 0) / 1000;
          tasks.push({ cpu, kinds: taskKinds });
          taskKinds = new Map();
          total += cpu;
        }
      }
    };
    for (const e of main) {
      close(e.ts);
      stack.push(e);
    }
    close(Infinity);
    for (const [k, v] of kinds) kinds.set(k, v / run.frames);
    const longest = tasks.sort((a, b) => b.cpu - a.cpu).slice(0, 5);
    const longestKinds = longest.map(
      (t) =>
        `${t.cpu.toFixed(0)} ms: ` +
        [...t.kinds]
          .filter(([, v]) => v >= 1)
          .sort((a, b) => b[1] - a[1])
          .map(([k, v]) => `${k} ${v.toFixed(0)}`)
          .join(', '),
    );
    return { ...run, cpuPerFrame: total / run.frames, kinds, longestCpu: longest.map((t) => t.cpu), longestKinds };
  } finally {
    await wp.close();
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const runs = Number(args.find((a) => /^\d+$/.test(a)) ?? 3);
  const untraced = args.includes('--untraced');
  const tracedOnly = args.includes('--traced-only');
  const builds: Array<[string, WebviewBuild]> = [['this', await buildWebview()]];
  for (let i = 0; i < args.length; i++) if (args[i] === '--base') builds.push([args[i + 1]!.replace(/^.*\//, ''), await buildWebview({ root: args[i + 1]! })]);
  const browser = await launchChromium();
  try {
    const results = new Map<string, { wall: ScrollRun[]; traced: ScrollRun[] }>(builds.map(([name]) => [name, { wall: [], traced: [] }]));
    for (let n = 0; n < runs; n++) {
      // Each build first in turn, so a change in the machine's load falls on all alike.
      for (let b = 0; b < builds.length; b++) {
        const [name, build] = builds[(b + n) % builds.length]!;
        if (tracedOnly) {
          const traced = await scrollOnce(browser, build, true);
          results.get(name)!.traced.push(traced);
          results.get(name)!.wall.push(traced);
          console.log(`  ${name} run ${n + 1} (traced):\n      ${traced.longestKinds!.join('\n      ')}`);
          continue;
        }
        const wall = await scrollOnce(browser, build, false);
        results.get(name)!.wall.push(wall);
        console.log(`  ${name} run ${n + 1}: longest frame ${wall.maxFrameMs.toFixed(0)} ms, ${wall.framesOver50} of ${wall.frames} over 50 ms`);
        if (untraced) continue;
        const traced = await scrollOnce(browser, build, true);
        results.get(name)!.traced.push(traced);
      }
    }
    for (const [name, { wall, traced }] of results) {
      const line = [
        `${name.padEnd(10)} longest frame ${median(wall.map((r) => r.maxFrameMs)).toFixed(0)} ms (${wall.map((r) => r.maxFrameMs.toFixed(0)).join(', ')})`,
        `frames over 50 ms ${median(wall.map((r) => r.framesOver50))} (${wall.map((r) => r.framesOver50).join(', ')}) of ~${wall[0]!.frames}`,
      ];
      if (traced.length) {
        const kinds = [...new Set(traced.flatMap((r) => [...r.kinds!.keys()]))]
          .map((k): [string, number] => [k, median(traced.map((r) => r.kinds!.get(k) ?? 0))])
          .filter(([, v]) => v >= 0.05)
          .sort((a, b) => b[1] - a[1])
          .map(([k, v]) => `${k} ${v.toFixed(1)}`)
          .join(', ');
        line.push(`traced: cpu/frame ${median(traced.map((r) => r.cpuPerFrame!)).toFixed(1)} ms (${kinds})`);
        line.push(`longest tasks' cpu ${traced.map((r) => r.longestCpu!.map((c) => c.toFixed(0)).join('/')).join('; ')}`);
      }
      console.log(line.join('\n    '));
    }
  } finally {
    await browser.close();
    for (const [, b] of builds) await b.dispose();
  }
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
