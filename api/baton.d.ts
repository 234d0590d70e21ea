/**
 * Baton's public API: what `vscode.extensions.getExtension('baton-dev.baton')!.activate()` resolves to
 * (also `extension.exports` once active). Copy this file into your extension to type it.
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
 * Every message goes into the same orchestrator queue as Baton's panel and @baton in the Chat view (one
 * conversation, one log); the panel shows it tagged "via api".
 *
 * Events come at two levels: per call (`ask(text, { on })`, `delegate(task, { on })`: only that call's events) and
 * per instance (`baton.on(type, handler)`: every turn and worker, whichever channel started it). Instance handlers
 * run first. Within one call, a handler receives each event exactly once, in this order:
 *
 *   turn.starting → turn.routed → (turn.streaming | worker.started)* → one of turn.completed | turn.failed | turn.cancelled
 *   worker.started → worker.progress* → worker.finished (→ worker.changes-ready, reserved)
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
  kind: 'connection' | 'session' | 'transient' | 'auth' | 'fatal' | 'cancelled' | 'invalid-input' | 'worker';
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
  /**
   * Reserved: a worker's changes are ready to review (a worktree or a diff). Declared so handlers can be written now;
   * this version never fires it.
   */
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
