/**
 * Baton's public API: what `vscode.extensions.getExtension('baton-dev.baton')!.activate()` resolves to
 * (also `extension.exports` once active). Copy this file into your extension to type it.
 *
 * Two versions. What `activate()` resolves to is version 1 (`apiVersion: 1`, below), unchanged for the extensions
 * written against it. Version 2 (Warlock's orchestrator surface: named conversations, checkpoints, drift, the
 * summarize policy, fourteen lifecycle events, `asTool`) is asked for by number: `exports.getApi(2)` (see
 * `BatonApiV2` at the end of this file). `getApi(1)` returns version 1 itself; an unknown number throws.
 *
 * ```ts
 * const baton = await vscode.extensions.getExtension<BatonApi>('baton-dev.baton')!.activate();
 * const reply = await baton.ask('What changed in src/ today?', {
 *   on: (e) => { if (e.type === 'turn.streaming') process.stdout.write(e.delta); },
 * });
 * const job = await baton.delegate('Add a unit test for utils.ts', { folder: '/home/me/app' });
 * const result = await job.result; // { state: 'done', text: '...' }
 * ```
 *
 * Version 1's messages go into the conversation Baton's panel shows, the same queue as the panel and @baton in the
 * Chat view; the panel shows them tagged "via api". Version 2 names the conversation per call.
 *
 * Events come at two levels: per call (`ask(text, { on })`, `delegate(task, { on })`: only that call's events) and
 * per instance (`baton.on(type, handler)`: every turn and worker, whichever channel started it). Instance handlers
 * run first. Within one call, a handler receives each event exactly once, in this order:
 *
 *   turn.starting → turn.routed → (turn.streaming | worker.started)* → one of turn.completed | turn.failed | turn.cancelled
 *   worker.started → worker.progress* → (worker.changes-ready →)? worker.finished
 *
 * `turn.starting` and `turn.routed` are missing only when the turn never started (Baton closed while it waited in the
 * queue); the terminal event always comes, and the promise settles after it.
 */

/** Where a message entered Baton. `background` is a worker's result reaching the orchestrator. */
export type BatonChannel = 'panel' | 'command' | 'chat' | 'tool' | 'api' | 'background';

/** Where a reply (or a worker's result) goes back to. */
export type BatonReplyChannel = Exclude<BatonChannel, 'background'>;

export interface BatonTurnOrigin {
  channel: BatonChannel;
  /** For a background turn: the worker whose result it answers. */
  worker?: string;
  /** For a background turn: the channel of the request that started the worker. */
  replyTo?: BatonReplyChannel;
}

/** Why a call failed, in words a user can act on. */
export interface BatonErrorInfo {
  /** auth: sign in or set a key; transient/connection: retry later; session/fatal: see the message; cancelled: stopped or closed. */
  /** drift (version 2): the definition changed under the conversation's session and the call asked for an error. */
  kind: 'connection' | 'session' | 'transient' | 'auth' | 'fatal' | 'cancelled' | 'invalid-input' | 'worker' | 'drift';
  message: string;
  /** A VS Code command that helps (e.g. sign in). */
  action?: { label: string; command: string };
}

/** What `ask` and `delegate` reject with: an Error whose name is "BatonError". */
export interface BatonError extends Error, BatonErrorInfo {
  name: 'BatonError';
  /** What the model had said before a turn failed. */
  partial?: string;
}

export type BatonWorkerState = 'running' | 'idle' | 'done' | 'failed' | 'timed_out' | 'killed';
export type BatonWorkerEndState = 'done' | 'failed' | 'timed_out' | 'killed';

export type BatonEvent =
  /** The turn left the queue and is being sent to the orchestrator's session. */
  | { type: 'turn.starting'; turnId: string; origin: BatonTurnOrigin; prompt: string }
  /** The model the turn runs on, and why it was chosen. */
  | { type: 'turn.routed'; turnId: string; model: string; tier: 'fast' | 'standard' | 'premium' | 'fixed'; reason: string }
  /**
   * A piece of the reply. `text` is the whole reply so far; `restarted` is true on the first piece after Baton retried
   * the turn (then `text` starts over: drop what you showed).
   */
  | { type: 'turn.streaming'; turnId: string; delta: string; text: string; restarted?: boolean }
  /** The reply. `partial` when a time limit cut it (`note` says why). */
  | { type: 'turn.completed'; turnId: string; origin: BatonTurnOrigin; text: string; status: 'complete' | 'partial'; model: string; note?: string }
  | { type: 'turn.failed'; turnId: string; origin: BatonTurnOrigin; error: BatonErrorInfo; partial: string }
  /** Stopped (by the caller, Stop in the panel or in Chat, or Baton closing); `partial` is what had streamed. */
  | { type: 'turn.cancelled'; turnId: string; origin: BatonTurnOrigin; partial: string }
  /** A worker began a task. `turnId` is the orchestrator turn that started it (absent for `delegate`). */
  | { type: 'worker.started'; worker: string; workingDir: string; replyTo: BatonReplyChannel; turnId?: string }
  /** The worker's latest line of output (at most a few times a second). */
  | { type: 'worker.progress'; worker: string; line: string }
  /** The worker's task ended; `result` is its report as the orchestrator receives it. */
  | { type: 'worker.finished'; worker: string; state: BatonWorkerEndState; result: string }
  /** A worker's task ended with changes to review: in its worktree (or the folder it changed in place). */
  | { type: 'worker.changes-ready'; worker: string; workingDir: string; files: string[] };

export type BatonEventName = BatonEvent['type'];
export type BatonEventOf<K extends BatonEventName> = Extract<BatonEvent, { type: K }>;

export interface BatonDisposable {
  dispose(): void;
}

export interface AskOptions {
  /** This call's events, in order, each exactly once. */
  on?: (event: BatonEvent) => void;
  /**
   * Stops the turn: what streamed is kept and the promise resolves with status "cancelled" (a turn still queued is
   * stopped as it starts). A signal already aborted when `ask` is called rejects with kind "cancelled".
   */
  signal?: AbortSignal;
}

export interface AskResult {
  turnId: string;
  /** The reply: complete, cut by a time limit (partial, with `note`), or what streamed before a stop (cancelled). */
  text: string;
  status: 'complete' | 'partial' | 'cancelled';
  /** The model that answered (empty when the turn never started). */
  model: string;
  /** Why a partial reply stopped, in words. */
  note?: string;
}

export interface DelegateOptions {
  /** Absolute path of the folder the worker works in ("~" allowed). Protected folders (~/.ssh ...) are refused. */
  folder: string;
  /** The worker's name: letters, digits, ".", "_" or "-" (default: derived from the task). */
  name?: string;
  /** This worker's events: worker.started, worker.progress*, worker.finished, each exactly once, in order. */
  on?: (event: BatonEvent) => void;
}

export interface WorkerResult {
  worker: string;
  state: BatonWorkerEndState;
  /** The worker's report (for a failed or stopped task, what it said so far and why it ended). */
  text: string;
}

export interface DelegateHandle {
  /** The worker's name (unique among running workers). */
  worker: string;
  workingDir: string;
  /** Settles when the task ends; never rejects (a failure is a result with state "failed"). */
  result: Promise<WorkerResult>;
}

export interface BatonWorker {
  name: string;
  workingDir: string;
  state: BatonWorkerState;
  /** Epoch ms when its current (or last) task started. */
  startedAt: number;
  finishedAt?: number;
  /** The latest line of its output. */
  lastLine: string;
}

export interface BatonMemory {
  id: number;
  category: 'preference' | 'fact' | 'project' | 'person' | 'routine';
  content: string;
}

export interface RecallQuery {
  keyword?: string;
  category?: BatonMemory['category'];
  /** 1-100, default 20. */
  limit?: number;
}

export interface BatonApi {
  /** 1 for this shape; a breaking change gets a new number. */
  readonly apiVersion: 1;
  /** This API in the version asked for: 1 (this object) or 2. Throws for a version this Baton does not have. */
  getApi(version: 1): BatonApi;
  getApi(version: 2): BatonApiV2;
  /**
   * A turn of the orchestrator's one shared session (the conversation the panel shows). Resolves with the reply,
   * also when stopped (status "cancelled"); rejects with a BatonError when the turn fails or the text is empty.
   */
  ask(text: string, options?: AskOptions): Promise<AskResult>;
  /**
   * Starts a fresh worker (a new Copilot session) on `task` in `options.folder`, and resolves at once with its name;
   * `result` settles when it ends. Rejects with a BatonError for bad input (a protected folder, a name in use, too many
   * workers). The result also reaches the orchestrator, so the panel's conversation knows what the worker did.
   */
  delegate(task: string, options: DelegateOptions): Promise<DelegateHandle>;
  /** Running workers first, then the recently finished ones. */
  workers(): Promise<BatonWorker[]>;
  /** Long-term memories, most recently used first. */
  recall(query?: RecallQuery): Promise<BatonMemory[]>;
  /** Every event of one type, from every channel, until disposed. */
  on<K extends BatonEventName>(type: K, handler: (event: BatonEventOf<K>) => void): BatonDisposable;
  /** Every event, from every channel, until disposed. */
  on(type: '*', handler: (event: BatonEvent) => void): BatonDisposable;
}

// ===================================================================================================== version 2

/**
 * Version 2: Warlock's orchestrator surface. Every call names the conversation it acts on (default: the one
 * Baton's panel shows); an unknown id creates the conversation.
 *
 * ```ts
 * const baton = (await vscode.extensions.getExtension<BatonApi>('baton-dev.baton')!.activate()).getApi(2);
 * const reply = await baton.ask('Plan the release notes', {
 *   conversation: 'release-notes',
 *   onDrift: 'error',                       // a changed definition rejects (kind "drift") instead of renewing
 *   on: (e) => { if (e.type === 'turn.routed') console.log(e.source, e.raw); },
 * });
 * const rows = await baton.checkpoints('release-notes'); // one per settled turn
 * const off = baton.conversation('release-notes').on('compaction.applied', (e) => console.log(e.summary));
 * ```
 *
 * Events come at three tiers, and one event reaches them in this order: per instance (`baton.on`), then per
 * conversation (`baton.conversation(id).on`), then per call (`ask(text, { on })`). Within one turn each event comes
 * at most once, in this order:
 *
 *   turn.starting → session.loaded → drift.checked → lock.waiting? → history.windowed → turn.routed →
 *   turn.streaming* → checkpoint.persisted → (compaction.suggested → compaction.applied)? →
 *   one of turn.completed | turn.failed | turn.cancelled | turn.awaiting-input
 *
 * `session.loaded` is missing when the session could not be opened (the turn then retries and usually fails);
 * a turn refused for drift ends turn.starting → drift.checked → turn.failed (kind "drift"); `lock.waiting` comes only
 * when a compaction holds the conversation; the compaction pair only when the summarize policy fires.
 */
export interface BatonApiV2 {
  readonly apiVersion: 2;
  /** One turn of `options.conversation`'s session (default: the panel's). Rejects with a BatonError as in version 1, or kind "drift". */
  ask(text: string, options?: AskOptionsV2): Promise<AskResultV2>;
  /** As version 1; the worker's events carry the conversation (the caller's default one). */
  delegate(task: string, options: DelegateOptionsV2): Promise<DelegateHandle>;
  workers(): Promise<BatonWorker[]>;
  recall(query?: RecallQuery): Promise<BatonMemory[]>;
  /** Every conversation, most recently active first. */
  conversations(): Promise<BatonConversationInfo[]>;
  /** A handle on one conversation (nothing is created until it is used). */
  conversation(id: string): BatonConversation;
  /** The conversation's checkpoints, oldest first (the newest `limit`, default 100, at most 1,000). */
  checkpoints(conversation: string, limit?: number): Promise<BatonCheckpoint[]>;
  /** Per instance: every event of one type, from every conversation and channel, until disposed. */
  on<K extends BatonEventV2Name>(type: K, handler: (event: BatonEventV2Of<K>) => void): BatonDisposable;
  on(type: '*', handler: (event: BatonEventV2) => void): BatonDisposable;
  /**
   * A tool another agent registers to drive Baton: name, description, JSON-schema input `{ message: string }` and
   * `invoke`. `sessionScope: 'fresh'` (default) opens a new conversation per call; `'shared'` joins the conversation
   * the call names (`invoke(input, { conversation })`, or the Copilot SDK's calling session).
   *
   * With the Copilot SDK (the object is `defineTool`'s config as it is):
   * ```ts
   * import { defineTool } from '@github/copilot-sdk';
   * const tool = baton.asTool({ description: 'Ask Baton, the workspace orchestrator', sessionScope: 'shared' });
   * const session = await client.createSession({ tools: [defineTool(tool.name, tool)], onPermissionRequest });
   * ```
   * With VS Code's language-model tools (declare `tool.name` under `contributes.languageModelTools` in your
   * package.json with `tool.parameters` as its `inputSchema`):
   * ```ts
   * const tool = baton.asTool({ name: 'myext_ask_baton', description: 'Ask Baton' });
   * context.subscriptions.push(vscode.lm.registerTool(tool.name, tool.languageModelTool(vscode)));
   * ```
   */
  asTool(options?: AsToolOptions): BatonAgentTool;
}

export interface DelegateOptionsV2 extends Omit<DelegateOptions, 'on'> {
  on?: (event: BatonEventV2) => void;
}

export interface AskOptionsV2 {
  /** See AskOptions.signal. */
  signal?: AbortSignal;
  /** The conversation (its id); default: the one Baton's panel shows. An unknown id creates it. */
  conversation?: string;
  /** Earlier messages you kept, sent as context when the conversation has no messages of its own yet (the newest 20). */
  history?: Array<{ role: 'user' | 'assistant'; content: string }>;
  /** What a changed definition does: 'renew' (default, as the panel: a fresh session with recent turns as context) or 'error'. */
  onDrift?: 'renew' | 'error';
  /** Runs on the conversation's session even when the definition drifted. */
  force?: boolean;
  /** This call's events, in order, each exactly once. */
  on?: (event: BatonEventV2) => void;
}

export interface AskResultV2 {
  turnId: string;
  conversation: string;
  text: string;
  /** "awaiting-input": the reply is complete but a question to the user (a permission, an apply confirm) is still open. */
  status: 'complete' | 'partial' | 'cancelled' | 'awaiting-input';
  model: string;
  note?: string;
}

export interface BatonConversationInfo {
  id: string;
  title: string;
  /** Epoch ms of its last message. */
  lastActivity: number;
  messages: number;
  busy: boolean;
}

export interface SummarizePolicy {
  /** Compact once more than this many turns settled since the last compaction; 0: never on its own. */
  afterTurns: number;
  /** Messages kept verbatim (the most recent). */
  keep: number;
}

export interface BatonConversation {
  readonly id: string;
  /** Per conversation: this conversation's events (turns, compactions, the workers its turns started) until disposed. */
  on<K extends BatonEventV2Name>(type: K, handler: (event: BatonEventV2Of<K>) => void): BatonDisposable;
  on(type: '*', handler: (event: BatonEventV2) => void): BatonDisposable;
  ask(text: string, options?: Omit<AskOptionsV2, 'conversation'>): Promise<AskResultV2>;
  /** Deletes the conversation: its log, checkpoints and session. The panel's current conversation cannot be deleted. */
  delete(): Promise<void>;
  checkpoints(limit?: number): Promise<BatonCheckpoint[]>;
  /** Summarizes the older messages now, keeping the policy's `keep` (or `keep`); undefined when there is nothing to fold. */
  compact(keep?: number): Promise<BatonCompaction | undefined>;
  /** Sets this conversation's summarize policy (undefined: back to the setting baton.conversation.summarize). */
  summarize(policy: SummarizePolicy | undefined): Promise<SummarizePolicy>;
  /**
   * Its newest `limit` messages (default 100, at most 200: what Baton keeps of a conversation), oldest first, as
   * Baton's panel shows them; a reply still streaming is the last, with what has arrived. [] for an unknown id.
   */
  messages(limit?: number): Promise<BatonMessage[]>;
  /**
   * Takes the conversation back to just before the user's message `messageId` (an id from `messages()`): the session
   * forgets it and everything after it, and the log drops them, as Edit and Retry do in the panel. Send the message
   * again (or another) with `ask` afterwards. What workers did meanwhile stays done. Rejects with a BatonError:
   * "invalid-input" for an id that is not one of the user's messages here, "transient" while the conversation answers
   * (stop the turn or wait), "session" when another window runs the conversation.
   */
  rewind(messageId: string): Promise<void>;
}

/** One message of a conversation, written for people: a worker's result is its report, not the text the model got. */
export interface BatonMessage {
  /** Its id in the conversation (`rewind` takes a user message's). */
  id: string;
  /** "worker": a worker's result (see `worker`); "notice": something Baton said, not the model. */
  role: 'user' | 'assistant' | 'worker' | 'notice' | 'error';
  /** Where it was written: a reply's channel is its message's. */
  channel: BatonChannel;
  /** Markdown: the message as written, a reply's text, a worker's report, an error's message. */
  text: string;
  /**
   * How it ended: "streaming" while a reply arrives; "queued" for a user's message (or a worker's result) waiting
   * behind the answer running now (cancelling its `ask` takes it out); "interrupted" for a message a reload or crash
   * cut off.
   */
  status: 'complete' | 'streaming' | 'queued' | 'partial' | 'cancelled' | 'failed' | 'interrupted';
  /** ISO time (UTC). */
  at: string;
  /** role "worker": its name, how its task ended, how long it ran, the changes it left for review. */
  worker?: {
    name: string;
    state: BatonWorkerEndState;
    durationMs: number;
    changes?: { files: number; additions: number; deletions: number };
    /** Why a task that did not finish ended. */
    reason?: string;
  };
}

export interface BatonCheckpoint {
  conversation: string;
  /** 1 for the conversation's first settled turn. */
  turnIndex: number;
  /** The definition signature in force (sha256 of Baton's version, the model, the tools and their schemas). */
  signature: string;
  route: { model: string; tier: string; reason: string };
  status: string;
  inputTokens?: number;
  outputTokens?: number;
  /** ISO time (UTC). */
  at: string;
}

/**
 * What a compaction did (Warlock's compact command). Indices count the conversation's messages, oldest 0; for
 * `how: 'runtime'` (the runtime compacted its session by itself, or when asked with `.compact()`), the runtime's own.
 */
export interface BatonCompaction {
  summary: string;
  replacesFromIndex: number;
  replacesToIndex: number;
  /** Messages kept verbatim after the summary. */
  kept: number;
  /** Estimated tokens the session no longer carries. */
  tokensFreed: number;
  how: 'baton' | 'runtime';
}

export interface AsToolOptions {
  /** The tool's name (default "baton_orchestrator"): letters, digits, "_" or "-". */
  name?: string;
  /** What the calling model reads about the tool. */
  description?: string;
  /** 'fresh' (default): a new conversation per call; 'shared': the conversation the call names. */
  sessionScope?: 'fresh' | 'shared';
}

export interface BatonToolInvokeOptions {
  signal?: AbortSignal;
  /** For sessionScope 'shared': the conversation to join (default: the panel's). */
  conversation?: string;
}

/** The few VS Code classes `languageModelTool` needs: pass `vscode` itself. */
export interface VscodeLmClasses {
  LanguageModelToolResult: new (content: unknown[]) => unknown;
  LanguageModelTextPart: new (value: string) => unknown;
}

export interface BatonAgentTool {
  readonly name: string;
  readonly description: string;
  /** JSON schema of the input: `{ message: string }`. */
  readonly parameters: { type: 'object'; properties: { message: { type: 'string'; description: string } }; required: ['message']; additionalProperties: false };
  /** Runs one turn and resolves with Baton's reply as text; bad input and failures reject with a BatonError. */
  invoke(input: { message: string }, options?: BatonToolInvokeOptions): Promise<string>;
  /** The Copilot SDK's handler (`defineTool(tool.name, tool)` uses it): a 'shared' tool joins the calling session's conversation. */
  handler(args: { message: string }, invocation: { sessionId: string }): Promise<string>;
  /** A `vscode.LanguageModelTool` for `vscode.lm.registerTool` (cancellation follows the token). */
  languageModelTool(vscode: VscodeLmClasses): {
    invoke(
      options: { input: { message: string } },
      token: { isCancellationRequested: boolean; onCancellationRequested(listener: () => void): { dispose(): void } },
    ): Promise<unknown>;
  };
}

interface V2Fields {
  conversation: string;
}

export type BatonEventV2 =
  | (Extract<BatonEvent, { type: 'turn.starting' | 'turn.streaming' | 'turn.completed' | 'turn.failed' | 'turn.cancelled' }> & V2Fields)
  /** The session the turn found: the live or saved one (resumed), a new one (created), or a replaced one with context (recovered). */
  | { type: 'session.loaded'; turnId: string; conversation: string; sessionId?: string; how: 'resumed' | 'created' | 'recovered'; reason: string }
  /** The definition signature compared with the session's; `action` says what followed. */
  | {
      type: 'drift.checked';
      turnId: string;
      conversation: string;
      drifted: boolean;
      signature: string;
      previous?: string;
      action: 'none' | 'renewed' | 'refused' | 'forced';
    }
  /** A compaction holds the conversation: the turn waits for it. */
  | { type: 'lock.waiting'; turnId: string; conversation: string; holder: 'compaction' }
  /** What the turn sends besides the message: the context riding on it, caller history, and the memories matched to it. */
  | {
      type: 'history.windowed';
      turnId: string;
      conversation: string;
      context: 'none' | 'recovery' | 'summary';
      history: number;
      memories: Array<{ id: number; category: BatonMemory['category'] }>;
      promptChars: number;
    }
  /** `source`: who decided (a keyword rule, the classifier, or a fixed rule/setting); `raw`: the decision as made. */
  | (Extract<BatonEvent, { type: 'turn.routed' }> &
      V2Fields & { source: 'keyword' | 'classifier' | 'fixed'; raw: { reason: string; tier: string; classifier?: string } })
  | { type: 'checkpoint.persisted'; turnId: string; conversation: string; turnIndex: number }
  | { type: 'compaction.suggested'; turnId?: string; conversation: string; turns: number; afterTurns: number; keep: number }
  | ({ type: 'compaction.applied'; turnId?: string; conversation: string } & BatonCompaction)
  /** The turn ended with `waitingOn` questions to the user still open (a permission, an apply confirm); `text` is the reply. */
  | { type: 'turn.awaiting-input'; turnId: string; conversation: string; origin: BatonTurnOrigin; text: string; model: string; waitingOn: number }
  | (Extract<BatonEvent, { type: 'worker.started' | 'worker.progress' | 'worker.finished' }> & V2Fields)
  /** A worker's task ended with changes to review: in its worktree (or the folder it changed in place). */
  | { type: 'worker.changes-ready'; worker: string; conversation: string; workingDir: string; files: string[] }
  /**
   * The conversation was taken back to just before the user's message `messageId` (an Edit or Retry in the panel, the
   * Chat view's, or `rewind`): that message and everything after it are gone. `how`: the session was cut there
   * ('truncated'), or replaced by a new one started from the messages before it ('replaced').
   */
  | { type: 'conversation.rewound'; conversation: string; messageId: string; how: 'truncated' | 'replaced' };

export type BatonEventV2Name = BatonEventV2['type'];
export type BatonEventV2Of<K extends BatonEventV2Name> = Extract<BatonEventV2, { type: K }>;
