// Baton's core as production builds it (createBatonCore: the real SqlJsStore on a temp folder, the
// real orchestrator, pool, tools, journal and inbox), with only the runtime swapped for
// InMemoryAgentSessions. Unit tests of races drive it in milliseconds.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBatonCore, type BatonCore, type BatonCoreDeps } from '../../src/core/batonCore';
import type { HostActions } from '../../src/core/chat/chatController';
import type { OrchestratorEvent } from '../../src/core/orchestrator/events';
import type { OrchestratorSettings } from '../../src/core/orchestrator/orchestrator';
import { DEFAULT_TIERS } from '../../src/core/orchestrator/router';
import { MemoryLogger } from '../../src/core/util/logger';
import type { WorkerSettings } from '../../src/core/workers/workerPool';
import { checkAfterTest } from './checkAfterTest';
import { InMemoryAgentSessions } from './inMemoryAgentSessions';

export function unitSettings(): OrchestratorSettings {
  return {
    routing: { auto: false, model: 'claude-sonnet-4.5', tiers: { ...DEFAULT_TIERS }, overrides: [], cooldownMessages: 2 },
    turnTimeoutMs: 5_000,
    selfEdit: false,
  };
}

export interface UnitCore {
  /** Baton's storage folder (the database lives here). */
  storageDir: string;
  /** A folder workers may work in. */
  workDir: string;
  sessions: InMemoryAgentSessions;
  core: BatonCore;
  logger: MemoryLogger;
  /** Every orchestrator event of the current core, in order. */
  events: OrchestratorEvent[];
  settings: OrchestratorSettings;
  workerSettings: WorkerSettings;
  /**
   * Disposes this core and builds another over the same folder: a window reload. The runtime's
   * sessions persist. `between` runs while no core is open (e.g. to read what the close left on disk).
   */
  restart(overrides?: Partial<BatonCoreDeps>, between?: () => Promise<void>): Promise<void>;
  /** Another window opened now over the same storage, with its own runtime `sessions`; the test disposes it. */
  openAnother(sessions: InMemoryAgentSessions): Promise<BatonCore>;
  dispose(): Promise<void>;
}

export async function startUnitCore(opts: { sessions?: InMemoryAgentSessions; overrides?: Partial<BatonCoreDeps> } = {}): Promise<UnitCore> {
  const root = await mkdtemp(join(tmpdir(), 'baton-unit-'));
  const storageDir = join(root, 'storage');
  const workDir = join(root, 'work');
  const home = join(root, 'home');
  const installPath = join(root, 'install');
  await Promise.all([mkdir(workDir), mkdir(home), mkdir(installPath)]);
  const logger = new MemoryLogger();
  const host: HostActions = {
    openLink: () => undefined,
    insertCode: () => undefined,
    runCommand: () => undefined,
    toggleRouting: () => undefined,
    openWorker: () => undefined,
  };
  const build = (overrides: Partial<BatonCoreDeps> = {}): Promise<BatonCore> =>
    createBatonCore({
      storageDir,
      installPath,
      version: 'unit',
      logger,
      provider: { type: 'copilot' },
      settings: { orchestrator: () => fixture.settings, workers: () => fixture.workerSettings },
      workspaceFolders: () => [workDir],
      host,
      broker: { ask: async () => 'deny' },
      sessions: fixture.sessions,
      userConfig: { mcpServers: {}, skillDirectories: [] },
      homeDir: home,
      store: { flushDelayMs: 5, pollIntervalMs: 0 },
      retryDelaysMs: [5, 10, 20],
      healthCheckIntervalMs: 0,
      ...opts.overrides,
      ...overrides,
    });
  const adopt = (core: BatonCore): void => {
    fixture.core = core;
    fixture.events = [];
    core.conversations.onEvent((e) => fixture.events.push(e));
  };
  const fixture: UnitCore = {
    storageDir,
    workDir,
    sessions: opts.sessions ?? new InMemoryAgentSessions(),
    core: undefined as unknown as BatonCore,
    logger,
    events: [],
    settings: unitSettings(),
    workerSettings: { max: 5, timeoutMs: 5_000, protectedPaths: [], trustWorkingDir: false },
    async restart(overrides, between) {
      await fixture.core.dispose();
      await between?.();
      adopt(await build(overrides));
    },
    openAnother: (sessions) => build({ sessions }),
    async dispose() {
      await fixture.core.dispose();
      await rm(root, { recursive: true, force: true });
    },
  };
  adopt(await build());
  return fixture;
}

/** Resolves with the first orchestrator event (from now on) that `match` accepts. */
export function nextEvent<T extends OrchestratorEvent['type']>(
  core: BatonCore,
  type: T,
  match: (e: Extract<OrchestratorEvent, { type: T }>) => boolean = () => true,
  timeoutMs = 2000,
): Promise<Extract<OrchestratorEvent, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no ${type} event within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = core.conversations.onEvent((e) => {
      if (e.type !== type) return;
      const typed = e as Extract<OrchestratorEvent, { type: T }>;
      if (!match(typed)) return;
      clearTimeout(timer);
      off();
      resolve(typed);
    });
  });
}

/** Polls `cond` every millisecond until it holds. */
export async function until(cond: () => boolean, what: string, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

/**
 * Each test of the calling `describe` on a fresh core: built before the test (from `options()`, read then) and handed to
 * `use`; after it, disposed whatever happened and, in a test that passed, checked: the runtime got exactly what was
 * scripted.
 */
export function eachUnitCore(use: (core: UnitCore) => void, options?: () => Parameters<typeof startUnitCore>[0]): void {
  let current: UnitCore | undefined;
  beforeEach(async () => {
    current = await startUnitCore(options?.());
    use(current);
  });
  afterEach(async function () {
    const done = current;
    current = undefined;
    if (!done) return;
    await done.dispose();
    if (this.currentTest?.state === 'passed') checkAfterTest(this, () => done.sessions.assertScriptDone());
  });
}
