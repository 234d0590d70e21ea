// The wiki section of the orchestrator's system message, next to the memory summary: the page list (newest index
// state), bounded, so a big wiki costs a fixed share of the prompt; wiki_list and wiki_search give the rest.
import type { BatonStore } from '../store/types';

const HEADER = '## Wiki\nPages of the knowledge base (read with wiki_read, search with wiki_search):';

/** '' when the wiki has no pages. */
export function getWikiSummary(store: BatonStore, folder: string, maxChars = 1500): string {
  const pages = store.wikiIndex.indexed(folder);
  if (!pages.length) return '';
  const lines = [HEADER];
  let used = HEADER.length;
  let shown = 0;
  for (const p of pages) {
    const title = p.title.replace(/\s+/g, ' ').slice(0, 120);
    const line = title && title !== p.name ? `- ${p.name}: ${title}` : `- ${p.name}`;
    if (used + line.length + 1 > maxChars - 60) break;
    lines.push(line);
    used += line.length + 1;
    shown++;
  }
  if (shown < pages.length) lines.push(`(${pages.length - shown} more pages; use wiki_list or wiki_search.)`);
  return lines.join('\n');
}
