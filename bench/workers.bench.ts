// What one runtime for all buys: memory of the orchestrator + 5 RUNNING workers in one Copilot client
// (built with createBatonCore, as the extension builds it) against 6 clients with one session each (RSS summed over each runtime's process tree), and whether
// five workers' tasks started together finish in about the time of one. Real runtime, scripted model
// with small delays, so "running" means a model request is in flight.
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CopilotClient, hermeticEnv, type CopilotClientInstance } from '../test/support/copilotHarness';
import { startCore, type CoreFixture } from '../test/support/orchestratorFixture';
import { ScriptedModelServer } from '../test/support/scriptedModelServer';
import { median, type BenchFigure } from './figure';
import { scriptSmallWorkerTask } from './smallWorkerTask';
import type { AgentEvent } from '../src/core/copilot/agentSessions';
import { WorkerTranscript } from '../src/core/workers/workerTranscript';

const ENV_DIRS = ['HOME', 'XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'GH_CONFIG_DIR', 'TMPDIR', 'COPILOT_HOME'];
const MB = 1024 * 1024;

export async function benchWorkers(opts: { quick: boolean }): Promise<BenchFigure[]> {
  const server = await ScriptedModelServer.start();
  const root = await mkdtemp(join(tmpdir(), 'baton-bench-workers-'));
  try {
    const memory = await benchMemory(server, root);
    server.reset();
    const speed = await benchConcurrency(server, opts.quick ? 2 : 5);
    return [...memory, ...speed, streamedReply()];
  } finally {
    await server.close();
    await rm(root, { recursive: true, force: true, maxRetries: 3 });
  }
}

/**
 * The extension host's time to follow a worker's long streamed reply (its card's last line, its output): 500 KB in
 * 10,000 deltas, in process. It read the whole stream again at every delta: 23.7 s for this, quadratic in the length.
 */
function streamedReply(): BenchFigure {
  const line = 'const value = compute(alpha, beta, gamma); // a line of code\n';
  const text = line.repeat(Math.ceil(500_000 / line.length)).slice(0, 500_000);
  const times: number[] = [];
  for (let run = 0; run < 3; run++) {
    const transcript = new WorkerTranscript();
    transcript.beginTask('write it all');
    const t0 = performance.now();
    for (let i = 0; i < text.length; i += 50)
      transcript.onEvent({ type: 'assistant.message_delta', data: { messageId: 'm', deltaContent: text.slice(i, i + 50) } } as AgentEvent);
    transcript.taskOutput();
    times.push(performance.now() - t0);
  }
  return { name: "a worker's 500 KB reply in 10,000 deltas: host time to follow it", value: median(times), unit: 'ms', target: '≤ 50' };
}

async function makeEnv(server: ScriptedModelServer, dir: string): Promise<{ env: Record<string, string>; project: string }> {
  const env = hermeticEnv(server.url, dir);
  for (const k of ENV_DIRS) await mkdir(env[k]!, { recursive: true });
  const project = join(env.HOME!, 'project');
  await mkdir(project, { recursive: true });
  await writeFile(join(project, 'README.md'), '# bench\n');
  return { env, project };
}

/** Baton as the extension builds it (createBatonCore), with a project folder for its workers. */
async function batonWithProject(server: ScriptedModelServer): Promise<{ core: CoreFixture; project: string }> {
  const core = await startCore({ server, flushDelayMs: 250 });
  core.workerSettings.timeoutMs = 120_000;
  const project = join(core.home, 'project');
  await mkdir(project, { recursive: true });
  await writeFile(join(project, 'README.md'), '# bench\n');
  return { core, project };
}

/** Results the pool handed to the orchestrator (background turns queued). */
function deliveredResults(core: CoreFixture): string[] {
  return core.events.flatMap((e) => (e.type === 'turn.queued' && e.origin.channel === 'background' ? [e.prompt] : []));
}

async function benchMemory(server: ScriptedModelServer, root: string): Promise<BenchFigure[]> {
  // Every session's model request hangs once it arrives: the turn is in flight while we measure.
  server.always({ lastUserIncludes: 'HOLD' }, { textThenHang: 'working' });
  server.always({ lastUserIncludes: 'warm' }, { text: 'ready' });

  // One runtime: the orchestrator (after a turn) + 5 running workers.
  const { core, project } = await batonWithProject(server);
  let shared: number;
  try {
    await core.orchestrator.enqueue('warm up', { channel: 'panel' }).done;
    const before = server.chatRequests().length;
    for (let i = 0; i < 5; i++) await core.pool.create({ name: `w${i}`, workingDir: project, prompt: `HOLD task ${i}` });
    await server.waitForRequests(before + 5, 30_000);
    shared = await sampleRss([core.sessions.runtimePid()!]);
  } finally {
    await core.dispose();
  }

  // Six runtimes, one running session each.
  const clients: CopilotClientInstance[] = [];
  const pids: number[] = [];
  try {
    const startCount = server.chatRequests().length;
    for (let i = 0; i < 6; i++) {
      const { env, project: dir } = await makeEnv(server, join(root, `six-${i}`));
      const c = new CopilotClient({ env, baseDirectory: env.COPILOT_HOME, gitHubToken: 'fake', workingDirectory: dir, logLevel: 'error' });
      clients.push(c);
      await c.start();
      pids.push((c as unknown as { cliProcess: { pid: number } }).cliProcess.pid);
      const s = await c.createSession({ workingDirectory: dir, streaming: true, onPermissionRequest: () => ({ kind: 'reject' }) });
      void s.send({ prompt: `HOLD separate ${i}` });
    }
    await server.waitForRequests(startCount + 6, 30_000);
    const separate = await sampleRss(pids);
    return [
      { name: 'RSS: orchestrator + 5 running workers, one runtime', value: shared / MB, unit: 'MB' },
      { name: 'RSS: 6 runtimes, one running session each', value: separate / MB, unit: 'MB' },
      { name: 'RSS ratio (one runtime / six)', value: shared / separate, unit: '×', target: '≤ 0.35' },
    ];
  } finally {
    server.releaseHeld();
    await Promise.all(clients.map((c) => c.stop().catch(() => c.forceStop())));
  }
}

async function benchConcurrency(server: ScriptedModelServer, rounds: number): Promise<BenchFigure[]> {
  const { core, project } = await batonWithProject(server);
  scriptSmallWorkerTask(server, project);
  const pool = core.pool;
  let n = 0;
  // Timed from create to the result handed to the orchestrator; the orchestrator's turns for the
  // previous round's results finish before the next round starts, outside the measurement.
  const run = async (count: number): Promise<number> => {
    while (core.orchestrator.busy) await new Promise((r) => setTimeout(r, 5));
    const target = deliveredResults(core).length + count;
    const started = performance.now();
    await Promise.all(Array.from({ length: count }, () => pool.create({ name: `t${++n}`, workingDir: project, prompt: `TASK ${n}` })));
    while (deliveredResults(core).length < target) await new Promise((r) => setTimeout(r, 5));
    return performance.now() - started;
  };
  try {
    await run(1); // warm: runtime start, first session, first request
    const single: number[] = [];
    const five: number[] = [];
    for (let i = 0; i < rounds; i++) {
      single.push(await run(1));
      five.push(await run(5));
    }
    const failed = deliveredResults(core).filter((d) => !d.includes('finished:'));
    if (failed.length) throw new Error(`a benchmark task did not finish: ${failed[0]!.slice(0, 200)}`);
    const one = median(single);
    const all = median(five);
    return [
      { name: 'one worker task: create → result delivered (median)', value: one, unit: 'ms' },
      { name: 'five worker tasks started together (median)', value: all, unit: 'ms' },
      { name: 'five together / one', value: all / one, unit: '×', target: '≤ 1.5' },
    ];
  } finally {
    await core.dispose();
  }
}

/** The largest total RSS of the process trees over a short settle (memory is still growing just after start). */
export async function sampleRss(pids: number[]): Promise<number> {
  let max = 0;
  for (let i = 0; i < 8; i++) {
    await new Promise((r) => setTimeout(r, 200));
    const children = childMap();
    max = Math.max(
      max,
      pids.reduce((sum, pid) => sum + treeRss(pid, children), 0),
    );
  }
  return max;
}

function treeRss(pid: number, children: Map<number, number[]>): number {
  return vmRss(pid) + (children.get(pid) ?? []).reduce((sum, child) => sum + treeRss(child, children), 0);
}

function vmRss(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** parent pid → child pids, from /proc/<pid>/stat (the command name may hold spaces and parentheses). */
function childMap(): Map<number, number[]> {
  const map = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = map.get(ppid) ?? [];
      list.push(Number(entry));
      map.set(ppid, list);
    } catch {
      // exited while we looked
    }
  }
  return map;
}
