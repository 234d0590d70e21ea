// One in-memory agent session: its runs, events and tool calls, as the real runtime's session object gives them.
// Separate from the runtime (inMemoryAgentSessions.ts), which creates, resumes and resets these.
import type {
  AgentEvent,
  AgentSession,
  FileChange,
  PromptRecord,
  RewoundFiles,
  RunOptions,
  RunResult,
  SandboxedCommandResult,
  SandboxStatus,
  SessionSpec,
} from '../../src/core/copilot/agentSessions';
import { SandboxRequiredError } from '../../src/core/copilot/agentSessions';
import { carries } from '../../src/core/copilot/copilotAgentSession';
import { AgentError, TurnTimeoutError } from '../../src/core/copilot/errors';
import type { InMemoryAgentSessions } from './inMemoryAgentSessions';
import { agentFailure, type TurnContext } from './turnScripts';

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
    // Found as the runtime finds it (CopilotAgentSession.inspect): the last prompt sent that holds `prompt` as a part.
    const sent = [...this.state.prompts].reverse().find((p) => carries(p, prompt));
    return this.owner.inspectOverride?.(prompt, this.state) ?? (sent === undefined ? undefined : this.state.records.get(sent)) ?? { kind: 'absent' };
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

  async rewindFiles(): Promise<RewoundFiles> {
    return { restored: [], kept: [] };
  }

  /** Unit fakes record no event ids (onDelivered is never called), so nothing is ever truncated here. */
  async truncateFrom(eventId: string): Promise<void> {
    throw new Error(`in-memory session has no event ${eventId}`);
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
