// What Baton waits on from the runtime outside a turn's run loop (opening a session, switching its model, reading its
// record) is raced here against the end of the client it was asked of. The SDK never rejects a request whose runtime
// died: vscode-jsonrpc rejects pending requests only when the connection is disposed, not when the runtime's stream
// closes (measured: a createSession or resumeSession in flight when the runtime was killed never settled, and the turn,
// its Stop and every message queued behind it waited for ever). A turn's run loop has its own watchdog
// (copilotAgentSession.ts); everything else goes through whileClientLives.
import type { CopilotClient } from '@github/copilot-sdk';
import { AgentError } from './errors';

/** The parts of the SDK's client that tell its runtime is gone (not in its typings; checked by shape). */
interface ClientInternals {
  state?: string;
  connectionClosed?: boolean;
  connection?: { onClose?: (listener: () => void) => { dispose(): void } };
  cliProcess?: {
    exitCode: number | null;
    signalCode: string | null;
    once(event: 'exit', listener: () => void): unknown;
  };
}

/** Whether `client` still has its runtime: connected, its stream open, its process not exited. */
export function clientConnected(client: CopilotClient | undefined): boolean {
  const c = client as unknown as ClientInternals | undefined;
  if (!c || c.state !== 'connected' || c.connectionClosed === true) return false;
  const proc = c.cliProcess;
  return !proc || (proc.exitCode === null && proc.signalCode === null);
}

/** One watch per client, whatever the number of waits on it: a listener per wait on the process would pile up. */
class ClientEnd {
  private readonly waiting = new Set<() => void>();
  private gone = false;

  constructor(private readonly client: CopilotClient) {
    const c = client as unknown as ClientInternals;
    const end = (): void => this.end();
    c.connection?.onClose?.(end);
    c.cliProcess?.once('exit', end);
  }

  /** Calls `listener` once the runtime is gone (soon, if it already is); returns the unsubscribe. */
  whenGone(listener: () => void): () => void {
    if (this.gone || !clientConnected(this.client)) {
      queueMicrotask(listener);
      return () => undefined;
    }
    this.waiting.add(listener);
    return () => this.waiting.delete(listener);
  }

  private end(): void {
    if (this.gone) return;
    this.gone = true;
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const listener of waiting) listener();
  }
}

const ends = new WeakMap<CopilotClient, ClientEnd>();

function endOf(client: CopilotClient): ClientEnd {
  let end = ends.get(client);
  if (!end) ends.set(client, (end = new ClientEnd(client)));
  return end;
}

export interface ClientWaitOptions<T> {
  /** What is waited on, as the error tells it ("opening a session"). */
  what: string;
  /** The caller's own end (a turn's Stop or time limit): the wait rejects with its reason. */
  signal?: AbortSignal;
  /** Past this, a runtime that is alive but does not answer is taken for stuck (a connection error: it is restarted). */
  limitMs?: number;
  /** `work` succeeded after the wait was given up: whatever it opened is let go here (nobody else holds it). */
  abandon?: (late: T) => void;
}

/**
 * `work` (asked of `client`), or an AgentError('connection') as soon as that client's runtime exits or its
 * connection closes; the caller's abort reason when `signal` aborts first.
 */
export function whileClientLives<T>(client: CopilotClient, work: Promise<T>, opts: ClientWaitOptions<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    let unwatch: () => void = () => undefined;
    const onAbort = (): void => giveUp(opts.signal?.reason);
    const end = (): boolean => {
      if (settled) return false;
      settled = true;
      unwatch();
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      return true;
    };
    const giveUp = (err: unknown): void => {
      if (!end()) return;
      reject(err);
      work.then(
        (late) => opts.abandon?.(late),
        () => undefined,
      );
    };
    work.then(
      (value) => {
        if (end()) resolve(value);
      },
      (err: unknown) => {
        if (end()) reject(err);
      },
    );
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    unwatch = endOf(client).whenGone(() => giveUp(new AgentError('connection', `the Copilot runtime exited while ${opts.what}`)));
    if (opts.limitMs !== undefined) {
      const seconds = Math.round(opts.limitMs / 1000);
      timer = setTimeout(() => giveUp(new AgentError('connection', `the Copilot runtime did not finish ${opts.what} within ${seconds}s`)), opts.limitMs);
    }
  });
}
