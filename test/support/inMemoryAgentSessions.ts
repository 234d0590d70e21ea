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
import type {
  AgentEvent,
  AgentSession,
  AgentSessions,
  FileChange,
  MachineSessionInfo,
  PromptRecord,
  ProviderSettings,
  RunOptions,
  RunResult,
  RuntimeStats,
  SandboxedCommandResult,
  SandboxStatus,
  SandboxSupport,
  SessionSpec,
} from '../../src/core/copilot/agentSessions';
import { SandboxRequiredError } from '../../src/core/copilot/agentSessions';
import { AgentError, TurnTimeoutError, type ErrorClass } from '../../src/core/copilot/errors';

export type Role = SessionSpec['role'];
type FailureKind = Exclude<ErrorClass, 'cancelled'>;

/** What a scripted turn can do, as the runtime would during one run(). */
export interface TurnContext {
  readonly prompt: string;
  readonly session: InMemoryAgentSession;
  readonly signal: AbortSignal;
  /** Streams chunks as one assistant message (delta events and onDelta), then its final message event. */
  say(...chunks: string[]): Promise<void>;
  /** Streams one chunk of a message that is not finished yet (what a stop or a timeout cuts off). */
  delta(chunk: string): void;
  /** Calls one of the session's tools through its real handler; returns the text the model would get. */
  callTool(name: string, args: unknown, toolCallId?: string): Promise<string>;
  /** Never settles by itself: the run ends when its signal aborts (stop, timeout, close). */
  hang(): Promise<never>;
  /** Waits until `gate` settles (a test's hand on the turn), aborting with the run. */
  wait(gate: Promise<unknown>): Promise<void>;
}

export type TurnScript = (ctx: TurnContext) => Promise<void> | void;

/** A run recorded as the runtime received it. */
export interface RecordedRun {
  sessionId: string;
  role: Role;
  prompt: string;
  /** For worker sessions: their directory (tells workers apart). */
  workingDirectory?: string;
}

/** The error a failed run throws, with the `delivered` flag the port promises. */
export function agentFailure(kind: FailureKind, opts: { delivered: boolean; message?: string; statusCode?: number }): AgentError & { delivered: boolean } {
  const err = new AgentError(kind, opts.message ?? `scripted ${kind} failure`, { statusCode: opts.statusCode }) as AgentError & { delivered: boolean };
  err.delivered = opts.delivered;
  return err;
}

// ---- scripts ------------------------------------------------------------------------------------

/** Answers with these chunks, streamed. */
export function reply(...chunks: string[]): TurnScript {
  return (ctx) => ctx.say(...chunks);
}

/**
 * Streams `partial` (if any), then fails with an AgentError of `kind`. `record` is what the
 * runtime's own record says afterwards (inspect): by default 'delivered' when delivered, else 'absent'.
 */
export function fail(
  kind: FailureKind,
  opts: { delivered: boolean; partial?: string[]; record?: PromptRecord; message?: string; statusCode?: number },
): TurnScript {
  return async (ctx) => {
    for (const chunk of opts.partial ?? []) ctx.delta(chunk);
    ctx.session.state.records.set(ctx.prompt, opts.record ?? (opts.delivered ? { kind: 'delivered' } : { kind: 'absent' }));
    throw agentFailure(kind, opts);
  };
}

/** Streams these chunks, then hangs until the run is aborted. */
export function hangAfter(...chunks: string[]): TurnScript {
  return async (ctx) => {
    for (const chunk of chunks) ctx.delta(chunk);
    await ctx.hang();
  };
}

/** Runs `steps` in order (tool calls, then a reply ...). */
export function sequence(...steps: TurnScript[]): TurnScript {
  return async (ctx) => {
    for (const step of steps) await step(ctx);
  };
}

export function tool(name: string, args: unknown, toolCallId?: string): TurnScript {
  return async (ctx) => {
    await ctx.callTool(name, args, toolCallId);
  };
}

/** A promise the test opens by hand. */
export class Gate {
  readonly promise: Promise<void>;
  open!: () => void;
  constructor() {
    this.promise = new Promise<void>((resolve) => (this.open = resolve));
  }
}

// ---- the session --------------------------------------------------------------------------------

/** What the runtime keeps of a session across resumes and resets (the session's files). */
export interface SessionState {
  id: string;
  spec: SessionSpec;
  /** Every prompt this session received, in order. */
  prompts: string[];
  /** What inspect() answers per prompt; a completed run records 'answered'. */
  records: Map<string, PromptRecord>;
  model?: string;
  deleted: boolean;
}

export class InMemoryAgentSession implements AgentSession {
  private readonly listeners = new Set<(event: AgentEvent) => void>();
  private running = false;
  /** A reset runtime or a disconnect ends the object; its state stays with the runtime. */
  gone = false;
  disconnected = false;
  private eventCounter = 0;

  constructor(
    readonly state: SessionState,
    private readonly owner: InMemoryAgentSessions,
  ) {}

  get id(): string {
    return this.state.id;
  }

  run(prompt: string, opts: RunOptions): Promise<RunResult> {
    const { signal } = opts;
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.gone) return Promise.reject(agentFailure('connection', { delivered: false, message: 'the in-memory session is gone (reset or disconnected)' }));
    if (this.running) return Promise.reject(new Error(`concurrent run() on session ${this.id}: one turn at a time`));
    this.running = true;
    this.owner.inFlight++;
    this.state.prompts.push(prompt);
    const spec = this.state.spec;
    this.owner.runs.push({ sessionId: this.id, role: spec.role, prompt, workingDirectory: spec.role === 'worker' ? spec.workingDirectory : undefined });
    this.emit({ type: 'user.message', data: { content: prompt } });
    const script = this.owner.takeScript(spec.role, prompt);

    let text = '';
    let messageId = 0;
    let messageText = '';
    let settled = false;
    const turnAbort = new AbortController();
    return new Promise<RunResult>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = (err: unknown, result?: RunResult): void => {
        if (settled) return;
        settled = true;
        this.running = false;
        this.owner.inFlight--;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        if (!turnAbort.signal.aborted) turnAbort.abort(err ?? new Error('settled'));
        if (result) resolve(result);
        else reject(err);
      };
      const onAbort = (): void => {
        this.emit({ type: 'abort', data: { reason: 'user' } });
        finish(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      if (opts.timeoutMs !== undefined) timer = setTimeout(() => finish(new TurnTimeoutError(opts.timeoutMs!)), opts.timeoutMs);

      const live = (): void => {
        if (settled) throw new Error('the run already ended');
      };
      const delta = (chunk: string): void => {
        live();
        const id = `m${messageId}`;
        // A second message in one turn starts a new paragraph, as the real run loop streams it.
        const out = messageText === '' && text !== '' ? `\n\n${chunk}` : chunk;
        messageText += chunk;
        text += out;
        this.emit({ type: 'assistant.message_delta', data: { deltaContent: chunk, messageId: id } });
        opts.onDelta?.(out);
      };
      const endMessage = (): void => {
        live();
        if (!messageText) return;
        this.emit({ type: 'assistant.message', data: { content: messageText, messageId: `m${messageId}` } });
        messageId++;
        messageText = '';
      };
      const ctx: TurnContext = {
        prompt,
        session: this,
        signal: turnAbort.signal,
        say: async (...chunks) => {
          for (const chunk of chunks) delta(chunk);
          endMessage();
          await Promise.resolve();
        },
        delta,
        callTool: async (name, args, toolCallId) => {
          live();
          endMessage();
          const callId = toolCallId ?? `call-${++this.owner.toolCallCounter}`;
          const found = spec.role === 'orchestrator' ? spec.tools.find((t) => t.name === name) : undefined;
          if (!found?.handler) throw new Error(`the session has no tool '${name}'`);
          this.emit({ type: 'tool.execution_start', data: { toolCallId: callId, toolName: name } });
          opts.onTool?.({ phase: 'start', toolName: name, toolCallId: callId });
          const raw: unknown = await found.handler(args, { sessionId: this.id, toolCallId: callId, toolName: name, arguments: args });
          const resultText = typeof raw === 'string' ? raw : isToolResult(raw) ? raw.textResultForLlm : JSON.stringify(raw);
          const success = !(isToolResult(raw) && raw.resultType === 'failure');
          this.owner.toolResults.push({ name, toolCallId: callId, result: resultText, success });
          live();
          this.emit({ type: 'tool.execution_complete', data: { toolCallId: callId, success } });
          opts.onTool?.({ phase: 'end', toolName: name, toolCallId: callId, success });
          return resultText;
        },
        hang: () =>
          new Promise<never>((_, rej) => {
            const s = turnAbort.signal;
            if (s.aborted) return rej(s.reason);
            s.addEventListener('abort', () => rej(s.reason), { once: true });
          }),
        wait: (gate) =>
          new Promise<void>((res, rej) => {
            const s = turnAbort.signal;
            if (s.aborted) return rej(s.reason);
            s.addEventListener('abort', () => rej(s.reason), { once: true });
            gate.then(
              () => res(),
              (err: unknown) => rej(err),
            );
          }),
      };
      // The script runs on a later tick, as the runtime answers after send() returned.
      const body = async (): Promise<void> => {
        await Promise.resolve();
        if (!script) throw new AgentError('fatal', `unscripted ${spec.role} run: ${prompt.slice(0, 80)}`);
        await script(ctx);
        if (messageText) endMessage();
      };
      body().then(
        () => {
          this.state.records.set(prompt, { kind: 'answered', content: text });
          this.emit({ type: 'session.idle', data: {} });
          // One model call per run, reported as the real session reports each call (no premium multiplier here).
          opts.onUsage?.({ inputTokens: prompt.length, outputTokens: text.length, premiumRequests: 0, requests: 1 });
          finish(undefined, { text, usage: { inputTokens: prompt.length, outputTokens: text.length }, model: this.state.model });
        },
        (err: unknown) => finish(err),
      );
    });
  }

  async inspect(prompt: string): Promise<PromptRecord> {
    this.owner.inspected.push({ sessionId: this.id, prompt });
    return this.owner.inspectOverride?.(prompt, this.state) ?? this.state.records.get(prompt) ?? { kind: 'absent' };
  }

  onEvent(listener: (event: AgentEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async setModel(model: string): Promise<void> {
    this.state.model = model;
  }

  async compact(): Promise<{ tokensRemoved: number; messagesRemoved: number }> {
    return { tokensRemoved: 0, messagesRemoved: 0 };
  }

  /** Nothing to set up in memory. */
  async warmUp(_model: string): Promise<void> {}

  /** The sandbox as the spec asked for it: 'applied' when the worker has a policy (nothing in memory enforces it). */
  get sandbox(): SandboxStatus {
    return this.sandboxStatus;
  }

  sandboxStatus: SandboxStatus = { state: 'off' };

  /** Nothing runs in memory: a command is refused as the real seam refuses one without a sandbox. */
  async runSandboxed(): Promise<SandboxedCommandResult> {
    throw new SandboxRequiredError(this.sandboxStatus.state, 'nothing runs commands in memory');
  }

  async changedFiles(): Promise<FileChange[]> {
    return [];
  }

  async rewindFiles(): Promise<{ restored: string[] }> {
    return { restored: [] };
  }

  async abort(): Promise<void> {}

  async disconnect(): Promise<void> {
    this.owner.disconnects.push(this.id);
    await this.owner.beforeDisconnect?.(this.state);
    this.disconnected = true;
    this.gone = true;
    this.listeners.clear();
  }

  /** Emits a runtime event to this session's listeners (worker transcripts read them). */
  emit(partial: { type: string; data: object }): void {
    const event = { id: `${this.id}-e${++this.eventCounter}`, timestamp: new Date().toISOString(), parentId: null, ...partial } as unknown as AgentEvent;
    for (const l of [...this.listeners]) l(event);
  }
}

function isToolResult(value: unknown): value is { textResultForLlm: string; resultType?: string } {
  return typeof value === 'object' && value !== null && typeof (value as { textResultForLlm?: unknown }).textResultForLlm === 'string';
}

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

  async restart(reason: string): Promise<void> {
    this.restarts.push(reason);
    await this.reset(reason);
    await this.duringRestart?.();
    await this.start();
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

  async dispose(): Promise<void> {
    for (const s of this.live) s.gone = true;
    this.live = [];
    this.isStarted = false;
  }
}
