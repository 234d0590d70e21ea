// Per-turn overhead of the orchestrator against the raw SDK's sendAndWait on the same scripted
// server, in one run (ratios, not absolute times), and how long a delta takes from the SDK's event
// to the panel's message.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CopilotClient, type CopilotSession } from '@github/copilot-sdk';
import { ChatController } from '../src/core/chat/chatController';
import { MemoryLogger } from '../src/core/util/logger';
import { hermeticEnv } from '../test/support/copilotHarness';
import { startCore } from '../test/support/orchestratorFixture';
import { ScriptedModelServer } from '../test/support/scriptedModelServer';
import { median, type BenchFigure } from './figure';


export async function benchOrchestrator(opts: { quick: boolean }): Promise<BenchFigure[]> {
  const turns = opts.quick ? 15 : 40;
  const server = await ScriptedModelServer.start();
  server.always({}, { text: 'The answer is forty-two, streamed in a few chunks.', chunks: 6 });

  // Raw SDK: one client, one session, sendAndWait per turn.
  const root = await mkdtemp(join(tmpdir(), 'baton-bench-raw-'));
  const env = hermeticEnv(server.url, root);
  for (const k of ['HOME', 'XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'GH_CONFIG_DIR', 'TMPDIR', 'COPILOT_HOME']) await mkdir(env[k], { recursive: true });
  await mkdir(join(root, 'ws'), { recursive: true });
  const client = new CopilotClient({ env, baseDirectory: env.COPILOT_HOME, gitHubToken: 'fake', workingDirectory: join(root, 'ws'), logLevel: 'error' });
  await client.start();
  // The store's production flush delay: tests shorten it, the benchmark must not.
  const core = await startCore({ server, flushDelayMs: 250 });
  // The raw session gets exactly the orchestrator's session config (system message, tools), so the
  // ratio measures Baton's own overhead, not a longer prompt.
  const config = (core.orchestrator as unknown as { sessionConfig(model: string, tools: unknown[]): Record<string, unknown> }).sessionConfig('claude-sonnet-4.5', []);
  const session: CopilotSession = await client.createSession({ ...config, configDirectory: join(root, 'raw-sessions') } as never);
  const chat = new ChatController(core.orchestrator, core.store, { openLink() {}, insertCode() {}, runCommand() {}, toggleRouting() {}, openWorker() {} }, new MemoryLogger(), () => false);

  // Warm both paths (session creation, first request) outside the measurement.
  await session.sendAndWait({ prompt: 'warm up' }, 30_000);
  await core.orchestrator.enqueue('warm up', { channel: 'panel' }).done;

  // Delta latency: the SDK's own event vs the panel message the ChatController posts for it.
  const sdkAt: number[] = [];
  const panelAt: number[] = [];
  const liveSession = (core.orchestrator as unknown as { session: CopilotSession }).session;
  const offSdk = liveSession.on('assistant.message_delta', () => sdkAt.push(performance.now()));
  const offPanel = chat.onDidPost((m) => {
    if (m.type === 'message/delta') panelAt.push(performance.now());
  });

  const raw: number[] = [];
  const orch: number[] = [];
  // Interleaved so both see the same machine noise.
  for (let i = 0; i < turns; i++) {
    let t = performance.now();
    await session.sendAndWait({ prompt: `raw turn ${i}` }, 30_000);
    raw.push(performance.now() - t);
    t = performance.now();
    await core.orchestrator.enqueue(`orchestrated turn ${i}`, { channel: 'panel' }).done;
    orch.push(performance.now() - t);
  }
  offSdk();
  offPanel();
  const latencies = panelAt.slice(0, sdkAt.length).map((p, i) => p - sdkAt[i]);

  chat.dispose();
  await core.dispose();
  await session.disconnect().catch(() => undefined);
  await client.stop().catch(() => undefined);
  await server.close();
  await rm(root, { recursive: true, force: true });

  const rawMedian = median(raw);
  const orchMedian = median(orch);
  return [
    { name: 'turn: raw SDK sendAndWait (median)', value: rawMedian, unit: 'ms' },
    { name: 'turn: Baton orchestrator (median)', value: orchMedian, unit: 'ms' },
    { name: 'turn overhead ratio (orchestrator / raw)', value: orchMedian / rawMedian, unit: '×', target: '≤ 1.05' },
    { name: 'first delta: SDK event → panel message (median)', value: median(latencies), unit: 'ms', target: '≤ 5' },
    { name: 'delta: SDK event → panel message (max)', value: Math.max(...latencies), unit: 'ms' },
  ];
}
