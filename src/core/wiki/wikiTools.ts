// The orchestrator's wiki tools (IO's names). Page names and contents come from the model: names are checked and
// kept inside the wiki folder (wikiPaths.ts), and every problem goes back as a clear failure.
import { z } from 'zod';
import { formatBytes } from '../context/limits';
import { type BatonTool, fittingChars, type ToolJournal, toolMaker } from '../copilot/batonTool';
import type { Wiki } from './wiki';
import { WikiError } from './wikiPaths';

/**
 * A read hands the model at most this much of a page at once, in UTF-8 bytes: a page may be 1 MB, and a tool's result
 * reaches the model only up to 20 KB (TOOL_OUTPUT_BYTES); the rest comes by offset.
 */
export const READ_BYTES = 16_000;

const page = z.string().trim().min(1).max(300).describe('The page name, e.g. "release-process" or "guides/setup" (no ".md").');

export function createWikiTools(wiki: Wiki, journal?: ToolJournal): BatonTool[] {
  const tool = toolMaker(journal);
  return [
    tool(
      'wiki_read',
      'Read a page of the knowledge base (markdown). A long page comes in parts: read the next with the offset given.',
      z.object({ page, offset: z.number().int().min(0).optional().describe('Where to start, in characters (the next part of a long page).') }),
      async (a) => {
        const p = await wiki.read(a.page);
        const from = a.offset ?? 0;
        if (from > 0 && from >= p.content.length) throw new WikiError(`Page '${p.name}' has ${p.content.length} characters: offset ${from} is past its end.`);
        const rest = p.content.slice(from);
        const part = rest.slice(0, fittingChars(rest, READ_BYTES));
        const left = rest.length - part.length;
        const head = from ? `# Wiki page '${p.name}', from character ${from} of ${p.content.length}` : `# Wiki page '${p.name}'`;
        return `${head}\n\n${part}${left > 0 ? `\n\n[${left} more characters: read on with offset ${from + part.length}]` : ''}`;
      },
    ),
    tool(
      'wiki_write',
      'Write or update a page of the knowledge base: durable notes, how-tos, project knowledge. The whole page is replaced unless append is true. Pages are markdown files the user can open and edit.',
      z.object({
        page,
        content: z.string().min(1).max(200_000).describe('Markdown; start with "# Title".'),
        append: z.boolean().optional().describe('Add to the end of the page instead of replacing it.'),
      }),
      async (a) => {
        const p = await wiki.write(a.page, a.content, { append: a.append });
        return `${p.created ? 'Created' : a.append ? 'Appended to' : 'Updated'} wiki page '${p.name}' ("${p.title}", ${p.content.length} characters).`;
      },
      true,
    ),
    tool(
      'wiki_search',
      'Search the knowledge base (full text, best matches first). Returns page names, titles and a snippet; read a page with wiki_read.',
      z.object({ query: z.string().trim().min(1).max(300), limit: z.number().int().min(1).max(50).optional().describe('At most this many (default 10).') }),
      async (a) => {
        const hits = await wiki.search(a.query, a.limit ?? 10);
        if (!hits.length) return `No wiki page matches "${a.query}".${unindexedNote(wiki)}`;
        return (
          [`${hits.length} page(s), best first:`, ...hits.map((h, i) => `${i + 1}. ${h.name} — "${h.title}" (score ${h.score}): ${h.snippet}`)].join('\n') +
          unindexedNote(wiki)
        );
      },
    ),
    tool('wiki_list', 'List every page of the knowledge base.', z.object({}), async () => {
      const pages = await wiki.list();
      if (!pages.length && !wiki.unindexed) return `The wiki is empty (${wiki.folder}).`;
      return [`${pages.length} page(s) in ${wiki.folder}:`, ...pages.map((p) => `- ${p.name} — "${p.title}"`)].join('\n') + unindexedNote(wiki);
    }),
    tool(
      'wiki_delete',
      'Delete a page of the knowledge base (its file is removed).',
      z.object({ page }),
      async (a) => `Deleted wiki page '${await wiki.delete(a.page)}'.`,
      true,
    ),
  ];
}

/** Said when the folder holds more than the index keeps (Wiki.indexBytes): those pages exist, found by name only. */
function unindexedNote(wiki: Wiki): string {
  const n = wiki.unindexed;
  return n
    ? `\n(${n} older page${n === 1 ? '' : 's'} not in the index: the wiki folder holds more than the ${formatBytes(wiki.indexBytes)} of pages it keeps. Read one by name with wiki_read.)`
    : '';
}
