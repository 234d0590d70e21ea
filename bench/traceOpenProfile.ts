// traceOpen.ts's --js: the sampling profiler's self time per function and per module of the bundle, from the trace.
import { readFile } from 'node:fs/promises';
import { profileSamples } from './profileSamples';
import type { TraceEvent } from './traceOpen';

/** For a readable build: which module each line of the bundle comes from (esbuild writes `// path` before each). */
export async function moduleLines(file: string): Promise<string[]> {
  const lines = (await readFile(file, 'utf8')).split('\n');
  let current = '(bundle)';
  return lines.map((line) => {
    const m = /^\s*\/\/ ((?:node_modules|webview)\/\S+)$/.exec(line);
    if (m) current = m[1]!.replace(/^(node_modules\/(?:@[^/]+\/)?[^/]+)\/.*$/, '$1');
    return current;
  });
}

/** Self time per function (the sampling profiler's trace chunks) between navigation and the first paint. */
export function jsProfile(events: TraceEvent[], nav: TraceEvent, end: number, modules: string[], ready: number, received: number): string[] {
  const self = new Map<string, number>();
  const byModule = new Map<string, number>();
  // Where the bundle begins in the page when it is written into it: the line of its evaluation (0-based, as the profile's).
  const evaluated = events.find((e) => e.pid === nav.pid && e.name === 'EvaluateScript' && e.ts >= nav.ts && typeof e.args?.data?.lineNumber === 'number');
  const bundleLine = evaluated ? Number(evaluated.args!.data!.lineNumber) - 1 : Infinity;
  for (const { t, frame: f, ms, key } of profileSamples(events, nav.pid, nav.ts, end)) {
    self.set(key, (self.get(key) ?? 0) + ms);
    // The bundle written into the page has the page's URL, its lines counted from the page's first.
    const inPage = f.url && !f.url.endsWith('.js') && f.lineNumber >= bundleLine ? f.lineNumber - bundleLine : undefined;
    const module = f.url?.endsWith('webview.js')
      ? (modules[f.lineNumber] ?? '?')
      : inPage !== undefined
        ? (modules[inPage] ?? '?')
        : f.url
          ? 'page (stub)'
          : f.functionName;
    const when = t < ready ? 'to ready' : t < received ? 'ready to snapshot' : 'snapshot to paint';
    byModule.set(`${when}: ${module}`, (byModule.get(`${when}: ${module}`) ?? 0) + ms);
  }
  return [
    '  js self time (sampled; wall time while on the thread):',
    ...[...self]
      .filter(([key]) => !key.startsWith('(idle)') && !key.startsWith('(program)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, 40)
      .map(([key, ms]) => `    ${ms.toFixed(1).padStart(6)} ms  ${key}`),
    '  js self time by module:',
    ...[...byModule]
      .filter(([key]) => key !== '(idle)' && key !== '(program)')
      .sort((a, b) => b[1] - a[1])
      .slice(0, 40)
      .map(([key, ms]) => `    ${ms.toFixed(1).padStart(6)} ms  ${key}`),
  ];
}
