// benchTurns alone (bench/orchestrator.bench.ts), for comparing two trees in turns: raw SDK sendAndWait against
// Baton's orchestrator on one runtime, interleaved. `node --import tsx bench/turnPairs.ts [root] [turns]`: root is the
// tree whose Baton is measured (default this one), so `bench/turnPairs.ts /work/main` measures main with this script.
import type { CopilotClient, SessionConfig } from '@github/copilot-sdk';
import { join, resolve } from 'node:path';

async function main(): Promise<void> {
  const root = resolve(process.argv[2] ?? join(__dirname, '..'));
  const turns = Number(process.argv[3] ?? 30);
  const { startCore } = (await import(join(root, 'test/support/orchestratorFixture.ts'))) as typeof import('../test/support/orchestratorFixture');
  const { ScriptedModelServer } = (await import(join(root, 'test/support/scriptedModelServer.ts'))) as typeof import('../test/support/scriptedModelServer');
  const server = await ScriptedModelServer.start();
  server.setModels(['claude-sonnet-4.5', 'gpt-4.1', 'claude-opus-4.6', 'claude-sonnet-4.6', 'claude-haiku-4.5']);
  server.always({}, { text: 'The answer is forty-two, streamed in a few chunks.', chunks: 6 });
  const core = await startCore({ server, flushDelayMs: 250 });
  const runtime = (core.sessions as unknown as { runtime: { client(): Promise<CopilotClient> } }).runtime;
  const client = await runtime.client();
  await core.orchestrator.enqueue('warm up', { channel: 'panel' }).done;
  const keeper = (core.orchestrator as unknown as { keeper: { opts: { spec: (m: string, t: unknown) => unknown; tools: () => unknown } } }).keeper;
  const config: SessionConfig = {
    ...(core.sessions as unknown as { config(spec: unknown): SessionConfig }).config(keeper.opts.spec('claude-sonnet-4.5', keeper.opts.tools())),
    configDirectory: join(core.root, 'raw-sessions'),
  };
  const session = await client.createSession(config);
  await session.sendAndWait({ prompt: 'warm up' }, 30_000);
  const raw: number[] = [];
  const orch: number[] = [];
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
  for (let i = 0; i < turns; i++) {
    if (i % 2) {
      await rawTurn(i);
      await orchTurn(i);
    } else {
      await orchTurn(i);
      await rawTurn(i);
    }
  }
  const median = (xs: number[]): number => {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
  };
  const r = median(raw);
  const o = median(orch);
  const pairs = median(orch.map((x, i) => x / raw[i]!));
  console.log(
    `${root}: ${turns} pairs; wall raw ${r.toFixed(1)} / Baton ${o.toFixed(1)} ms = ${(o / r).toFixed(3)}× (pairs ${pairs.toFixed(3)}×, +${(o - r).toFixed(1)} ms); ` +
      `host CPU raw ${median(rawCpu).toFixed(1)} / Baton ${median(orchCpu).toFixed(1)} ms (+${(median(orchCpu) - median(rawCpu)).toFixed(1)})`,
  );
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
