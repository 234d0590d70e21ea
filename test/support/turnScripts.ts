// The scripts a test gives the in-memory runtime for each run (reply, fail, hang, tool calls) and what a script
// can do; separate from the runtime so a test reads its vocabulary in one short file.
import type { PromptRecord, SessionSpec } from '../../src/core/copilot/agentSessions';
import { AgentError, type ErrorClass } from '../../src/core/copilot/errors';
import type { InMemoryAgentSession } from './inMemoryAgentSession';

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
