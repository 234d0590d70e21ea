// Diagnostic, not part of the bench: opens the bench's page on a 1,000-message history with Chromium tracing on and
// breaks the time from navigation to the first paint down by phase (thread time of the renderer's main thread, which
// other processes on a shared machine stretch far less than wall-clock time).
//
//   node --import tsx bench/traceOpen.ts [opens] [--base DIR | --base-unhinted DIR]... [--requested] [--hinted] [--first-page]
//                                        [--round-trip] [--replies-in-init-script] [--untraced | --tree | --js --readable]
//
// --base DIR: also builds DIR's webview/ (say, a `git archive` of main) and takes turns opening each build, so
// before and after are compared in one run on the same machine load (--base-unhinted: without V8's compile hint); a
// base's files are written into its page by the base's own renderWebviewHtml, as that extension serves it (a base from before the code highlighter's own
// bundle has highlight.js in its one bundle). --requested also opens this build that
// way; --hinted opens it written into the page with the compile hint the bundle shipped with before. Each open's resource timings (the HTML, and
// the files when requested) are reported beside the trace. --round-trip answers `ready` from this process.
// --replies-in-init-script also opens this build with the stub's answer to `ready` written into its init script, as the
// bench's page had it before (the browser evaluates that script before the page: what it charged the first paint). --tree prints each open's main-thread events;
// --js adds the sampling profiler's self time per function (--readable keeps the names); --untraced takes wall-clock
// times only, without the tracing's own overhead. --first-page serves the page as the extension does once its core is
// built, with the newest messages in the HTML (a bundle from before it ignores them and waits for the snapshot); the
// answer to `ready` then comes after the paint, so the phases after the bundle count as "before the snapshot".
import type { Browser } from 'playwright-core';
import { firstPage, type HostMessage, type Snapshot } from '../src/shared/protocol';
import { buildWebview, launchChromium, openWebviewPage, waitInPage, type OpenOptions, type WebviewBuild } from '../test/support/webviewPage';

type Files = NonNullable<OpenOptions['files']>;
import { median } from './figure';
import { historySnapshot } from './panelContent';
import { jsProfile, moduleLines } from './traceOpenProfile';

/** One event of a Chromium trace (the fields the bench reads). */
export interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: { data?: Record<string, unknown> };
}

/** Kinds of main-thread work; an event counts as the innermost kind it is inside of. */
const KINDS: Array<[string, (e: TraceEvent) => boolean]> = [
  ['html parse', (e) => e.name === 'ParseHTML'],
  ['script compile', (e) => e.name === 'v8.compile' || e.name === 'V8.CompileCode'],
  ['gc', (e) => e.name === 'MinorGC' || e.name === 'MajorGC' || e.name.startsWith('V8.GC') || e.name === 'BlinkGC.AtomicPhase'],
  ['structured clone', (e) => e.name.startsWith('SerializedScriptValueFactory')],
  ['style', (e) => e.name === 'UpdateLayoutTree' || e.name === 'ParseAuthorStyleSheet'],
  ['layout', (e) => e.name === 'Layout'],
  ['paint + commit', (e) => ['PrePaint', 'Paint', 'Layerize', 'Commit', 'UpdateLayer'].includes(e.name)],
  ['script', (e) => ['FunctionCall', 'v8.run', 'v8.callFunction', 'EvaluateScript', 'v8.evaluateModule'].includes(e.name)],
];

function kindOf(stack: TraceEvent[]): string {
  for (let i = stack.length - 1; i >= 0; i--) for (const [name, test] of KINDS) if (test(stack[i]!)) return name;
  return 'other (loading, task overhead)';
}

const PHASES = ['navigation + html', 'bundle evaluate + ready', 'before the snapshot', 'snapshot message', 'paint frame'] as const;
type Phase = (typeof PHASES)[number];

interface OpenTrace {
  paint: number;
  ready: number;
  received: number;
  cpu: number;
  /** v8's compile on worker threads (script streaming). */
  backgroundCompile: number;
  phases: Record<Phase, number>;
  kinds: Map<string, number>;
  lines: string[];
  /** Resource timings from navigation, ms: name → [fetch start, response end]. */
  resources: Record<string, [number, number]>;
}

interface TraceOptions {
  firstPage: boolean;
  tree: boolean;
  js: boolean;
  /** The bundle's source module for each line (0-based), from a readable build's `// path` comments. */
  modules: string[];
}

/** --untraced: wall-clock times only, as the panel bench's own opens take them (tracing slows the page a little). */
/** What the page is served with: the snapshot as the answer to `ready`, and with --first-page, the newest page in the HTML. */
function pageOptions(snapshot: Snapshot, withFirstPage: boolean): { replyToReady: HostMessage[]; firstPage?: HostMessage; roundTrip: boolean } {
  // --round-trip: `ready` answered from this process (a hop out of the page and back, as VS Code's goes through the
  // extension host) instead of by the page's stub at once.
  const roundTrip = process.argv.includes('--round-trip');
  return withFirstPage
    ? { firstPage: { type: 'snapshot', seq: 1, snapshot: firstPage(snapshot) }, replyToReady: [{ type: 'snapshot', seq: 2, snapshot }], roundTrip }
    : { replyToReady: [{ type: 'snapshot', seq: 1, snapshot }], roundTrip };
}

const RESOURCES = `(function () {
  var n = performance.getEntriesByType('navigation')[0];
  var r = { html: [n.requestStart, n.responseEnd] };
  performance.getEntriesByType('resource').forEach(function (e) { r[e.name.replace(/^.*\\//, '')] = [e.startTime, e.responseEnd]; });
  return r;
})()`;

async function untracedOpen(
  browser: Browser,
  build: WebviewBuild,
  snapshot: Snapshot,
  withFirstPage: boolean,
  files: Files,
  repliesInInitScript: boolean,
): Promise<OpenTrace> {
  const wp = await openWebviewPage(browser, { build, files, repliesInInitScript, ...pageOptions(snapshot, withFirstPage) });
  try {
    await waitInPage(wp.page, 'window.__batonHost.firstPaintAt !== undefined');
    const t = (await wp.page.evaluate('({ paint: __batonHost.firstPaintAt, ready: __batonHost.readyAt, received: __batonHost.receivedAt })')) as Record<
      string,
      number
    >;
    const phases = Object.fromEntries(PHASES.map((p) => [p, NaN])) as Record<Phase, number>;
    const resources = (await wp.page.evaluate(RESOURCES)) as OpenTrace['resources'];
    return { paint: t.paint!, ready: t.ready!, received: t.received!, cpu: NaN, backgroundCompile: NaN, phases, kinds: new Map(), lines: [], resources };
  } finally {
    await wp.close();
  }
}

async function traceOpen(
  browser: Browser,
  build: WebviewBuild,
  snapshot: Snapshot,
  opts: TraceOptions,
  files: Files,
  repliesInInitScript: boolean,
): Promise<OpenTrace> {
  const wp = await openWebviewPage(browser, {
    build,
    files,
    repliesInInitScript,
    ...pageOptions(snapshot, opts.firstPage),
    beforeLoad: (page) =>
      browser.startTracing(page, {
        categories: [
          'toplevel',
          'devtools.timeline',
          'disabled-by-default-devtools.timeline',
          'v8',
          'v8.execute',
          'blink',
          'loading',
          'blink.user_timing',
          ...(opts.js ? ['disabled-by-default-v8.cpu_profiler'] : []),
        ],
      }),
  });
  try {
    await waitInPage(wp.page, 'window.__batonHost.firstPaintAt !== undefined');
    const events = (JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: TraceEvent[] }).traceEvents;
    return { ...analyse(events, opts), resources: (await wp.page.evaluate(RESOURCES)) as OpenTrace['resources'] };
  } finally {
    await wp.close();
  }
}

function analyse(events: TraceEvent[], opts: TraceOptions): Omit<OpenTrace, 'resources'> {
  // The page's navigation: the last navigationStart of the renderer whose page marked its first paint.
  const paintMark = events.find((e) => e.name === 'baton:first-paint');
  const nav = events.filter((e) => e.name === 'navigationStart' && e.pid === paintMark?.pid && e.ts < paintMark.ts).sort((a, b) => b.ts - a.ts)[0];
  if (!nav) throw new Error('the trace has no navigationStart before a baton:first-paint mark');
  // The page's stub (test/support/webviewPage.ts) marks its moments; marks carry the trace's clock.
  // With the first page in the HTML, `ready` and its answer may come after the paint (then after the trace ends).
  const mark = (name: string): number => events.find((e) => e.name === name && e.pid === nav.pid)?.ts ?? Infinity;
  const end = mark('baton:first-paint');
  const received = mark('baton:received');
  const main = events
    .filter((e) => e.pid === nav.pid && e.tid === nav.tid && e.ph === 'X' && e.ts >= nav.ts && e.ts < end)
    .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
  const lines: string[] = [];
  const at = (ts: number): string => ((ts - nav.ts) / 1000).toFixed(0);
  const kinds = new Map<string, number>();
  const phases = Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<Phase, number>;
  const stack: TraceEvent[] = [];
  const childTime = new Map<TraceEvent, number>();
  interface Task {
    e: TraceEvent;
    label: string;
    kinds: Map<string, number>;
  }
  const tasks: Task[] = [];
  const close = (until: number): void => {
    while (stack.length && stack[stack.length - 1]!.ts + (stack[stack.length - 1]!.dur ?? 0) <= until) {
      const e = stack.pop()!;
      const own = ((e.tdur ?? e.dur ?? 0) - (childTime.get(e) ?? 0)) / 1000;
      const kind = kindOf([...stack, e]);
      kinds.set(kind, (kinds.get(kind) ?? 0) + own);
      const task = tasks[tasks.length - 1]!;
      task.kinds.set(kind, (task.kinds.get(kind) ?? 0) + own);
      const parent = stack[stack.length - 1];
      if (parent) childTime.set(parent, (childTime.get(parent) ?? 0) + (e.tdur ?? e.dur ?? 0));
    }
  };
  for (const e of main) {
    close(e.ts);
    if (stack.length === 0) tasks.push({ e, label: '', kinds: new Map() });
    const task = tasks[tasks.length - 1]!;
    if (!task.label && LABELS.includes(e.name)) task.label = `${e.name} ${String(e.args?.data?.type ?? e.args?.data?.url ?? '').replace(/^.*\//, '')}`;
    if (opts.tree && (e.dur ?? 0) >= 1000) {
      const detail = e.args?.data ? String(e.args.data.url ?? e.args.data.type ?? e.args.data.functionName ?? '').slice(-40) : '';
      lines.push(
        `${'  '.repeat(stack.length)}${at(e.ts).padStart(5)} ms  ${e.name} ${detail}  wall ${((e.dur ?? 0) / 1000).toFixed(1)} cpu ${((e.tdur ?? 0) / 1000).toFixed(1)}`,
      );
    }
    stack.push(e);
  }
  close(Infinity);
  let cpu = 0;
  let phase: Phase = 'navigation + html';
  for (const { e, label, kinds: taskKinds } of tasks) {
    const ms = (e.tdur ?? e.dur ?? 0) / 1000;
    cpu += ms;
    if (label.startsWith('EvaluateScript') || label.startsWith('v8.evaluateModule')) phase = 'bundle evaluate + ready';
    else if (phase === 'bundle evaluate + ready') phase = 'before the snapshot';
    if (e.ts <= received && received < e.ts + (e.dur ?? 0)) phase = 'snapshot message';
    else if (e.ts > received) phase = 'paint frame';
    phases[phase] += ms;
    if (ms < 1) continue;
    const parts = [...taskKinds]
      .filter(([, v]) => v >= 0.5)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v.toFixed(1)}`);
    lines.push(
      `  ${at(e.ts).padStart(5)} ms  wall ${((e.dur ?? 0) / 1000).toFixed(0).padStart(4)}  cpu ${ms.toFixed(1).padStart(5)}  ${(label || e.name).padEnd(38)} ${parts.join(', ')}`,
    );
  }
  const backgroundCompile =
    events
      .filter((e) => e.pid === nav.pid && e.tid !== nav.tid && e.ph === 'X' && e.name === 'v8.parseOnBackground' && e.ts < end)
      .reduce((sum, e) => sum + (e.tdur ?? e.dur ?? 0), 0) / 1000;
  for (const e of events)
    if (e.pid === nav.pid && e.tid !== nav.tid && e.ph === 'X' && e.name === 'v8.parseOnBackground' && e.ts < end)
      lines.push(`  background compile ${String(e.args?.data?.url ?? '').replace(/^.*\//, '')}: ${((e.tdur ?? e.dur ?? 0) / 1000).toFixed(1)} ms`);
  if (opts.js) lines.push(...jsProfile(events, nav, end, opts.modules, mark('baton:ready'), received));
  return {
    paint: (end - nav.ts) / 1000,
    // NaN when it came after the paint (with the first page in the HTML).
    ready: Number.isFinite(mark('baton:ready')) ? (mark('baton:ready') - nav.ts) / 1000 : NaN,
    received: Number.isFinite(received) ? (received - nav.ts) / 1000 : NaN,
    cpu,
    backgroundCompile,
    phases,
    kinds,
    lines,
  };
}

const LABELS = [
  'EvaluateScript',
  'v8.evaluateModule',
  'HandlePostMessage',
  'FireAnimationFrame',
  'TimerFire',
  'FireIdleCallback',
  'ParseHTML',
  'DocumentLoader::CommitNavigation',
  'WebFrameWidgetImpl::UpdateLifecycle',
  'ResponseBodyLoader::DidFinishLoadingBody',
  'Document::FinishedParsing',
];

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const opens = Number(args.find((a) => /^\d+$/.test(a)) ?? 3);
  const readable = args.includes('--readable');
  const untraced = args.includes('--untraced');
  const own = await buildWebview({ readable });
  // The fourth: the stub's answer to `ready` in its init script (--replies-in-init-script).
  const builds: Array<[string, WebviewBuild, Files, boolean?]> = [['this', own, 'inline']];
  if (args.includes('--replies-in-init-script')) builds.push(['replies in init script', own, 'inline', true]);
  // --requested: the same build, its files requested by the page as before they were written into it.
  if (args.includes('--requested')) builds.push(['files requested', own, 'requested']);
  // --hinted: written into the page with V8's compile hint, as the bundle shipped before (every function compiled at once).
  if (args.includes('--hinted')) builds.push(['inline, hinted', await buildWebview({ readable, compileHint: true }), 'inline']);
  const opts: TraceOptions = {
    firstPage: args.includes('--first-page'),
    tree: args.includes('--tree'),
    js: args.includes('--js'),
    modules: readable ? await moduleLines(builds[0]![1].js) : [],
  };
  for (let i = 0; i < args.length; i++) {
    // --base-unhinted DIR: built without V8's compile hint, as the bundle was before it.
    if (args[i] === '--base' || args[i] === '--base-unhinted')
      builds.push([
        `${args[i + 1]!.replace(/^.*\//, '')}${args[i] === '--base' ? '' : ' (no hint)'}`,
        // --base: as that checkout ships it, with the compile hint if its esbuild.mjs has it.
        await buildWebview({ readable, root: args[i + 1]!, ...(args[i] === '--base' ? {} : { compileHint: false }) }),
        'inline',
      ]);
  }
  for (const [name, b] of builds)
    console.log(
      `${name}: bundle ${(b.jsBytes / 1024).toFixed(1)} KB js + ${(b.highlighterBytes / 1024).toFixed(1)} KB highlighter + ${(b.cssBytes / 1024).toFixed(1)} KB css`,
    );
  const browser = await launchChromium();
  const snapshot = historySnapshot(Number(process.env.BATON_HISTORY ?? 1000));
  const results = new Map<string, OpenTrace[]>(builds.map(([name]) => [name, []]));
  try {
    for (let n = 0; n < opens; n++) {
      // Each build first in turn, so a change in the machine's load falls on all alike.
      const order = builds.map((_, i) => builds[(i + n) % builds.length]!);
      for (const [name, build, files, inInit = false] of order) {
        const r = untraced
          ? await untracedOpen(browser, build, snapshot, opts.firstPage, files, inInit)
          : await traceOpen(browser, build, snapshot, opts, files, inInit);
        results.get(name)!.push(r);
        if (opts.tree || opts.js || builds.length === 1) {
          console.log(
            `\n${name}, open ${n + 1}: first paint ${r.paint.toFixed(0)} ms from navigation (ready ${r.ready.toFixed(0)}, snapshot ${r.received.toFixed(0)}); main-thread CPU ${r.cpu.toFixed(0)} ms; background compile ${r.backgroundCompile.toFixed(1)} ms`,
          );
          for (const line of r.lines) console.log(line);
        }
      }
    }
  } finally {
    await browser.close();
    for (const b of new Set(builds.map(([, b]) => b))) await b.dispose();
  }
  const fmt = (all: number[]): string => {
    const values = all.filter((v) => Number.isFinite(v));
    if (!values.length) return '     -';
    return `${median(values).toFixed(1).padStart(6)} (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`;
  };
  console.log(`\nmedians over ${opens} opens each (min–max), ms:`);
  const rows: Array<[string, (r: OpenTrace) => number]> = [
    ['first paint, wall, from navigation', (r) => r.paint],
    ['ready posted, wall', (r) => r.ready],
    ['snapshot event, wall', (r) => r.received],
    ['main-thread CPU to first paint', (r) => r.cpu],
    ...PHASES.map((p): [string, (r: OpenTrace) => number] => [`  cpu: ${p}`, (r) => r.phases[p]]),
    ...[...new Set([...results.values()].flatMap((rs) => rs.flatMap((r) => [...r.kinds.keys()])))].map((k): [string, (r: OpenTrace) => number] => [
      `  kind: ${k}`,
      (r) => r.kinds.get(k) ?? 0,
    ]),
    ['background compile (worker threads)', (r) => r.backgroundCompile],
    ...['html', 'webview.css', 'webview.js'].flatMap((f): Array<[string, (r: OpenTrace) => number]> => [
      [`${f}: fetch start`, (r) => r.resources[f]?.[0] ?? NaN],
      [`${f}: response end`, (r) => r.resources[f]?.[1] ?? NaN],
    ]),
  ];
  console.log(`${''.padEnd(40)}${builds.map(([name]) => name.padEnd(20)).join('')}`);
  for (const [label, get] of rows)
    if ([...results.values()].some((rs) => rs.some((r) => Number.isFinite(get(r)))))
      console.log(`${label.padEnd(40)}${builds.map(([name]) => fmt(results.get(name)!.map(get)).padEnd(20)).join('')}`);
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
