// A turn as the orchestrator's queue holds it, and how its end is reported to whoever queued it.
import type { ReadableError } from '../copilot/errors';
import type { Origin, TurnOptions, TurnResult } from './events';

export interface TurnHandle {
  turnId: string;
  logId: number;
  /** Resolves when the turn leaves the queue for the session; rejects if Baton closes first. */
  started: Promise<void>;
  /** Resolves with the settled reply (complete, partial or cancelled); rejects with a ReadableError-bearing error. */
  done: Promise<TurnResult>;
}

/** The turn was cut short because Baton is closing (window reload or quit), not by the user. */
export class BatonClosingError extends Error {
  constructor() {
    super('Baton was closed while answering this message.');
    this.name = 'BatonClosingError';
  }
}

/** The turn was withdrawn while it waited to send (behind a summary): it ends as a queued one taken out does. */
export class TurnWithdrawnError extends Error {
  constructor() {
    super('The message was withdrawn before it was sent.');
    this.name = 'TurnWithdrawnError';
  }
}

export class TurnError extends Error {
  constructor(
    readonly readable: ReadableError,
    readonly partial: string,
  ) {
    super(readable.message);
    this.name = 'TurnError';
  }
}

export interface QueuedTurn {
  turnId: string;
  prompt: string;
  origin: Origin;
  logId: number;
  resolve: (r: TurnResult) => void;
  reject: (e: unknown) => void;
  markStarted: () => void;
  abandon: (e: unknown) => void;
  /** A resend: the session may already have the prompt, so it is asked before anything is sent. */
  resend?: boolean;
  /** The message as written (no channel tag, no context): what relevant memories are matched to. */
  text?: string;
  /** What the caller asked of this turn (drift handling, history). */
  options?: TurnOptions;
}

/** A task's `drop` is called when the queue closes before it ran. */
export type Job = { kind: 'turn'; turn: QueuedTurn } | { kind: 'task'; run: () => Promise<void>; drop?: () => void };
