// What Baton's language-model tools do (baton_delegate, baton_ask, baton_workers, baton_recall),
// apart from VS Code: input validation, the confirmation text, and the text result the calling
// model reads. src/vscode/languageModelTools.ts only registers these with vscode.lm.
import { isAbsolute, sep } from 'node:path';
import type { z } from 'zod';
import type { WorkerResult } from '../../../api/baton';
import { expandHome } from '../workers/protectedPaths';
import { formatWorkerList } from '../workers/workerTools';
import { seconds } from '../workers/workerMessages';
import {
  TOOL_INPUTS,
  askInput,
  delegateInput,
  parseInput,
  toolJsonSchema,
  type AskInput,
  type BatonToolName,
  type DelegateInput,
  type RecallInput,
  type WorkersInput,
} from './apiInputs';
import { BatonApiError, replyText, type BatonAccess } from './batonAccess';
import { agentTool, type AgentTool } from './batonAgentTool';

interface ToolInputs {
  baton_delegate: DelegateInput;
  baton_ask: AskInput;
  baton_workers: WorkersInput;
  baton_recall: RecallInput;
}

export const BATON_TOOL_NAMES = Object.keys(TOOL_INPUTS) as BatonToolName[];

/** How much of a delegated task the confirmation shows (a task may hold 20,000 characters). */
const TASK_SHOWN = 400;
const count = (n: number): string => n.toLocaleString('en-US');

/**
 * A relative folder is refused in the tool's own words (its field is `folder`; the pool's message names the
 * orchestrator's `working_dir`), before the user is asked to confirm a call that cannot run.
 */
function checkFolder(folder: string): void {
  // Any home folder does: only whether `~` or $HOME would make it absolute matters here.
  if (!isAbsolute(expandHome(folder, sep))) throw new BatonApiError('worker', `folder must be an absolute path (or start with ~): '${folder}'.`);
}

export interface ToolPreparation {
  invocationMessage: string;
  /** Present for tools that start work: the user confirms first. */
  confirmation?: { title: string; message: string };
}

/** Validated input, or a BatonApiError('invalid-input') that says which field is wrong. */
export function validateToolInput<N extends BatonToolName>(name: N, raw: unknown): ToolInputs[N] {
  const parsed = parseInput(name, TOOL_INPUTS[name] as z.ZodType, raw);
  if (!parsed.ok) throw new BatonApiError('invalid-input', parsed.error);
  // The schema for `name` produced it.
  return parsed.value as ToolInputs[N];
}

/**
 * Side-effect free (VS Code may prepare a call it never makes); throws on bad input so nothing is asked for nothing.
 * With `access`, baton_delegate's folder is checked too (a relative, missing or protected one was confirmed by the user
 * and only then refused), and the confirmation names the folder the worker would really work in.
 */
export function prepareTool(name: BatonToolName, raw: unknown, access?: Pick<BatonAccess, 'workerFolder'>): ToolPreparation {
  switch (name) {
    case 'baton_delegate': {
      const input = validateToolInput('baton_delegate', raw);
      checkFolder(input.folder);
      const folder = access ? access.workerFolder(input.folder) : input.folder;
      const task = input.task.length > TASK_SHOWN ? `${input.task.slice(0, TASK_SHOWN)}…` : input.task;
      const cut = task === input.task ? '' : ` (the first ${count(TASK_SHOWN)} of ${count(input.task.length)} characters)`;
      return {
        invocationMessage: `Starting a Baton worker in ${folder}${input.wait ? ' and waiting for it' : ''}`,
        confirmation: {
          title: 'Start a Baton worker?',
          // What the worker asks is its permission handler's (workerPermissions.ts): with baton.workers.trustWorkingDirectory
          // and a sandbox that holds it, its shell commands in its folder run unasked. The core does not know here which.
          message:
            `A new Copilot session will work in **${folder}**: it can edit files there, and asks before running shell commands ` +
            `unless you trusted its folder (baton.workers.trustWorkingDirectory, with the sandbox on).\n\nTask${cut}:\n\n> ${task.replace(/\n/g, '\n> ')}`,
        },
      };
    }
    case 'baton_ask':
      validateToolInput('baton_ask', raw);
      return { invocationMessage: 'Asking Baton' };
    case 'baton_workers':
      validateToolInput('baton_workers', raw);
      return { invocationMessage: 'Checking Baton\u2019s workers' };
    case 'baton_recall':
      validateToolInput('baton_recall', raw);
      return { invocationMessage: 'Searching Baton\u2019s memories' };
  }
}

/**
 * baton_ask and baton_delegate as agent tools (the shape asTool gives other agents): baton_ask is 'shared', it joins
 * the conversation the call names (default: the panel's); baton_delegate starts a fresh worker per call.
 */
export function batonAgentTools(access: BatonAccess): { baton_ask: AgentTool<typeof askInput>; baton_delegate: AgentTool<typeof delegateInput> } {
  return {
    baton_ask: agentTool({
      name: 'baton_ask',
      description: 'Send one message to Baton\u2019s orchestrator and return its reply.',
      input: askInput,
      parameters: toolJsonSchema('baton_ask'),
      run: async (input, call) =>
        replyText(await access.ask(input.question, 'tool', { signal: call.signal, ...(call.conversation ? { conversation: call.conversation } : {}) })),
    }),
    baton_delegate: agentTool({
      name: 'baton_delegate',
      description: 'Start a Baton worker on a task in a folder.',
      input: delegateInput,
      parameters: toolJsonSchema('baton_delegate'),
      run: async (input, call) => {
        checkFolder(input.folder);
        const job = await access.delegate(input.task, 'tool', { folder: input.folder, name: input.name }, call.signal);
        if (!input.wait) {
          return `Started Baton worker '${job.worker}' in ${job.workingDir}. It works in the background; call baton_workers with name "${job.worker}" to see its progress and its report when it is done.`;
        }
        const result = await untilAborted(job.result, call.signal);
        if (!result)
          return `Stopped waiting; Baton worker '${job.worker}' is still working in ${job.workingDir}. Call baton_workers with name "${job.worker}" for its report later.`;
        return describeResult(result);
      },
    }),
  };
}

/** Runs a tool and returns the text the model reads. Bad input and refusals throw BatonApiError with a readable message. */
export async function runTool(access: BatonAccess, name: BatonToolName, raw: unknown, signal?: AbortSignal, now: () => number = Date.now): Promise<string> {
  switch (name) {
    case 'baton_delegate':
    case 'baton_ask':
      return batonAgentTools(access)[name].invoke(raw as never, { signal });
    case 'baton_workers': {
      const input = validateToolInput('baton_workers', raw);
      if (!input.name) return formatWorkerList(access.workerInfos(), now());
      const status = access.workerStatus(input.name);
      return [
        `Worker '${status.name}': ${status.state}${status.state === 'running' ? ` for ${seconds(status.elapsedMs)}` : ''} in ${status.workingDir}`,
        status.lastOutput ? `Latest output:\n${status.lastOutput}` : 'No output yet.',
      ].join('\n');
    }
    case 'baton_recall': {
      const input = validateToolInput('baton_recall', raw);
      const found = access.recall(input);
      if (!found.length) return 'No memories match.';
      return [`${found.length} ${found.length === 1 ? 'memory' : 'memories'}:`, ...found.map((m) => `- [#${m.id}] (${m.category}) ${m.content}`)].join('\n');
    }
  }
}

export function describeResult(result: WorkerResult): string {
  const how = result.state === 'done' ? 'finished' : result.state === 'timed_out' ? 'timed out' : result.state === 'killed' ? 'was stopped' : 'failed';
  return `Baton worker '${result.worker}' ${how}. Its report:\n\n${result.text}`;
}

/** The promise's value, or undefined once `signal` aborts first. */
function untilAborted<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T | undefined> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
