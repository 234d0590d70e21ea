// Whether any warm-up spares a session's first send the runtime's tool initialization (docs/performance.md ³). Raw SDK
// sessions on Baton's runtime (built with startCore, traced), each with the orchestrator's exact config, each opened as
// Baton opens a new conversation (created, suspended, resumed: openAhead.ts), then warmed up by one sequence of session
// RPCs, none of which asks the model anything, then two messages 2 s later. For each, the runtime's own timing of the
// first turn (`session.first_turn`): is a `tool_initialization_attempt` in it, and how long it and its tool
// descriptors took; and from the session's events, the tool phase (`session.mcp_servers_loaded` →
// `session.tools_updated`) of the first and the second send. Rounds alternate the sequences, so all see the same load.
// `node --import tsx bench/firstTurnTools.ts [rounds]` (ONLY=<regex> picks sequences by name; AVAILABLE=1 offers the
// same tools by allowlist; RUNTIME_PATH=<copilot-runtime> runs another runtime build)
import type { CopilotClient, CopilotSession, SessionConfig, SessionEvent } from '@github/copilot-sdk';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { SessionSpec } from '../src/core/copilot/agentSessions';
import type { CopilotRuntime } from '../src/core/copilot/copilotRuntime';
import type { SessionKeeper, SessionKeeperOptions } from '../src/core/orchestrator/sessionKeeper';
import { startCore } from '../test/support/orchestratorFixture';
import { ScriptedModelServer } from '../test/support/scriptedModelServer';
import { median } from './figure';
import { runtimeTracingEnvironment } from './runtimeFirstTurn';

const MODEL = 'claude-sonnet-4.5';
type Step = (s: CopilotSession) => Promise<unknown>;
const recount: Step = (s) => s.rpc.metadata.recomputeContextTokens({ modelId: MODEL });
const tools: Step = (s) => s.rpc.tools.initializeAndValidate();
const compact: Step = (s) => s.rpc.history.compact();
const SEQUENCES: Record<string, Step[]> = {
  nothing: [],
  'as shipped (token count, tool list, compaction)': [recount, tools, compact],
  'tool list twice': [recount, tools, tools, compact],
  'compaction, then the tool list': [recount, compact, tools],
  'model resolved first (model.getCurrent), tool list': [(s) => s.rpc.model.getCurrent(), recount, tools, compact],
  'LSP loaded first (lsp.initialize), tool list': [(s) => s.rpc.lsp.initialize({}), recount, tools, compact],
  'tool list, context read (getContextAttribution, /context)': [
    recount,
    tools,
    (s) => s.rpc.metadata.getContextAttribution(),
    (s) => s.rpc.commands.invoke({ name: 'context' }),
  ],
  'tool list, tool metadata read': [recount, tools, compact, (s) => s.rpc.tools.getCurrentMetadata()],
  'model switched away and back, then as shipped': [
    (s) => s.rpc.model.switchTo({ modelId: 'claude-haiku-4.5' }),
    (s) => s.rpc.model.switchTo({ modelId: MODEL }),
    recount,
    tools,
    compact,
  ],
  'mode set (interactive), agent read, then as shipped': [
    (s) => s.rpc.mode.set({ mode: 'interactive' }),
    (s) => s.rpc.agent.getCurrent(),
    recount,
    tools,
    compact,
  ],
  'as shipped, then an unknown tool executed (tools.execute)': [recount, tools, compact, (s) => s.rpc.tools.execute({ name: 'no_such_tool', arguments: {} })],
  'tool list, built-in descriptors read': [recount, tools, compact, (s) => s.rpc.tools.getBuiltinDescriptors({})],
};

interface Sample {
  init: boolean;
  initMs: number;
  descriptorsMs: number;
  /** Its model resolution and MCP steps (before the tool list). */
  beforeToolsMs: number;
  firstTools: number;
  secondTools: number;
}

async function once(client: CopilotClient, config: SessionConfig, steps: Step[], trace: string): Promise<Sample> {
  const created = await client.createSession(config);
  await created.rpc.suspend();
  const session = await client.resumeSession(created.sessionId, config);
  for (const step of steps) await step(session).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 2_000));
  const toolPhase = async (prompt: string): Promise<number> => {
    const at = new Map<string, number>();
    const off = session.on((e: SessionEvent) => {
      if (!at.has(e.type)) at.set(e.type, Date.parse(e.timestamp));
    });
    await session.sendAndWait({ prompt }, 30_000);
    off();
    return at.get('session.tools_updated')! - at.get('session.mcp_servers_loaded')!;
  };
  const firstTools = await toolPhase('first');
  const secondTools = await toolPhase('second');
  await session.disconnect().catch(() => undefined);
  await client.deleteSession(session.sessionId).catch(() => undefined);
  // The exporter writes a span when it ends; the first turn's are written by the time its idle is.
  const spans = (await readFile(trace, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { name?: string; traceId?: string; attributes?: Record<string, unknown> });
  const turn = spans.find((s) => s.name === 'session.first_turn' && s.attributes?.['gen_ai.conversation.id'] === session.sessionId);
  if (!turn) throw new Error('the runtime wrote no timing for the first turn');
  const ms = (name: string): number =>
    spans
      .filter((s) => s.traceId === turn.traceId && s.name === `session.timing.${name}`)
      .reduce((sum, s) => sum + Number(s.attributes?.['github.copilot.session.timing.duration_ms'] ?? 0), 0);
  const init = spans.some((s) => s.traceId === turn.traceId && s.name === 'session.timing.tool_initialization_attempt');
  const beforeToolsMs = ['model_resolution', 'mcp_bridge_reconciliation', 'mcp_initialization', 'github_mcp_authentication'].reduce((sum, n) => sum + ms(n), 0);
  return { init, initMs: ms('tool_initialization_attempt'), descriptorsMs: ms('tool_descriptors'), beforeToolsMs, firstTools, secondTools };
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 3);
  const server = await ScriptedModelServer.start();
  server.setModels([MODEL, 'claude-haiku-4.5']);
  server.always({}, { text: 'The answer is forty-two, streamed in a few chunks.', chunks: 6 });
  const core = await startCore({ server, flushDelayMs: 250 });
  const trace = join(core.root, 'trace.jsonl');
  try {
    core.workerSettings = { ...core.workerSettings, environment: runtimeTracingEnvironment(trace) };
    // RUNTIME_PATH=<copilot-runtime>: another runtime build (is the first turn's tool initialization still there?).
    if (process.env.RUNTIME_PATH)
      (core.sessions as unknown as { runtime: { options: { runtimePath?: string } } }).runtime.options.runtimePath = process.env.RUNTIME_PATH;
    const client: CopilotClient = await (core.sessions as unknown as { runtime: CopilotRuntime }).runtime.client();
    const keeper = (core.orchestrator as unknown as { keeper: SessionKeeper }).keeper;
    const { spec, tools: orchestratorTools } = (keeper as unknown as { opts: SessionKeeperOptions }).opts;
    const config: SessionConfig = {
      ...(core.sessions as unknown as { config(spec: SessionSpec): SessionConfig }).config(spec(MODEL, orchestratorTools())),
      configDirectory: join(core.root, 'raw-sessions'),
    };
    if (process.env.AVAILABLE) {
      // The same tools by allowlist instead of the built-ins' denylist: does the runtime then build fewer descriptors?
      await once(client, config, [], trace);
      const offered = server.requests.filter((r) => r.kind === 'chat').at(-1)!.tools;
      console.log(`offered: ${offered.length} tools, ${offered.filter((n) => !orchestratorTools().some((t) => t.name === n)).length} of them not Baton's`);
      delete config.excludedTools;
      config.availableTools = [...offered];
    }
    const samples = new Map<string, Sample[]>(Object.keys(SEQUENCES).map((k) => [k, []]));
    const only = process.env.ONLY ? new RegExp(process.env.ONLY) : undefined;
    const chosen = Object.entries(SEQUENCES).filter(([name]) => !only || only.test(name));
    // Each round starts one sequence later, so none is always the first after the previous round.
    for (let i = 0; i < rounds; i++)
      for (const [name, steps] of [...chosen.slice(i % chosen.length), ...chosen.slice(0, i % chosen.length)])
        samples.get(name)!.push(await once(client, config, steps, trace));
    console.log(
      'warm-up before the first send | first turn ran the tool initialization | its ms, descriptors ms (median) | model and MCP steps before it (median ms) | tool phase, 1st / 2nd send (median ms)',
    );
    for (const [name, s] of samples)
      if (s.length)
        console.log(
          `${name} | ${s.filter((x) => x.init).length} of ${s.length} | ${median(s.map((x) => x.initMs))}, ${median(s.map((x) => x.descriptorsMs))} | ${median(s.map((x) => x.beforeToolsMs))} | ${median(s.map((x) => x.firstTools))} / ${median(s.map((x) => x.secondTools))}`,
        );
    server.assertScriptDone();
  } finally {
    await core.dispose();
    await server.close();
    await rm(trace, { force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
