// Failures as types, after IO: a connection error means the runtime itself is gone (reset the
// client and the session), a session error means only the session is (recreate or resume it), a
// transient error is worth another try, and anything else fails the turn at once.
// Invariant: the kind is decided where the failure is first seen, from structured data (the
// error's class, the runtime's errorType and status code, its auth status), never from the
// English text of a message. Everything downstream branches on `kind`.

export type ErrorClass = 'connection' | 'session' | 'transient' | 'auth' | 'fatal' | 'cancelled';

/** An error as Baton shows it: what happened, in words, and what the user can do about it. */
export interface ReadableError {
  kind: ErrorClass;
  message: string;
  action?: { label: string; command: string };
}

/** A failure of the Copilot runtime or one of its sessions, already classified. */
export class AgentError extends Error {
  constructor(
    readonly kind: Exclude<ErrorClass, 'cancelled'>,
    message: string,
    readonly details: {
      errorType?: string;
      statusCode?: number;
      cause?: unknown;
      /**
       * The runtime already retried the request itself before it reported the error (a model service's 429 or 5xx:
       * measured, six requests over ~15 s for a 503). Tried again by Baton, each try is the runtime's six again.
       */
      retriedByRuntime?: boolean;
    } = {},
  ) {
    super(message);
    this.name = 'AgentError';
  }
}

export class TurnCancelledError extends Error {
  constructor(message = 'Stopped') {
    super(message);
    this.name = 'TurnCancelledError';
  }
}

export class TurnTimeoutError extends Error {
  constructor(readonly limitMs: number) {
    super(`The turn did not finish within ${Math.round(limitMs / 1000)}s`);
    this.name = 'TurnTimeoutError';
  }
}

/**
 * The kind of a session.error event, from its errorType and status code. `query` errors without a
 * status are what the runtime reports for a missing sign-in too, so the caller asks the runtime's
 * auth status before settling on 'fatal' (see CopilotAgentSession).
 */
export function kindOfSessionError(errorType: string | undefined, statusCode: number | undefined): Exclude<ErrorClass, 'cancelled'> {
  if (statusCode === 401 || statusCode === 403) return 'auth';
  if (errorType === 'authentication' || errorType === 'authorization') return 'auth';
  if (statusCode === 429 || errorType === 'rate_limit') return 'transient';
  if (statusCode !== undefined && statusCode >= 500) return 'transient';
  return 'fatal';
}

/** The class of any error Baton may catch; anything not typed by the seam is a bug, so fatal. */
export function classifyError(err: unknown): ErrorClass {
  if (err instanceof TurnCancelledError) return 'cancelled';
  if (err instanceof TurnTimeoutError) return 'transient';
  if (err instanceof AgentError) return err.kind;
  return 'fatal';
}

export function isRetryable(kind: ErrorClass): boolean {
  return kind === 'connection' || kind === 'session' || kind === 'transient';
}

/** Strips stack traces and JSON noise so the user reads one sentence. */
export function firstLine(err: unknown): string {
  const raw = err instanceof Error ? err.message : typeof err === 'string' ? err : JSON.stringify(err);
  const line = (raw ?? 'unknown error').split('\n').find((l) => l.trim().length > 0) ?? 'unknown error';
  return line.replace(/^Error:\s*/, '').slice(0, 300);
}

export function toReadableError(err: unknown, providerType: string): ReadableError {
  const kind = classifyError(err);
  const cause = firstLine(err);
  switch (kind) {
    case 'auth':
      return providerType === 'copilot'
        ? {
            kind,
            message: `Sorry, I hit an error: Copilot needs you to sign in (${cause}). Run Baton: Sign In to GitHub Copilot, or \`copilot login\` in a terminal, or configure another provider.`,
            action: { label: 'Sign in', command: 'baton.signIn' },
          }
        : {
            kind,
            message: `Sorry, I hit an error: the ${providerType} provider rejected the API key (${cause}). Set the key again.`,
            action: { label: 'Set API key', command: 'baton.setProviderKey' },
          };
    case 'connection':
      return {
        kind,
        message: `Sorry, I hit an error: the Copilot runtime stopped answering (${cause}). I restarted it; send your message again.`,
        action: { label: 'Run Baton: Doctor', command: 'baton.doctor' },
      };
    case 'transient':
      return { kind, message: `Sorry, I hit an error: the model service is busy or slow (${cause}). Try again in a moment.` };
    case 'session':
      return { kind, message: `Sorry, I hit an error: the chat session was lost (${cause}). Send your message again to continue in a new session.` };
    case 'cancelled':
      return { kind, message: 'Stopped.' };
    default:
      return {
        kind,
        message: `Sorry, I hit an error: ${cause}`,
        action: { label: 'Show log', command: 'baton.showLog' },
      };
  }
}
