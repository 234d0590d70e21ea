// The one way into Baton from outside its panel: the Chat view (@baton), the language-model tools
// and other extensions (the public API) all ask, delegate, list and recall through this, each
// under its own channel, so a reply and a worker's result go back where the request came from.
import type { PreparedContext } from '../context/chatContext';
import type {
  AskResultV2,
  AsToolOptions,
  BatonAgentTool,
  BatonCheckpoint,
  BatonCompaction,
  BatonConversationInfo,
  BatonMessage,
  BatonMemory,
  BatonWorker,
  DelegateHandle,
  RecallQuery,
  SummarizePolicy,
  WorkerResult,
} from '../../../api/baton';
import { randomUUID } from 'node:crypto';
import type { BatonCore } from '../batonCore';
import { DriftError } from '../orchestrator/driftError';
import type { Origin, TurnOptions } from '../orchestrator/events';
import type { Orchestrator } from '../orchestrator/orchestrator';
import { RewindError } from '../orchestrator/rewind';
import type { ChatMessage } from '../../shared/protocol';
import { CHECKPOINT_KEEP, LOG_KEEP } from '../store/bounds';
import type { Logger } from '../util/logger';
import { WorkerError, type ReplyChannel, type WorkerInfo, type WorkerStatus } from '../workers/workerPool';
import { agentMessageInput, askInput, askOptionsInput, delegateInput, parseInput, recallInput, summarizeInput, workerNameFor } from './apiInputs';
import { agentTool, checkAsToolOptions } from './batonAgentTool';
import { BatonApiError, cancelledBeforeSent, toBatonApiError } from './batonApiError';
import { BatonEvents, type BatonEvent, type TurnPort } from './batonEvents';
import { toCheckpoint } from './checkpointView';
import { toBatonMessage } from './messageView';
import { TOOL_CONVERSATION_PREFIX } from '../store/bounds';
import { ConversationError } from '../conversations/conversationError';

export { BatonApiError, type BatonErrorKind } from './batonApiError';

export interface AskCallOptions extends TurnOptions {
  /** The conversation (created if unknown); default: the one the panel shows. */
  conversation?: string;
  on?: (event: BatonEvent) => void;
  signal?: AbortSignal;
}

/** The conversations Baton keeps, as the API needs them (src/core/conversations). */
export interface ConversationPort {
  /** The one the panel shows. */
  readonly activeId: string;
  /** Its orchestrator; an unknown id creates the conversation. Throws for a bad id. */
  get(id: string): Orchestrator;
  /** Whether the conversation exists (in the store, or open here). */
  has(id: string): boolean;
  list(): Array<{ id: string; title: string; lastActivity: string; messages: number; busy: boolean }>;
  delete(id: string): Promise<void>;
}

export interface DelegateCallOptions {
  folder: string;
  name?: string;
  on?: (event: BatonEvent) => void;
}

export class BatonAccess {
  readonly events: BatonEvents;

  constructor(
    private readonly core: {
      orchestrator: TurnPort;
      conversationPort: ConversationPort;
      /** A conversation's messages as the panel shows them (its kept log and a reply streaming now), oldest first. */
      messagesOf(conversation: string): ChatMessage[];
    } & Pick<BatonCore, 'pool' | 'store'>,
    logger: Logger,
  ) {
    this.events = new BatonEvents(core.orchestrator, core.pool, core.store, logger);
  }

  /** A turn of a conversation's session from `channel`; cancelled turns resolve (status "cancelled"). */
  /**
   * `attached`: what the caller read of the references sent with the text (the Chat view's #file and selections), as
   * the panel's chips are read; Baton's own callers only, never the public API's options.
   */
  async ask(text: string, channel: Exclude<ReplyChannel, 'panel'>, opts: AskCallOptions = {}, attached?: PreparedContext): Promise<AskResultV2> {
    const input = parseInput('ask', askInput, { question: typeof text === 'string' ? text : undefined });
    if (!input.ok) throw new BatonApiError('invalid-input', input.error);
    const { on, signal, ...rest } = opts ?? {};
    const options = parseInput('ask options', askOptionsInput, Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)));
    if (!options.ok) throw new BatonApiError('invalid-input', options.error);
    if (signal !== undefined && !isAbortSignal(signal)) throw new BatonApiError('invalid-input', 'options.signal must be an AbortSignal.');
    if (signal?.aborted) throw cancelledBeforeSent();
    const conversation = options.value.conversation ?? this.core.conversationPort.activeId;
    this.orchestratorOf(conversation);
    const origin: Origin = { channel, conversation };
    const { onDrift, force, history } = options.value;
    const context = attached ? { context: attached.prompt, ...(attached.stored.length ? { meta: { references: attached.stored } } : {}) } : {};
    let call: ReturnType<BatonEvents['enqueue']>;
    try {
      call = this.events.enqueue(input.value.question, origin, on ?? (() => undefined), { options: { onDrift, force, history }, ...context });
    } catch (err) {
      // Refused before it was queued (Baton closed: 'cancelled'); there is no turn to resolve as cancelled.
      throw toBatonApiError(err);
    }
    opts = { signal };
    const onAbort = () => call.cancel();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    // Aborted inside enqueue (a handler that cancels on turn.starting, which an idle conversation fires right there).
    if (opts.signal?.aborted) onAbort();
    try {
      const result = await call.done;
      return {
        turnId: result.turnId,
        conversation,
        text: result.content,
        status: result.awaitingInput && result.status === 'complete' ? 'awaiting-input' : result.status === 'failed' ? 'partial' : result.status,
        model: result.route.model,
        ...(result.note ? { note: result.note } : {}),
      };
    } catch (err) {
      if (err instanceof DriftError) throw new BatonApiError('drift', err.message);
      const failure = toBatonApiError(err);
      if (failure.kind === 'cancelled') return { turnId: call.turnId, conversation, text: failure.partial ?? '', status: 'cancelled', model: '' };
      throw failure;
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * The folder a worker given `folder` would work in (the real path), or the BatonApiError('worker') its start would
   * fail with: a missing, relative or protected folder. Reads only, so a tool call can be checked before the user is
   * asked to confirm it.
   */
  workerFolder(folder: string): string {
    try {
      return this.core.pool.setup.resolveDir(folder);
    } catch (err) {
      if (err instanceof WorkerError) throw new BatonApiError('worker', err.message);
      throw err;
    }
  }

  /**
   * Starts a fresh worker (a new session) on `task`; resolves once it runs, with its result to come. `signal` (a
   * language-model tool's call): a question its start raises is withdrawn when the call is cancelled.
   */
  async delegate(task: string, channel: Exclude<ReplyChannel, 'panel'>, opts: DelegateCallOptions, signal?: AbortSignal): Promise<DelegateHandle> {
    const input = parseInput('delegate', delegateInput, { task, folder: opts?.folder, ...(opts?.name !== undefined ? { name: opts.name } : {}) });
    if (!input.ok) throw new BatonApiError('invalid-input', input.error);
    const { pool } = this.core;
    const name = input.value.name ?? workerNameFor(input.value.task, new Set(pool.list().map((w) => w.name)));
    let settle!: (r: WorkerResult) => void;
    const result = new Promise<WorkerResult>((resolve) => (settle = resolve));
    const unfollow = this.events.followWorker(name, (event) => {
      if (event.type === 'worker.finished') settle({ worker: name, state: event.state, text: event.result });
      opts.on?.(event);
    });
    try {
      const info = await pool.create({ name, workingDir: input.value.folder, prompt: input.value.task, replyTo: channel, signal });
      return { worker: info.name, workingDir: info.workingDir, result };
    } catch (err) {
      unfollow();
      if (err instanceof WorkerError) throw new BatonApiError('worker', err.message);
      throw new BatonApiError('fatal', err instanceof Error ? err.message : String(err));
    }
  }

  workers(): BatonWorker[] {
    return this.core.pool.list().map((w) => ({
      name: w.name,
      workingDir: w.workingDir,
      state: w.state,
      startedAt: w.startedAt,
      lastLine: w.lastLine,
      ...(w.finishedAt ? { finishedAt: w.finishedAt } : {}),
    }));
  }

  /** Stops the turn `turnId` if it is running, in whichever conversation (what streamed is kept); false otherwise. */
  stopTurn(turnId: string): boolean {
    return this.core.orchestrator.stop(turnId);
  }

  /** Every worker as the pool reports them (for the workers tool's text). */
  workerInfos(): WorkerInfo[] {
    return this.core.pool.list();
  }

  /** One worker's state and the end of its output; throws BatonApiError for an unknown name. */
  workerStatus(name: string): WorkerStatus {
    try {
      return this.core.pool.status(name);
    } catch (err) {
      // Another window runs it: a state of the session, not a bad argument.
      const kind = err instanceof ConversationError && err.kind === 'held-elsewhere' ? 'session' : 'invalid-input';
      throw new BatonApiError(kind, err instanceof Error ? err.message : String(err));
    }
  }

  recall(query: RecallQuery = {}): BatonMemory[] {
    const input = parseInput('recall', recallInput, query);
    if (!input.ok) throw new BatonApiError('invalid-input', input.error);
    const { keyword, category, limit } = input.value;
    return this.core.store
      .searchMemories({ keyword: keyword || undefined, category, limit: limit ?? 20 })
      .map((m) => ({ id: m.id, category: m.category, content: m.content }));
  }

  /** The orchestrator of `conversation` (created if unknown); a bad id is invalid input, a closed Baton 'cancelled'. */
  private orchestratorOf(conversation: string): Orchestrator {
    try {
      return this.core.conversationPort.get(conversation);
    } catch (err) {
      // Another window runs it: a state of the session, not a bad argument.
      if (err instanceof ConversationError) throw new BatonApiError(err.kind === 'held-elsewhere' ? 'session' : 'invalid-input', err.message);
      throw toBatonApiError(err);
    }
  }

  /**
   * Whether `conversation` exists (the one the panel shows always does). Only ask creates one: a call that reads or
   * sets something of an unknown id made an empty conversation each time, and enough of them pushed out the user's.
   */
  private existing(conversation: string): boolean {
    return typeof conversation === 'string' && (conversation === this.core.conversationPort.activeId || this.core.conversationPort.has(conversation));
  }

  conversations(): BatonConversationInfo[] {
    return this.core.conversationPort.list().map((c) => ({
      id: c.id,
      title: c.title,
      lastActivity: epochMs(c.lastActivity),
      messages: c.messages,
      busy: c.busy,
    }));
  }

  async deleteConversation(id: string): Promise<void> {
    if (id === this.core.conversationPort.activeId)
      throw new BatonApiError('invalid-input', 'The conversation Baton’s panel shows cannot be deleted through the API.');
    try {
      await this.core.conversationPort.delete(id);
    } catch (err) {
      // Another window runs it: a state of the session, not a bad argument.
      const kind = err instanceof ConversationError && err.kind === 'held-elsewhere' ? 'session' : 'invalid-input';
      throw new BatonApiError(kind, err instanceof Error ? err.message : String(err));
    }
  }

  /** The newest `limit` checkpoints of `conversation`, oldest first. */
  checkpoints(conversation: string, limit = 100): BatonCheckpoint[] {
    if (typeof conversation !== 'string' || !conversation)
      throw new BatonApiError('invalid-input', 'Invalid input for checkpoints: conversation: is required.');
    if (!Number.isInteger(limit) || limit < 1 || limit > CHECKPOINT_KEEP)
      throw new BatonApiError('invalid-input', `Invalid input for checkpoints: limit: must be a whole number from 1 to ${CHECKPOINT_KEEP}.`);
    return this.core.store.recentCheckpoints(conversation, limit).map(toCheckpoint);
  }

  /** Summarizes `conversation`'s older messages now (keeping `keep`, default its policy's); undefined: nothing to fold. */
  async compact(conversation: string, keep?: number): Promise<BatonCompaction | undefined> {
    if (keep !== undefined && (!Number.isInteger(keep) || keep < 1))
      throw new BatonApiError('invalid-input', 'Invalid input for compact: keep: must be a whole number, at least 1.');
    // Nothing to fold in one that does not exist, and none is created for it (see existing()).
    if (!this.existing(conversation)) return undefined;
    try {
      return await this.orchestratorOf(conversation).summarizeNow(keep);
    } catch (err) {
      if (err instanceof BatonApiError) throw err;
      throw new BatonApiError('fatal', `The conversation could not be compacted: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Sets `conversation`'s own summarize policy (undefined: the setting's again); returns the policy in force. */
  summarize(conversation: string, policy: SummarizePolicy | undefined): SummarizePolicy {
    if (!this.existing(conversation))
      throw new BatonApiError('invalid-input', `There is no conversation ${JSON.stringify(conversation)}: ask in it first, then set its policy.`);
    const orchestrator = this.orchestratorOf(conversation);
    if (policy === undefined) orchestrator.setSummarizePolicy(undefined);
    else {
      const parsed = parseInput('summarize', summarizeInput, policy);
      if (!parsed.ok) throw new BatonApiError('invalid-input', parsed.error);
      orchestrator.setSummarizePolicy(parsed.value);
    }
    return orchestrator.summarizePolicy;
  }

  /** The newest `limit` messages of `conversation`, oldest first; [] for one that does not exist (none is created). */
  messages(conversation: string, limit = 100): BatonMessage[] {
    if (typeof conversation !== 'string' || !conversation) throw new BatonApiError('invalid-input', 'Invalid input for messages: conversation: is required.');
    if (!Number.isInteger(limit) || limit < 1 || limit > LOG_KEEP)
      throw new BatonApiError('invalid-input', `Invalid input for messages: limit: must be a whole number from 1 to ${LOG_KEEP}.`);
    return this.core.messagesOf(conversation).slice(-limit).map(toBatonMessage);
  }

  /** Takes `conversation` back to just before the user's message `messageId` (Orchestrator.rewindTo). */
  async rewind(conversation: string, messageId: string): Promise<void> {
    const logId = typeof messageId === 'string' ? /^log-(\d{1,16})$/.exec(messageId)?.[1] : undefined;
    if (!logId) throw new BatonApiError('invalid-input', 'Invalid input for rewind: messageId: must be the id of a message from messages().');
    // Never creates one (as orchestratorOf would for an unknown id): a conversation with no messages has none to take back.
    if (typeof conversation !== 'string' || !this.core.conversationPort.list().some((c) => c.id === conversation))
      throw new BatonApiError('invalid-input', `There is no conversation ${JSON.stringify(conversation)} with messages to take back.`);
    try {
      await this.orchestratorOf(conversation).rewindTo(Number(logId));
    } catch (err) {
      if (err instanceof BatonApiError) throw err;
      if (!(err instanceof RewindError))
        throw new BatonApiError('fatal', `The conversation could not be taken back: ${err instanceof Error ? err.message : String(err)}`);
      const kind = err.reason === 'busy' ? 'transient' : err.reason === 'elsewhere' ? 'session' : 'invalid-input';
      throw new BatonApiError(kind, err.message);
    }
  }

  /** A tool another agent registers (asTool): 'fresh' opens a conversation per call, 'shared' joins the one named. */
  asTool(options: AsToolOptions = {}): BatonAgentTool {
    const { name, shared } = checkAsToolOptions(options);
    const tool = agentTool({
      name,
      description:
        options.description ??
        'Send one message to Baton, the workspace orchestrator, and return its reply. It can answer itself or start background workers for real work.',
      input: agentMessageInput,
      parameters: AGENT_TOOL_PARAMETERS,
      run: async (input, call) => {
        // 'shared' joins the conversation the call names: the SDK's calling session has one of its own.
        const conversation = shared
          ? (call.conversation ?? (call.sdkSession ? sdkConversation(call.sdkSession) : undefined))
          : `${TOOL_CONVERSATION_PREFIX}${randomUUID()}`;
        return replyText(await this.ask(input.message, 'tool', { signal: call.signal, ...(conversation ? { conversation } : {}) }));
      },
    });
    return tool as unknown as BatonAgentTool;
  }

  dispose(): void {
    this.events.dispose();
  }
}

/** asTool's declared input: `{ message: string }`. */
const AGENT_TOOL_PARAMETERS = {
  type: 'object',
  properties: { message: { type: 'string', description: 'The message for Baton\u2019s orchestrator, as a user would type it in Baton\u2019s panel.' } },
  required: ['message'],
  additionalProperties: false,
} as const;

/** The conversation a Copilot SDK session's calls to a shared tool join. */
function sdkConversation(sessionId: string): string {
  // Under the tool prefix: kept apart from the user's own conversations (bounds.ts), since an agent opens one per
  // session of its own and a busy one would otherwise push the user's out.
  return `${TOOL_CONVERSATION_PREFIX}copilot-${sessionId.replace(/[^A-Za-z0-9_.:@-]/g, '_')}`.slice(0, 128);
}

/** A reply as the calling model reads it. */
export function replyText(reply: AskResultV2): string {
  if (reply.status === 'cancelled') return reply.text ? `${reply.text}\n\n(Baton was stopped before it finished.)` : 'Baton was stopped before it answered.';
  if (reply.status === 'awaiting-input') return `${reply.text}\n\n(Baton is waiting for the user to answer a question in its panel.)`;
  return reply.note ? `${reply.text}\n\n(${reply.note})` : reply.text;
}

/** Epoch ms of a store time (ISO, or SQLite's "YYYY-MM-DD HH:MM:SS" in UTC). */
function epochMs(time: string): number {
  const ms = Date.parse(/^\d{4}-\d\d-\d\d \d/.test(time) ? `${time.replace(' ', 'T')}Z` : time);
  return Number.isFinite(ms) ? ms : 0;
}

/** An AbortSignal, or one from another realm (duck-typed: what ask uses of it). */
function isAbortSignal(value: unknown): value is AbortSignal {
  const s = value as Partial<AbortSignal> | null;
  return (
    typeof s === 'object' &&
    s !== null &&
    typeof s.aborted === 'boolean' &&
    typeof s.addEventListener === 'function' &&
    typeof s.removeEventListener === 'function'
  );
}
