// Where Baton's host CPU goes per orchestrator turn, against the raw SDK on the same runtime (as benchTurns builds it):
// N raw sendAndWait turns, then N turns through core.orchestrator.enqueue(...).done, each under the inspector's
// sampling profiler; self time per turn attributed to files and functions, Baton minus raw.
// `node --import tsx bench/profileTurns.ts [turns] [out-prefix]` (writes <prefix>-raw/-baton.cpuprofile if given).
// PHASES=1 first times a turn's steps (Baton's events and the runtime's) against a raw turn's; COUNT=1 first times each
// store method, statement and event's listeners per turn; FLUSH=1 counts the store's writes to disk (flushes, their size
// and time) and its file operations per turn. They run before the profiled turns (COUNT's timers stay on).
import type { CopilotClient, SessionConfig } from '@github/copilot-sdk';
import { Session } from 'node:inspector/promises';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SessionSpec } from '../src/core/copilot/agentSessions';
import type { CopilotRuntime } from '../src/core/copilot/copilotRuntime';
import type { SessionKeeper, SessionKeeperOptions } from '../src/core/orchestrator/sessionKeeper';
import type { FlushStats } from '../src/core/store/sqlJsStore';
import { nodeStoreFileSystem, type StoreFileSystem } from '../src/core/store/storeFileSystem';
import { startCore } from '../test/support/orchestratorFixture';
import { ScriptedModelServer } from '../test/support/scriptedModelServer';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

async function profiled(inspector: Session, turns: number, turn: (i: number) => Promise<void>): Promise<{ profile: Profile; cpu: number; wall: number }> {
  await inspector.post('Profiler.start');
  const c = process.cpuUsage();
  const walls: number[] = [];
  for (let i = 0; i < turns; i++) {
    const s = performance.now();
    await turn(i);
    walls.push(performance.now() - s);
  }
  const used = process.cpuUsage(c);
  const { profile } = (await inspector.post('Profiler.stop')) as { profile: Profile };
  walls.sort((a, b) => a - b);
  return { profile, cpu: (used.user + used.system) / 1000 / turns, wall: walls[turns >> 1]! };
}

function selfTimes(profile: Profile, keyOf: (n: ProfileNode) => string): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const out = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const k = keyOf(byId.get(id)!);
    out.set(k, (out.get(k) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return out;
}

const urlOf = (n: ProfileNode): string => n.callFrame.url.replace(/^file:\/\//, '').replace(process.cwd() + '/', '');
const fileKey = (n: ProfileNode): string => {
  const url = urlOf(n);
  return url.includes('node_modules') ? url.replace(/.*node_modules\/((@[^/]+\/)?[^/]+).*/, 'npm:$1') : url || `(${n.callFrame.functionName || 'native'})`;
};
const fnKey = (n: ProfileNode): string => `${n.callFrame.functionName || '(anon)'} ${urlOf(n)}:${n.callFrame.lineNumber + 1}`;

function table(raw: Map<string, number>, baton: Map<string, number>, turns: number, k: number): string {
  const keys = new Set([...raw.keys(), ...baton.keys()]);
  const rows = [...keys].map((key) => ({ key, r: (raw.get(key) ?? 0) / 1000 / turns, b: (baton.get(key) ?? 0) / 1000 / turns }));
  rows.sort((x, y) => Math.abs(y.b - y.r) - Math.abs(x.b - x.r));
  return rows
    .filter((r) => r.key !== '(idle) :0' && r.key !== '((idle))')
    .slice(0, k)
    .map((r) => `${r.r.toFixed(3).padStart(7)} ${r.b.toFixed(3).padStart(7)} ${(r.b - r.r).toFixed(3).padStart(7)}  ${r.key}`)
    .join('\n');
}

async function main(): Promise<void> {
  const turns = Number(process.argv[2] ?? 100);
  const out = process.argv[3];
  const server = await ScriptedModelServer.start();
  server.setModels(['claude-sonnet-4.5', 'gpt-4.1', 'claude-opus-4.6', 'claude-sonnet-4.6', 'claude-haiku-4.5']);
  server.always({}, { text: 'The answer is forty-two, streamed in a few chunks.', chunks: 6 });
  // The store as the extension opens it (its flush delay and poll); with FLUSH=1, its flushes and file operations counted.
  const flushes: FlushStats[] = [];
  const fileOps = new Map<string, { n: number; ms: number }>();
  const counted = (name: string, since: number): void => {
    const c = fileOps.get(name) ?? { n: 0, ms: 0 };
    c.n++;
    c.ms += performance.now() - since;
    fileOps.set(name, c);
  };
  const fs = Object.fromEntries(
    Object.entries(nodeStoreFileSystem).map(([name, fn]) => [
      name,
      // readFileNow is synchronous (the open reads on the host's thread): its wrapper must be too.
      name === 'readFileNow'
        ? (...a: unknown[]) => {
            const t = performance.now();
            try {
              return (fn as (...x: unknown[]) => unknown)(...a);
            } finally {
              counted(name, t);
            }
          }
        : async (...a: unknown[]) => {
            const t = performance.now();
            try {
              return await (fn as (...x: unknown[]) => Promise<unknown>)(...a);
            } finally {
              counted(name, t);
            }
          },
    ]),
  ) as unknown as StoreFileSystem;
  const core = await startCore({
    server,
    // Counted only when asked: the counting wrapper is work of its own on every file operation.
    overrides: { store: { flushDelayMs: 250, pollIntervalMs: 250, ...(process.env.FLUSH ? { fs, onFlush: (s: FlushStats) => flushes.push(s) } : {}) } },
  });
  for (let i = 0; i < 5; i++) await core.orchestrator.enqueue(`warm ${i}`, { channel: 'panel' }).done;
  const runtime = (core.sessions as unknown as { runtime: CopilotRuntime }).runtime;
  const client: CopilotClient = await runtime.client();
  const keeper = (core.orchestrator as unknown as { keeper: SessionKeeper }).keeper;
  const { spec, tools } = (keeper as unknown as { opts: SessionKeeperOptions }).opts;
  const config: SessionConfig = {
    ...(core.sessions as unknown as { config(spec: SessionSpec): SessionConfig }).config(spec('claude-sonnet-4.5', tools())),
    configDirectory: join(core.root, 'raw-sessions'),
  };
  const session = await client.createSession(config);
  for (let i = 0; i < 5; i++) await session.sendAndWait({ prompt: `warm ${i}` }, 30_000);

  // PHASES=1: where a turn's wall time goes, Baton's turn against the raw session's, interleaved (no profiler then).
  if (process.env.PHASES) {
    const live = keeper.current!;
    let at: Record<string, number> = {};
    const mark = (k: string): void => {
      at[k] ??= performance.now();
    };
    live.onEvent((e) => mark(`sdk ${e.type}`));
    session.on((e) => mark(`sdk ${e.type}`));
    core.conversations.onEvent((e) => mark(e.type));
    const phases = new Map<string, number[]>();
    const keep = (label: string, t0: number): void => {
      const order = Object.entries(at).sort((a, b) => a[1] - b[1]);
      let prev = t0;
      for (const [k, t] of order) {
        const key = `${label} → ${k}`;
        phases.set(key, [...(phases.get(key) ?? []), t - prev]);
        prev = t;
      }
    };
    for (let i = 0; i < turns; i++) {
      at = {};
      let t0 = performance.now();
      await core.orchestrator.enqueue(`phased turn ${i}`, { channel: 'panel' }).done;
      mark('done');
      keep('baton', t0);
      at = {};
      t0 = performance.now();
      await session.sendAndWait({ prompt: `phased raw ${i}` }, 30_000);
      mark('done');
      keep('raw', t0);
    }
    const med = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
    for (const [k, xs] of phases) if (xs.length >= turns / 2) console.log(`${med(xs).toFixed(2).padStart(7)} ms (n=${xs.length})  ${k}`);
  }
  // COUNT=1: how many times a turn calls each store method, with the time spent in it (no profiler then).
  if (process.env.COUNT) {
    // Every call's time is kept: on a loaded machine a preempted call inflates the mean, the median per call does not.
    const calls = new Map<string, number[]>();
    const count = (label: string, t: number): void => {
      const ms = performance.now() - t;
      const c = calls.get(label);
      if (c) c.push(ms);
      else calls.set(label, [ms]);
    };
    const wrap = (obj: Record<string, unknown>, name: string, label: string): void => {
      const orig = obj[name] as (...a: unknown[]) => unknown;
      obj[name] = function (this: unknown, ...a: unknown[]) {
        const t = performance.now();
        try {
          return orig.apply(this, a);
        } finally {
          count(label, t);
        }
      };
    };
    const store = core.store as unknown as Record<string, unknown>;
    const proto = Object.getPrototypeOf(store) as object;
    for (const name of Object.getOwnPropertyNames(proto)) {
      const d = Object.getOwnPropertyDescriptor(proto, name);
      if (name !== 'constructor' && typeof d?.value === 'function') wrap(store, name, `store.${name}`);
    }
    for (const area of ['usage', 'squads', 'wikiIndex'])
      for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(store[area]) as object))
        if (name !== 'constructor') wrap(store[area] as Record<string, unknown>, name, `store.${area}.${name}`);
    // Each event's listeners, by event type (what a turn's events cost the panel, the API's events, usage ...).
    const orch = core.orchestrator as unknown as Record<string, unknown>;
    const fire = orch.fire as (e: { type: string }) => void;
    orch.fire = function (this: unknown, e: { type: string }) {
      const t = performance.now();
      try {
        fire.call(this, e);
      } finally {
        count(`event ${e.type}`, t);
      }
    };
    // Every statement too, by its SQL (the tables object is replaced when another window's file is loaded: not here).
    const tables = (store.file as { tables: Record<string, unknown> }).tables;
    for (const name of ['run', 'first', 'rows', 'column'])
      tables[name] = ((orig: (...a: unknown[]) => unknown) =>
        function (this: unknown, ...a: unknown[]) {
          const sql = String(name === 'rows' ? a[1] : a[0])
            .replace(/\s+/g, ' ')
            .slice(0, 110);
          const t = performance.now();
          try {
            return orig.apply(this, a);
          } finally {
            count(`sql ${name} ${sql}`, t);
          }
        })(tables[name] as (...a: unknown[]) => unknown);
    // What the panel is sent, by message type (each is serialized and posted to the webview in VS Code).
    const offPosts = core.chat.onDidPost((m) => {
      const c = calls.get(`panel ${m.type}`);
      if (c) c.push(0);
      else calls.set(`panel ${m.type}`, [0]);
    });
    for (let i = 0; i < turns; i++) await core.orchestrator.enqueue(`counted turn ${i}`, { channel: 'panel' }).done;
    await new Promise((r) => setTimeout(r, 500));
    offPosts();
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
    // Sorted by calls a turn × the median call: what a turn costs when nothing preempts it.
    const rows = [...calls].map(([k, xs]) => ({ k, n: xs.length / turns, med: median(xs), mean: xs.reduce((a, b) => a + b, 0) / turns }));
    for (const r of rows.sort((a, b) => b.n * b.med - a.n * a.med))
      console.log(
        `${r.n.toFixed(2).padStart(6)} calls/turn × ${(r.med * 1000).toFixed(0).padStart(5)} µs median = ${(r.n * r.med).toFixed(3).padStart(6)} ms/turn (mean ${r.mean.toFixed(3)})  ${r.k}`,
      );
  }
  // FLUSH=1: what a turn costs on disk: flushes (each exports and writes the whole database), their size and time, and
  // every file operation the store makes (the flushes' and the poll's for other windows' writes).
  if (process.env.FLUSH) {
    flushes.length = 0;
    fileOps.clear();
    const t0 = performance.now();
    for (let i = 0; i < turns; i++) await core.orchestrator.enqueue(`flushed turn ${i}`, { channel: 'panel' }).done;
    const span = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 500));
    const med = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? 0;
    console.log(
      `${turns} turns in ${span.toFixed(0)} ms: ${flushes.length} flushes (${(flushes.length / turns).toFixed(2)} a turn), ` +
        `${med(flushes.map((f) => f.bytes))} bytes each, blocking ${med(flushes.map((f) => f.blockingMs)).toFixed(2)} ms, ` +
        `total ${med(flushes.map((f) => f.totalMs)).toFixed(2)} ms (medians)`,
    );
    for (const [name, c] of [...fileOps].sort((a, b) => b[1].n - a[1].n))
      console.log(`${(c.n / turns).toFixed(2).padStart(6)} calls/turn ${(c.ms / c.n).toFixed(2).padStart(6)} ms each (wall)  fs.${name}`);
  }
  const inspector = new Session();
  inspector.connect();
  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.setSamplingInterval', { interval: 100 });
  const raw = await profiled(inspector, turns, async (i) => {
    await session.sendAndWait({ prompt: `raw turn ${i}` }, 30_000);
  });
  const baton = await profiled(inspector, turns, async (i) => {
    await core.orchestrator.enqueue(`orchestrated turn ${i}`, { channel: 'panel' }).done;
  });
  inspector.disconnect();
  if (out) {
    await writeFile(`${out}-raw.cpuprofile`, JSON.stringify(raw.profile));
    await writeFile(`${out}-baton.cpuprofile`, JSON.stringify(baton.profile));
  }
  console.log(
    `${turns} turns each (profiled). wall median raw ${raw.wall.toFixed(1)} / Baton ${baton.wall.toFixed(1)} ms; host CPU per turn raw ${raw.cpu.toFixed(2)} / Baton ${baton.cpu.toFixed(2)} ms`,
  );
  console.log('\nself time per turn (ms): raw, Baton, difference, by file');
  console.log(table(selfTimes(raw.profile, fileKey), selfTimes(baton.profile, fileKey), turns, 40));
  console.log('\nby function');
  console.log(table(selfTimes(raw.profile, fnKey), selfTimes(baton.profile, fnKey), turns, 50));
  await session.disconnect().catch(() => undefined);
  await core.dispose();
  await server.close();
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
