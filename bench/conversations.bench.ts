// Many conversations (issue 21): what 50 conversations of 200 messages cost where users could feel it. The store file
// as it grows by conversations (linear?), opening it, and the core built over it (createBatonCore, as the extension
// builds it after activation) against an empty store. Real sql.js, real files; the runtime is never started.
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBatonCore } from '../src/core/batonCore';
import { loadSqlJs } from '../src/core/store/loadSqlJs';
import { SqlJsStore } from '../src/core/store/sqlJsStore';
import { MemoryLogger } from '../src/core/util/logger';
import { hermeticEnv } from '../test/support/copilotHarness';
import { defaultSettings } from '../test/support/orchestratorFixture';
import { median, type BenchFigure } from './figure';

const QUESTION = 'Why does the handler in auth.ts return 500 when the session cookie is missing? ';
const ANSWER = 'The handler reads the body before it checks the session, so a missing cookie throws. Move the check up. '.repeat(4);

/** A store folder holding `conversations` conversations of `messages` log rows each (as the orchestrator writes them). */
async function seed(dir: string, conversations: number, messages: number): Promise<string> {
  const store = await SqlJsStore.open({ dir, pollIntervalMs: 0, flushDelayMs: 60_000, onReport: () => undefined });
  for (let c = 0; c < conversations; c++) {
    const conversation = c === 0 ? 'main' : `c-bench-${c}`;
    for (let i = 0; i < messages; i++) {
      store.appendLog({
        role: i % 2 ? 'assistant' : 'user',
        content: i % 2 ? ANSWER : `${QUESTION}${c}.${i}`,
        source: 'panel',
        status: 'complete',
        conversation,
      });
    }
  }
  await store.close();
  return store.path;
}

async function openMs(dir: string, runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const store = await SqlJsStore.open({ dir, pollIntervalMs: 0, onReport: () => undefined });
    times.push(performance.now() - t0);
    await store.close();
  }
  return median(times);
}

/** createBatonCore over `storageDir` until it returns (store open, conversations listed, the active one built). */
async function coreReadyMs(root: string, storageDir: string, runs: number): Promise<number> {
  const env = hermeticEnv('http://127.0.0.1:9', join(root, 'copilot'));
  const workspace = join(root, 'ws');
  await mkdir(workspace, { recursive: true });
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const core = await createBatonCore({
      storageDir,
      installPath: join(root, 'ext'),
      version: '0.0.0-bench',
      logger: new MemoryLogger(),
      provider: { type: 'copilot' },
      settings: { orchestrator: defaultSettings, workers: () => ({ max: 5, timeoutMs: 30_000, protectedPaths: [], trustWorkingDir: false }) },
      workspaceFolders: () => [workspace],
      host: {
        openLink: () => undefined,
        insertCode: () => undefined,
        runCommand: () => undefined,
        toggleRouting: () => undefined,
        openWorker: () => undefined,
      },
      userConfig: { mcpServers: {}, skillDirectories: [] },
      runtime: { env, copilotHome: env.COPILOT_HOME, workingDirectory: workspace, gitHubToken: 'fake' },
      healthCheckIntervalMs: 0,
    });
    times.push(performance.now() - t0);
    await core.dispose();
  }
  return median(times);
}

export async function benchConversations(opts: { quick: boolean }): Promise<BenchFigure[]> {
  await loadSqlJs(); // compiling the wasm is a once-per-process cost
  const figures: BenchFigure[] = [];
  const runs = opts.quick ? 3 : 7;
  const root = await mkdtemp(join(tmpdir(), 'baton-bench-conv-'));
  try {
    const sizes: Array<[number, number]> = [];
    for (const n of [10, 25, 50]) {
      const dir = join(root, `store-${n}`);
      const file = await seed(dir, n, 200);
      sizes.push([n, (await stat(file)).size]);
      figures.push({ name: `store file, ${n} conversations × 200 messages`, value: (await stat(file)).size / 2 ** 20, unit: 'MB' });
      if (n === 50) figures.push({ name: 'open the store, 50 conversations × 200 messages', value: await openMs(dir, runs), unit: 'ms', target: '≤ 50' });
    }
    // Linear growth: bytes per conversation from 10 to 50 against 10 to 25 (1.0 = exactly linear).
    const per = (a: [number, number], b: [number, number]) => (b[1] - a[1]) / (b[0] - a[0]);
    figures.push({
      name: 'store growth per conversation, 25→50 against 10→25 (1 = linear)',
      value: per(sizes[1]!, sizes[2]!) / per(sizes[0]!, sizes[1]!),
      unit: 'ratio',
    });

    // Against one conversation of 200 messages: what every user's store held before there were several.
    const one = join(root, 'store-1');
    await seed(one, 1, 200);
    figures.push({ name: 'open the store, 1 conversation × 200 messages', value: await openMs(one, runs), unit: 'ms' });
    const single = await coreReadyMs(root, one, runs);
    const full = await coreReadyMs(root, join(root, 'store-50'), runs);
    figures.push({ name: 'core ready (createBatonCore), 1 conversation × 200 messages', value: single, unit: 'ms' });
    figures.push({ name: 'core ready (createBatonCore), 50 conversations × 200 messages', value: full, unit: 'ms', target: '≤ 150' });
    figures.push({ name: 'core ready, 50 conversations against 1', value: full / single, unit: 'ratio' });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return figures;
}
