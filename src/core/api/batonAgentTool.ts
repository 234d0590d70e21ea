// A Baton tool another agent registers (Warlock's asTool): its name, description, JSON-schema input and invoke, in a
// shape the Copilot SDK's defineTool takes as it is (`defineTool(tool.name, tool)`: description, parameters,
// handler) and vscode.lm.registerTool takes through one call (`tool.languageModelTool(vscode)`). Baton's own
// language-model tools (baton_ask, baton_delegate) are built the same way (languageModelTools.ts).
import type { z } from 'zod';
import type { AsToolOptions, BatonToolInvokeOptions, VscodeLmClasses } from '../../../api/baton';
import { parseInput } from './apiInputs';
import { BatonApiError, cancelledBeforeSent } from './batonApiError';

/** What a VS Code cancellation token offers (the tool runs where `vscode` cannot be imported). */
export interface CancellationTokenLike {
  isCancellationRequested: boolean;
  onCancellationRequested(listener: () => void): { dispose(): void };
}

export interface AgentToolSpec<S extends z.ZodType> {
  name: string;
  description: string;
  input: S;
  /** The input's JSON schema, as declared (package.json for Baton's own tools). */
  parameters: Record<string, unknown>;
  /** Runs a validated call; `sdkSession` is the calling Copilot SDK session, when that is who calls. */
  run(input: z.output<S>, options: BatonToolInvokeOptions & { sdkSession?: string }): Promise<string>;
}

export interface AgentTool<S extends z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly parameters: Record<string, unknown>;
  invoke(input: z.input<S>, options?: BatonToolInvokeOptions): Promise<string>;
  handler(args: z.input<S>, invocation: { sessionId: string }): Promise<string>;
  languageModelTool(vscode: VscodeLmClasses): {
    invoke(options: { input: z.input<S> }, token: CancellationTokenLike): Promise<unknown>;
  };
}

export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * An AbortSignal that follows `token`; dispose it when the call ends. A token cancelled before the call is read at
 * once: VS Code tells a listener added to it only a tick later, after the prompt (or the worker) went out.
 */
export function followToken(token: CancellationTokenLike): { signal: AbortSignal; dispose(): void } {
  const abort = new AbortController();
  if (token.isCancellationRequested) abort.abort();
  const listener = token.onCancellationRequested(() => abort.abort());
  return { signal: abort.signal, dispose: () => listener.dispose() };
}

/** asTool's options, checked when the tool is made (a bad name never reaches an agent's registry). */
export function checkAsToolOptions(options: AsToolOptions = {}): { name: string; shared: boolean } {
  if (typeof options !== 'object' || options === null)
    throw new BatonApiError('invalid-input', 'Invalid input for asTool: options: must be an object (or left out).');
  if (options.description !== undefined && typeof options.description !== 'string')
    throw new BatonApiError('invalid-input', 'Invalid input for asTool: description: must be a string.');
  const name = options.name ?? 'baton_orchestrator';
  if (typeof name !== 'string' || !TOOL_NAME.test(name))
    throw new BatonApiError('invalid-input', 'Invalid input for asTool: name: use 1-64 letters, digits, "_" or "-".');
  if (options.sessionScope !== undefined && options.sessionScope !== 'fresh' && options.sessionScope !== 'shared')
    throw new BatonApiError('invalid-input', 'Invalid input for asTool: sessionScope: must be "fresh" or "shared".');
  return { name, shared: options.sessionScope === 'shared' };
}

export function agentTool<S extends z.ZodType>(spec: AgentToolSpec<S>): AgentTool<S> {
  const validated = (raw: unknown): z.output<S> => {
    const parsed = parseInput(spec.name, spec.input, raw);
    if (!parsed.ok) throw new BatonApiError('invalid-input', parsed.error);
    return parsed.value;
  };
  const invoke = (input: z.input<S>, options: BatonToolInvokeOptions & { sdkSession?: string } = {}): Promise<string> =>
    Promise.resolve().then(() => {
      const checked = validated(input);
      // As ask does: nothing is sent (no turn queued, no worker started) for a call cancelled already.
      if (options?.signal?.aborted) throw cancelledBeforeSent();
      return spec.run(checked, options);
    });
  return {
    name: spec.name,
    description: spec.description,
    parameters: spec.parameters,
    invoke: (input, options) => invoke(input, options),
    handler: (args, invocation) => invoke(args, { sdkSession: invocation?.sessionId }),
    languageModelTool: (vscode) => ({
      invoke: async (options, token) => {
        const cancel = followToken(token);
        try {
          const text = await invoke(options.input, { signal: cancel.signal });
          return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
        } finally {
          cancel.dispose();
        }
      },
    }),
  };
}
