// Where the "five worker tasks started together / one alone" time goes (bench/workers.bench.ts's concurrency run:
// same script, same core): for each task, when create() returned and its steps (placement, session, sandbox), when
// its two model requests reached the scripted server, when its result was queued for the orchestrator, and the CPU
// of this process, of the git it started and of the runtime; medians per phase for one task alone and five started
// together. With several trees (e.g. `/work/main .`), each builds its core from its own sources and the rounds
// alternate between them, so all see the same moment's load.
// `node --import tsx bench/traceWorkers.ts [rounds] [root ...]` (default 6 rounds, this tree).
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { median } from './figure';
import { scriptSmallWorkerTask } from './smallWorkerTask';

/** CPU ms of a process (utime + stime) and of its waited-for children (cutime + cstime), from /proc. */
function procCpu(pid: number | 'self'): { own: number; children: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  // utime, stime, cutime, cstime are fields 14–17 of the line; after the command name they start at index 11 (ticks of 10 ms)
  return { own: (f[11]! + f[12]!) * 10, children: (f[13]! + f[14]!) * 10 };
}

interface Trace {
  start: number;
  created?: number;
  req1?: number;
  req2?: number;
  queued?: number;
}

type Phases = Record<string, number>;

async function side(root: string): Promise<{ run: (count: number) => Promise<Phases>; close: () => Promise<void> }> {
  const { startCore } = (await import(join(root, 'test/support/orchestratorFixture.ts'))) as typeof import('../test/support/orchestratorFixture');
  const { ScriptedModelServer } = (await import(join(root, 'test/support/scriptedModelServer.ts'))) as typeof import('../test/support/scriptedModelServer');
  const server = await ScriptedModelServer.start();
  const core = await startCore({ server, flushDelayMs: 250 });
  core.workerSettings.timeoutMs = 120_000;
  const project = join(core.home, 'project');
  await mkdir(project, { recursive: true });
  await writeFile(join(project, 'README.md'), '# bench\n');
  scriptSmallWorkerTask(server, project);
  const traces = new Map<string, Trace>();
  // create()'s steps, timed where the pool calls them: its placement and its session (made, then its sandbox applied).
  const steps: Array<{ what: string; from: number; to: number }> = [];
  const wrap = (obj: Record<string, unknown>, key: string, what: string): void => {
    const fn = obj[key] as (...a: unknown[]) => Promise<unknown>;
    obj[key] = async (...a: unknown[]) => {
      const from = Date.now();
      try {
        return await fn.apply(obj, a);
      } finally {
        steps.push({ what, from, to: Date.now() });
      }
    };
  };
  const pool = core.pool as unknown as { setup: Record<string, unknown>; opts: { sessions: Record<string, unknown> }; watch?: Record<string, unknown> };
  wrap(pool.setup, 'place', 'place');
  wrap(pool as unknown as Record<string, unknown>, 'disconnect', 'disconnect');
  if (pool.watch) wrap(pool.watch, 'completionNote', 'completionNote');
  wrap(pool.opts.sessions, 'create', 'session');
  const runtime = (pool.opts.sessions as unknown as { runtime: { client(): Promise<Record<string, unknown>> } }).runtime;
  wrap(await runtime.client(), 'createSession', 'sdk.createSession');
  const unsubscribe = core.orchestrator.onEvent((e) => {
    if (e.type === 'turn.queued' && e.origin.channel === 'background' && e.origin.worker) {
      const t = traces.get(e.origin.worker);
      if (t) t.queued = Date.now();
    }
  });
  let n = 0;
  const run = async (count: number): Promise<Phases> => {
    while (core.orchestrator.busy) await new Promise((r) => setTimeout(r, 5));
    const seen = server.chatRequests().length;
    steps.length = 0;
    const runtimePid = core.sessions.runtimePid()!;
    const cpu0 = { self: procCpu('self'), runtime: procCpu(runtimePid) };
    const names = Array.from({ length: count }, () => `t${++n}`);
    const mine = names.map((name) => {
      const t: Trace = { start: Date.now() };
      traces.set(name, t);
      return t;
    });
    await Promise.all(
      names.map(async (name, i) => {
        await core.pool.create({ name, workingDir: project, prompt: `TASK ${name.slice(1)}` });
        mine[i]!.created = Date.now();
      }),
    );
    while (mine.some((t) => t.queued === undefined)) await new Promise((r) => setTimeout(r, 5));
    const cpu1 = { self: procCpu('self'), runtime: procCpu(runtimePid) };
    for (const r of server.chatRequests().slice(seen)) {
      const m = /TASK (\d+)/.exec(r.lastUserText ?? '');
      const t = m ? traces.get(`t${m[1]}`) : undefined;
      if (!t) continue;
      if (t.req1 === undefined) t.req1 = r.at;
      else t.req2 ??= r.at;
    }
    const start = Math.min(...mine.map((t) => t.start));
    const last = (f: (t: Trace) => number | undefined): number => Math.max(...mine.map((t) => f(t)! - start));
    const mean = (f: (t: Trace) => number): number => mine.reduce((s, t) => s + f(t), 0) / mine.length;
    const step = (what: string): number => {
      const of = steps.filter((s) => s.what === what);
      return of.reduce((a, s) => a + s.to - s.from, 0) / Math.max(1, of.length);
    };
    return {
      'all created': last((t) => t.created),
      'all first requests in': last((t) => t.req1),
      'all second requests in': last((t) => t.req2),
      'all results queued (the figure)': last((t) => t.queued),
      'each: placement': step('place'),
      'each: session (create + sandbox)': step('session'),
      'each: of it, the runtime creating it': step('sdk.createSession'),
      'each: created → first request': mean((t) => t.req1! - t.created!),
      'each: first → second request (tool)': mean((t) => t.req2! - t.req1!),
      'each: second request → queued': mean((t) => t.queued! - t.req2!),
      'each: of it, the change note': step('completionNote'),
      'each: of it, the session disconnected': step('disconnect'),
      'cpu: this process (host)': cpu1.self.own - cpu0.self.own,
      'cpu: its children (git)': cpu1.self.children - cpu0.self.children,
      'cpu: the runtime': cpu1.runtime.own - cpu0.runtime.own + cpu1.runtime.children - cpu0.runtime.children,
    };
  };
  await run(1); // warm: first session, first request
  return {
    run,
    close: async () => {
      unsubscribe();
      await core.dispose();
      await server.close();
    },
  };
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 6);
  const roots = process.argv.length > 3 ? process.argv.slice(3).map((r) => resolve(r)) : [resolve('.')];
  const sides = [];
  for (const root of roots) sides.push({ root, ...(await side(root)), one: [] as Phases[], five: [] as Phases[] });
  try {
    for (let i = 0; i < rounds; i++)
      for (const s of i % 2 ? [...sides].reverse() : sides) {
        s.one.push(await s.run(1));
        s.five.push(await s.run(5));
      }
    for (const s of sides) {
      console.log(`\n${s.root} (${rounds} rounds; medians, ms)`);
      console.log('phase'.padEnd(40), 'one'.padStart(8), 'five'.padStart(8));
      for (const k of Object.keys(s.one[0]!))
        console.log(
          k.padEnd(40),
          median(s.one.map((p) => p[k]!))
            .toFixed(0)
            .padStart(8),
          median(s.five.map((p) => p[k]!))
            .toFixed(0)
            .padStart(8),
        );
      const key = 'all results queued (the figure)';
      const ratios = s.five.map((p, i) => p[key]! / s.one[i]![key]!);
      console.log(
        `five / one: ${(median(s.five.map((p) => p[key]!)) / median(s.one.map((p) => p[key]!))).toFixed(3)} (median of each round's: ${median(ratios).toFixed(3)})`,
      );
    }
  } finally {
    for (const s of sides) await s.close();
  }
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
