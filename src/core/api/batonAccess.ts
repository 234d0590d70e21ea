// The one way into Baton from outside its panel: the Chat view (@baton), the language-model tools
// and other extensions (the public API) all ask, delegate, list and recall through this, each
// under its own channel, so a reply and a worker's result go back where the request came from.
import type { AskResult, BatonEvent, BatonMemory, BatonWorker, DelegateHandle, RecallQuery, WorkerResult } from '../../../api/baton';
import type { BatonCore } from '../batonCore';
import type { ErrorClass } from '../copilot/errors';
import type { Origin } from '../orchestrator/events';
import type { Logger } from '../util/logger';
import { WorkerError, type ReplyChannel, type WorkerInfo, type WorkerStatus } from '../workers/workerPool';
import { askInput, delegateInput, parseInput, recallInput, workerNameFor } from './apiInputs';
import { BatonEvents, type TurnPort } from './batonEvents';

export type BatonErrorKind = ErrorClass | 'invalid-input' | 'worker';

/** What ask and delegate reject with (api/baton.d.ts BatonError): the kind says what the caller can do. */
export class BatonApiError extends Error {
  override readonly name = 'BatonError' as const;
  constructor(
    readonly kind: BatonErrorKind,
    message: string,
    readonly partial?: string,
    readonly action?: { label: string; command: string },
  ) {
    super(message);
  }
}

export interface AskCallOptions {
  /** The conversation the message goes to (created if unknown); default: the one the panel shows. */
  conversation?: string;
  on?: (event: BatonEvent) => void;
  signal?: AbortSignal;
}

export interface DelegateCallOptions {
  folder: string;
  name?: string;
  on?: (event: BatonEvent) => void;
}

export class BatonAccess {
  readonly events: BatonEvents;

  constructor(
    private readonly core: { orchestrator: TurnPort } & Pick<BatonCore, 'pool' | 'store'>,
    logger: Logger,
  ) {
    this.events = new BatonEvents(core.orchestrator, core.pool, core.store, logger);
  }

  /** A turn of the orchestrator's shared session from `channel`; cancelled turns resolve (status "cancelled"). */
  async ask(text: string, channel: Exclude<ReplyChannel, 'panel'>, opts: AskCallOptions = {}): Promise<AskResult> {
    const input = parseInput('ask', askInput, { question: typeof text === 'string' ? text : undefined });
    if (!input.ok) throw new BatonApiError('invalid-input', input.error);
    if (opts.signal?.aborted) throw new BatonApiError('cancelled', 'The request was cancelled before it was sent.');
    const origin: Origin = { channel, ...(opts.conversation ? { conversation: opts.conversation } : {}) };
    const call = this.events.enqueue(input.value.question, origin, opts.on ?? (() => undefined));
    const onAbort = () => call.cancel();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const result = await call.done;
      return {
        turnId: result.turnId,
        text: result.content,
        status: result.status === 'failed' ? 'partial' : result.status,
        model: result.route.model,
        ...(result.note ? { note: result.note } : {}),
      };
    } catch (err) {
      const readable = (err as { readable?: { kind: ErrorClass; message: string; action?: { label: string; command: string } } }).readable;
      const partial = (err as { partial?: string }).partial;
      if (readable?.kind === 'cancelled') return { turnId: call.turnId, text: partial ?? '', status: 'cancelled', model: '' };
      throw new BatonApiError(readable?.kind ?? 'fatal', readable?.message ?? (err instanceof Error ? err.message : String(err)), partial, readable?.action);
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Starts a fresh worker (a new session) on `task`; resolves once it runs, with its result to come. */
  async delegate(task: string, channel: Exclude<ReplyChannel, 'panel'>, opts: DelegateCallOptions): Promise<DelegateHandle> {
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
      const info = await pool.create({ name, workingDir: input.value.folder, prompt: input.value.task, replyTo: channel });
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

  /** Stops the turn `turnId` if it is the one running (what streamed is kept); false otherwise. */
  stopTurn(turnId: string): boolean {
    return this.events.currentTurn?.turnId === turnId && this.core.orchestrator.stop(turnId);
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
      throw new BatonApiError('invalid-input', err instanceof Error ? err.message : String(err));
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

  dispose(): void {
    this.events.dispose();
  }
}
