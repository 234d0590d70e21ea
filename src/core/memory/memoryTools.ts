// The orchestrator's long-term memory tools. Arguments come from the model, so they are validated here (the SDK passes
// them through as they came); a bad call gets a failure result that says what to fix, and the turn goes on.
import { z } from 'zod';
import { defineBatonTool, type BatonTool, type ToolJournal } from '../copilot/batonTool';
import { MEMORY_CATEGORIES, type BatonStore, type Memory } from '../store/types';
import { oneLine } from './memorySummary';

const categorySchema = z
  .enum(MEMORY_CATEGORIES as [Memory['category'], ...Memory['category'][]])
  .describe(
    'preference: how the user likes things done; fact: something true about the world or the user; project: a codebase, its layout or conventions; person: someone the user works with; routine: a recurring schedule or habit',
  );

const rememberArgs = z.object({
  category: categorySchema,
  content: z
    .string()
    .trim()
    .min(1, 'content must not be empty')
    .max(1000, 'keep a memory under 1000 characters: one short sentence is best')
    .describe('The thing to remember, as one short self-contained sentence, e.g. "Prefers TypeScript over JavaScript"'),
  source: z
    .enum(['user', 'auto'])
    // optional() rather than default(): the SDK publishes the output schema, where a default makes a field required.
    .optional()
    .describe('"user" (default) when the user asked you to remember it; "auto" when you chose to note it yourself'),
});

const recallArgs = z.object({
  keyword: z.string().trim().max(200).optional().describe('Words to look for; leave out to list everything'),
  category: categorySchema.optional(),
  limit: z.number().int().min(1).max(100).optional().describe('At most this many results (default 20)'),
});

// Models often write "#12" or "12" for an id; both mean the same memory.
const forgetArgs = z.object({
  memory_id: z
    .preprocess((v) => (typeof v === 'string' && /^\s*#?\d+\s*$/.test(v) ? Number(v.replace(/[#\s]/g, '')) : v), z.number().int().positive())
    .describe('The number shown as #12 by recall or in the Long-Term Memory section'),
});

/** The remember, recall and forget tools, working on `store`; remember and forget are journaled (see batonTool.ts). */
export function createMemoryTools(store: BatonStore, journal?: ToolJournal): BatonTool[] {
  return [
    defineBatonTool(
      {
        name: 'remember',
        description:
          'Save something to long-term memory so it is known in future sessions: a preference, a fact, a project detail, a person, a routine. ' +
          'Use it when the user asks you to remember something, or (with source "auto") when they mention something durable in passing.',
        schema: rememberArgs,
        sideEffect: true,
        run: (args) => {
          const { memory, duplicate } = store.addMemory(args.category, args.content, args.source ?? 'user');
          return duplicate
            ? `Already remembered as #${memory.id} (${memory.category}): "${memory.content}"`
            : `Remembered (#${memory.id}, ${memory.category}): "${memory.content}" — it takes effect in my system prompt from the next session.`;
        },
      },
      journal,
    ),
    defineBatonTool(
      {
        name: 'recall',
        description: 'Search long-term memory by keyword and/or category. Returns memories with their ids (#12), most recently used first.',
        schema: recallArgs,
        run: (args) => {
          const found = store.searchMemories({ keyword: args.keyword || undefined, category: args.category, limit: args.limit ?? 20 });
          if (!found.length) {
            const scope = [args.keyword ? `"${args.keyword}"` : '', args.category ? `in ${args.category}` : ''].filter(Boolean).join(' ');
            return `No memories match${scope ? ` ${scope}` : ''}.`;
          }
          return [
            `${found.length} ${found.length === 1 ? 'memory' : 'memories'}:`,
            ...found.map((m) => `- [#${m.id}] (${m.category}) ${oneLine(m.content)}`),
          ].join('\n');
        },
      },
      journal,
    ),
    defineBatonTool(
      {
        name: 'forget',
        description: 'Delete one long-term memory by its id (the #12 shown by recall). Use recall first if you are not sure of the id.',
        schema: forgetArgs,
        sideEffect: true,
        run: (args) => (store.deleteMemory(args.memory_id) ? `Forgot #${args.memory_id}.` : `No memory #${args.memory_id}.`),
      },
      journal,
    ),
  ];
}
