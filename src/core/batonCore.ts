// The composition root: builds Baton's core (store, the Copilot sessions port, orchestrator,
// worker pool, memory, delivery of worker results, the chat controller) in one place. The
// extension, the integration tests and the bench all call createBatonCore, so what is tested is
// what ships; they differ only in the deps they pass (settings, where files live, the runtime's
// environment).
// Invariant: nothing here starts the Copilot runtime; the first message (or the chat view) does.
import * as path from 'node:path';
import { BatonAccess } from './api/batonAccess';
import { ChatController, type HostActions } from './chat/chatController';
import type { AgentSessions, ProviderSettings } from './copilot/agentSessions';
import { ToolJournal } from './copilot/batonTool';
import { CopilotAgentSessions, type CopilotAgentSessionsOptions } from './copilot/copilotAgentSessions';
import { readUserCopilotConfig, type UserCopilotConfig } from './copilot/userCopilotConfig';
import { getMemorySummary } from './memory/memorySummary';
import { createMemoryTools } from './memory/memoryTools';
import type { Origin } from './orchestrator/events';
import { Orchestrator, type OrchestratorSettings } from './orchestrator/orchestrator';
import { SessionClaims } from './orchestrator/sessionClaims';
import { SqlJsStore, type SqlJsStoreOptions } from './store/sqlJsStore';
import type { BatonStore, LogEntry } from './store/types';
import type { Logger } from './util/logger';
import type { PermissionBroker } from './workers/workerPermissions';
import { WorkerPool, type ReplyChannel, type WorkerSettings } from './workers/workerPool';
import { createWorkerTools } from './workers/workerTools';

export interface BatonCoreDeps {
  /** Baton's global storage folder: the database, its own Copilot sessions, session claims. */
  storageDir: string;
  /** Baton's installation folder (protected from workers unless self-edit is allowed). */
  installPath: string;
  version: string;
  logger: Logger;
  provider: ProviderSettings;
  settings: { orchestrator: () => OrchestratorSettings; workers: () => WorkerSettings };
  workspaceFolders: () => string[];
  /** What the panel does on the host's side (open a link, insert code ...). */
  host: HostActions;
  /** Store options beyond the folder (wasm path, flush delay, reports). */
  store?: Omit<SqlJsStoreOptions, 'dir'>;
  /** The runtime's environment, Copilot home, token and executable (tests point these at a scripted server). */
  runtime?: Pick<CopilotAgentSessionsOptions, 'env' | 'copilotHome' | 'gitHubToken' | 'workingDirectory' | 'runtimePath' | 'extraSessionConfig'>;
  /** Another implementation of the port (unit tests: in memory). Default: the real Copilot SDK. */
  sessions?: AgentSessions;
  /** A permission broker before the chat controller exists (tests). Default: the chat controller asks in the panel. */
  broker?: PermissionBroker;
  /** The user's MCP servers and skills; default read from their Copilot home. */
  userConfig?: UserCopilotConfig;
  /** Test knobs: shorter retry delays, no health-check timer. */
  retryDelaysMs?: readonly number[];
  healthCheckIntervalMs?: number;
  homeDir?: string;
}

export interface BatonCore {
  store: BatonStore;
  sessions: AgentSessions;
  orchestrator: Orchestrator;
  pool: WorkerPool;
  chat: ChatController;
  toolJournal: ToolJournal;
  /** The way in for the Chat view, the language-model tools and the public API (their events, asks, delegations). */
  access: BatonAccess;
  /** Turns a crash or reload interrupted (offered for resending). */
  interrupted: LogEntry[];
  dispose(): Promise<void>;
}

/** Where a worker started during the current turn reports back: the channel that asked. */
function replyChannel(origin: Origin | undefined): ReplyChannel {
  if (!origin) return 'panel';
  if (origin.channel === 'background') return origin.replyTo ?? 'panel';
  return origin.channel;
}

export async function createBatonCore(deps: BatonCoreDeps): Promise<BatonCore> {
  const { storageDir, logger } = deps;
  const sessionDirectory = path.join(storageDir, 'copilot-sessions');
  const sessions =
    deps.sessions ??
    new CopilotAgentSessions({
      provider: deps.provider,
      logger,
      sessionDirectory,
      ...deps.runtime,
      fallbackModels: () => {
        const s = deps.settings.orchestrator().routing;
        return [...new Set([s.model, ...Object.values(s.tiers)])];
      },
    });
  // The store and the user's Copilot config are read in parallel: both are on the first message's path.
  const started = performance.now();
  const timed = <T>(p: Promise<T>, what: string): Promise<T> => p.then((v) => (logger.info(`${what} in ${(performance.now() - started).toFixed(0)} ms`), v));
  const [store, userConfig] = await Promise.all([
    timed(SqlJsStore.open({ dir: storageDir, ...deps.store }), 'Store opened'),
    deps.userConfig ? Promise.resolve(deps.userConfig) : timed(readUserCopilotConfig(sessions.copilotHome, logger), 'Copilot config read'),
  ]);
  const toolJournal = new ToolJournal();
  let chat: ChatController | undefined;
  // The pool and the orchestrator refer to each other (results in, workers out); each reaches the
  // other only through these closures, which run after both exist.
  let orchestrator: Orchestrator | undefined;
  const pool = new WorkerPool({
    sessions,
    store,
    logger,
    ownPaths: [deps.installPath, storageDir],
    settings: deps.settings.workers,
    homeDir: deps.homeDir,
    broker: deps.broker ?? { ask: (prompt) => chat?.askPermission(prompt) ?? Promise.resolve('deny') },
    model: () => deps.settings.orchestrator().routing.model,
    reservedSessionIds: () => [orchestrator?.currentSessionId, store.getState('orchestrator_session_id')],
    // Delivered once the orchestrator's session takes it: a window closed while it waited in the
    // queue leaves it in the inbox for the next start, while a failed summary turn does not make
    // it come back again.
    deliver: (text, origin) => {
      if (!orchestrator) throw new Error('The orchestrator is not ready');
      return orchestrator.enqueue(text, origin).started;
    },
  });
  const orch: Orchestrator = new Orchestrator({
    sessions,
    store,
    logger,
    version: deps.version,
    settings: deps.settings.orchestrator,
    tools: () => [...createMemoryTools(store, toolJournal), ...createWorkerTools(pool, { replyTo: () => replyChannel(orch.currentOrigin), journal: toolJournal })],
    toolJournal,
    memorySummary: () => getMemorySummary(store),
    claims: new SessionClaims(path.join(storageDir, 'claims')),
    userConfig: () => userConfig,
    installPath: deps.installPath,
    workspaceFolders: deps.workspaceFolders,
    retryDelaysMs: deps.retryDelaysMs,
    healthCheckIntervalMs: deps.healthCheckIntervalMs,
  });
  orchestrator = orch;
  chat = new ChatController(orch, store, deps.host, logger, () => deps.settings.orchestrator().routing.auto);
  // Before anything is delivered, so the Chat view, the tools and the API see every turn and worker.
  const access = new BatonAccess({ orchestrator: orch, pool, store }, logger);
  const interrupted = orch.start();
  if (interrupted.length) logger.warn(`Offering to resend ${interrupted.length} interrupted message(s)`);
  const offWorkers = pool.onDidChange((cards) => chat?.updateWorkers(cards));
  void pool.deliverPending().catch((err: unknown) => logger.error('Could not deliver the results workers left from the last session', err));

  let disposed: Promise<void> | undefined;
  return {
    store,
    sessions,
    orchestrator: orch,
    pool,
    chat,
    toolJournal,
    access,
    interrupted,
    dispose: () =>
      (disposed ??= (async () => {
        offWorkers();
        chat?.dispose();
        await pool.dispose();
        await orch.dispose();
        access.dispose();
        await sessions.dispose();
        await store.close();
      })()),
  };
}
