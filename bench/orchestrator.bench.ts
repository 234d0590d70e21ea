// Per-turn overhead of the orchestrator against the raw SDK's sendAndWait on the same scripted
// server, in one run (ratios, not absolute times); how long a delta takes from the SDK's event to
// the panel's message; and the cold first reply (Enter → first token, runtime not yet started)
// against the raw SDK's cold path (client start + createSession + first turn). Baton is built with
// createBatonCore (startCore), as the extension builds it.
import type { CopilotClient, CopilotSession, SessionConfig } from '@github/copilot-sdk';
import type { SessionSpec } from '../src/core/copilot/agentSessions';
import { CopilotAgentSessions } from '../src/core/copilot/copilotAgentSessions';
import { CopilotAgentSession } from '../src/core/copilot/copilotAgentSession';
import type { CopilotRuntime } from '../src/core/copilot/copilotRuntime';
import { panelOpened } from '../src/core/chat/panelOpened';
import type { SessionKeeper, SessionKeeperOptions } from '../src/core/orchestrator/sessionKeeper';
import { CopilotClient as Client, hermeticEnv, waitForEvent } from '../test/support/copilotHarness';
import { startCore, type CoreFixture } from '../test/support/orchestratorFixture';
import { ScriptedModelServer } from '../test/support/scriptedModelServer';
import { median, type BenchFigure } from './figure';
import { phaseFigures, phasedReply, type ReplyPhases } from './firstReplyPhases';
import { afterSameIdle, benchIdlePenalty } from './idlePenalty';
import { benchResumeAtBound } from './resumeAtBound';
import { firstTurnTiming, runtimeTracingEnvironment, type FirstTurnTiming } from './runtimeFirstTurn';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const REPLY = 'The answer is forty-two, streamed in a few chunks.';

// The bench needs the SDK objects behind the port (a raw session on the same runtime process, the
// live session's raw events); the port does not hand them out, so they are read here, in one place.
function runtimeOf(core: CoreFixture): CopilotRuntime {
  return (core.sessions as unknown as { runtime: CopilotRuntime }).runtime;
}
function keeperOf(core: CoreFixture): SessionKeeper {
  return (core.orchestrator as unknown as { keeper: SessionKeeper }).keeper;
}

export async function benchOrchestrator(opts: { quick: boolean }): Promise<BenchFigure[]> {
  const server = await ScriptedModelServer.start();
  server.setModels(['claude-sonnet-4.5', 'gpt-4.1', 'claude-opus-4.6', 'claude-sonnet-4.6', 'claude-haiku-4.5']);
  server.always({}, { text: REPLY, chunks: 6 });
  try {
    const cold = await benchColdFirstReply(server, opts.quick ? 3 : 6);
    const opened = await benchFirstReplyAfterOpen(server, opts.quick ? 3 : 6);
    const resumed = await benchFirstReplyResumed(server, opts.quick ? 4 : 8);
    const atBound = await benchResumeAtBound(server, opts.quick ? 2 : 4);
    const warm = await benchTurns(server, opts.quick ? 30 : 60);
    const idle = await benchIdlePenalty(opts.quick ? 4 : 8);
    return [...warm, ...cold, ...opened, ...resumed, ...atBound, ...idle];
  } finally {
    await server.close();
  }
}

async function benchTurns(server: ScriptedModelServer, turns: number): Promise<BenchFigure[]> {
  // The store's production flush delay: tests shorten it, the benchmark must not.
  const core = await startCore({ server, flushDelayMs: 250 });
  // Raw SDK: a session of the same runtime process (so process-level noise cancels out) with exactly
  // the orchestrator's session config (one builder, same system message and tools), driven by
  // sendAndWait. The ratio then measures Baton's own work per turn, not a longer prompt or another process.
  const client: CopilotClient = await runtimeOf(core).client();
  await core.orchestrator.enqueue('warm up', { channel: 'panel' }).done;
  const keeper = keeperOf(core);
  const { spec, tools } = (keeper as unknown as { opts: SessionKeeperOptions }).opts;
  // The config the port itself builds for the orchestrator (provider, per-session token, folder ...), in a folder of its own.
  const config: SessionConfig = {
    ...(core.sessions as unknown as { config(spec: SessionSpec): SessionConfig }).config(spec('claude-sonnet-4.5', tools())),
    configDirectory: join(core.root, 'raw-sessions'),
  };
  const session: CopilotSession = await client.createSession(config);
  await session.sendAndWait({ prompt: 'warm up' }, 30_000);

  // Delta latency: the SDK's own event vs the panel message the ChatController posts for it.
  const sdkAt: number[] = [];
  const panelAt: number[] = [];
  const live = keeper.current;
  if (!live) throw new Error('the orchestrator has no live session after its warm-up turn');
  const offSdk = live.onEvent((e) => {
    if (e.type === 'assistant.message_delta') sdkAt.push(performance.now());
  });
  const offPanel = core.chat.onDidPost((m) => {
    if (m.type === 'message/delta') panelAt.push(performance.now());
  });

  const raw: number[] = [];
  const orch: number[] = [];
  // This process's CPU time per turn too (the SDK's client, Baton, the scripted server): on a shared machine it varies
  // far less than wall time, and the difference is Baton's own work per turn.
  const rawCpu: number[] = [];
  const orchCpu: number[] = [];
  const cpuSince = (c: NodeJS.CpuUsage): number => {
    const used = process.cpuUsage(c);
    return (used.user + used.system) / 1000;
  };
  const rawTurn = async (i: number): Promise<void> => {
    const c = process.cpuUsage();
    const t = performance.now();
    await session.sendAndWait({ prompt: `raw turn ${i}` }, 30_000);
    raw.push(performance.now() - t);
    rawCpu.push(cpuSince(c));
  };
  const orchTurn = async (i: number): Promise<void> => {
    const c = process.cpuUsage();
    const t = performance.now();
    await core.orchestrator.enqueue(`orchestrated turn ${i}`, { channel: 'panel' }).done;
    orch.push(performance.now() - t);
    orchCpu.push(cpuSince(c));
  };
  // Interleaved, and alternating which goes first, so both see the same machine noise.
  for (let i = 0; i < turns; i++) {
    if (i % 2) {
      await rawTurn(i);
      await orchTurn(i);
    } else {
      await orchTurn(i);
      await rawTurn(i);
    }
  }
  offSdk();
  offPanel();
  const latencies = panelAt.slice(0, sdkAt.length).map((p, i) => p - sdkAt[i]!);

  await session.disconnect().catch(() => undefined);
  await core.dispose();

  const rawMedian = median(raw);
  const orchMedian = median(orch);
  return [
    { name: 'turn: raw SDK sendAndWait (median)', value: rawMedian, unit: 'ms' },
    { name: 'turn: Baton orchestrator (median)', value: orchMedian, unit: 'ms' },
    { name: 'turn overhead ratio (orchestrator / raw)', value: orchMedian / rawMedian, unit: '×', target: '≤ 1.05' },
    // On a scripted ~15 ms turn the ratio magnifies a fixed cost; on a real model turn of seconds it vanishes.
    { name: 'turn overhead, absolute (orchestrator − raw)', value: orchMedian - rawMedian, unit: 'ms' },
    // Interleaved pairs see the same moment's load: the median of their ratios is steadier than the ratio of medians.
    { name: 'turn overhead ratio, median of interleaved pairs', value: median(orch.map((o, i) => o / raw[i]!)), unit: '×' },
    { name: 'host CPU per turn: raw SDK (median)', value: median(rawCpu), unit: 'ms' },
    { name: 'host CPU per turn: Baton orchestrator (median)', value: median(orchCpu), unit: 'ms' },
    { name: 'first delta: SDK event → panel message (median)', value: median(latencies), unit: 'ms', target: '≤ 5' },
    { name: 'delta: SDK event → panel message (max)', value: Math.max(...latencies), unit: 'ms' },
  ];
}

/**
 * Enter → first token with the runtime not yet started: Baton built (activation done), then the
 * panel's `chat/send` until the first `message/delta` it posts. Against the raw SDK's cold path in
 * the same run: a new client's start + createSession + send until the first delta event. Each
 * sample is a fresh runtime in fresh folders; the two alternate so both see the same machine noise.
 */
async function benchColdFirstReply(server: ScriptedModelServer, rounds: number): Promise<BenchFigure[]> {
  const baton: number[] = [];
  const raw: number[] = [];
  const batonOnce = async (i: number): Promise<void> => {
    const core = await startCore({ server, flushDelayMs: 250 });
    try {
      if (core.sessions.isStarted) throw new Error('createBatonCore started the runtime');
      const first = new Promise<number>((resolve) => {
        const off = core.chat.onDidPost((m) => {
          if (m.type !== 'message/delta') return;
          off();
          resolve(performance.now());
        });
      });
      const t = performance.now();
      core.chat.receive({ type: 'chat/send', text: `cold baton ${i}` });
      baton.push((await first) - t);
      await waitIdle(core);
    } finally {
      await core.dispose();
    }
  };
  const rawOnce = async (i: number): Promise<void> => {
    const root = await mkdtemp(join(tmpdir(), 'baton-bench-cold-'));
    const env = hermeticEnv(server.url, root);
    for (const k of ['HOME', 'XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'GH_CONFIG_DIR', 'TMPDIR', 'COPILOT_HOME'])
      await mkdir(env[k]!, { recursive: true });
    const workspace = join(root, 'workspace');
    await mkdir(workspace, { recursive: true });
    const t = performance.now();
    const client = new Client({ env, baseDirectory: env.COPILOT_HOME, gitHubToken: 'fake', workingDirectory: workspace, logLevel: 'error' });
    try {
      await client.start();
      const session = await client.createSession({ model: 'claude-sonnet-4.5', streaming: true, onPermissionRequest: () => ({ kind: 'reject' }) });
      const delta = waitForEvent(session, 'assistant.message_delta', 30_000);
      const idle = waitForEvent(session, 'session.idle', 30_000);
      await session.send({ prompt: `cold raw ${i}` });
      await delta;
      raw.push(performance.now() - t);
      await idle;
    } finally {
      await client.stop().catch(() => client.forceStop());
      await rm(root, { recursive: true, force: true, maxRetries: 3 });
    }
  };
  // One of each first, unmeasured: the OS file cache and the runtime binary warm up.
  await rawOnce(-1);
  raw.length = 0;
  for (let i = 0; i < rounds; i++) {
    if (i % 2) {
      await rawOnce(i);
      await batonOnce(i);
    } else {
      await batonOnce(i);
      await rawOnce(i);
    }
  }
  const b = median(baton);
  const r = median(raw);
  return [
    { name: 'cold first reply: raw SDK start + createSession + first delta (median)', value: r, unit: 'ms' },
    { name: 'cold first reply: Baton Enter → first token, runtime not started (median)', value: b, unit: 'ms' },
    { name: 'cold first reply ratio (Baton / raw SDK)', value: b / r, unit: '×', target: '≤ 2' },
  ];
}

/**
 * The first reply when the panel has been open for 2 s before Enter (what opening it sets going: panelOpened),
 * against a warm reply (the next message, same core), phase by phase from the runtime's session events. Each round is
 * a fresh core and runtime, three of them in turn so all see the same machine noise: as Baton ships (the new session
 * opened ahead, so its MCP servers are connected and its tool list built on opening: openAhead.ts); as before (the
 * session created plainly, so its first send connects them), timed; and as shipped again with the runtime timing its
 * own first turn (where what is left goes: the tool descriptors it builds again at the first send, bench/firstTurnTools.ts).
 */
async function benchFirstReplyAfterOpen(server: ScriptedModelServer, rounds: number): Promise<BenchFigure[]> {
  const shipped = { first: [] as number[], warm: [] as number[] };
  const before = { first: [] as number[], warm: [] as number[] };
  const warmAfterIdle: number[] = [];
  const phases: Array<{ first: ReplyPhases; warm: ReplyPhases }> = [];
  const beforePhases: Array<{ first: ReplyPhases; warm: ReplyPhases }> = [];
  // How long what opening the panel sets going took.
  const prepared: number[] = [];
  const preparedBefore: number[] = [];
  const timings: FirstTurnTiming[] = [];
  const traces = await mkdtemp(join(tmpdir(), 'baton-bench-trace-'));
  const create = CopilotAgentSessions.prototype.create;
  const once = async (into: { first: number[]; warm: number[] } | undefined, i: number, opts: { trace?: string; plain?: boolean }): Promise<void> => {
    // As before: the session created at opening is not opened ahead (its MCP host comes with the first send).
    if (opts.plain)
      CopilotAgentSessions.prototype.create = function (this: CopilotAgentSessions, spec: SessionSpec) {
        return create.call(this, spec);
      };
    const core = await startCore({ server, flushDelayMs: 250 });
    let sessionId: string | undefined;
    try {
      // Read at the runtime's start, which opening the panel does.
      if (opts.trace) core.workerSettings = { ...core.workerSettings, environment: runtimeTracingEnvironment(opts.trace) };
      const openedAt = performance.now();
      const opened = panelOpened(core, core.logger).then(() => performance.now() - openedAt);
      await new Promise((r) => setTimeout(r, 2_000));
      const live = () => keeperOf(core).current;
      const first = await phasedReply(core, server, live, `after open ${i}`);
      const warm = await phasedReply(core, server, live, `warm ${i}`);
      into?.first.push(first.total);
      into?.warm.push(warm.total);
      if (into === shipped) {
        warmAfterIdle.push((await afterSameIdle(() => phasedReply(core, server, live, `warm after idle ${i}`))).total);
        prepared.push(await opened);
        phases.push({ first, warm });
      } else if (into === before) {
        preparedBefore.push(await opened);
        beforePhases.push({ first, warm });
      }
      sessionId = keeperOf(core).current?.id;
    } finally {
      CopilotAgentSessions.prototype.create = create;
      await core.dispose();
    }
    if (opts.trace) {
      const timing = sessionId ? await firstTurnTiming(opts.trace, sessionId) : undefined;
      if (!timing) throw new Error('the runtime wrote no timing for the first turn');
      timings.push(timing);
    }
  };
  try {
    for (let i = 0; i < rounds; i++) {
      await once(shipped, i, {});
      await once(before, i, { plain: true });
      await once(undefined, i, { trace: join(traces, `round-${i}.jsonl`) });
    }
  } finally {
    await rm(traces, { recursive: true, force: true });
  }
  const f = median(shipped.first);
  const w = median(shipped.warm);
  return [
    { name: 'first reply, panel open 2 s before Enter: Enter → first token (median)', value: f, unit: 'ms' },
    { name: 'warm reply: Enter → first token (median)', value: w, unit: 'ms' },
    { name: 'first reply after opening / warm reply', value: f / w, unit: '×', target: '≤ 1.5' },
    { name: 'warm reply after the same 2 s idle: Enter → first token (median)', value: median(warmAfterIdle), unit: 'ms' },
    {
      name: "first reply after opening / warm reply after the same 2 s idle (the machine's idle penalty left out)",
      value: f / median(warmAfterIdle),
      unit: '×',
    },
    {
      name: 'new conversation, before (its session created plainly, MCP servers connected at the first send), same run: first reply (median)',
      value: median(before.first),
      unit: 'ms',
    },
    { name: 'new conversation, before, same run: first / warm', value: median(before.first) / median(before.warm), unit: '×' },
    { name: 'opening the panel → runtime, session and agent context prepared (median; Enter comes at 2 s)', value: median(prepared), unit: 'ms' },
    { name: '… the same before (session created plainly), same run (median)', value: median(preparedBefore), unit: 'ms' },
    {
      name: '… rounds where that preparation outlasted the 2 s (the first message waited for it)',
      value: prepared.filter((ms) => ms > 2_000).length,
      unit: `of ${prepared.length}`,
    },
    ...phaseFigures(
      'new',
      phases.map((p) => p.first),
      phases.map((p) => p.warm),
    ),
    ...phaseFigures(
      'new, before',
      beforePhases.map((p) => p.first),
      beforePhases.map((p) => p.warm),
    ),
    {
      name: "new, as shipped: the first turn's own preparation before the model call (median, the runtime's timing)",
      value: median(timings.map((t) => t.preparationMs)),
      unit: 'ms',
    },
    { name: '… of which the built-in GitHub MCP server: authentication and connection (median)', value: median(timings.map((t) => t.githubMcpMs)), unit: 'ms' },
    {
      name: "… of which the session's tool list, built again though opening built it: MCP catalog and tool initialization (median)",
      value: median(timings.map((t) => t.toolsMs)),
      unit: 'ms',
    },
    { name: '… … of which the tool descriptors (median)', value: median(timings.map((t) => t.descriptorsMs)), unit: 'ms' },
  ];
}

/**
 * The same on a resumed conversation (the usual case: VS Code restarted, the panel opened on yesterday's chat): a
 * conversation of one turn, the core restarted (a new runtime), the panel opened 2 s before Enter. In turns, as Baton
 * ships (opening builds the resumed session's tool list, which connects its MCP servers there) and as before (the
 * same warm-up without that step, so the first send connects them).
 */
async function benchFirstReplyResumed(server: ScriptedModelServer, rounds: number): Promise<BenchFigure[]> {
  const shipped = { first: [] as number[], warm: [] as number[] };
  const before = { first: [] as number[], warm: [] as number[] };
  const phases: Array<{ first: ReplyPhases; warm: ReplyPhases }> = [];
  const warmAfterIdle: number[] = [];
  const warmUp = CopilotAgentSession.prototype.warmUp;
  const once = async (into: { first: number[]; warm: number[] }, i: number): Promise<void> => {
    const core = await startCore({ server, flushDelayMs: 250 });
    try {
      await core.orchestrator.enqueue(`yesterday ${i}`, { channel: 'panel' }).done;
      await core.restart();
      if (into === before)
        CopilotAgentSession.prototype.warmUp = function (this: CopilotAgentSession, model: string) {
          const { rpc } = (this as unknown as { session: CopilotSession }).session;
          rpc.tools.initializeAndValidate = () => Promise.resolve({});
          return warmUp.call(this, model);
        };
      void panelOpened(core, core.logger);
      await new Promise((r) => setTimeout(r, 2_000));
      const live = () => keeperOf(core).current;
      const first = await phasedReply(core, server, live, `after reopening ${i}`);
      const warm = await phasedReply(core, server, live, `warm ${i}`);
      into.first.push(first.total);
      into.warm.push(warm.total);
      if (into === shipped) {
        phases.push({ first, warm });
        warmAfterIdle.push((await afterSameIdle(() => phasedReply(core, server, live, `warm after idle ${i}`))).total);
      }
    } finally {
      CopilotAgentSession.prototype.warmUp = warmUp;
      await core.dispose();
    }
  };
  for (let i = 0; i < rounds; i++) {
    await once(shipped, i);
    await once(before, i);
  }
  return [
    { name: 'resumed conversation, panel open 2 s before Enter: first reply (median)', value: median(shipped.first), unit: 'ms' },
    { name: 'resumed conversation: first reply after opening / warm reply', value: median(shipped.first) / median(shipped.warm), unit: '×', target: '≤ 1.5' },
    {
      name: "resumed conversation: first reply after opening / warm reply after the same 2 s idle (the machine's idle penalty left out)",
      value: median(shipped.first) / median(warmAfterIdle),
      unit: '×',
    },
    {
      name: 'resumed conversation, before (its MCP servers connected at the first send), same run: first reply (median)',
      value: median(before.first),
      unit: 'ms',
    },
    {
      name: 'resumed conversation, before (its MCP servers connected at the first send), same run: first / warm',
      value: median(before.first) / median(before.warm),
      unit: '×',
    },
    ...phaseFigures(
      'resumed',
      phases.map((p) => p.first),
      phases.map((p) => p.warm),
    ),
  ];
}

async function waitIdle(core: CoreFixture): Promise<void> {
  while (core.orchestrator.busy) await new Promise((r) => setTimeout(r, 10));
}
