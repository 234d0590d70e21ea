// Per-turn overhead of the orchestrator against the raw SDK's sendAndWait on the same scripted
// server, in one run (ratios, not absolute times), and how long a delta takes from the SDK's event
// to the panel's message.
import { join } from 'node:path';
import type { CopilotSession } from '@github/copilot-sdk';
import { ChatController } from '../src/core/chat/chatController';
import { MemoryLogger } from '../src/core/util/logger';
import { startCore } from '../test/support/orchestratorFixture';
import { ScriptedModelServer } from '../test/support/scriptedModelServer';
import { median, type BenchFigure } from './figure';

export async function benchOrchestrator(opts: { quick: boolean }): Promise<BenchFigure[]> {
  const turns = opts.quick ? 30 : 60;
  const server = await ScriptedModelServer.start();
  server.always({}, { text: 'The answer is forty-two, streamed in a few chunks.', chunks: 6 });

  // The store's production flush delay: tests shorten it, the benchmark must not.
  const core = await startCore({ server, flushDelayMs: 250 });
  // Raw SDK: a session of the same runtime process (so process-level noise cancels out) with exactly
  // the orchestrator's session config (system message, tools), driven by sendAndWait. The ratio then
  // measures Baton's own work per turn, not a longer prompt or another process.
  const client = await core.runtime.client();
  const config = (core.orchestrator as unknown as { sessionConfig(model: string, tools: unknown[]): Record<string, unknown> }).sessionConfig('claude-sonnet-4.5', []);
  const session: CopilotSession = await client.createSession({ ...config, configDirectory: join(core.root, 'raw-sessions') } as never);
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
  const rawTurn = async (i: number) => {
    const t = performance.now();
    await session.sendAndWait({ prompt: `raw turn ${i}` }, 30_000);
    raw.push(performance.now() - t);
  };
  const orchTurn = async (i: number) => {
    const t = performance.now();
    await core.orchestrator.enqueue(`orchestrated turn ${i}`, { channel: 'panel' }).done;
    orch.push(performance.now() - t);
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
  const latencies = panelAt.slice(0, sdkAt.length).map((p, i) => p - sdkAt[i]);

  chat.dispose();
  await core.dispose();
  await session.disconnect().catch(() => undefined);
  await server.close();

  const rawMedian = median(raw);
  const orchMedian = median(orch);
  return [
    { name: 'turn: raw SDK sendAndWait (median)', value: rawMedian, unit: 'ms' },
    { name: 'turn: Baton orchestrator (median)', value: orchMedian, unit: 'ms' },
    { name: 'turn overhead ratio (orchestrator / raw)', value: orchMedian / rawMedian, unit: '×', target: '≤ 1.05' },
    // On a scripted ~15 ms turn the ratio magnifies a fixed cost; on a real model turn of seconds it vanishes.
    { name: 'turn overhead, absolute (orchestrator − raw)', value: orchMedian - rawMedian, unit: 'ms' },
    { name: 'first delta: SDK event → panel message (median)', value: median(latencies), unit: 'ms', target: '≤ 5' },
    { name: 'delta: SDK event → panel message (max)', value: Math.max(...latencies), unit: 'ms' },
  ];
}
