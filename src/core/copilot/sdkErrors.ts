// Turns what the SDK throws into Baton's typed AgentError, by the error's class and the operation
// that failed (never by its message): the SDK speaks JSON-RPC, so a dead runtime is a
// ConnectionError, and a request the runtime refused is a ResponseError.
import { ConnectionError, ErrorCodes, ResponseError } from 'vscode-jsonrpc/node.js';
import { AgentError, TurnCancelledError, TurnTimeoutError } from './errors';

export type SdkOperation = 'start' | 'create' | 'resume' | 'send' | 'call';

/** Node's error codes for a pipe or socket that went away under us. */
const BROKEN_PIPE = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END', 'ENOENT', 'EACCES']);

export function fromSdkError(err: unknown, op: SdkOperation): AgentError | TurnCancelledError | TurnTimeoutError {
  if (err instanceof AgentError || err instanceof TurnCancelledError || err instanceof TurnTimeoutError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const details = { cause: err };
  if (err instanceof ConnectionError) return new AgentError('connection', message, details);
  // A request that could not be written: the runtime's end of the pipe is gone (EPIPE as the runtime is killed).
  if (err instanceof ResponseError && err.code === ErrorCodes.MessageWriteError) return new AgentError('connection', message, details);
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && BROKEN_PIPE.has(code)) return new AgentError('connection', message, details);
  // The runtime failed to start or to spawn: a fresh start may work, so it counts as a lost connection.
  if (op === 'start') return new AgentError('connection', message, details);
  if (err instanceof ResponseError) {
    // A session the runtime no longer knows (or cannot load) is lost; a refused create is a bad config.
    return new AgentError(op === 'resume' || op === 'send' ? 'session' : 'fatal', message, details);
  }
  return new AgentError('fatal', message, details);
}
