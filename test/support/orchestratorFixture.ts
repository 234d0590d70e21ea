// Builds the real core for integration tests: a scripted model server, the real Copilot runtime in a
// hermetic environment, a real sql.js store on disk, and an Orchestrator wired like the extension does.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tool } from '@github/copilot-sdk';
import { CopilotRuntime, type ProviderSettings } from '../../src/core/copilot/copilotRuntime';
import type { OrchestratorEvent } from '../../src/core/orchestrator/events';
import { Orchestrator, type OrchestratorOptions, type OrchestratorSettings } from '../../src/core/orchestrator/orchestrator';
import { DEFAULT_TIERS } from '../../src/core/orchestrator/router';
import { SessionClaims } from '../../src/core/orchestrator/sessionClaims';
import { getMemorySummary } from '../../src/core/memory/memorySummary';
import { SqlJsStore } from '../../src/core/store/sqlJsStore';
import { MemoryLogger } from '../../src/core/util/logger';
import { hermeticEnv } from './copilotHarness';
import { DEFAULT_MODELS, ScriptedModelServer } from './scriptedModelServer';

export interface CoreFixture {
  server: ScriptedModelServer;
  root: string;
  env: Record<string, string>;
  store: SqlJsStore;
  runtime: CopilotRuntime;
  orchestrator: Orchestrator;
  logger: MemoryLogger;
  events: OrchestratorEvent[];
  settings: OrchestratorSettings;
  /** A new runtime + orchestrator (+ store instance) over the same folders: a window reload. */
  restart(overrides?: Partial<OrchestratorOptions>): Promise<void>;
  dispose(): Promise<void>;
}

export function defaultSettings(): OrchestratorSettings {
  return {
    // The runtime falls back from gpt-* ids on this scripted server, so every tier is a claude id here.
    routing: { auto: false, model: 'claude-sonnet-4.5', tiers: { ...DEFAULT_TIERS, fast: 'claude-haiku-4.5' }, overrides: [{ keywords: ['design', 'css', 'ui'], tier: 'premium' }], cooldownMessages: 2 },
    turnTimeoutMs: 30_000,
    selfEdit: false,
  };
}

export async function startCore(opts: { flushDelayMs?: number; server?: ScriptedModelServer; provider?: ProviderSettings; tools?: (store: SqlJsStore) => Tool<any>[]; overrides?: Partial<OrchestratorOptions> } = {}): Promise<CoreFixture> {
  const server = opts.server ?? (await ScriptedModelServer.start());
  if (!opts.server) server.setModels([...DEFAULT_MODELS, 'claude-haiku-4.5']);
  const root = await mkdtemp(join(tmpdir(), 'baton-core-'));
  const env = hermeticEnv(server.url, root);
  for (const dir of ['HOME', 'XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'GH_CONFIG_DIR', 'TMPDIR', 'COPILOT_HOME']) await mkdir(env[dir], { recursive: true });
  const storageDir = join(root, 'globalStorage');
  const workspace = join(root, 'workspace');
  await mkdir(storageDir, { recursive: true });
  await mkdir(workspace, { recursive: true });
  const settings = defaultSettings();
  const logger = new MemoryLogger();
  const events: OrchestratorEvent[] = [];

  const build = async (overrides: Partial<OrchestratorOptions> = {}) => {
    const store = await SqlJsStore.open({ dir: storageDir, flushDelayMs: opts.flushDelayMs ?? 20 });
    const provider = opts.provider ?? { type: 'copilot' as const };
    const runtime = new CopilotRuntime({
      provider,
      logger,
      env,
      copilotHome: env.COPILOT_HOME,
      workingDirectory: workspace,
      gitHubToken: provider.type === 'copilot' ? 'fake' : undefined,
      fallbackModels: () => server.modelIds(),
    });
    const orchestrator = new Orchestrator({
      runtime,
      store,
      logger,
      version: '0.0.0-test',
      settings: () => fixture.settings,
      tools: () => opts.tools?.(store) ?? [],
      memorySummary: () => getMemorySummary(store),
      sessionDirectory: join(storageDir, 'copilot-sessions'),
      claims: new SessionClaims(join(storageDir, 'claims')),
      extraSessionConfig: { disabledMcpServers: ['github-mcp-server'] } as never,
      retryDelaysMs: [50, 150, 300],
      healthCheckIntervalMs: 0,
      ...opts.overrides,
      ...overrides,
    });
    orchestrator.onEvent((e) => events.push(e));
    orchestrator.start();
    return { store, runtime, orchestrator };
  };

  const first = await build();
  const fixture: CoreFixture = {
    server,
    root,
    env,
    ...first,
    logger,
    events,
    settings,
    async restart(overrides) {
      await fixture.orchestrator.dispose();
      await fixture.runtime.dispose();
      await fixture.store.close();
      Object.assign(fixture, await build(overrides));
    },
    async dispose() {
      await fixture.orchestrator.dispose().catch(() => undefined);
      await fixture.runtime.dispose().catch(() => undefined);
      await fixture.store.close().catch(() => undefined);
      if (!opts.server) await server.close();
      await rm(root, { recursive: true, force: true });
    },
  };
  return fixture;
}
