// What callers outside Baton hand it (another extension through the API, a model through a
// language-model tool) is validated here, once, with zod; a bad value gets a message that says
// which field is wrong and what it should be. package.json's languageModelTools carry the JSON
// schema of these (a unit test keeps the two equal).
import { z } from 'zod';
import { MEMORY_CATEGORIES, type MemoryCategory } from '../store/types';

const WORKER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,47}$/;

const workerName = z
  .string()
  .regex(WORKER_NAME, 'use 1-48 letters, digits, ".", "_" or "-", starting with a letter or digit (e.g. "auth-fix")')
  .describe('Short worker name: letters, digits, ".", "_" or "-", e.g. "auth-fix". Default: made from the task.');

export const delegateInput = z
  .object({
    task: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(20_000, 'keep the task under 20,000 characters')
      .describe('The complete, self-contained task for the worker: what to change or run, and how to tell it is done.'),
    folder: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .describe('Absolute path of the folder the worker works in ("~" allowed). It edits files and runs commands only there.'),
    name: workerName.optional(),
    wait: z
      .boolean()
      .optional()
      .describe('true: return when the worker has finished, with its report. false (default): return at once with the worker\u2019s name.'),
  })
  .strict();

export const askInput = z
  .object({
    question: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(100_000, 'keep the message under 100,000 characters')
      .describe('The message for Baton\u2019s orchestrator, as the user would type it in Baton\u2019s panel.'),
  })
  .strict();

export const workersInput = z
  .object({
    name: workerName.optional().describe('One worker\u2019s name, for its detailed status and the end of its output. Leave out to list every worker.'),
  })
  .strict();

export const recallInput = z
  .object({
    keyword: z.string().trim().max(200, 'keep the keyword under 200 characters').optional().describe('Words to look for; leave out to list everything.'),
    category: z
      .enum(MEMORY_CATEGORIES as [MemoryCategory, ...MemoryCategory[]])
      .optional()
      .describe('Only memories of this kind.'),
    limit: z
      .number()
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(100, 'must be at most 100')
      .optional()
      .describe('At most this many (default 20).'),
  })
  .strict();

export type DelegateInput = z.output<typeof delegateInput>;
export type AskInput = z.output<typeof askInput>;
export type WorkersInput = z.output<typeof workersInput>;
export type RecallInput = z.output<typeof recallInput>;

export const TOOL_INPUTS = {
  baton_delegate: delegateInput,
  baton_ask: askInput,
  baton_workers: workersInput,
  baton_recall: recallInput,
} as const;

export type BatonToolName = keyof typeof TOOL_INPUTS;

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** Validates `raw` against `schema`; the error names every bad field, e.g. "folder: must not be empty". */
export function parseInput<S extends z.ZodType>(what: string, schema: S, raw: unknown): ParseResult<z.output<S>> {
  const parsed = schema.safeParse(raw ?? {});
  if (parsed.success) return { ok: true, value: parsed.data };
  const problems = parsed.error.issues.map((issue) => {
    const field = issue.path.map(String).join('.');
    if (issue.code === 'invalid_type' && valueAt(raw, issue.path) === undefined) return `${field}: is required`;
    if (issue.code === 'unrecognized_keys') return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    return field ? `${field}: ${issue.message}` : issue.message;
  });
  return { ok: false, error: `Invalid input for ${what}: ${problems.join('; ')}.` };
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let v = raw;
  for (const key of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  return v;
}

/** The JSON schema a tool declares (package.json), from the same zod schema that validates it. */
export function toolJsonSchema(name: BatonToolName): Record<string, unknown> {
  const schema = z.toJSONSchema(TOOL_INPUTS[name], { io: 'input' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

/** A worker name from the task's first words, unique among `taken` ("add-a-unit-test", "add-a-unit-test-2"). */
export function workerNameFor(task: string, taken: ReadonlySet<string>): string {
  const words = task
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter(Boolean)
    .slice(0, 4);
  const base = (words.join('-') || 'task').slice(0, 40).replace(/-+$/, '');
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

/** asTool's input: one message for Baton's orchestrator. */
export const agentMessageInput = z
  .object({
    message: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(100_000, 'keep the message under 100,000 characters')
      .describe('The message for Baton\u2019s orchestrator, as a user would type it in Baton\u2019s panel.'),
  })
  .strict();

/** A conversation's id, as the API takes it (ask's option, conversation(id)). */
export const conversationIdInput = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$/, 'use 1-128 letters, digits or _.:@-, starting with a letter or digit');

/** What a caller may pass to ask (version 2) beyond the text. */
export const askOptionsInput = z
  .object({
    conversation: conversationIdInput.optional(),
    history: z
      .array(z.object({ role: z.enum(['user', 'assistant']), content: z.string().max(100_000, 'keep each message under 100,000 characters') }))
      .max(1000, 'pass at most 1,000 messages')
      .optional(),
    onDrift: z.enum(['renew', 'error']).optional(),
    force: z.boolean().optional(),
  })
  // A misspelt option is an error, not ignored: `conversaton: 'x'` would send the message to the panel's conversation.
  .strict();

export const summarizeInput = z
  .object({
    afterTurns: z.number().int('must be a whole number').min(0, 'must be 0 (never) or more'),
    keep: z.number().int('must be a whole number').min(1, 'must be at least 1').max(200, 'must be at most 200'),
  })
  .strict();
