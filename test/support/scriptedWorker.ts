// A worker scripted on the scripted model server, as the integration and e2e tests drive one: the orchestrator
// delegates from the panel (create_worker_session, then a short reply), the worker acts on its prompt (a shell command
// or its own tool calls) and reports, and the orchestrator answers the completion message that carries the report.
// One place for those rules, so a test says only what its worker does.
import type { ScriptedModelServer, ToolCallSpec } from './scriptedModelServer';

/** The orchestrator's side of a delegation from the panel. */
export interface Delegation {
  /** What the user sends in the panel. */
  prompt: string;
  worker: string;
  workingDir: string;
  /** The worker's initial prompt. */
  task: string;
  /** The orchestrator's reply once the worker is started. */
  started: string;
}

/** `prompt` in the panel: a create_worker_session call for the worker, then `started`. */
export function scriptDelegation(server: ScriptedModelServer, d: Delegation): void {
  server.on(
    { lastUserIncludes: `[via panel] ${d.prompt}`, afterToolResult: false, name: `orchestrator delegates to ${d.worker}` },
    { toolCalls: [{ name: 'create_worker_session', arguments: { name: d.worker, working_dir: d.workingDir, initial_prompt: d.task } }] },
  );
  server.on({ lastUserIncludes: `[via panel] ${d.prompt}`, afterToolResult: true, name: `orchestrator says ${d.worker} started` }, { text: d.started });
}

let toolCallIds = 0;

/** One round of a worker: it acts on a prompt, then reports; the orchestrator answers its completion message. */
export interface WorkerRound {
  worker: string;
  /** Text of the prompt this round answers (its task, or a follow-up); left out, any prompt of this worker. */
  prompt?: string;
  /** What it does: a shell command (the runtime's bash tool) or its own tool calls. */
  does: { command: string } | { toolCalls: ToolCallSpec[] };
  /** Its last message: what the orchestrator is told as the worker's output. */
  report: string;
  /** The orchestrator's reply to the completion message (default `noted <worker>`). */
  answer?: string;
  /** Milliseconds before the worker acts (to hold it mid-task). */
  delayMs?: number;
}

/** Scripts one round; the rules are named after the worker (and the round's prompt), as `server.pending()` lists them. */
export function scriptWorkerRound(server: ScriptedModelServer, round: WorkerRound): void {
  const { worker, prompt, report } = round;
  const label = prompt ? `${worker} (${prompt})` : worker;
  // The worker's own session: its system message names it (a finished worker resolving conflicts is named the same way).
  const mine = { systemIncludes: `You are '${worker}'`, ...(prompt !== undefined ? { lastUserIncludes: prompt } : {}) };
  const toolCalls =
    'command' in round.does
      ? [{ id: `${worker}-bash-${++toolCallIds}`, name: 'bash', arguments: { command: round.does.command, description: 'edit' } }]
      : round.does.toolCalls;
  server.on({ ...mine, afterToolResult: false, name: `${label} acts` }, { toolCalls, ...(round.delayMs ? { delayMs: round.delayMs } : {}) });
  server.on({ ...mine, afterToolResult: true, name: `${label} reports` }, { text: report });
  server.on(
    { lastUserIncludes: `[Background task completed] Worker '${worker}' finished:\n\n<worker-output>\n${report}`, name: `result of ${label}` },
    { text: round.answer ?? `noted ${worker}` },
  );
}

/**
 * What worker `worker`'s tool calls returned, as its model saw them: a scripted worker reports what its round says
 * whatever its command did, so a test that finds no change names this (a command whose sandbox failed to start).
 */
export function workerToolResults(server: ScriptedModelServer, worker: string): string[] {
  const seen = new Set<string>();
  return server
    .chatRequests()
    .filter((r) => r.systemText.includes(`You are '${worker}'`))
    .flatMap((r) => r.messages)
    .filter((m) => m.role === 'tool' && !seen.has(String(m.tool_call_id)) && seen.add(String(m.tool_call_id)))
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
}
