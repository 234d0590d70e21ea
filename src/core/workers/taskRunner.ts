// One worker task: the prompt goes through the shared run loop (AgentSession.run) and whatever
// ends it (idle, a session error, the time limit, a kill, a lost runtime) becomes a TaskOutcome.
// Invariant: when the task settles, its abort signal fires ('settled') so any permission prompt
// still open for it is withdrawn from the panel.
import type { AgentSession } from '../copilot/agentSessions';
import { AgentError, firstLine } from '../copilot/errors';
import type { TaskOutcome } from './workerMessages';
import { WorkerError, type StopReason, type Worker } from './workerTypes';

const DEFAULT_TIMEOUT_MS = 600_000;

export interface TaskDeps {
  ensureSession: () => Promise<AgentSession>;
  /** baton.workers.timeoutMs as configured (checked here). */
  timeoutMs: number;
  now: () => number;
}

export async function runTask(w: Worker, prompt: string, abort: AbortController, deps: TaskDeps): Promise<TaskOutcome> {
  const output = (): string => w.transcript.taskOutput();
  let session: AgentSession;
  try {
    session = await deps.ensureSession();
    if (w.task) w.task.hasSession = true;
  } catch (err) {
    return { kind: 'failed', output: '', error: err instanceof WorkerError ? err.message : `its session could not be opened (${firstLine(err)})` };
  }
  const configured = Number(deps.timeoutMs);
  const limitMs = Number.isFinite(configured) && configured > 0 ? configured : DEFAULT_TIMEOUT_MS;
  const stopped = (reason: StopReason): TaskOutcome => {
    switch (reason.kind) {
      case 'timeout':
        return { kind: 'timed_out', output: output(), elapsedMs: deps.now() - w.startedAt, limitMs };
      case 'lost':
        return { kind: 'failed', output: output(), error: reason.error };
      case 'killed':
        return { kind: 'killed', output: output(), by: reason.by };
      default:
        return { kind: 'failed', output: output(), error: 'stopped' };
    }
  };
  if (abort.signal.aborted) return stopped(abort.signal.reason as StopReason);
  const timer = setTimeout(() => abort.abort({ kind: 'timeout' } satisfies StopReason), limitMs);
  try {
    await session.run(prompt, { signal: abort.signal });
    // Registered after the transcript's listener, so the final message is already collected.
    return { kind: 'completed', output: output() };
  } catch (err) {
    if (abort.signal.aborted) return stopped(abort.signal.reason as StopReason);
    if (err instanceof AgentError && err.kind === 'connection') return { kind: 'failed', output: output(), error: 'the Copilot runtime stopped' };
    return { kind: 'failed', output: output(), error: firstLine(err) };
  } finally {
    clearTimeout(timer);
    // Withdraws any permission prompt still open for this task.
    if (!abort.signal.aborted) abort.abort({ kind: 'settled' } satisfies StopReason);
  }
}
