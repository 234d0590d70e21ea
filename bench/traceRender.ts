// Diagnostic, not part of the bench: renders each pathological reply at once (as the panel bench's "render" does) with
// Chromium tracing on, and breaks the longest main-thread task between posting the message and its paint down by
// kind (script, style, layout, paint…), in thread time, which other processes on a shared machine stretch far less
// than wall-clock time.
//
//   node --import tsx bench/traceRender.ts [runs] [--only SUBSTRING] [--base DIR] [--tree] [--js]
//
// --base DIR: also builds DIR's webview/ (say, a `git worktree` of main) and takes turns with each build, so before
// and after are compared in one run on the same machine load. --tree prints the events of the longest task; --js the
// sampled self time of the functions in it (from a build that keeps the names).
import type { Browser } from 'playwright-core';
import { buildWebview, launchChromium, openWebviewPage, type WebviewBuild } from '../test/support/webviewPage';
import { median } from './figure';
import { benchAnswer } from './panelContent';
import { ONE_SHOT_DRIVER } from './panelDrivers';
import { pathologicalInputs, type PathologicalInput } from './pathologicalInputs';
import { profileSamples } from './profileSamples';
import type { TraceEvent } from './traceOpen';

/** Kinds of main-thread work; an event counts as the innermost kind it is inside of. */
const KINDS: Array<[string, (e: TraceEvent) => boolean]> = [
  ['html parse', (e) => e.name === 'ParseHTML' || e.name === 'HTMLDocumentParser::ParseFragment'],
  ['gc', (e) => e.name === 'MinorGC' || e.name === 'MajorGC' || e.name.startsWith('V8.GC') || e.name === 'BlinkGC.AtomicPhase'],
  ['structured clone', (e) => e.name.startsWith('SerializedScriptValueFactory')],
  ['style', (e) => e.name === 'UpdateLayoutTree'],
  ['layout', (e) => e.name === 'Layout'],
  ['paint + commit', (e) => ['PrePaint', 'Paint', 'Layerize', 'Commit', 'UpdateLayer'].includes(e.name)],
  ['script', (e) => ['FunctionCall', 'v8.run', 'v8.callFunction', 'EvaluateScript', 'v8.compile', 'V8.CompileCode'].includes(e.name)],
];

function kindOf(stack: TraceEvent[]): string {
  for (let i = stack.length - 1; i >= 0; i--) for (const [name, test] of KINDS) if (test(stack[i]!)) return name;
  return 'other';
}

const EMPTY = { messages: [], workers: [], permissions: [], state: { busy: false, model: 'gpt-4.1', routingAuto: true } };

interface RenderTrace {
  /** What the bench's driver reports (wall clock, untraced figures are a little lower). */
  driver: Record<string, number>;
  /** The longest task's wall and thread time, and its thread time by kind. */
  longestWall: number;
  longestCpu: number;
  kinds: Map<string, number>;
  /** From posting to the end mark, all tasks' thread time. */
  totalCpu: number;
  /** The five longest tasks' thread time, the longest first. */
  top: number[];
  /** Style and layout forced by script (a read of layout after a write): how many, and their thread time. */
  forced: number;
  forcedCpu: number;
  /** Tasks with an animation frame's callbacks in them. */
  frames: number;
  lines: string[];
}

/** Sampled self time per function between `from` and `to` (trace clock), the largest first. */
function jsSelfTime(events: TraceEvent[], pid: number, from: number, to: number): string[] {
  const self = new Map<string, number>();
  for (const { key, ms } of profileSamples(events, pid, from, to)) self.set(key, (self.get(key) ?? 0) + ms);
  return [...self]
    .filter(([key]) => !key.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 30)
    .map(([key, ms]) => `    ${ms.toFixed(1).padStart(6)} ms  ${key}`);
}

/**
 * The longest gap between two animation frames on the page's main thread, with every thread's work in it: the page's
 * main-thread tasks (wall, CPU, what they were) and, for each other thread of any process, its CPU in the gap. A frame
 * longer than its main-thread CPU was lost elsewhere (raster, the GPU process, the compositor) or to the machine.
 */
function longestFrame(events: TraceEvent[], start: TraceEvent, end: TraceEvent): string[] {
  const names = new Map<string, string>();
  for (const e of events)
    if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, String((e.args as { name?: string } | undefined)?.name ?? ''));
  const frames = events
    .filter((e) => e.pid === start.pid && e.tid === start.tid && e.name === 'FireAnimationFrame' && e.ts >= start.ts && e.ts <= end.ts)
    .map((e) => e.ts)
    .sort((a, b) => a - b);
  let from = start.ts;
  let to = frames[0] ?? end.ts;
  for (let i = 1; i < frames.length; i++) if (frames[i]! - frames[i - 1]! > to - from) [from, to] = [frames[i - 1]!, frames[i]!];
  const lines = [`  longest frame ${((to - from) / 1000).toFixed(1)} ms, at ${((from - start.ts) / 1000).toFixed(0)} ms after the post`];
  // Top-level complete events per thread inside the gap (an event inside another is not counted again).
  const byThread = new Map<string, { cpu: number; wall: number; tasks: string[] }>();
  const sorted = events.filter((e) => e.ph === 'X' && e.ts + (e.dur ?? 0) > from && e.ts < to).sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
  const openUntil = new Map<string, number>();
  for (const e of sorted) {
    const key = `${e.pid}:${e.tid}`;
    if ((openUntil.get(key) ?? -1) > e.ts) continue;
    openUntil.set(key, e.ts + (e.dur ?? 0));
    const t = byThread.get(key) ?? { cpu: 0, wall: 0, tasks: [] };
    t.cpu += (e.tdur ?? 0) / 1000;
    t.wall += (e.dur ?? 0) / 1000;
    if (key === `${start.pid}:${start.tid}` && (e.dur ?? 0) >= 1000) {
      t.tasks.push(
        `      at +${((e.ts - from) / 1000).toFixed(1)} ${e.name} wall ${((e.dur ?? 0) / 1000).toFixed(1)} cpu ${((e.tdur ?? 0) / 1000).toFixed(1)}`,
      );
      // A task that mostly waited: what it waited in.
      if ((e.dur ?? 0) > 5000 && (e.tdur ?? 0) < (e.dur ?? 0) / 3)
        for (const inner of sorted)
          if (`${inner.pid}:${inner.tid}` === key && inner !== e && inner.ts >= e.ts && inner.ts < e.ts + (e.dur ?? 0) && (inner.dur ?? 0) >= 1000)
            t.tasks.push(`          ${inner.name} wall ${((inner.dur ?? 0) / 1000).toFixed(1)} cpu ${((inner.tdur ?? 0) / 1000).toFixed(1)}`);
    }
    byThread.set(key, t);
  }
  for (const [key, t] of [...byThread].sort((a, b) => b[1].wall - a[1].wall))
    if (t.wall >= 1) lines.push(`    ${(names.get(key) ?? key).padEnd(28)} wall ${t.wall.toFixed(1)} cpu ${t.cpu.toFixed(1)}`, ...t.tasks);
  return lines;
}

async function traceRender(browser: Browser, build: WebviewBuild, input: PathologicalInput, tree: boolean, js = false): Promise<RenderTrace> {
  const wp = await openWebviewPage(browser, { build, replyToReady: [{ type: 'snapshot', seq: 1, snapshot: EMPTY }] });
  try {
    await wp.page.waitForSelector('[data-testid="empty-state"]');
    await browser.startTracing(wp.page, {
      categories: [
        'toplevel',
        'devtools.timeline',
        'disabled-by-default-devtools.timeline',
        'v8',
        'blink',
        'blink.user_timing',
        ...(js ? ['disabled-by-default-v8.cpu_profiler'] : []),
        // --frames: the other threads' work too (raster, compositor, GPU process).
        ...(process.argv.includes('--frames') ? ['cc', 'gpu', 'viz', 'benchmark', 'disabled-by-default-devtools.timeline.frame'] : []),
      ],
    });
    const driver = (await wp.page.evaluate(
      `(async function () { var r = await (${ONE_SHOT_DRIVER})(${JSON.stringify(input.text)}); delete r.html; return r; })()`,
    )) as Record<string, number>;
    const events = (JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: TraceEvent[] }).traceEvents;
    const start = events.find((e) => e.name === 'baton-render-start');
    const end = events.find((e) => e.name === 'baton-render-end');
    if (!start || !end) throw new Error('the trace has no render marks');
    const main = events
      .filter((e) => e.pid === start.pid && e.tid === start.tid && e.ph === 'X' && e.ts >= start.ts && e.ts < end.ts)
      .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
    // Top-level tasks with the events inside each.
    const tasks: Array<{ e: TraceEvent; inner: TraceEvent[] }> = [];
    for (const e of main) {
      const last = tasks[tasks.length - 1];
      if (last && e.ts < last.e.ts + (last.e.dur ?? 0)) last.inner.push(e);
      else tasks.push({ e, inner: [] });
    }
    if (process.argv.includes('--tasks'))
      for (const t of tasks) {
        const sum = (names: string[]): string => (t.inner.filter((e) => names.includes(e.name)).reduce((n, e) => n + (e.tdur ?? 0), 0) / 1000).toFixed(1);
        if ((t.e.tdur ?? 0) > 3000)
          console.log(
            `    task cpu ${((t.e.tdur ?? 0) / 1000).toFixed(1)} rAF ${sum(['FireAnimationFrame'])} message ${sum(['HandlePostMessage'])} style ${sum(['UpdateLayoutTree'])} layout ${sum(['Layout'])} pre-paint ${sum(['PrePaint'])} paint ${sum(['Paint'])} gc ${sum(['MajorGC', 'MinorGC'])} RO ${sum(['ResizeObserver::BroadcastObservations'])}`,
          );
      }
    let totalCpu = 0;
    let longest = tasks[0]!;
    for (const t of tasks) {
      totalCpu += (t.e.tdur ?? t.e.dur ?? 0) / 1000;
      if ((t.e.tdur ?? 0) > (longest.e.tdur ?? 0)) longest = t;
    }
    const kinds = new Map<string, number>();
    const lines: string[] = [];
    const stack: TraceEvent[] = [];
    const child = new Map<TraceEvent, number>();
    const close = (until: number): void => {
      while (stack.length && stack[stack.length - 1]!.ts + (stack[stack.length - 1]!.dur ?? 0) <= until) {
        const e = stack.pop()!;
        const own = ((e.tdur ?? e.dur ?? 0) - (child.get(e) ?? 0)) / 1000;
        const kind = kindOf([...stack, e]);
        kinds.set(kind, (kinds.get(kind) ?? 0) + own);
        const parent = stack[stack.length - 1];
        if (parent) child.set(parent, (child.get(parent) ?? 0) + (e.tdur ?? e.dur ?? 0));
      }
    };
    for (const e of [longest.e, ...longest.inner]) {
      close(e.ts);
      if (tree && (e.dur ?? 0) >= 1000)
        lines.push(`${'  '.repeat(stack.length + 1)}${e.name}  wall ${((e.dur ?? 0) / 1000).toFixed(1)} cpu ${((e.tdur ?? 0) / 1000).toFixed(1)}`);
      stack.push(e);
    }
    close(Infinity);
    if (process.argv.includes('--frames')) lines.push(...longestFrame(events, start, end));
    // --js-all: over the whole render, not only its longest task.
    if (js)
      lines.push(
        ...(process.argv.includes('--js-all')
          ? jsSelfTime(events, start.pid, start.ts, end.ts)
          : jsSelfTime(events, start.pid, longest.e.ts, longest.e.ts + (longest.e.dur ?? 0))),
      );
    const top = tasks
      .map((t) => (t.e.tdur ?? 0) / 1000)
      .sort((a, b) => b - a)
      .slice(0, 5);
    const forcedEvents = main.filter((e) => e.name === 'Blink.ForcedStyleAndLayout.UpdateTime' && (e.tdur ?? 0) >= 100);
    const forcedCpu = forcedEvents.reduce((n, e) => n + (e.tdur ?? 0), 0) / 1000;
    return {
      driver,
      longestWall: (longest.e.dur ?? 0) / 1000,
      longestCpu: (longest.e.tdur ?? 0) / 1000,
      kinds,
      totalCpu,
      top,
      forced: forcedEvents.length,
      forcedCpu,
      frames: tasks.filter((t) => t.inner.some((e) => e.name === 'FireAnimationFrame')).length,
      lines,
    };
  } finally {
    await wp.close();
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const runs = Number(args.find((a) => /^\d+$/.test(a)) ?? 3);
  const only = args.includes('--only') ? args[args.indexOf('--only') + 1]! : '';
  const tree = args.includes('--tree');
  const js = args.includes('--js');
  const builds: Array<[string, WebviewBuild]> = [['this', await buildWebview({ readable: js })]];
  for (let i = 0; i < args.length; i++)
    if (args[i] === '--base') builds.push([args[i + 1]!.replace(/^.*\//, ''), await buildWebview({ root: args[i + 1]!, readable: js })]);
  const browser = await launchChromium();
  try {
    const inputs = [{ name: 'ordinary reply, 200 KB', text: benchAnswer(200_000) }, ...pathologicalInputs(100_000)];
    for (const input of inputs.filter((i) => i.name.includes(only))) {
      const results = new Map<string, RenderTrace[]>(builds.map(([name]) => [name, []]));
      for (let n = 0; n < runs; n++) {
        // Each build first in turn, so a change in the machine's load falls on all alike.
        for (let b = 0; b < builds.length; b++) {
          const [name, build] = builds[(b + n) % builds.length]!;
          const r = await traceRender(browser, build, input, tree, js);
          results.get(name)!.push(r);
          if (tree || js || process.argv.includes('--frames')) console.log(`${name} ${input.name}, run ${n + 1}:\n${r.lines.join('\n')}`);
        }
      }
      console.log(`\n${input.name}`);
      for (const [name, rs] of results) {
        const m = (f: (r: RenderTrace) => number): string => median(rs.map(f)).toFixed(0).padStart(4);
        const kinds = [...new Set(rs.flatMap((r) => [...r.kinds.keys()]))]
          .map((k): [string, number] => [k, median(rs.map((r) => r.kinds.get(k) ?? 0))])
          .filter(([, v]) => v >= 1)
          .sort((a, b) => b[1] - a[1])
          .map(([k, v]) => `${k} ${v.toFixed(0)}`)
          .join(', ');
        const driver = Object.keys(rs[0]!.driver)
          .map((k) => `${k} ${m((r) => r.driver[k]!)}`)
          .join(', ');
        console.log(
          `  ${name.padEnd(8)} ${driver}; longest task wall ${m((r) => r.longestWall)} cpu ${m((r) => r.longestCpu)} (${kinds}); all tasks cpu ${m((r) => r.totalCpu)}`,
        );
        // The five longest tasks' CPU, each the median over the runs: one task says less than the tail it is from.
        console.log(
          `           five longest tasks' cpu ${[0, 1, 2, 3, 4].map((i) => median(rs.map((r) => r.top[i] ?? 0)).toFixed(0)).join('/')}; forced style and layout ${m((r) => r.forced)} times, cpu ${m((r) => r.forcedCpu)}; ${m((r) => r.frames)} frames`,
        );
      }
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
