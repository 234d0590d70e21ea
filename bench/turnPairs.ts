// benchTurns alone (bench/orchestrator.bench.ts), for comparing trees in one process: for each tree, Baton built from
// it (startCore) and a raw SDK session of the same runtime with the orchestrator's config; every round runs one Baton
// turn and one raw turn of each tree, interleaved, so all see the same moment's load.
// `node --import tsx bench/turnPairs.ts <turns> [root ...]` (default: this tree), e.g. `bench/turnPairs.ts 100 /work/main .`
import type { CopilotClient, CopilotSession, SessionConfig } from '@github/copilot-sdk';
import { join, resolve } from 'node:path';

interface Side {
  root: string;
  baton: (i: number) => Promise<void>;
  raw: (i: number) => Promise<void>;
  close: () => Promise<void>;
  wall: { raw: number[]; baton: number[] };
  cpu: { raw: number[]; baton: number[] };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function side(root: string): Promise<Side> {
  const { startCore } = (await import(join(root, 'test/support/orchestratorFixture.ts'))) as typeof import('../test/support/orchestratorFixture');
  const { ScriptedModelServer } = (await import(join(root, 'test/support/scriptedModelServer.ts'))) as typeof import('../test/support/scriptedModelServer');
  const server = await ScriptedModelServer.start();
  server.setModels(['claude-sonnet-4.5', 'gpt-4.1', 'claude-opus-4.6', 'claude-sonnet-4.6', 'claude-haiku-4.5']);
  server.always({}, { text: 'The answer is forty-two, streamed in a few chunks.', chunks: 6 });
  // The store's production flush delay, as the bench.
  const core = await startCore({ server, flushDelayMs: 250 });
  const client: CopilotClient = await (core.sessions as unknown as { runtime: { client(): Promise<CopilotClient> } }).runtime.client();
  await core.orchestrator.enqueue('warm up', { channel: 'panel' }).done;
  const keeper = (core.orchestrator as unknown as { keeper: { opts: { spec: (m: string, t: unknown) => unknown; tools: () => unknown } } }).keeper;
  const config: SessionConfig = {
    ...(core.sessions as unknown as { config(spec: unknown): SessionConfig }).config(keeper.opts.spec('claude-sonnet-4.5', keeper.opts.tools())),
    configDirectory: join(core.root, 'raw-sessions'),
  };
  const session: CopilotSession = await client.createSession(config);
  await session.sendAndWait({ prompt: 'warm up' }, 30_000);
  const s: Side = {
    root,
    wall: { raw: [], baton: [] },
    cpu: { raw: [], baton: [] },
    baton: (i) => timed(s, 'baton', async () => void (await core.orchestrator.enqueue(`orchestrated turn ${i}`, { channel: 'panel' }).done)),
    raw: (i) => timed(s, 'raw', async () => void (await session.sendAndWait({ prompt: `raw turn ${i}` }, 30_000))),
    close: async () => {
      await session.disconnect().catch(() => undefined);
      await core.dispose();
      await server.close();
    },
  };
  return s;
}

async function timed(s: Side, kind: 'raw' | 'baton', fn: () => Promise<void>): Promise<void> {
  const c = process.cpuUsage();
  const t = performance.now();
  await fn();
  s.wall[kind].push(performance.now() - t);
  const used = process.cpuUsage(c);
  s.cpu[kind].push((used.user + used.system) / 1000);
}

async function main(): Promise<void> {
  const turns = Number(process.argv[2] ?? 30);
  const roots = (process.argv.length > 3 ? process.argv.slice(3) : [join(__dirname, '..')]).map((r) => resolve(r));
  const sides: Side[] = [];
  for (const root of roots) sides.push(await side(root));
  for (let i = 0; i < turns; i++) {
    // Which tree goes first, and raw or Baton first, alternate.
    const order = i % 2 ? [...sides].reverse() : sides;
    for (const s of order) {
      if ((i >> 1) % 2) {
        await s.raw(i);
        await s.baton(i);
      } else {
        await s.baton(i);
        await s.raw(i);
      }
    }
  }
  for (const s of sides) {
    const r = median(s.wall.raw);
    const o = median(s.wall.baton);
    const pairs = median(s.wall.baton.map((x, i) => x / s.wall.raw[i]!));
    const cr = median(s.cpu.raw);
    const cb = median(s.cpu.baton);
    console.log(
      `${s.root}: ${turns} pairs; wall raw ${r.toFixed(1)} / Baton ${o.toFixed(1)} ms = ${(o / r).toFixed(3)}× (pairs ${pairs.toFixed(3)}×, +${(o - r).toFixed(1)} ms); ` +
        `host CPU raw ${cr.toFixed(1)} / Baton ${cb.toFixed(1)} ms (+${(cb - cr).toFixed(1)}, pairs ${median(s.cpu.baton.map((x, i) => x - s.cpu.raw[i]!)).toFixed(1)})`,
    );
  }
  for (const s of sides) await s.close();
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
