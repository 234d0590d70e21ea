// The composition root: builds Baton's core (store, the Copilot sessions port, the conversations and
// their orchestrators, worker pool, memory, delivery of worker results, the chat controller) in one place. The
// extension, the integration tests and the bench all call createBatonCore, so what is tested is
// what ships; they differ only in the deps they pass (settings, where files live, the runtime's
// environment).
// Invariant: nothing here starts the Copilot runtime; the first message (or the chat view) does.
import * as path from 'node:path';
import { BatonAccess } from './api/batonAccess';
import { ChatController, type HostActions } from './chat/chatController';
import { OpenQuestions } from './chat/openQuestions';
import type { HostControl } from './control/hostControl';
import { SettingsControl } from './control/settingsControl';
import { whileHeld } from './conversations/holdAll';
import { UsageTotals } from './control/usageTotals';
import { callUsage } from './copilot/callUsage';
import type { AgentSessions, ProviderSettings } from './copilot/agentSessions';
import { ToolJournal } from './copilot/batonTool';
import { CopilotAgentSessions, type CopilotAgentSessionsOptions } from './copilot/copilotAgentSessions';
import { readUserCopilotConfig, type UserCopilotConfig } from './copilot/userCopilotConfig';
import { getMemorySummary } from './memory/memorySummary';
import { Orchestrator, type OrchestratorSettings } from './orchestrator/orchestrator';
import { SessionClaims } from './orchestrator/sessionClaims';
import { keepSessionsSwept } from './sweepAtStart';
import { ConversationClaims, windowStamp } from './orchestrator/conversationClaims';
import { SharedConversation } from './orchestrator/sharedConversation';
import { markAllStale, savedSessionIds } from './orchestrator/sessionKeeper';
import { Conversations } from './conversations/conversations';
import { createOrchestratorTools } from './orchestratorTools';
import { loadSqlJs } from './store/loadSqlJs';
import { SqlJsStore, type SqlJsStoreOptions } from './store/sqlJsStore';
import type { BatonStore, LogEntry } from './store/types';
import type { Logger } from './util/logger';
import { runEveryStep } from './util/everyStep';
import { SkillLibrary } from './skills/skillLibrary';
import { SquadService } from './squads/squadService';
import { getSquadSummary } from './squads/squadSummary';
import { Wiki } from './wiki/wiki';
import { getWikiSummary } from './wiki/wikiSummary';
import type { PermissionBroker } from './workers/workerPermissions';
import { WorkerPool, type WorkerSettings } from './workers/workerPool';
import type { RecycleSettings } from './runtime/recyclePolicy';
import { keepToolOutputsSwept } from './runtime/toolOutputSweep';
import { ORCHESTRATOR_ASKER, orchestratorPermissions } from './orchestrator/orchestratorPermissions';
import { protectedPathGuard } from './workers/protectedArgs';
import { RuntimeHealth } from './runtime/runtimeHealth';
import { RuntimeRecycler } from './runtime/runtimeRecycler';

export interface BatonCoreDeps {
  /** Baton's global storage folder: the database, its own Copilot sessions, session claims. */
  storageDir: string;
  /** Baton's installation folder (protected from workers unless self-edit is allowed). */
  installPath: string;
  /** The editor's folders that hold its own secrets (VS Code's SecretStorage database beside Baton's storage): protected. */
  hostSecrets?: readonly string[];
  version: string;
  logger: Logger;
  provider: ProviderSettings;
  /** `runtime`: when the idle runtime is restarted (baton.runtime.*); default DEFAULT_RECYCLE. */
  settings: { orchestrator: () => OrchestratorSettings; workers: () => WorkerSettings; runtime?: () => Partial<RecycleSettings> };
  workspaceFolders: () => string[];
  /** The folder a worker started without one goes to (the active file's workspace folder); none in tests. */
  defaultWorkerFolder?: () => string | undefined;
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
  /** Test knobs: shorter retry delays, no health-check timer (0). */
  retryDelaysMs?: readonly number[];
  healthCheckIntervalMs?: number;
  /** How often orphaned session folders are swept while Baton runs (default hourly, sweepAtStart.ts). */
  sessionSweepEveryMs?: number;
  /** How long Baton stays idle before the runtime's growth is checked (default 1 s); 0: only when asked (recycler.check). */
  runtimeQuietMs?: number;
  /** The runtime's resident bytes by pid (tests, where the runtime is in memory); default: read from the system. */
  runtimeRss?: (pid: number) => Promise<number | undefined>;
  homeDir?: string;
  /** Absolute paths the editor holds unsaved changes for: an apply never overwrites them. */
  dirtyBuffers?: () => readonly string[];
  /** Changes Baton's own settings for the chat's control tools (switch_model, toggle_auto, restart); without it they say they cannot. */
  control?: HostControl;
  /** The wiki folder (baton.wiki.folder, resolved); default <storageDir>/wiki. */
  wikiFolder?: () => string | undefined;
  /** baton.skills.indexUrl: where skill_search looks beyond the installed skills. */
  skillIndexUrl?: () => string | undefined;
}

export interface BatonCore {
  store: BatonStore;
  sessions: AgentSessions;
  /** The orchestrator of the conversation the panel shows (conversations.active). */
  readonly orchestrator: Orchestrator;
  /** Every conversation: one orchestrator each, built on first use, all on the one runtime. */
  conversations: Conversations;
  pool: WorkerPool;
  chat: ChatController;
  /** The tool calls answered from a conversation's journal, in all conversations (each has its own journal). */
  toolJournal: { readonly replays: number };
  squads: SquadService;
  wiki: Wiki;
  skills: SkillLibrary;
  usage: UsageTotals;
  /** Switch the model, toggle auto routing, restart: the palette's commands and the chat's tools both go through it. */
  control: SettingsControl;
  /** Skills changed outside the chat (the Skills view): the next turn runs in a new session that loads them. */
  renewSession(reason: string): void;
  /** The way in for the Chat view, the language-model tools and the public API (their events, asks, delegations). */
  access: BatonAccess;
  /** Which window runs which conversation (Doctor). */
  conversationClaims: ConversationClaims;
  /** Turns a crash or reload interrupted (offered for resending). */
  interrupted: LogEntry[];
  /** Restarts the grown runtime when Baton is idle (Doctor shows its figures). */
  recycler: RuntimeRecycler;
  /** Pings the runtime every 30 s while Baton is idle; a dead one is reset. */
  health: RuntimeHealth;
  dispose(): Promise<void>;
}

/**
 * Starts what createBatonCore waits on first, sql.js's read and compile (shared, see loadSqlJs), so that its compile
 * runs on V8's background threads while the caller does other work (the extension registers its views and commands).
 * A failure is not kept: createBatonCore loads again and reports it.
 */
export function prepareBatonCore(deps: Pick<BatonCoreDeps, 'store'>): void {
  loadSqlJs(deps.store?.wasmPath).catch(() => undefined);
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
      environment: () => deps.settings.workers().environment ?? {},
      fallbackModels: () => {
        const s = deps.settings.orchestrator().routing;
        return [...new Set([s.model, ...Object.values(s.tiers)])];
      },
    });
  // The store and the user's Copilot config are read in parallel: both are on the first message's path.
  const started = performance.now();
  const timed = <T>(p: Promise<T>, what: string): Promise<T> => p.then((v) => (logger.info(`${what} in ${(performance.now() - started).toFixed(0)} ms`), v));
  // Baton's installed skills live in its storage; the folder exists before any session names it. None is taken from
  // where a worker may not go (read at each install, once the pool exists).
  const skills: SkillLibrary = new SkillLibrary(path.join(storageDir, 'skills'), { protectedPaths: () => pool.setup.protectedPaths() });
  const [store, userConfig] = await Promise.all([
    // Another window's message shows here within a second: the store looks for other windows' writes every 250 ms (a read of its 100-byte header).
    timed(SqlJsStore.open({ dir: storageDir, pollIntervalMs: 250, ...deps.store }), 'Store opened'),
    deps.userConfig ? Promise.resolve(deps.userConfig) : timed(readUserCopilotConfig(sessions.copilotHome, logger), 'Copilot config read'),
    skills.ensureDir(),
  ]);
  const skillDirectories = (): string[] => [...userConfig.skillDirectories, skills.dir];
  const usage = new UsageTotals(store, () => conversations?.active.conversationId ?? 'orchestrator');
  const toolJournal = { replays: 0 };
  let chat: ChatController | undefined;
  // The pool and the conversations refer to each other (results in, workers out); each reaches the
  // other only through these closures, which run after both exist.
  let conversations: Conversations | undefined;
  const asker: PermissionBroker = deps.broker ?? { ask: (prompt, signal) => chat?.askPermission(prompt, signal) ?? Promise.resolve('deny') };
  let recycler: RuntimeRecycler | undefined;
  // Questions open, by conversation: a turn ending meanwhile awaits input; any keeps Baton from being idle.
  const questions = new OpenQuestions();
  const broker = questions.track(asker, () => recycler?.poke());
  // This window as the claims and the worker rows name it.
  const self = windowStamp(deps.workspaceFolders());
  const pool = new WorkerPool({
    sessions,
    store,
    logger,
    owner: self,
    // baton.allowSelfEdit lets workers into Baton's own installation; its storage and the editor's secrets stay protected.
    ownPaths: () => [...(deps.settings.orchestrator().selfEdit ? [] : [deps.installPath]), storageDir, ...(deps.hostSecrets ?? [])],
    storageDir,
    workspaceFolders: deps.workspaceFolders,
    settings: deps.settings.workers,
    homeDir: deps.homeDir,
    skillDirectories,
    onUsage: (worker, u, squad) => usage.workerCall(worker, callUsage(u), squad),
    broker,
    model: () => deps.settings.orchestrator().routing.model,
    reservedSessionIds: () => [...(conversations?.all().map((o) => o.currentSessionId) ?? []), ...savedSessionIds(store)],
    // Delivered once the orchestrator's session takes it: a window closed while it waited in the
    // queue leaves it in the inbox for the next start, while a failed summary turn does not make
    // it come back again. It goes to the conversation that started the worker (the active one if
    // that was deleted, or for results from before there were several).
    deliver: (text, origin, _inboxId, workerResult) => {
      if (!conversations) throw new Error('The orchestrator is not ready');
      const target = origin.conversation && conversations.has(origin.conversation) ? origin.conversation : conversations.activeId;
      return conversations.get(target).enqueue(text, { ...origin, conversation: target }, workerResult ? { workerResult } : undefined).started;
    },
  });
  const squads = new SquadService({ store, pool, tiers: () => deps.settings.orchestrator().routing.tiers, homeDir: deps.homeDir });
  const wiki = new Wiki({ store, logger, folder: () => deps.wikiFolder?.() || path.join(storageDir, 'wiki') });
  // Changes that alter what the orchestrator's session knows (controlTools.ts) wait for every conversation's running
  // turn (a new session or a restarted runtime pulled the session from under one still answering), then run with every
  // queue held, ahead of every queued turn, so they are in place before the next one starts.
  const afterTurn: Array<() => Promise<void> | void> = [];
  const runChanges = (except?: Orchestrator): void => {
    if (!afterTurn.length || conversations?.all().some((o) => o !== except && o.currentOrigin)) return;
    const changes = afterTurn.splice(0);
    void whileHeld(conversations?.all() ?? [], async () => {
      for (const fn of changes) await fn();
    }).catch((err: unknown) => logger.error('A change requested from the chat failed', err));
  };
  const runAfterTurn = (fn: () => Promise<void> | void): void => {
    afterTurn.push(fn);
    runChanges();
  };
  const invalidate = (reason: string): void => {
    for (const o of conversations?.all() ?? []) o.invalidateSession(reason);
  };
  // A resumed session keeps the skills it loaded, so a skill change needs a new session: marking every saved
  // fingerprint stale takes the keeper's drift path (a fresh session with the recent turns as context).
  const renewSession = (reason: string): void => {
    markAllStale(store, reason);
    invalidate(reason);
  };
  const control = new SettingsControl({
    host: deps.control,
    settings: deps.settings.orchestrator,
    afterTurn: runAfterTurn,
    invalidate,
    renew: renewSession,
    resetRuntime: (reason) => sessions.reset(reason),
    refreshState: () => chat?.refreshState(),
  });
  const claims = new SessionClaims(path.join(storageDir, 'claims'));
  const conversationClaims = new ConversationClaims(path.join(storageDir, 'claims'), self);
  // One orchestrator per conversation, built when first needed; everything but its log, session and claim is shared.
  const build = (conversation: string): Orchestrator => {
    const shared = new SharedConversation({ store, claims: conversationClaims, logger, conversation });
    const journal = new ToolJournal(() => toolJournal.replays++);
    const orch: Orchestrator = new Orchestrator({
      conversation,
      sessions,
      store,
      logger,
      version: deps.version,
      settings: deps.settings.orchestrator,
      tools: () => orchestratorTools(orch, journal),
      toolJournal: journal,
      // The wiki and squads sit next to the memory summary, each bounded on its own.
      memorySummary: () => [getMemorySummary(store), getWikiSummary(store, wiki.folder), getSquadSummary(store)].filter(Boolean).join('\n\n'),
      userConfig: () => ({ ...userConfig, skillDirectories: skillDirectories() }),
      claims,
      shared,
      installPath: deps.installPath,
      workspaceFolders: deps.workspaceFolders,
      retryDelaysMs: deps.retryDelaysMs,
      waitingOnUser: () => questions.for(conversation),
      onUsage: (call) => usage.conversationCall(orch.conversationId, call),
      onInterrupted: (used) => usage.turn(used, orch.conversationId),
      permissions: orchestratorPermissions({ broker, logger, conversation, signal: () => orch.turnSignal }),
      mcpGuard: protectedPathGuard(() => pool.setup.protectedPaths(), logger, ORCHESTRATOR_ASKER),
    });
    orch.onEvent((e) => shared.onTurnEvent(e));
    return orch;
  };
  // Baton's tools for one conversation's session: a worker or squad it starts reports back into that conversation.
  const orchestratorTools = (orch: Orchestrator, journal: ToolJournal) =>
    createOrchestratorTools(orch, {
      store,
      journal,
      pool,
      squads,
      wiki,
      skills,
      control,
      broker,
      settings: deps.settings.orchestrator,
      listModels: () => sessions.listModels(),
      defaultWorkerFolder: deps.defaultWorkerFolder,
      dirtyBuffers: deps.dirtyBuffers,
      skillIndexUrl: deps.skillIndexUrl,
      skillsChanged: () => runAfterTurn(() => renewSession('skills changed')),
    });
  const convos = new Conversations({ store, logger, build, heldElsewhere: (id) => conversationClaims.holder(id)?.label });
  conversations = convos;
  chat = new ChatController(
    convos,
    store,
    deps.host,
    logger,
    () => deps.settings.orchestrator().routing.auto,
    () => usage.headerText(),
    conversationClaims.self,
  );
  // Before anything is delivered, so the Chat view, the tools and the API see every turn and worker.
  const panel = chat;
  const access = new BatonAccess({ orchestrator: convos, pool, store, conversationPort: convos, messagesOf: (id) => panel.messagesOf(id) }, logger);
  // The conversation the panel shows starts now (its interrupted turns are offered for resending); the others when opened.
  convos.get(convos.activeId);
  const interrupted = [...convos.interrupted];
  if (interrupted.length) logger.warn(`Offering to resend ${interrupted.length} interrupted message(s)`);
  // Checked each time Baton goes idle (a turn, a worker task or a question settled), never on a timer of its own.
  recycler = new RuntimeRecycler({
    sessions,
    logger,
    settings: deps.settings.runtime,
    conversations: () => convos.all(),
    // A worker without a session id is starting (reserved before its session opens).
    othersIdle: () => questions.none && !pool.listActive().some((w) => w.state === 'running' || !w.sessionId),
    resume: () => convos.active.prewarm(),
    quietMs: deps.runtimeQuietMs,
    readRss: deps.runtimeRss,
  });
  // One check for the runtime all conversations and workers share, idle as the recycler counts it.
  const health = new RuntimeHealth({ sessions, logger, idle: () => recycler?.idle() ?? false, intervalMs: deps.healthCheckIntervalMs });
  const offRestarting = recycler.onRestarting((on) => chat?.setRuntimeRestarting(on));
  const offWorkers = pool.onDidChange((cards) => {
    chat?.updateWorkers(cards);
    recycler?.poke();
  });
  const offTurns = convos.onEvent((e) => {
    const orch = convos.peek(e.conversation);
    // Every turn counts, with what it used: a failed or stopped one too, its prompt billed once it went out (usageTotals.ts).
    usage.turnEvent(e, orch?.conversationId);
    if (e.type === 'compaction.applied' && e.usage && orch) usage.conversationCall(orch.conversationId, e.usage);
    if (e.type === 'busy' && !e.busy) recycler?.poke();
    if (e.type !== 'turn.completed' && e.type !== 'turn.failed' && e.type !== 'turn.cancelled') return;
    // The turn ending is still current here: the changes wait only for the others.
    runChanges(orch);
  });
  void pool.deliverPending().catch((err: unknown) => logger.error('Could not deliver the results workers left from the last session', err));
  // Chores the first message does not need (the wiki's index, the sweep of orphaned sessions) start a macrotask later:
  // their synchronous starts and the promise steps they take were ~5 ms of the host's main thread before the core was
  // returned (measured in code-server), where every millisecond stretches with the machine's load.
  let disposing = false;
  let toolOutputs: { dispose(): void } | undefined;
  let sessionsSwept: ReturnType<typeof keepSessionsSwept> | undefined;
  const chores = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
    if (disposing) return;
    void wiki.sync().catch((err: unknown) => logger.warn(`Wiki: ${String(err)}`));
    toolOutputs = keepToolOutputsSwept(sessions, logger);
    await pool.changes?.recoverAtStart();
    await pool.restorePending().catch((err: unknown) => logger.warn(`Listing the workers whose changes wait failed: ${String(err)}`));
    // After deliverPending's first step (stale worker rows cleaned, synchronously): their sessions are orphans now.
    sessionsSwept = keepSessionsSwept({ sessions, logger, storageDir, store, conversations: convos, claims, pool }, deps.sessionSweepEveryMs);
    await sessionsSwept.first;
  });

  let disposed: Promise<void> | undefined;
  return {
    store,
    sessions,
    get orchestrator() {
      return convos.active;
    },
    conversations: convos,
    pool,
    chat,
    toolJournal,
    access,
    squads,
    wiki,
    skills,
    usage,
    control,
    renewSession,
    conversationClaims,
    interrupted,
    recycler,
    health,
    dispose: () =>
      (disposed ??= runEveryStep(logger, 'Closing Baton', [
        () => (disposing = true),
        () => recycler?.dispose(),
        () => health.dispose(),
        () => [offWorkers, offRestarting, offTurns].forEach((off) => off()),
        () => chores,
        () => toolOutputs?.dispose(),
        () => sessionsSwept?.dispose(),
        () => chat?.dispose(),
        () => pool.dispose(),
        () => convos.dispose(),
        () => SharedConversation.leave(conversationClaims),
        () => claims.releaseAll(),
        () => access.dispose(),
        () => sessions.dispose(),
        () => store.close(),
      ])),
  };
}
