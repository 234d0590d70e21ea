// Diagnostic (not a bench section): where the extension host's main thread spends its CPU between Baton's activation
// and its core being ready, in the activation bench's conditions (code-server started the same way, Baton activated
// through the palette right after the workbench shows). Baton is loaded through a wrapper that samples a CPU profile of
// the host's main thread in process (100 us), and the samples inside [activate(), core ready] are split by whose code
// was on top: Baton's bundle, sql.js's wasm, other extensions, VS Code itself, GC, idle.
//
// Usage: node --import tsx bench/profileActivation.ts [starts=3] [outDir]
// (needs `node esbuild.mjs --production` first; writes each start's .cpuprofile to outDir when given).
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { hermeticEnv } from '../test/support/copilotHarness';
import { ScriptedModelServer } from '../test/support/scriptedModelServer';
import { CodeServer } from '../test/e2e/codeServer';
import { findFiles } from './findFiles';
import { runShowLogFromPalette } from './paletteShowLog';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The extension's entry point for the profiled start: profiling from Baton's load to 3 s after its activation. */
function wrapper(main: string, out: string): string {
  return `const inspector = require('node:inspector');
const session = new inspector.Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.setSamplingInterval', { interval: 100 });
session.post('Profiler.start');
const baton = require(${JSON.stringify(main)});
exports.activate = function activateProfiled(context) {
  const api = baton.activate(context);
  setTimeout(() => session.post('Profiler.stop', (err, r) => {
    const fs = require('node:fs');
    fs.writeFileSync(${JSON.stringify(out + '.part')}, JSON.stringify(err ? {} : r.profile));
    fs.renameSync(${JSON.stringify(out + '.part')}, ${JSON.stringify(out)});
  }), 3000);
  return api;
};
exports.deactivate = () => baton.deactivate();
`;
}

/** Whose code a frame is, or undefined for Node's own (node:*) and native frames, which count to their caller. */
function owner(frame: ProfileNode['callFrame'], extensionDir: string): string | undefined {
  const { url, functionName } = frame;
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(program)') return 'program (V8 itself, no JS on the stack)';
  if (url.startsWith('wasm://')) return 'Baton: sql.js wasm';
  if (url.includes(extensionDir)) return 'Baton: bundle JS';
  const ext = /\/extensions\/([^/]+)\//.exec(url);
  if (ext) return `other extension: ${ext[1]}`;
  if (url.includes('/out/vs/') || url.includes('/lib/vscode/')) return 'VS Code (extension host)';
  if (url.startsWith('file:')) return url.replace(/.*node_modules\//, 'module ');
  return undefined;
}

/**
 * Samples inside [activate(), activate() + windowMs], split by owner. A sample is taken only while the thread runs
 * (the sampler's signal waits for it), so shares of the sample count approximate shares of its CPU; the caller
 * scales them to the thread's CPU time from schedstat.
 */
function attribute(profile: Profile, windowMs: number, extensionDir: string): { table: Map<string, number>; steps: Map<string, number>; count: number } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stack = (id: number): ProfileNode[] => {
    const out: ProfileNode[] = [];
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) out.push(byId.get(cur)!);
    return out;
  };
  // Sample times: the first sample with Baton's activate() (the wrapper's) on its stack opens the window.
  let t = profile.startTime;
  const times = profile.timeDeltas.map((d) => (t += d));
  const isActivate = (n: ProfileNode) => n.callFrame.functionName === 'activateProfiled';
  const first = profile.samples.findIndex((s) => stack(s).some(isActivate));
  const table = new Map<string, number>();
  const steps = new Map<string, number>();
  let count = 0;
  if (first < 0) return { table, steps, count };
  const end = times[first]! + windowMs * 1000;
  for (let i = first; i < profile.samples.length && times[i]! <= end; i++) {
    count++;
    const s = stack(profile.samples[i]!);
    let who: string | undefined;
    for (const n of s) if ((who = owner(n.callFrame, extensionDir))) break;
    who ??= 'Node only (timers, I/O callbacks)';
    table.set(who, (table.get(who) ?? 0) + 1);
    if (who.startsWith('Baton')) {
      // The step: Baton's outermost named functions (minified names; compare with a development build's).
      const names = s
        .filter((n) => n.callFrame.url.includes(extensionDir) && n.callFrame.functionName)
        .map((n) => n.callFrame.functionName)
        .reverse();
      const step = names.slice(0, 3).join(' > ') || '(top level)';
      steps.set(step, (steps.get(step) ?? 0) + 1);
    }
  }
  return { table, steps, count };
}

async function profileOnce(i: number, outDir: string | undefined): Promise<void> {
  const { provisionVscode } = await import('../scripts/provisionVscode.mjs');
  const { codeServerEntry } = await provisionVscode({ log: () => undefined });
  const root = await mkdtemp(join(tmpdir(), 'baton-prof-act-'));
  const workspace = join(root, 'ws');
  await mkdir(workspace, { recursive: true });
  const server = await ScriptedModelServer.start();
  server.always({}, { text: 'ok' });
  // Baton as it ships, loaded through a wrapper that profiles the host's main thread in process (node:inspector): the
  // host's inspector cannot be opened from outside (SIGUSR1 ends code-server's extension host).
  const ext = join(root, 'ext');
  const profilePath = join(root, 'activation.cpuprofile');
  await mkdir(ext);
  for (const entry of await readdir(process.cwd())) if (entry !== 'package.json') await symlink(join(process.cwd(), entry), join(ext, entry));
  const pkg = JSON.parse(await readFile('package.json', 'utf8')) as { main: string };
  await writeFile(join(ext, 'package.json'), JSON.stringify({ ...pkg, main: './profileWrapper.js' }));
  await writeFile(join(ext, 'profileWrapper.js'), wrapper(join(process.cwd(), pkg.main), profilePath));
  const vscode = await CodeServer.start({
    codeServerEntry,
    env: { ...hermeticEnv(server.url, join(root, 'copilot')), GH_TOKEN: 'fake' },
    log: () => undefined,
  });
  try {
    const wb = await vscode.open({ folder: workspace, extensionDevelopmentPath: ext });
    const load = loadavg()[0]!;
    await runShowLogFromPalette(wb.page);
    let line: RegExpExecArray | null = null;
    for (let tries = 0; !line && tries < 300; tries++) {
      for (const file of await findFiles(vscode.logsDir, /Baton\.log$/)) {
        line =
          /core ready in \d+ ms, (\d+) ms after activation began.*main thread since activation: (\d+) ms on a CPU, (\d+) ms waiting/.exec(
            await readFile(file, 'utf8'),
          ) ?? line;
      }
      if (!line) await new Promise((r) => setTimeout(r, 100));
    }
    let profile: Profile | undefined;
    for (let tries = 0; !profile && tries < 100; tries++) {
      profile = await readFile(profilePath, 'utf8').then(
        (t) => JSON.parse(t) as Profile,
        () => undefined,
      );
      if (!profile) await new Promise((r) => setTimeout(r, 100));
    }
    if (!profile) throw new Error('the wrapper wrote no profile');
    if (!line) throw new Error('Baton never logged core ready');
    const [coreReady, onCpu, waiting] = [Number(line[1]), Number(line[2]), Number(line[3])];
    if (outDir) await writeFile(join(outDir, `activation-${i}.cpuprofile`), JSON.stringify(profile));
    const { table, steps, count } = attribute(profile, coreReady, process.cwd());
    const ms = (n: number) => ((n / Math.max(count, 1)) * onCpu).toFixed(1).padStart(6);
    console.log(
      `\nstart ${i}: core ready ${coreReady} ms (main thread ${onCpu} ms on a CPU, ${waiting} waiting; load ${load.toFixed(1)}); ${count} samples, shares scaled to the ${onCpu} ms`,
    );
    for (const [who, n] of [...table].sort((a, b) => b[1] - a[1])) console.log(`  ${ms(n)} ms  ${who}`);
    console.log('  Baton by step (outermost Baton frames):');
    for (const [step, n] of [...steps].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${ms(n)} ms  ${step}`);
    await wb.close();
  } finally {
    await vscode.stop();
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
}

void (async () => {
  const starts = Number(process.argv[2] ?? 3);
  const outDir = process.argv[3];
  if (outDir) await mkdir(outDir, { recursive: true });
  for (let i = 1; i <= starts; i++) await profileOnce(i, outDir);
})();
