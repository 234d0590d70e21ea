// One Copilot session behind the AgentSession port, with THE run loop that the orchestrator and
// every worker share. Invariants: deltas are forwarded as they arrive (never the whole text
// again); an idle from an earlier, aborted turn never ends this one; a dead runtime is noticed by a
// watchdog, not waited on until the timeout; an abort waits (bounded) for the runtime to settle so
// its late idle cannot end the next turn early.
import { callUsage } from './callUsage';
import type { CopilotSession, SessionEvent } from '@github/copilot-sdk';
import { withTimeout } from '../util/delay';
import type { AgentSession, FileChange, PromptRecord, RewoundFiles, RunFailure, RunOptions, RunResult } from './agentSessions';
import { AgentError, TurnTimeoutError } from './errors';
import { reportedNetworkMode, type SandboxStatus } from './sandbox';
import { runSandboxedCommand, type SandboxedCommandOptions, type SandboxedCommandResult } from './sandboxedCommand';
import { rewindOutcome } from './rewindOutcome';
import { fromSdkError } from './sdkErrors';

export interface SessionHost {
  isConnected(): boolean;
  /** `work` asked of this session's runtime, or a connection error once that runtime is gone (clientLoss.ts). */
  whileAlive<T>(work: Promise<T>, what: string): Promise<T>;
  /** The session is done with: the SDK client may let go of it (CopilotRuntime.forget). */
  forget(session: CopilotSession): void;
  /** Classifies a session.error event (may ask the runtime's auth status). */
  classify(data: { errorType?: string; statusCode?: number; message: string }): Promise<AgentError>;
}

const WATCHDOG_MS = 250;
const ABORT_SETTLE_MS = 2000;

export class CopilotAgentSession implements AgentSession {
  private sandboxStatus: SandboxStatus;
  private readonly offSandbox: () => void;

  constructor(
    private readonly session: CopilotSession,
    private readonly host: SessionHost,
    sandbox: SandboxStatus = { state: 'off' },
    /** The runtime gave the session its MCP host on opening (a resume, or a new session opened ahead: openAhead.ts). */
    private readonly opened: { mcpHost: boolean } = { mcpHost: false },
  ) {
    this.sandboxStatus = sandbox;
    // The sandbox is verified from what the runtime reports, never assumed from the request.
    this.offSandbox = session.on((event) => {
      const e = event as {
        type: string;
        data?: { kind?: string; outcome?: string; degradationReason?: string; sandboxed?: boolean; allowOutbound?: boolean; allowLocalNetwork?: boolean };
      };
      const network = sandbox.network;
      if (e.type === 'sandbox.decision' && e.data?.kind === 'policy_resolved' && network && this.sandboxStatus.network) {
        // The mode in force is the one the runtime reports resolving, not the one Baton asked for.
        const reported = reportedNetworkMode(e.data);
        if (reported) {
          const agrees = reported === network.mode;
          const line = agrees ? network.line : `${network.line} (but the runtime reports network "${reported}")`;
          const brief = agrees ? network.brief : `${network.brief} (the runtime reports "${reported}")`;
          this.sandboxStatus = { ...this.sandboxStatus, network: { mode: network.mode, line, brief, verified: agrees } };
        }
        // 'unsupported' stays: its reason says what to install, the runtime's "inactive" would not.
      } else if (e.type === 'sandbox.decision' && this.sandboxStatus.state !== 'off' && this.sandboxStatus.state !== 'unsupported') {
        if (e.data?.outcome === 'engaged') this.sandboxStatus = { ...this.sandboxStatus, state: 'engaged' };
        else if (e.data?.outcome === 'failed' || e.data?.outcome === 'inactive') {
          this.sandboxStatus = { state: 'failed', reason: e.data.degradationReason ?? `${e.data.kind ?? 'sandbox'}: ${e.data.outcome}` };
        }
      } else if (e.type === 'tool.execution_complete' && e.data?.sandboxed === true && this.sandboxStatus.state === 'applied') {
        this.sandboxStatus = { ...this.sandboxStatus, state: 'engaged' };
      }
    });
  }

  get sandbox(): SandboxStatus {
    return this.sandboxStatus;
  }

  get id(): string {
    return this.session.sessionId;
  }

  run(prompt: string, opts: RunOptions): Promise<RunResult> {
    const { signal } = opts;
    const session = this.session;
    const state = {
      delivered: false,
      began: false,
      text: '',
      lastMessageId: undefined as string | undefined,
      /** This turn's user message, as the runtime recorded it. */
      userEvent: undefined as string | undefined,
      usage: {} as RunResult['usage'],
      model: undefined as string | undefined,
      failed: false,
    };
    return new Promise<RunResult>((resolve, reject) => {
      let settled = false;
      // Declared before use: finish() may run before the timers exist (a turn aborted before it was sent).
      let watchdog: NodeJS.Timeout | undefined;
      let timer: NodeJS.Timeout | undefined;
      const inner = new AbortController();
      const finish = (err?: unknown): void => {
        if (settled) return;
        settled = true;
        unsubscribe();
        clearInterval(watchdog);
        clearTimeout(timer);
        signal.removeEventListener('abort', onOuterAbort);
        if (err === undefined) return resolve({ text: state.text, usage: state.usage, model: state.model });
        if (typeof err === 'object' && err !== null) (err as RunFailure).delivered = state.delivered;
        reject(err);
      };
      const emitDelta = (delta: string): void => {
        state.text += delta;
        opts.onDelta?.(delta);
      };
      const unsubscribe = session.on((event: SessionEvent) => {
        switch (event.type) {
          case 'user.message':
            if (state.userEvent === undefined) opts.onDelivered?.((state.userEvent = event.id));
            state.delivered = true;
            state.began = true;
            break;
          case 'assistant.turn_start':
            state.delivered = true;
            state.began = true;
            break;
          case 'assistant.message_delta': {
            if (event.data.parentToolCallId) break;
            const fresh = state.lastMessageId !== undefined && state.lastMessageId !== event.data.messageId && state.text;
            state.lastMessageId = event.data.messageId;
            // A second assistant message in one turn (after a tool call) starts a new paragraph.
            emitDelta(fresh ? `\n\n${event.data.deltaContent}` : event.data.deltaContent);
            break;
          }
          case 'assistant.message':
            if (event.data.parentToolCallId) break;
            // Without streaming deltas (or when some were missed), the final message is the source of truth.
            if (state.lastMessageId !== event.data.messageId && event.data.content) {
              state.lastMessageId = event.data.messageId;
              emitDelta(state.text ? `\n\n${event.data.content}` : event.data.content);
            }
            break;
          case 'assistant.usage': {
            if (event.data.model) state.model = event.data.model;
            // Billed once per user request, by its model's multiplier, however many tool rounds it takes (callUsage.ts).
            const call = callUsage(event.data);
            const premium = (state.usage.premiumRequests ?? 0) + call.premiumRequests;
            state.usage = {
              inputTokens: (state.usage.inputTokens ?? 0) + call.inputTokens,
              outputTokens: (state.usage.outputTokens ?? 0) + call.outputTokens,
              ...(premium ? { premiumRequests: premium } : {}),
            };
            opts.onUsage?.(call);
            break;
          }
          case 'tool.execution_start':
            opts.onTool?.({ phase: 'start', toolName: event.data.toolName, toolCallId: event.data.toolCallId });
            break;
          case 'tool.execution_complete':
            opts.onTool?.({
              phase: 'end',
              toolName: (event.data as { toolName?: string }).toolName ?? '',
              toolCallId: event.data.toolCallId,
              success: event.data.success,
            });
            break;
          case 'session.error':
            // The idle that follows an error is the error's: it must not end the turn as a complete (empty) reply
            // while the error is still being classified (an auth check can take a moment).
            state.failed = true;
            void this.host.classify(event.data).then(finish, finish);
            break;
          case 'session.idle':
            // The idle an abort causes is the abort's: run() then rejects with its reason (abortTurn), never "completed".
            if (state.began && !state.failed && !signal.aborted && !inner.signal.aborted) finish();
            break;
          default:
            break;
        }
      });
      const abortTurn = (reason: unknown): void => {
        if (settled) return;
        const settledOrLate = new Promise<void>((res) => {
          const off = session.on((e) => {
            if (e.type === 'session.idle' || e.type === 'abort') {
              off();
              res();
            }
          });
          setTimeout(() => {
            off();
            res();
          }, ABORT_SETTLE_MS).unref?.();
        });
        // Bounded as abort() is: a runtime busy reading an enormous history answered it only ~50 s later, and a task
        // past its time limit ran that long past it.
        void Promise.all([withTimeout(session.abort(), 3000, 'abort timed out').catch(() => undefined), settledOrLate]).then(() => finish(reason));
      };
      const onOuterAbort = (): void => abortTurn(signal.reason);
      if (signal.aborted) return onOuterAbort();
      signal.addEventListener('abort', onOuterAbort, { once: true });
      if (opts.timeoutMs !== undefined) {
        const limit = opts.timeoutMs;
        timer = setTimeout(() => inner.abort(new TurnTimeoutError(limit)), limit);
        inner.signal.addEventListener('abort', () => abortTurn(inner.signal.reason), { once: true });
      }
      watchdog = setInterval(() => {
        if (!this.host.isConnected()) finish(new AgentError('connection', 'Copilot runtime connection closed'));
      }, WATCHDOG_MS);
      session.send({ prompt }).then(
        () => {
          state.delivered = true;
        },
        (err: unknown) => finish(fromSdkError(err, 'send')),
      );
    });
  }

  /** `prompt`: the message as Baton sends it, found as a whole part of the recorded prompt (which adds context around it). */
  async inspect(prompt: string): Promise<PromptRecord> {
    // A runtime gone meanwhile is a connection error (the retry restarts it), not "no record": that would resend.
    const events = await this.host.whileAlive(
      this.session.getEvents().catch((err: unknown) => {
        const typed = fromSdkError(err, 'call');
        if (typed instanceof AgentError && typed.kind === 'connection') throw typed;
        return [] as SessionEvent[];
      }),
      "reading the session's record",
    );
    let userIndex = -1;
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i]!;
      if (e.type === 'user.message' && typeof e.data.content === 'string' && carries(e.data.content, prompt)) {
        userIndex = i;
        break;
      }
    }
    if (userIndex < 0) return { kind: 'absent' };
    const after = events.slice(userIndex + 1);
    const ended = after.some((e) => e.type === 'assistant.turn_end');
    const last = after
      .filter((e): e is Extract<SessionEvent, { type: 'assistant.message' }> => e.type === 'assistant.message' && !e.data.parentToolCallId)
      .at(-1);
    if (ended && last?.data.content) return { kind: 'answered', content: last.data.content };
    return { kind: 'delivered' };
  }

  onEvent(listener: (event: SessionEvent) => void): () => void {
    return this.session.on(listener);
  }

  async setModel(model: string): Promise<void> {
    await this.host.whileAlive(this.session.setModel(model), "switching the session's model").catch((err: unknown) => {
      throw fromSdkError(err, 'call');
    });
  }

  async compact(): Promise<{ tokensRemoved: number; messagesRemoved: number }> {
    const result = await this.host.whileAlive(this.session.rpc.history.compact(), 'compacting the session').catch((err: unknown) => {
      throw fromSdkError(err, 'call');
    });
    if (!result.success) throw new AgentError('fatal', 'The session could not be compacted');
    return { tokensRemoved: result.tokensRemoved, messagesRemoved: result.messagesRemoved };
  }

  // Measured (the SDK's bundled runtime, 2 cores): a session's first send after it is opened spends 0.4-1 s of the
  // runtime's CPU building its agent context (system prompt, tool metadata, token counts; the context RPCs answer null
  // until then) before its model request, against ~40 ms for a warm turn. For a session with messages (resumed),
  // re-counting its tokens builds that context (the RPC is meant for hosts opening a resumed session); for a new one it
  // answers zeros and builds nothing, but compacting it does, then stops ("Nothing to compact") without asking the model
  // anything. Never compacted when it has messages: that would compact it for real.
  // A session opened with its MCP host (resumed, or a new one opened ahead; a new session created plainly gets it only
  // at its first send, docs/performance.md ³), so building its tool list now connects its MCP servers (the built-in GitHub one:
  // `tools/list`) and the first send finds them connected instead of connecting them: the same servers and tools,
  // only sooner.
  async warmUp(model: string): Promise<void> {
    // The panel's prewarm holds the conversation's queue while this runs: a runtime gone meanwhile must not hold it.
    await this.host.whileAlive(this.prepare(model), 'preparing the session');
  }

  private async prepare(model: string): Promise<void> {
    const tokens = await this.session.rpc.metadata.recomputeContextTokens({ modelId: model }).catch(() => undefined);
    // Bounded: a message sent meanwhile waits behind this, so a user's MCP server that is slow to connect holds it at
    // most 2 s here; the runtime goes on connecting, and the send waits for that as it always did.
    if (this.opened.mcpHost) await withTimeout(this.session.rpc.tools.initializeAndValidate(), 2_000, 'tool list not ready').catch(() => undefined);
    if (tokens?.messagesTokenCount !== 0) return;
    const events = await this.session.getEvents().catch(() => undefined);
    if (!events || events.some((e) => e.type === 'user.message')) return;
    await this.session.rpc.history.compact().catch(() => undefined);
  }

  runSandboxed(command: string, opts: SandboxedCommandOptions): Promise<SandboxedCommandResult> {
    return runSandboxedCommand(this.session, this.sandboxStatus, command, opts);
  }

  async changedFiles(): Promise<FileChange[]> {
    const result = await this.session.rpc.workspaces.diff({ mode: 'session' }).catch((err: unknown) => {
      throw fromSdkError(err, 'call');
    });
    if (result.isFallback) throw new AgentError('fatal', `the runtime tracked no file changes for this session (${result.unavailableReason ?? 'unavailable'})`);
    return result.changes.map((c) => ({ path: c.path, changeType: c.changeType, diff: c.diff, ...(c.isTruncated ? { truncated: true } : {}) }));
  }

  async rewindFiles(): Promise<RewoundFiles> {
    const points = await this.session.rpc.history.listRewindPoints().catch((err: unknown) => {
      throw fromSdkError(err, 'call');
    });
    if (!points.fileChangeTrackingEnabled) throw new AgentError('fatal', 'file-change tracking is off for this session, so its changes cannot be undone');
    // The earliest point is before the first turn: rewinding there restores every file the session touched.
    const first = points.points.reduce<(typeof points.points)[number] | undefined>((a, p) => (!a || p.timestamp < a.timestamp ? p : a), undefined);
    if (!first) return { restored: [], kept: [] };
    const result = await this.session.rpc.history.rewind({ eventId: first.eventId, mode: 'conversation-and-files' }).catch((err: unknown) => {
      throw fromSdkError(err, 'call');
    });
    return rewindOutcome(result);
  }

  async truncateFrom(eventId: string): Promise<void> {
    await this.host.whileAlive(this.session.rpc.history.truncate({ eventId }), 'cutting the session back').catch((err: unknown) => {
      throw fromSdkError(err, 'call');
    });
  }

  async abort(): Promise<void> {
    await withTimeout(this.session.abort(), 3000, 'abort timed out').catch(() => undefined);
  }

  async disconnect(): Promise<void> {
    this.offSandbox();
    await withTimeout(this.session.disconnect(), 2000, 'disconnect timed out').catch(() => undefined);
    this.host.forget(this.session);
  }
}

/**
 * Whether the runtime's record of a prompt (user.message content: the text as sent) holds `message` as one of its parts:
 * Baton joins the recovery context, the message, its attached context and memories with blank lines. Matched by the last
 * 200 characters, bounded by those joins, so "continue" is not found in "continue with the tests".
 */
export function carries(content: string, message: string): boolean {
  const tail = message.slice(-200);
  const whole = tail.length === message.length;
  for (let at = content.indexOf(tail); at >= 0; at = content.indexOf(tail, at + 1)) {
    const end = at + tail.length;
    const endsPart = end === content.length || content.startsWith('\n\n', end);
    const startsPart = !whole || at === 0 || content.startsWith('\n\n', at - 2);
    if (endsPart && startsPart) return true;
  }
  return false;
}
