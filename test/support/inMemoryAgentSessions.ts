// The AgentSessions port in memory, for unit tests of the orchestrator, the worker pool and the
// inbox: the production code runs unchanged, only the runtime is swapped.
// What stays true of the real runtime (copilotAgentSession.ts) and must stay true here:
// - a run settles once: with its result, with a failure carrying `delivered`, or with the signal's
//   reason when aborted (never both);
// - a session's record (what inspect() answers) survives a reset and a resume, as the runtime keeps
//   sessions on disk; a reset runtime takes every live session object with it;
// - tools are called through their real handlers (so Baton's ToolJournal is exercised), with
//   tool.execution_start / complete events around them, as the runtime does.
// Every run is scripted: a run nobody scripted fails loudly and is listed in `unscripted`.
import * as assert from 'node:assert/strict';
import type {
  AgentSession,
  AgentSessions,
  MachineSessionInfo,
  PromptRecord,
  ProviderSettings,
  RuntimeStats,
  SandboxSupport,
  SessionSpec,
} from '../../src/core/copilot/agentSessions';
import { AgentError } from '../../src/core/copilot/errors';
import { InMemoryAgentSession, type SessionState } from './inMemoryAgentSession';
import type { RecordedRun, Role, TurnScript } from './turnScripts';

// The split-out modules' exports, re-exported so every test keeps importing from this one file.
export { InMemoryAgentSession, type SessionState } from './inMemoryAgentSession';
export * from './turnScripts';

// ---- the runtime --------------------------------------------------------------------------------

interface QueuedScript {
  role: Role;
  match?: (prompt: string) => boolean;
  script: TurnScript;
}

export class InMemoryAgentSessions implements AgentSessions {
  provider: ProviderSettings;
  /** In memory nothing can be sandboxed: workers see 'unsupported', as on a machine without bwrap. */
  readonly sandboxSupport: SandboxSupport = { available: false, reason: 'in-memory runtime', networkAvailable: false };
  readonly copilotHome: string;
  isStarted = false;
  /** Every run, in the order the runtime received them. */
  readonly runs: RecordedRun[] = [];
  /** Runs nobody scripted (each also failed as 'fatal'). */
  readonly unscripted: RecordedRun[] = [];
  readonly inspected: Array<{ sessionId: string; prompt: string }> = [];
  readonly toolResults: Array<{ name: string; toolCallId: string; result: string; success: boolean }> = [];
  readonly created: SessionSpec[] = [];
  readonly resumed: string[] = [];
  readonly disconnects: string[] = [];
  readonly resets: string[] = [];
  /** Restarts asked for (each also a reset), and the sessions opened since the last start (runtimeStats). */
  readonly restarts: string[] = [];
  private opened = 0;
  /** The "process id" runtimeStats reports: a new one at each start. */
  private pid = 0;
  /** Sessions of this runtime (the ones on "disk"), by id. */
  readonly states = new Map<string, SessionState>();
  /** Machine sessions list() shows, and the ones another process holds. */
  machine: MachineSessionInfo[] = [];
  held = new Set<string>();
  /** When set, create() waits for what it returns (a session slow to open). */
  beforeCreate: ((spec: SessionSpec) => Promise<void> | void) | undefined;
  /** When set, disconnect() waits for what it returns (a session slow to close). */
  beforeDisconnect: ((state: SessionState) => Promise<void> | void) | undefined;
  /** When set, decides inspect()'s answer instead of the session's record. */
  inspectOverride: ((prompt: string, state: SessionState) => PromptRecord | undefined) | undefined;
  inFlight = 0;
  toolCallCounter = 0;
  private readonly scripts: QueuedScript[] = [];
  private readonly resetListeners = new Set<(reason: string) => void>();
  private live: InMemoryAgentSession[] = [];
  private sessionCounter = 0;

  constructor(opts: { provider?: ProviderSettings; copilotHome?: string } = {}) {
    this.provider = opts.provider ?? { type: 'copilot' };
    this.copilotHome = opts.copilotHome ?? '/nonexistent/copilot-home';
  }

  /** Queues scripts for the next runs of `role` sessions, in order. */
  script(role: Role, ...scripts: TurnScript[]): this {
    for (const script of scripts) this.scripts.push({ role, script });
    return this;
  }

  /** Queues a script for the next run of a `role` session whose prompt `match` accepts. */
  scriptWhen(role: Role, match: (prompt: string) => boolean, script: TurnScript): this {
    this.scripts.push({ role, match, script });
    return this;
  }

  /** Scripts not used yet (a test ends with none). */
  get pendingScripts(): number {
    return this.scripts.length;
  }

  /** The end of every test: the runtime got exactly the runs that were scripted, and every script ran. */
  assertScriptDone(): void {
    assert.deepEqual(this.unscripted, [], 'the runtime got runs no test scripted');
    assert.equal(this.pendingScripts, 0, 'every scripted run happened');
  }

  /** The prompts orchestrator sessions received, in order. */
  get orchestratorPrompts(): string[] {
    return this.runs.filter((r) => r.role === 'orchestrator').map((r) => r.prompt);
  }

  takeScript(role: Role, prompt: string): TurnScript | undefined {
    const i = this.scripts.findIndex((s) => s.role === role && (!s.match || s.match(prompt)));
    if (i < 0) {
      const run = this.runs.at(-1);
      if (run) this.unscripted.push(run);
      return undefined;
    }
    return this.scripts.splice(i, 1)[0]!.script;
  }

  onDidReset(listener: (reason: string) => void): () => void {
    this.resetListeners.add(listener);
    return () => this.resetListeners.delete(listener);
  }

  async start(): Promise<void> {
    if (!this.isStarted) {
      this.opened = 0;
      // Negative: never a real process, so nothing reads a real RSS for it.
      this.pid = -1 - this.resets.length;
    }
    this.isStarted = true;
  }

  async create(spec: SessionSpec): Promise<AgentSession> {
    await this.start();
    await this.beforeCreate?.(spec);
    this.created.push(spec);
    const id = `mem-${spec.role}-${++this.sessionCounter}`;
    const state: SessionState = { id, spec, prompts: [], records: new Map(), model: 'model' in spec ? spec.model : undefined, deleted: false };
    this.states.set(id, state);
    return this.open(state);
  }

  async resume(id: string, spec: SessionSpec): Promise<AgentSession> {
    await this.start();
    const state = this.states.get(id);
    if (!state || state.deleted) throw new AgentError('session', `Session not found: ${id}`);
    this.resumed.push(id);
    state.spec = spec;
    return this.open(state);
  }

  private open(state: SessionState): InMemoryAgentSession {
    const session = new InMemoryAgentSession(state, this);
    this.opened++;
    this.live.push(session);
    return session;
  }

  async delete(id: string): Promise<void> {
    const state = this.states.get(id);
    if (state) state.deleted = true;
  }

  async ownSessions(): Promise<Array<{ id: string; modifiedAt: number }>> {
    return [...this.states.entries()].filter(([, s]) => !s.deleted).map(([id]) => ({ id, modifiedAt: 0 }));
  }

  /** What the session was sent, as a stand-in for the runtime's event log (whose length it sets). */
  async historyBytes(id: string): Promise<number | undefined> {
    const state = this.states.get(id);
    return state && !state.deleted ? state.prompts.reduce((n, p) => n + Buffer.byteLength(p), 0) : undefined;
  }

  async ownSessionGone(id: string): Promise<boolean> {
    return !!this.states.get(id)?.deleted;
  }

  /** In memory the runtime keeps no file snapshots. */
  async leftFileSnapshots(): Promise<Array<{ id: string; files: string[] }>> {
    return [];
  }

  async removeFileSnapshots(_id: string): Promise<void> {}

  async fork(sourceId: string, _title: string): Promise<string> {
    const source = this.states.get(sourceId) ?? this.machineState(sourceId);
    if (!source) throw new AgentError('session', `Session not found: ${sourceId}`);
    const id = `mem-fork-${++this.sessionCounter}`;
    this.states.set(id, { ...source, id, prompts: [...source.prompts], records: new Map(source.records) });
    return id;
  }

  /** A machine session becomes resumable as the runtime's (attach). */
  private machineState(id: string): SessionState | undefined {
    const m = this.machine.find((s) => s.sessionId === id);
    if (!m) return undefined;
    const state: SessionState = { id, spec: { role: 'classifier', model: '' }, prompts: [], records: new Map(), deleted: false };
    this.states.set(id, state);
    return state;
  }

  async list(): Promise<MachineSessionInfo[]> {
    return [...this.machine];
  }

  async inUse(ids: string[]): Promise<Set<string>> {
    return new Set(ids.filter((id) => this.held.has(id)));
  }

  async metadata(id: string): Promise<{ workingDir?: string; summary?: string } | undefined> {
    const m = this.machine.find((s) => s.sessionId === id);
    if (m) {
      this.machineState(id);
      return { workingDir: m.workingDir, summary: m.summary };
    }
    const state = this.states.get(id);
    return state ? { workingDir: state.spec.role === 'worker' ? state.spec.workingDirectory : undefined } : undefined;
  }

  async listModels(): Promise<string[]> {
    return ['claude-sonnet-4.5', 'claude-haiku-4.5'];
  }

  async authStatus(): Promise<{ authenticated: boolean; authType?: string; message?: string }> {
    return { authenticated: true, authType: 'in-memory' };
  }

  async status(): Promise<{ version: string; protocolVersion: number }> {
    return { version: 'in-memory', protocolVersion: 0 };
  }

  isConnected(): boolean {
    return this.isStarted;
  }

  async ping(): Promise<boolean> {
    return this.isStarted;
  }

  async reset(reason: string): Promise<void> {
    this.resets.push(reason);
    for (const s of this.live) s.gone = true;
    this.live = [];
    this.isStarted = false;
    for (const l of [...this.resetListeners]) l(reason);
  }

  /** When set, restart() waits for it between the stop and the start (a runtime slow to start). */
  duringRestart: (() => Promise<void>) | undefined;

  private restarting: Promise<void> | undefined;

  restart(reason: string): Promise<void> {
    this.restarts.push(reason);
    this.restarting ??= (async () => {
      await this.reset(reason);
      await this.duringRestart?.();
      await this.start();
    })().finally(() => (this.restarting = undefined));
    return this.restarting;
  }

  async whenRestarted(): Promise<void> {
    while (this.restarting) await this.restarting.catch(() => undefined);
  }

  runtimeStats(): RuntimeStats | undefined {
    return this.isStarted ? { pid: this.pid, sessionsOpened: this.opened } : undefined;
  }

  updateProvider(provider: ProviderSettings): void {
    this.provider = provider;
  }

  runtimePid(): number | undefined {
    return undefined;
  }

  environmentReport(): { withheld: string[]; strippedProxyCredentials: string[]; refused: string[] } {
    return { withheld: [], strippedProxyCredentials: [], refused: [] };
  }

  /** No runtime, so no folder of saved tool results (a path that does not exist: the sweep finds nothing). */
  toolOutputDirs(): string[] {
    return ['/nonexistent/baton-in-memory-runtime'];
  }

  async dispose(): Promise<void> {
    for (const s of this.live) s.gone = true;
    this.live = [];
    this.isStarted = false;
  }
}
