// A shell command run by Baton itself (not the model) inside a session's sandbox: the worker's own
// policy (denied paths, read-only paths, writable worktree and TMPDIR, its network mode) and the
// runtime's allowlisted environment, because it is the worker's session that runs it.
// Measured with the bundled runtime 1.0.85 (test/integration/workerVerify.integration.test.ts checks all but the
// second point, which was tried by hand against the scripted server while choosing this RPC):
// - `session.shell.executeUserRequested` runs through the session's sandbox (`cat ~/.ssh/id_rsa`
//   → "No such file or directory"; a write to HOME does not reach the real one), makes no model
//   request, returns stdout and stderr interleaved with the exit code, and keeps only the last
//   ~3.5 KB of a long output ("<output too long - dropped N lines from the start>");
// - `session.shell.exec` does NOT: it read the fake HOME's key. It is never used;
// - there is no timeout parameter: `cancelUserRequested` stops the command (~immediately);
// - the command and its output are added to the session's conversation as a user-run shell
//   command, so the worker sees the result on its next turn.
// - it often ends a command that has written nothing for 10 s (exit -1, at 10.1–10.4 s): a `sleep 12` right after
//   another long run was ended 9 times in 17, and after a reload during a verify its run again 13 times in 17; one
//   that writes at least every 3 s never was (0 in 5). So the command runs beside a keep-alive that writes a lone
//   carriage return every 3 s (withKeepAlive), taken out of the output again; its exit code is the command's own.
// Invariant: without a sandbox in force this refuses (SandboxRequiredError); nothing here runs a
// command unsandboxed, whatever the command says.
import { randomUUID } from 'node:crypto';
import type { CopilotSession } from '@github/copilot-sdk';
import type { SandboxStatus } from './sandbox';
import { fromSdkError } from './sdkErrors';

/** How soon a cancel that found no command in flight (not started yet) is sent again. */
const CANCEL_RETRY_MS = 100;

/**
 * `command` in a subshell, beside a loop that writes a carriage return every 3 s until it ends, so the runtime never
 * sees it silent for 10 s (see above); exits with the command's status. The newline before `)` keeps a command that
 * ends in a comment from swallowing it.
 */
export function withKeepAlive(command: string): string {
  return [
    // Its own `sleep` goes with it (the trap): a sleep left behind would hold the output open up to 3 s more.
    "baton_keepalive() { trap 'kill $s 2>/dev/null; exit' TERM; while :; do sleep 3 & s=$!; wait $s; printf '\\r'; done; }",
    'baton_keepalive & baton_keepalive_pid=$!; (',
    command,
    '); baton_status=$?; kill "$baton_keepalive_pid" 2>/dev/null; exit "$baton_status"',
  ].join('\n');
}

/** The output without the keep-alive's carriage returns (a lone one; a CRLF line end stays). */
function withoutKeepAlive(output: string): string {
  return output.replace(/\r(?!\n)/g, '');
}

export interface SandboxedCommandOptions {
  /** The command is stopped after this long (end 'timed-out'). */
  timeoutMs: number;
  /** Aborting it stops the command (end 'stopped'). */
  signal?: AbortSignal;
}

export interface SandboxedCommandResult {
  /** 'exited': on its own (see exitCode); 'timed-out' / 'stopped': Baton stopped it. */
  end: 'exited' | 'timed-out' | 'stopped';
  /** Undefined when it did not exit on its own, or the runtime could not start it (output says why). */
  exitCode: number | undefined;
  /** stdout and stderr interleaved, as the runtime kept it (the end of a long output). */
  output: string;
  durationMs: number;
}

/** The session has no sandbox in force (off, unsupported here, or failed): the command was not run. */
export class SandboxRequiredError extends Error {
  constructor(
    readonly state: SandboxStatus['state'],
    readonly reason: string,
  ) {
    super(`it runs only inside the worker's sandbox, and ${reason}`);
    this.name = 'SandboxRequiredError';
  }
}

/** Why `status` does not hold a sandbox, or undefined when it does. */
export function withoutSandbox(status: SandboxStatus): string | undefined {
  if (status.state === 'applied' || status.state === 'engaged') return undefined;
  if (status.state === 'off') return 'the sandbox is off (baton.workers.sandbox)';
  return status.reason ? `the sandbox is ${status.state}: ${status.reason}` : `the sandbox is ${status.state}`;
}

export async function runSandboxedCommand(
  session: CopilotSession,
  sandbox: SandboxStatus,
  command: string,
  opts: SandboxedCommandOptions,
): Promise<SandboxedCommandResult> {
  const missing = withoutSandbox(sandbox);
  if (missing) throw new SandboxRequiredError(sandbox.state, missing);
  // Stopped before it began: never started.
  if (opts.signal?.aborted) return { end: 'stopped', exitCode: undefined, output: '', durationMs: 0 };
  const requestId = randomUUID();
  const started = performance.now();
  let stopped: SandboxedCommandResult['end'] | undefined;
  let settled = false;
  let retry: ReturnType<typeof setTimeout> | undefined;
  // A cancel that reaches the runtime before it has started the command finds nothing in flight (`cancelled: false`)
  // and the command then runs to its end: asked again until it is found or the command has returned (seen under load:
  // a kill right as a verify began waited out the kill's own 10 s limit).
  const cancel = (): void => {
    void session.rpc.shell.cancelUserRequested({ requestId }).then(
      (r) => {
        if (!r.cancelled && !settled) retry = setTimeout(cancel, CANCEL_RETRY_MS);
      },
      () => undefined,
    );
  };
  const stop = (end: 'timed-out' | 'stopped'): void => {
    if (stopped) return;
    stopped = end;
    cancel();
  };
  const timer = setTimeout(() => stop('timed-out'), opts.timeoutMs);
  const onAbort = (): void => stop('stopped');
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const result = await session.rpc.shell.executeUserRequested({ requestId, command: withKeepAlive(command) }).catch((err: unknown) => {
      throw fromSdkError(err, 'call');
    });
    const durationMs = Math.round(performance.now() - started);
    const exitCode = typeof result.exitCode === 'number' ? result.exitCode : undefined;
    if (stopped) return { end: stopped, exitCode: undefined, output: withoutKeepAlive(result.output ?? ''), durationMs };
    // A command the runtime could not start (its sandbox failing closed) has no exit code; its reason is in `error`.
    return { end: 'exited', exitCode, output: withoutKeepAlive((exitCode === undefined ? result.error || result.output : result.output) ?? ''), durationMs };
  } finally {
    settled = true;
    clearTimeout(timer);
    clearTimeout(retry);
    opts.signal?.removeEventListener('abort', onAbort);
  }
}
