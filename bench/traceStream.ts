// Diagnostic, not part of the bench: streams the panel bench's long lists and tables (and its 10k-delta prose flood)
// with Chromium tracing on, and breaks the longest main-thread tasks of each stream down by kind (thread time of the
// renderer's main thread, which other processes on a shared machine stretch far less than wall-clock time).
//
//   node --import tsx bench/traceStream.ts [runs] [--base DIR]... [--only NAME] [--pathological] [--top N]
//     [--tree [--tree-all]] [--light] [--invalidations [--raw]]
//
// --base DIR: also builds DIR's webview/ (a `git archive` of main with node_modules linked) and takes turns streaming
// with each build, so before and after are compared in one run on the same machine load; each build's stream is
// checked against its own one-shot render. --pathological adds the panel bench's 24 pathological replies (pick one
// with --only). --tree prints the events of each stream's longest task (--tree-all: of
// each of the top N). --light traces fewer categories (the kinds, without the tree's detail). --invalidations adds
// Chromium's invalidation tracking: what invalidated style and layout in the top tasks, and how many elements style
// invalidation visited over the whole stream (--raw: each invalidation scheduled, with its script stack). Each stream
// also prints its three longest frames (rAF gaps) with the tasks in them, and its CPU by kind over all its tasks.
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { Snapshot } from '../src/shared/protocol';
// The one-shot render colours code as the page does once its highlighter has run.
import '../webview/highlighterBundle';
import { renderMarkdown } from '../webview/markdownStream';
import { buildWebview, HIGHLIGHTER_LOADED, launchChromium, openWebviewPage, waitInPage, type WebviewBuild } from '../test/support/webviewPage';
import { median } from './figure';
import { benchAnswer, cutIntoDeltas } from './panelContent';
import { STREAM_DRIVER } from './panelDrivers';
import { longListInputs, pathologicalInputs } from './pathologicalInputs';
import type { TraceEvent } from './traceOpen';

const EMPTY: Snapshot = { messages: [], workers: [], permissions: [], state: { busy: false, model: 'gpt-4.1', routingAuto: true } };

/** Kinds of main-thread work; an event counts as the innermost kind it is inside of. */
const KINDS: Array<[string, (e: TraceEvent) => boolean]> = [
  ['gc', (e) => e.name === 'MinorGC' || e.name === 'MajorGC' || e.name.startsWith('V8.GC') || e.name === 'BlinkGC.AtomicPhase'],
  ['style', (e) => e.name === 'UpdateLayoutTree' || e.name === 'ParseAuthorStyleSheet'],
  ['layout', (e) => e.name === 'Layout'],
  ['paint + commit', (e) => ['PrePaint', 'Paint', 'Layerize', 'Commit', 'UpdateLayer', 'PaintImage'].includes(e.name)],
  ['hit test', (e) => e.name === 'HitTest'],
  ['observers', (e) => e.name === 'ResizeObserver::BroadcastObservations' || e.name.startsWith('IntersectionObserver')],
  ['html parse (innerHTML)', (e) => e.name === 'ParseHTML' || e.name === 'ParseFragment'],
  ['script', (e) => ['FunctionCall', 'v8.run', 'v8.callFunction', 'EvaluateScript', 'TimerFire', 'FireAnimationFrame'].includes(e.name)],
];

function kindOf(stack: TraceEvent[]): string {
  for (let i = stack.length - 1; i >= 0; i--) for (const [name, test] of KINDS) if (test(stack[i]!)) return name;
  return 'other';
}

const LABELS = ['HandlePostMessage', 'FireAnimationFrame', 'TimerFire', 'WebFrameWidgetImpl::UpdateLifecycle', 'ResizeObserver::BroadcastObservations'];

interface Task {
  e: TraceEvent;
  cpu: number;
  labels: string[];
  /** Layout passes in it (more than one: something, such as content-visibility, made the frame lay out again). */
  layouts: number;
  /** With --invalidations: what invalidated style and layout in it. */
  invalid: string[];
  kinds: Map<string, number>;
  tree: string[];
}

interface StreamTrace {
  /** The 95th percentile of the stream's tasks' CPU, and how many took over 30 ms of it. */
  p95Cpu: number;
  over30: number;
  maxFrameMs: number;
  /** The main thread's tasks in each of the three longest frames (rAF gaps), over 1 ms of wall time each. */
  inLongest: string[][];
  longestCpu: number;
  /** Main-thread CPU of all the stream's tasks by kind, and how many tasks drew a frame. */
  totals: Map<string, number>;
  frames: number;
  relaidOut: number;
  totalMs: number;
  top: Task[];
  start: number;
}

/** What Chromium says invalidated style and layout in a task (--invalidations): counts by event, reason and node. */
function invalidations(events: TraceEvent[], task: TraceEvent): string[] {
  const counts = new Map<string, number>();
  for (const e of events) {
    if (e.pid !== task.pid || e.tid !== task.tid || !e.name.includes('InvalidationTracking')) continue;
    if (e.ts < task.ts || e.ts > task.ts + (task.dur ?? 0)) continue;
    const d = (e.args?.data ?? {}) as Record<string, unknown>;
    const key = `${e.name} ${String(d.reason ?? d.changedAttribute ?? d.changedClass ?? d.changedPseudo ?? d.changedId ?? '')} ${String(d.nodeName ?? '')} ${JSON.stringify(d.extraData ?? d.invalidationList ?? '').slice(0, 120)}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    // The scheduled invalidations themselves, not each element they matched.
    if (process.argv.includes('--raw') && !key.includes('matched') && !key.includes('Related style rule'))
      console.log(`      ${((e.ts - task.ts) / 1000).toFixed(2)} ${e.name} ${JSON.stringify(d).slice(0, 400)}`);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 25)
    .map(([k, n]) => `${n} × ${k}`);
}

async function traceStream(browser: Browser, build: WebviewBuild, deltas: string[], expectedHtml: string, top: number): Promise<StreamTrace> {
  const wp = await openWebviewPage(browser, { build, replyToReady: [{ type: 'snapshot', seq: 1, snapshot: EMPTY }] });
  try {
    await wp.page.waitForSelector('[data-testid="empty-state"]');
    // A build with its own highlighter bundle runs it just after the first paint (webview/highlighter.ts).
    if (build.highlighter) await waitInPage(wp.page, HIGHLIGHTER_LOADED);
    await browser.startTracing(wp.page, {
      // --light: fewer categories (the kinds without the detail of --tree), so tracing stretches the stream less.
      categories: [
        'toplevel',
        'devtools.timeline',
        'blink.user_timing',
        ...(process.argv.includes('--light') ? [] : ['disabled-by-default-devtools.timeline', 'v8', 'blink']),
        ...(process.argv.includes('--invalidations') ? ['disabled-by-default-devtools.timeline.invalidationTracking'] : []),
      ],
    });
    const result = (await wp.page.evaluate(`${STREAM_DRIVER}(${JSON.stringify(deltas)}, 0, ${JSON.stringify(expectedHtml)})`)) as {
      maxFrameMs: number;
      longest: Array<[number, number]>;
      totalMs: number;
      matches: boolean;
    };
    const events = (JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: TraceEvent[] }).traceEvents;
    if (!result.matches) throw new Error('the traced stream did not end with the one-shot DOM');
    const start = events.find((e) => e.name === 'baton-stream-start');
    const end = events.find((e) => e.name === 'baton-stream-end');
    if (!start || !end) throw new Error('the trace has no stream marks');
    const main = events
      .filter((e) => e.pid === start.pid && e.tid === start.tid && e.ph === 'X' && e.ts >= start.ts && e.ts < end.ts)
      .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
    const tasks: Task[] = [];
    const stack: TraceEvent[] = [];
    const childTime = new Map<TraceEvent, number>();
    const close = (until: number): void => {
      while (stack.length && stack[stack.length - 1]!.ts + (stack[stack.length - 1]!.dur ?? 0) <= until) {
        const e = stack.pop()!;
        const own = ((e.tdur ?? e.dur ?? 0) - (childTime.get(e) ?? 0)) / 1000;
        const kind = kindOf([...stack, e]);
        const task = tasks[tasks.length - 1]!;
        task.kinds.set(kind, (task.kinds.get(kind) ?? 0) + own);
        const parent = stack[stack.length - 1];
        if (parent) childTime.set(parent, (childTime.get(parent) ?? 0) + (e.tdur ?? e.dur ?? 0));
      }
    };
    for (const e of main) {
      close(e.ts);
      if (stack.length === 0)
        tasks.push({ e, cpu: Math.min(e.tdur ?? e.dur ?? 0, e.dur ?? 0) / 1000, labels: [], layouts: 0, invalid: [], kinds: new Map(), tree: [] });
      const task = tasks[tasks.length - 1]!;
      if (LABELS.includes(e.name) && !task.labels.includes(e.name)) task.labels.push(e.name);
      if (e.name === 'Layout') task.layouts++;
      if ((e.tdur ?? e.dur ?? 0) >= 500) {
        const data = e.args?.data ?? {};
        const detail = String(data.functionName ?? data.type ?? '').slice(0, 40);
        const a = e.args as Record<string, unknown> | undefined;
        const extra = ['Layout', 'UpdateLayoutTree', 'Paint', 'ParseHTML', 'HitTest'].includes(e.name) ? ` ${JSON.stringify(a).slice(0, 300)}` : '';
        task.tree.push(
          `${'  '.repeat(stack.length + 2)}${e.name} ${detail}${extra} wall ${((e.dur ?? 0) / 1000).toFixed(1)} cpu ${((e.tdur ?? 0) / 1000).toFixed(1)}`,
        );
      }
      stack.push(e);
    }
    close(Infinity);
    // Tasks that end after the end mark are left out, as the bench does (the driver's own check of the DOM).
    const counted = tasks.filter((t) => t.e.ts + (t.e.dur ?? 0) <= end.ts);
    const sorted = [...counted].sort((a, b) => b.cpu - a.cpu);
    if (process.argv.includes('--invalidations')) for (const t of sorted.slice(0, top)) t.invalid = invalidations(events, t.e);
    // Thread time above wall time cannot be real: say how often a trace has it (see the report on issue 20).
    const odd = main.filter((e) => (e.tdur ?? 0) > (e.dur ?? 0) * 1.2 + 1000);
    const oddNames = new Map<string, number>();
    for (const e of odd) oddNames.set(e.name, (oddNames.get(e.name) ?? 0) + 1);
    if (odd.length) console.log(`  events with thread time > wall time: ${[...oddNames].map(([k, v]) => `${k} ×${v}`).join(', ')}`);
    const cpus = counted
      .map((t) => t.cpu)
      .filter((c) => c >= 1)
      .sort((a, b) => a - b);
    const p95Cpu = cpus[Math.floor(cpus.length * 0.95)] ?? 0;
    const over30 = cpus.filter((c) => c > 30).length;
    const inLongest = result.longest.map(([endMs, gapMs]) => {
      const gapEnd = start.ts + endMs * 1000;
      const gapStart = gapEnd - gapMs * 1000;
      const lines = tasks
        .filter((t) => t.e.ts + (t.e.dur ?? 0) > gapStart && t.e.ts < gapEnd && (t.e.dur ?? 0) >= 1000)
        .map((t) => {
          const parts = [...t.kinds]
            .filter(([, v]) => v >= 0.5)
            .sort((a, b) => b[1] - a[1])
            .map(([k, v]) => `${k} ${v.toFixed(1)}`);
          return `    at ${((t.e.ts - start.ts) / 1000).toFixed(0).padStart(5)} ms wall ${((t.e.dur ?? 0) / 1000).toFixed(1).padStart(5)} cpu ${t.cpu.toFixed(1).padStart(5)} [${t.labels.join(', ')}] ${parts.join(', ')}`;
        });
      return [`  a frame of ${gapMs.toFixed(0)} ms, ${(endMs - gapMs).toFixed(0)}–${endMs.toFixed(0)} ms; its tasks over 1 ms:`, ...lines];
    });
    const totals = new Map<string, number>();
    for (const t of counted) for (const [k, v] of t.kinds) totals.set(k, (totals.get(k) ?? 0) + v);
    const frames = counted.filter((t) => t.labels.includes('FireAnimationFrame')).length;
    const relaidOut = counted.filter((t) => t.layouts > 1).length;
    // With --invalidations: how many elements Chromium's style invalidation visited over the whole stream.
    const invalidated = events.filter(
      (e) => e.pid === start.pid && e.ts >= start.ts && e.ts < end.ts && e.name === 'StyleInvalidatorInvalidationTracking',
    ).length;
    if (invalidated) console.log(`  elements matched by style invalidation over the stream: ${invalidated}`);
    return {
      relaidOut,
      totals,
      frames,
      inLongest,
      p95Cpu,
      over30,
      maxFrameMs: result.maxFrameMs,
      totalMs: result.totalMs,
      longestCpu: sorted[0]?.cpu ?? 0,
      top: sorted.slice(0, top),
      start: start.ts,
    };
  } finally {
    await wp.close();
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const runs = Number(args.find((a) => /^\d+$/.test(a)) ?? 1);
  const topN = Number(args[args.indexOf('--top') + 1] ?? 3) || 3;
  const only = args.includes('--only') ? args[args.indexOf('--only') + 1]! : '';
  const tree = args.includes('--tree');
  // Each build's stream is checked against its own one-shot render (the markup may differ between them).
  type Render = (text: string) => string;
  const builds: Array<[string, WebviewBuild, Render]> = [['this', await buildWebview({ readable: args.includes('--readable') }), renderMarkdown]];
  for (let i = 0; i < args.length; i++)
    if (args[i] === '--base') {
      const root = args[i + 1]!;
      const own = ((await import(join(root, 'webview/markdownStream.ts'))) as { renderMarkdown: Render }).renderMarkdown;
      builds.push([root.replace(/^.*\//, ''), await buildWebview({ root }), own]);
    }
  const answer = benchAnswer();
  const inputs = [
    // --pathological: the panel bench's 24 pathological replies too, streamed as it streams them (500 deltas).
    ...[...longListInputs(100_000), ...(args.includes('--pathological') ? pathologicalInputs(100_000) : [])].map((input) => ({
      name: input.name,
      deltas: cutIntoDeltas(input.text, 500, 3),
      text: input.text,
    })),
    { name: 'prose, 10k deltas', deltas: cutIntoDeltas(answer, 10_000), text: answer },
  ].filter((input) => input.name.includes(only));
  const browser = await launchChromium();
  const results = new Map<string, StreamTrace[]>();
  try {
    for (let n = 0; n < runs; n++)
      for (const input of inputs) {
        const order = builds.map((_, i) => builds[(i + n) % builds.length]!);
        for (const [name, build, render] of order) {
          const r = await traceStream(browser, build, input.deltas, render(input.text), topN);
          const key = `${input.name} | ${name}`;
          results.set(key, [...(results.get(key) ?? []), r]);
          console.log(
            `\n${key}, run ${n + 1}: longest frame ${r.maxFrameMs.toFixed(0)} ms, longest task cpu ${r.longestCpu.toFixed(1)} ms, total ${r.totalMs.toFixed(0)} ms`,
          );
          const all = [...r.totals].sort((a, b) => b[1] - a[1]).filter(([, v]) => v >= 1);
          console.log(
            `  all tasks (${r.frames} animation frames, ${r.relaidOut} of them laid out more than once), ms of CPU: ${all.map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')}`,
          );
          for (const lines of r.inLongest) for (const line of lines) console.log(line);
          for (const t of r.top) {
            const parts = [...t.kinds]
              .filter(([, v]) => v >= 0.5)
              .sort((a, b) => b[1] - a[1])
              .map(([k, v]) => `${k} ${v.toFixed(1)}`);
            console.log(
              `  at ${((t.e.ts - r.start) / 1000).toFixed(0).padStart(5)} ms wall ${((t.e.dur ?? 0) / 1000).toFixed(1).padStart(5)} cpu ${t.cpu.toFixed(1).padStart(5)} [${t.labels.join(', ')}] ${parts.join(', ')}`,
            );
            for (const line of t.invalid) console.log(`    ${line}`);
            if (tree && (t === r.top[0] || args.includes('--tree-all'))) for (const line of t.tree) console.log(line);
          }
        }
      }
  } finally {
    await browser.close();
    for (const [, b] of builds) await b.dispose();
  }
  console.log(`\nmedians over ${runs} runs: longest frame (wall) / longest task (cpu) / p95 task (cpu), ms; tasks over 30 ms cpu; total ms`);
  const med = (rs: StreamTrace[], get: (r: StreamTrace) => number, digits = 0): string => median(rs.map(get)).toFixed(digits);
  for (const [key, rs] of results)
    console.log(
      `  ${key.padEnd(44)} ${med(rs, (r) => r.maxFrameMs)} / ${med(rs, (r) => r.longestCpu, 1)} / ${med(rs, (r) => r.p95Cpu, 1)}; ${med(rs, (r) => r.over30)}; ${med(rs, (r) => r.totalMs)}`,
    );
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
