// Every Baton tool is defined here, one way: arguments come from the model, so they are validated
// with zod (the SDK passes them through unchecked), and every failure goes back to the model as a
// clear message it can act on, never as a crash of the turn.
// Invariant: within one orchestrator turn a side effect happens once for each call the model makes. A runtime killed
// inside a tool loses the result but not the effect; the retried turn asks again (same call id, or the same tool with
// the same arguments) and the journal hands back the first result instead.
import { createHash } from 'node:crypto';
import { defineTool } from '@github/copilot-sdk';
import type { z } from 'zod';
import type { SdkTool, ToolInvocation, ToolResultObject } from './sdkTypes';

/** A tool as sessions take it (opaque outside src/core/copilot/). */
export type BatonTool = SdkTool<unknown>;

/** A failure worth telling the model as is (bad name, limit reached, protected path ...). */
export class ToolFailure extends Error {
  constructor(
    message: string,
    /**
     * What the model can do about it, in its tools' names ("Use send_to_worker…"): added to what a tool answers, never
     * to what people read (the same error reaches a VS Code command's message, where a tool's name means nothing).
     */
    readonly toolHint?: string,
  ) {
    super(message);
    this.name = 'ToolFailure';
  }
}

export interface BatonToolSpec<S extends z.ZodType> {
  name: string;
  description: string;
  schema: S;
  /** The tool changes something (starts a worker, saves a memory): journaled, so a retried turn does not repeat it. */
  sideEffect?: boolean;
  run: (args: z.output<S>, call: { toolCallId: string }) => Promise<string> | string;
}

type Outcome = string | ToolResultObject;

/**
 * What one tool result may hold, in UTF-8 bytes. The runtime hands the model a tool's result only up to 20 KB (20,480
 * bytes, measured); a longer one it saves to a file and passes the file's path instead, which the orchestrator, with
 * no file tools, cannot read. So a result is kept under it, cut with a note; tools that can say more (a wiki page, a
 * diff) give it in parts or bounded below it.
 */
export const TOOL_OUTPUT_BYTES = 20_000;
const CUT_NOTE = '\n\n[Output cut here: a tool result reaches the model only up to 20 KB.]';

/** The longest start of `text` that is at most `bytes` in UTF-8 (never half a character), in UTF-16 units. */
export function fittingChars(text: string, bytes: number): number {
  if (text.length * 3 <= bytes) return text.length;
  return new TextEncoder().encodeInto(text.slice(0, bytes), new Uint8Array(bytes)).read;
}

/** `text` as the model can receive it: whole when it fits, else its start and a note. */
export function fitToolOutput(text: string): string {
  if (Buffer.byteLength(text) <= TOOL_OUTPUT_BYTES) return text;
  return text.slice(0, fittingChars(text, TOOL_OUTPUT_BYTES - Buffer.byteLength(CUT_NOTE))) + CUT_NOTE;
}

/**
 * Results of the running turn's tool calls, by call id and (for side effects) by tool and arguments. One per
 * conversation: two conversations answer at once, and one turn's begin() cleared the other's entries.
 *
 * Within one attempt of a turn every call runs: "remember X, forget X, remember X" is three effects, and an answer
 * from the journal there told the model the third was done when it was not. A retried attempt (retrying(), after a
 * killed runtime) is where a call comes again for an effect that already happened: each call of the same tool with the
 * same arguments is answered from one of the earlier attempts' results, in order, once; beyond those it runs.
 */
export class ToolJournal {
  private scope: string | undefined;
  private attempt = 0;
  private readonly byCall = new Map<string, Promise<Outcome>>();
  /** Per tool and arguments, the results of its runs, each with the attempt that last used it. */
  private readonly byArgs = new Map<string, Array<{ result: Promise<Outcome>; usedIn: number }>>();
  /** How many calls were answered from the journal (tests and the log read it). */
  replays = 0;

  constructor(private readonly onReplay: () => void = () => undefined) {}

  /** Starts a turn's scope; entries of the previous turn are dropped. */
  begin(scope: string): void {
    this.scope = scope;
    this.clear();
  }

  /** The turn is tried again: the calls it makes may be ones whose effect an earlier attempt had. */
  retrying(scope: string): void {
    if (this.scope === scope) this.attempt++;
  }

  end(scope: string): void {
    if (this.scope !== scope) return;
    this.scope = undefined;
    this.clear();
  }

  /** Runs `fn` unless call `callId`, or (`argsKey`) an earlier attempt's same call, ran; outside a turn it just runs. */
  once(callId: string, argsKey: string | undefined, fn: () => Promise<Outcome>): Promise<Outcome> {
    if (!this.scope) return fn();
    const seen = this.byCall.get(callId) ?? (argsKey === undefined ? undefined : this.earlier(argsKey));
    if (seen) {
      this.replays++;
      this.onReplay();
      return seen;
    }
    const result = fn();
    this.byCall.set(callId, result);
    if (argsKey !== undefined) this.byArgs.set(argsKey, [...(this.byArgs.get(argsKey) ?? []), { result, usedIn: this.attempt }]);
    return result;
  }

  /** The first result of `argsKey` no call of this attempt has taken yet, taken now. */
  private earlier(argsKey: string): Promise<Outcome> | undefined {
    const run = this.byArgs.get(argsKey)?.find((r) => r.usedIn < this.attempt);
    if (run) run.usedIn = this.attempt;
    return run?.result;
  }

  private clear(): void {
    this.attempt = 0;
    this.byCall.clear();
    this.byArgs.clear();
  }
}

export function defineBatonTool<S extends z.ZodType>(spec: BatonToolSpec<S>, journal?: ToolJournal): BatonTool {
  const { name, schema } = spec;
  const call = async (raw: unknown, invocation: ToolInvocation): Promise<Outcome> => {
    const parsed = schema.safeParse(raw ?? {});
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ');
      return failure(`Invalid arguments for ${name}: ${issues}. Fix them and call ${name} again.`);
    }
    try {
      return fitToolOutput(await spec.run(parsed.data, { toolCallId: invocation.toolCallId }));
    } catch (err) {
      if (err instanceof ToolFailure) return failure(err.toolHint ? `${err.message} ${err.toolHint}` : err.message);
      return failure(`${name} failed: ${err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err)}`);
    }
  };
  return defineTool<unknown>(name, {
    description: spec.description,
    parameters: schema as unknown as z.ZodType<unknown>,
    // Baton's own tools check their arguments and paths themselves; workers ask the user where it matters.
    skipPermission: true,
    handler: (raw: unknown, invocation: ToolInvocation) => {
      if (!journal) return call(raw, invocation);
      return journal.once(invocation.toolCallId, spec.sideEffect ? `${name}:${digest(raw)}` : undefined, () => call(raw, invocation));
    },
  }) as BatonTool;
}

/** `defineBatonTool` in positional form, bound to one journal: how each tool family (workers, squads, wiki …) declares its tools. */
export function toolMaker(journal?: ToolJournal) {
  return <S extends z.ZodType>(
    name: string,
    description: string,
    schema: S,
    run: (args: z.output<S>) => Promise<string> | string,
    sideEffect = false,
  ): BatonTool => defineBatonTool({ name, description, schema, run, sideEffect }, journal);
}

function failure(message: string): ToolResultObject {
  const fitted = fitToolOutput(message);
  return { textResultForLlm: fitted, resultType: 'failure', error: fitted };
}

/** A stable digest of JSON arguments: key order does not matter. */
function digest(value: unknown): string {
  return createHash('sha256').update(stableJson(value)).digest('hex').slice(0, 16);
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
