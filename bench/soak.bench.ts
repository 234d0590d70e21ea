// A month of use in one run: 1,000 orchestrator turns (each with a tool call) and 200 worker tasks (each a tool
// round trip, its result answered by the orchestrator), scripted, on Baton as the extension builds it. What must
// not grow: the extension host's heap, the runtime's memory, the time of a turn, Baton's session folders, the store.
// Beside each ratio, the same ratio of the runtime alone doing the same work in a process of its own
// (soakRuntimeAlone.ts), turn for turn interleaved with Baton's so both see the same machine: what grows in both is
// the runtime's, what grows only in Baton's is Baton's.
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { SessionConfig } from '@github/copilot-sdk';
import { startCore, type CoreFixture } from '../test/support/orchestratorFixture';
import type { SessionSpec } from '../src/core/copilot/agentSessions';
import type { SessionKeeper, SessionKeeperOptions } from '../src/core/orchestrator/sessionKeeper';
import { ScriptedModelServer } from '../test/support/scriptedModelServer';
import { median, type BenchFigure } from './figure';
import { scriptSoak, type RawCommand, type RawReply, type SerializableConfig } from './soakRuntimeAlone';
import { sampleRss } from './workers.bench';
import { KEEP_FINISHED } from '../src/core/workers/workerRegistry';

const TURNS = 1000;
const TASKS = 200;
const COMPACT_EVERY = 100;
const PAUSE_MS = 1500;
const PAUSE_EVERY = 25;
const MB = 1024 * 1024;

/** A collection the heap figures can rely on (the bench runs without --expose-gc). */
function collect(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/**
 * The heap of Baton alone: the scripted server (the model's stand-in, in this process) records every request with
 * its whole conversation, and the fixture every event and log line; all are test instruments, emptied before each reading.
 */
async function heapUsed(server: ScriptedModelServer, core: CoreFixture): Promise<number> {
  server.requests.length = 0;
  core.events.length = 0;
  core.logger.lines.length = 0;
  for (let i = 0; i < 3; i++) {
    collect();
    await new Promise((r) => setTimeout(r, 50));
  }
  return process.memoryUsage().heapUsed;
}

export async function benchSoak({ turns = TURNS, tasks: taskCount = TASKS } = {}): Promise<BenchFigure[]> {
  const server = await ScriptedModelServer.start();
  const core = await startCore({ server, flushDelayMs: 250 });
  let alone: RuntimeAlone | undefined;
  try {
    const project = join(core.home, 'project');
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'README.md'), '# soak\n');
    core.workerSettings.timeoutMs = 120_000;
    scriptSoak(server, join(project, 'README.md'));
    const runtimeAlone = await RuntimeAlone.start(join(core.root, 'runtime-alone'), orchestratorConfig(core));
    alone = runtimeAlone;

    const times: number[] = [];
    /** Turn times by turn number (the turn right after an idle restart is looked at on its own). */
    const byTurn = new Map<number, number>();
    const aloneTimes: number[] = [];
    let tasks = 0;
    let named = 0;
    // Idle restarts seen, whenever they happened (at a pause or any other idle second): their length, and the turn after.
    const restartMs: number[] = [];
    const reasons: string[] = [];
    const afterRestart = new Set<number>();
    let seenRestarts = core.recycler.restarts;
    const batonTurn = async (i: number): Promise<void> => {
      if (core.recycler.restarts > seenRestarts) {
        seenRestarts = core.recycler.restarts;
        restartMs.push(core.recycler.lastRestartMs!);
        reasons.push(core.recycler.lastRestartReason ?? '');
        afterRestart.add(i);
      }
      const t = performance.now();
      await core.orchestrator.enqueue(`SOAK turn ${i}: anything about soak?`, { channel: 'panel' }).done;
      times.push(performance.now() - t);
      byTurn.set(i, times.at(-1)!);
    };
    // Interleaved, alternating which goes first, so both see the same machine noise.
    const turn = async (i: number): Promise<void> => {
      if (i % 2) {
        await batonTurn(i);
        aloneTimes.push(await runtimeAlone.turn(i));
      } else {
        aloneTimes.push(await runtimeAlone.turn(i));
        await batonTurn(i);
      }
    };
    const startTask = async (): Promise<void> => {
      while (core.pool.listActive().length >= 4) await new Promise((r) => setTimeout(r, 5));
      tasks++;
      named++;
      await core.pool.create({ name: `soak-${named}`, workingDir: project, prompt: `SOAK task ${named}: read the README` });
      await runtimeAlone.send({ cmd: 'task', n: named });
    };
    const settle = async (): Promise<void> => {
      while (core.pool.listActive().length || core.orchestrator.busy) await new Promise((r) => setTimeout(r, 10));
      await runtimeAlone.send({ cmd: 'settle' });
    };
    const compact = async (): Promise<void> => {
      await core.orchestrator.compact();
      await runtimeAlone.send({ cmd: 'compact' });
    };
    // A person pauses now and then; Baton restarts a grown runtime only when idle (after 1 s of quiet). Every 25
    // turns: everything settles, the runtime's RSS is read (the peak of the run is among these), then 1.5 s of quiet.
    const peaks: number[] = [];
    const quiet = async (): Promise<void> => {
      await new Promise((r) => setTimeout(r, PAUSE_MS));
      while (core.recycler.checkInProgress) await new Promise((r) => setTimeout(r, 10));
    };
    const pause = async (): Promise<void> => {
      await settle();
      peaks.push(await sampleRss([core.sessions.runtimePid()!]));
      // The peaks against "before", one per pause: where in the restart cycle each was read.
      if (process.env.BATON_SOAK_TRACE) console.log(`pause: runtime ${core.sessions.runtimePid()} RSS ${(peaks.at(-1)! / MB).toFixed(0)} MB`);
      await quiet();
    };

    const perTask = Math.max(1, Math.floor(turns / taskCount));
    // Warm-up (not counted), a tenth of the run: the runtime's and this process's memory grow to a plateau over the
    // first sessions (JIT, caches, module loading); what must not happen is growth after that.
    for (let i = 0; i < Math.max(20, turns / 10); i++) {
      if (i % perTask === 0) await startTask();
      await turn(-1 - i);
    }
    await settle();
    await compact();
    // The warm-up ends with a pause too: the runtime takes its baseline there (the readings below see the same size).
    await quiet();
    tasks = 0;
    times.length = aloneTimes.length = 0;
    const heapBefore = await heapUsed(server, core);
    const rssBefore = await sampleRss([core.sessions.runtimePid()!]);
    const restartsBefore = core.recycler.restarts;
    seenRestarts = restartsBefore;
    restartMs.length = reasons.length = 0;
    afterRestart.clear();
    const aloneRssBefore = await sampleRss([runtimeAlone.pid]);

    for (let i = 0; i < turns; i++) {
      if (i % perTask === 0 && tasks < taskCount) await startTask();
      await turn(i);
      // The instruments' own records (see heapUsed) would otherwise grow with the run.
      if (i % 50 === 49) {
        server.requests.length = core.events.length = core.logger.lines.length = 0;
        await runtimeAlone.send({ cmd: 'clear' });
      }
      // The runtime compacts a real conversation by itself once it nears the model's context window; these scripted
      // messages are too small to get there in 1,000 turns, so the conversation is compacted as a user's /compact does.
      if (i % COMPACT_EVERY === COMPACT_EVERY - 1) await compact();
      if (i % PAUSE_EVERY === PAUSE_EVERY - 1) await pause();
    }
    await settle();
    const heapAfter = await heapUsed(server, core);
    const rssAfter = await sampleRss([core.sessions.runtimePid()!]);
    const aloneRssAfter = await sampleRss([runtimeAlone.pid]);
    const restarts = core.recycler.restarts - restartsBefore;
    await runtimeAlone.stop();
    const cost = await restartCost(core);
    await core.store.flush();

    const sessionsDir = join(core.storageDir, 'copilot-sessions', 'session-state');
    const folders = existsSync(sessionsDir) ? readdirSync(sessionsDir).length : 0;
    const storeBytes = statSync(join(core.storageDir, 'baton.sqlite')).size;
    // Each task only reads, in a folder without git: a copy's worktree it leaves empty, kept while it is listed.
    const worktreesDir = join(core.storageDir, 'worktrees');
    const worktrees = existsSync(worktreesDir) ? readdirSync(worktreesDir).reduce((n, repo) => n + readdirSync(join(worktreesDir, repo)).length, 0) : 0;
    const first = median(times.slice(0, 100));
    const last = median(times.slice(-100));
    const aloneFirst = median(aloneTimes.slice(0, 100));
    const aloneLast = median(aloneTimes.slice(-100));
    const failed = core.events.filter((e) => e.type === 'turn.failed').length;
    const nextTurns = [...afterRestart].map((i) => byTurn.get(i)).filter((t): t is number => t !== undefined);
    if (failed) throw new Error(`${failed} soak turn(s) failed`);
    return [
      {
        name: `soak: ${turns} turns + ${tasks} worker tasks, extension-host heap after / before`,
        value: heapAfter / heapBefore,
        unit: '×',
        target: '≤ 1.2',
      },
      { name: 'soak: extension-host heap before → after', value: (heapAfter - heapBefore) / MB, unit: 'MB grown' },
      { name: 'soak: runtime RSS after / before', value: rssAfter / rssBefore, unit: '×', target: '≤ 1.3' },
      { name: 'soak: runtime RSS, highest at the pauses / before', value: Math.max(...peaks) / rssBefore, unit: '×', target: '≤ 1.3' },
      {
        name: 'soak: idle restarts of the runtime (each: stop + start)',
        value: restarts,
        unit: restartMs.length ? `restarts, ${restartMs.map((ms) => ms.toFixed(0)).join(' / ')} ms (${reasons.join('; ')})` : 'restarts',
      },
      {
        name: 'soak: the turn right after an idle restart / the median turn',
        value: nextTurns.length ? median(nextTurns) / median(times) : 0,
        unit: `× (${nextTurns.map((ms) => ms.toFixed(0)).join(' / ') || 'none'} ms vs ${median(times).toFixed(0)} ms)`,
      },
      {
        name: 'soak: a message sent as an idle restart begins: its reply / a warm reply',
        value: cost.during / cost.warm,
        unit: `× (${cost.during.toFixed(0)} ms vs ${cost.warm.toFixed(0)} ms; the restart itself ${cost.restart.toFixed(0)} ms)`,
      },
      { name: 'soak: runtime alone, RSS after / before (same work, no Baton)', value: aloneRssAfter / aloneRssBefore, unit: '×' },
      { name: 'soak: runtime RSS after (Baton | runtime alone)', value: rssAfter / MB, unit: `MB | ${(aloneRssAfter / MB).toFixed(0)} MB` },
      { name: 'soak: median turn, last 100 / first 100', value: last / first, unit: '×', target: '≤ 1.1' },
      { name: 'soak: runtime alone, median turn last 100 / first 100 (same work, no Baton)', value: aloneLast / aloneFirst, unit: '×' },
      { name: "soak: Baton's turn growth beyond the runtime's (Baton's ratio / runtime alone's)", value: last / first / (aloneLast / aloneFirst), unit: '×' },
      { name: 'soak: median turn, first 100 → last 100', value: first, unit: `ms → ${last.toFixed(0)} ms` },
      { name: 'soak: runtime alone, median turn, first 100 → last 100', value: aloneFirst, unit: `ms → ${aloneLast.toFixed(0)} ms` },
      { name: "soak: Baton's session folders at the end", value: folders, unit: 'folders', target: '≤ 5' },
      { name: 'soak: store file at the end', value: storeBytes / MB, unit: 'MB', target: '≤ 5' },
      { name: "soak: workers' worktrees at the end (each task's, left empty)", value: worktrees, unit: 'worktrees', target: `≤ ${KEEP_FINISHED}` },
    ];
  } finally {
    await alone?.stop();
    await core.dispose();
    await server.close();
  }
}

/**
 * What one idle restart costs the user at worst: a message sent just as it begins waits for the old runtime to stop,
 * the new one to start and the session to resume. The bound is forced low for this one restart (any size counts).
 */
async function restartCost(core: CoreFixture): Promise<{ during: number; warm: number; restart: number }> {
  const turn = async (i: number): Promise<number> => {
    const t = performance.now();
    await core.orchestrator.enqueue(`SOAK turn ${i}: anything about soak?`, { channel: 'panel' }).done;
    return performance.now() - t;
  };
  const warm: number[] = [];
  for (let i = 0; i < 5; i++) warm.push(await turn(2000 + i));
  const saved = core.runtimeSettings;
  core.runtimeSettings = { growth: 0.01, guardGrowth: 0.01, warmupSessions: 0, warmupIdles: 0, maxSessions: 0 };
  try {
    const idle = async (): Promise<void> => {
      while (!core.orchestrator.idle || core.recycler.checkInProgress) await new Promise((r) => setTimeout(r, 10));
    };
    // Until the running runtime has its baseline (a first check may restart one that had it already).
    for (let outcome = ''; outcome !== 'kept';) {
      await idle();
      outcome = await core.recycler.check();
    }
    await idle();
    const restarts = core.recycler.restarts;
    const lines = core.logger.lines.length;
    const restarting = core.recycler.check();
    // Sent once the conversation is held (the restart has begun), as a person's message would arrive.
    while (!core.logger.lines.slice(lines).some((l) => l.includes('Restarting the Copilot runtime while idle'))) await new Promise((r) => setTimeout(r, 2));
    const during = turn(2100);
    await restarting;
    if (core.recycler.restarts !== restarts + 1) throw new Error('the forced idle restart did not happen');
    return { during: await during, warm: median(warm), restart: core.recycler.lastRestartMs! };
  } finally {
    core.runtimeSettings = saved;
  }
}

/** The orchestrator's own session config, as Baton's port builds it, with its functions taken out. */
function orchestratorConfig(core: CoreFixture): SerializableConfig {
  const keeper = (core.orchestrator as unknown as { keeper: SessionKeeper }).keeper;
  const { spec, tools } = (keeper as unknown as { opts: SessionKeeperOptions }).opts;
  const port = core.sessions as unknown as { config(spec: SessionSpec): SessionConfig };
  const { tools: batonTools, onPermissionRequest: _handler, hooks: _hooks, ...rest } = port.config(spec('claude-sonnet-4.5', tools()));
  return {
    ...rest,
    tools: (batonTools ?? []).map((t) => ({
      name: t.name,
      description: t.description,
      parameters: (t.parameters as { toJSONSchema?: () => unknown } | undefined)?.toJSONSchema?.() ?? t.parameters,
    })),
  };
}

/** The runtime alone, in its own process (soakRuntimeAlone.ts). */
class RuntimeAlone {
  private stopped = false;
  private constructor(
    private readonly child: ChildProcess,
    readonly pid: number,
  ) {}

  static async start(root: string, config: SerializableConfig): Promise<RuntimeAlone> {
    const child = fork(join(__dirname, 'soakRuntimeAlone.ts'), [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, BATON_SOAK_RUNTIME_ALONE: '1' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const starting = new RuntimeAlone(child, 0);
    const { pid } = await starting.send({ cmd: 'start', root, config }).catch((err: unknown) => {
      child.kill();
      throw err;
    });
    return new RuntimeAlone(child, pid!);
  }

  async turn(i: number): Promise<number> {
    return (await this.send({ cmd: 'turn', i })).ms!;
  }

  send(command: RawCommand): Promise<Extract<RawReply, { ok: true }>> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null): void => reject(new Error(`the runtime-alone process exited (${code}) during ${command.cmd}`));
      this.child.once('exit', onExit);
      this.child.once('message', (reply: RawReply) => {
        this.child.off('exit', onExit);
        if (reply.ok) resolve(reply);
        else reject(new Error(`runtime alone, ${command.cmd}: ${reply.error}`));
      });
      this.child.send(command);
    });
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.send({ cmd: 'stop' }).catch(() => this.child.kill());
  }
}
