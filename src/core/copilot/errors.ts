// Failure classification, after IO: a connection error means the runtime itself is gone (reset the
// client and the session), a session error means only the session is (recreate or resume it), a
// transient error is worth another try, and anything else fails the turn at once.

export type ErrorClass = 'connection' | 'session' | 'transient' | 'auth' | 'fatal' | 'cancelled';

/** An error as Baton shows it: what happened, in words, and what the user can do about it. */
export interface ReadableError {
  kind: ErrorClass;
  message: string;
  action?: { label: string; command: string };
}

/** A failure reported by the runtime as a session.error event (not thrown by the SDK). */
export class SessionFailure extends Error {
  constructor(
    message: string,
    readonly errorType: string,
    readonly statusCode?: number,
  ) {
    super(message);
    this.name = 'SessionFailure';
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

const CONNECTION = /disconnect|EPIPE|ECONNRESET|ECONNREFUSED|socket (hang up|closed)|connection (is )?(closed|disposed|lost)|stream (was )?destroyed|spawn|ENOENT.*copilot|runtime (exited|is not running)|client (is )?not (started|connected)|write after end|pending response rejected/i;
const SESSION = /session.*(expired|closed|not found|invalid|does not exist|unknown)|(expired|unknown|invalid) session|no session/i;
const AUTH = /unauthori[sz]ed|not authenticated|authentication|\b401\b|\b403\b|forbidden|sign in|login required|no (github )?token|copilot (plan|subscription)/i;
const TRANSIENT = /timeout|timed out|temporar|rate limit|\b429\b|\b5\d\d\b|overloaded|ETIMEDOUT|EAI_AGAIN/i;

export function classifyError(err: unknown): ErrorClass {
  if (err instanceof TurnCancelledError) return 'cancelled';
  if (err instanceof SessionFailure) {
    const status = err.statusCode;
    if (status === 401 || status === 403 || /auth/i.test(err.errorType)) return 'auth';
    if (status === 400 || status === 404 || status === 413 || status === 422) return 'fatal';
    if (status === 429 || (status !== undefined && status >= 500)) return 'transient';
    if (SESSION.test(err.message)) return 'session';
  }
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  if (/abort|cancel/i.test(text) && !/timeout/i.test(text)) return 'cancelled';
  if (SESSION.test(text)) return 'session';
  if (CONNECTION.test(text)) return 'connection';
  if (AUTH.test(text)) return 'auth';
  if (TRANSIENT.test(text)) return 'transient';
  return 'fatal';
}

export function isRetryable(kind: ErrorClass): boolean {
  return kind === 'connection' || kind === 'session' || kind === 'transient';
}

/** Strips stack traces and JSON noise so the user reads one sentence. */
function firstLine(err: unknown): string {
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
            message: `Sorry, I hit an error: Copilot rejected the sign-in (${cause}). Sign in with GitHub in VS Code (Accounts menu) or run \`copilot login\` in a terminal, or configure another provider.`,
            action: { label: 'Configure a provider', command: 'baton.setProviderKey' },
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
