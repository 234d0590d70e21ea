// Builds Baton for integration tests exactly as the extension does (createBatonCore), with only
// the edges swapped: a scripted model server, the real Copilot runtime in a hermetic environment,
// a real sql.js store on disk, recorded host actions and a permission broker the test answers.
import type { SessionConfig } from '@github/copilot-sdk';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBatonCore, type BatonCore, type BatonCoreDeps } from '../../src/core/batonCore';
import type { HostActions } from '../../src/core/chat/chatController';
import type { ProviderSettings } from '../../src/core/copilot/agentSessions';
import type { OrchestratorEvent } from '../../src/core/orchestrator/events';
import type { OrchestratorSettings } from '../../src/core/orchestrator/orchestrator';
import { DEFAULT_TIERS } from '../../src/core/orchestrator/router';
import type { RecycleSettings } from '../../src/core/runtime/recyclePolicy';
import type { BatonStore } from '../../src/core/store/types';
import { MemoryLogger } from '../../src/core/util/logger';
import type { WorkerSettings } from '../../src/core/workers/workerPool';
import type { PermissionDecision, PermissionPrompt } from '../../src/shared/protocol';
import { hermeticEnv } from './copilotHarness';
import { trackTempDir } from './leaks';
import { DEFAULT_MODELS, ScriptedModelServer } from './scriptedModelServer';

export class FakeBroker {
  readonly asked: PermissionPrompt[] = [];
  answer: PermissionDecision = 'deny';
  async ask(prompt: PermissionPrompt, _signal?: AbortSignal): Promise<PermissionDecision> {
    this.asked.push(prompt);
    return this.answer;
  }
}

export interface CoreFixture extends BatonCore {
  server: ScriptedModelServer;
  root: string;
  env: Record<string, string>;
  home: string;
  storageDir: string;
  /** Baton's installation folder as the extension passes it (protected from workers). */
  installPath: string;
  /** The runtime's working directory and the workspace folder Baton is told about. */
  workspace: string;
  core: BatonCore;
  logger: MemoryLogger;
  events: OrchestratorEvent[];
  settings: OrchestratorSettings;
  workerSettings: WorkerSettings;
  /** baton.runtime.* (the idle restart); empty: the defaults the extension ships. */
  runtimeSettings: Partial<RecycleSettings>;
  broker: FakeBroker;
  host: HostActions & { calls: string[] };
  /** Dispose and build again over the same folders: a window reload. */
  restart(overrides?: Partial<BatonCoreDeps>): Promise<void>;
  /** The scripted server saw no request it was not scripted for, and every scripted rule was used. */
  assertScriptDone(): void;
  dispose(): Promise<void>;
}

export function defaultSettings(): OrchestratorSettings {
  return {
    // The runtime falls back from gpt-* ids on this scripted server, so every tier is a claude id here.
    routing: {
      auto: false,
      model: 'claude-sonnet-4.5',
      tiers: { ...DEFAULT_TIERS, fast: 'claude-haiku-4.5' },
      overrides: [{ keywords: ['design', 'css', 'ui'], tier: 'premium' }],
      cooldownMessages: 2,
    },
    turnTimeoutMs: 30_000,
    selfEdit: false,
  };
}

export interface StartCoreOptions {
  flushDelayMs?: number;
  server?: ScriptedModelServer;
  provider?: ProviderSettings;
  /** Runtime auth: 'fake' (default for copilot) or null for a user who is not signed in. */
  gitHubToken?: string | null;
  overrides?: Partial<BatonCoreDeps>;
  /** Merged over the hermetic environment: what VS Code's own environment would hold (e.g. a user's secrets). */
  env?: Record<string, string>;
  /** Extra config for every session the runtime opens (the bench's variants, e.g. disabledMcpServers). */
  extraSessionConfig?: Partial<SessionConfig>;
}

export async function startCore(opts: StartCoreOptions = {}): Promise<CoreFixture> {
  const server = opts.server ?? (await ScriptedModelServer.start());
  if (!opts.server) server.setModels([...DEFAULT_MODELS, 'claude-haiku-4.5']);
  const root = await mkdtemp(join(tmpdir(), 'baton-core-'));
  trackTempDir(root);
  const env = { ...hermeticEnv(server.url, root), ...opts.env };
  for (const dir of ['HOME', 'XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'GH_CONFIG_DIR', 'TMPDIR', 'COPILOT_HOME'])
    await mkdir(env[dir]!, { recursive: true });
  const storageDir = join(root, 'globalStorage');
  const installPath = join(root, 'extension');
  const workspace = join(root, 'workspace');
  await Promise.all([storageDir, installPath, workspace].map((d) => mkdir(d, { recursive: true })));
  const logger = new MemoryLogger();
  const events: OrchestratorEvent[] = [];
  const broker = new FakeBroker();
  const calls: string[] = [];
  const host: CoreFixture['host'] = {
    calls,
    openLink: (href) => calls.push(`openLink ${href}`),
    insertCode: (code) => calls.push(`insertCode ${code}`),
    runCommand: (command) => calls.push(`runCommand ${command}`),
    toggleRouting: () => calls.push('toggleRouting'),
    openWorker: (name) => calls.push(`openWorker ${name}`),
  };
  const provider = opts.provider ?? { type: 'copilot' as const };
  const token = opts.gitHubToken === undefined ? (provider.type === 'copilot' ? 'fake' : undefined) : (opts.gitHubToken ?? undefined);

  const build = (overrides: Partial<BatonCoreDeps> = {}): Promise<BatonCore> =>
    createBatonCore({
      storageDir,
      installPath,
      version: '0.0.0-test',
      logger,
      provider,
      settings: { orchestrator: () => fixture.settings, workers: () => fixture.workerSettings, runtime: () => fixture.runtimeSettings },
      workspaceFolders: () => [workspace],
      host,
      broker,
      homeDir: env.HOME,
      store: { flushDelayMs: opts.flushDelayMs ?? 20 },
      runtime: {
        env,
        copilotHome: env.COPILOT_HOME,
        workingDirectory: workspace,
        ...(token ? { gitHubToken: token } : {}),
        ...(opts.extraSessionConfig ? { extraSessionConfig: opts.extraSessionConfig } : {}),
      },
      retryDelaysMs: [50, 150, 300],
      healthCheckIntervalMs: 0,
      ...opts.overrides,
      ...overrides,
    }).then((core) => {
      core.conversations.onEvent((e) => events.push(e));
      return core;
    });

  // The fixture's own dispose (server, temp folder) must survive a restart: only the core's parts are taken over.
  const adopt = (core: BatonCore): void => {
    const { dispose: _coreDispose, ...parts } = core;
    Object.assign(fixture, parts, { core });
  };
  const first = await build();
  const fixture: CoreFixture = {
    ...first,
    core: first,
    server,
    root,
    env,
    home: env.HOME!,
    storageDir,
    installPath,
    workspace,
    logger,
    events,
    settings: defaultSettings(),
    workerSettings: { max: 5, timeoutMs: 30_000, protectedPaths: [], trustWorkingDir: false },
    runtimeSettings: {},
    broker,
    host,
    async restart(overrides) {
      await fixture.core.dispose();
      adopt(await build(overrides));
    },
    assertScriptDone() {
      server.assertScriptDone();
    },
    async dispose() {
      await fixture.core.dispose().catch(() => undefined);
      if (!opts.server) await server.close();
      await rm(root, { recursive: true, force: true, maxRetries: 3 });
    },
  };
  return fixture;
}

export type { BatonStore };
