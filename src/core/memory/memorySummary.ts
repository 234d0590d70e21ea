// The long-term memory section of the orchestrator's system message. It is rebuilt at every session creation, so it
// must stay bounded however much is remembered: the most recently used memories get the space, the rest are counted
// and left to the recall tool.
import { MEMORY_CATEGORIES, type BatonStore, type Memory, type MemoryCategory } from '../store/types';

const HEADER = "## Long-Term Memory\nThese are things you've been asked to remember or have noted as important:";
/** One memory never takes more than this, so a pasted essay cannot crowd out everything else. */
const MAX_LINE_CHARS = 500;

/** All memories grouped by category, most recently used first, within `maxChars`; '' when there are none. */
export function getMemorySummary(store: BatonStore, maxChars = 4000): string {
  const memories = store.listMemories();
  if (!memories.length) return '';
  const byRecency = [...memories].sort((a, b) => b.last_accessed.localeCompare(a.last_accessed) || b.id - a.id);

  const chosen = new Map<MemoryCategory, string[]>();
  // Reserve room for the note about what was left out, whether or not it turns out to be needed.
  const budget = maxChars - omittedNote(memories.length).length - 1;
  let used = HEADER.length;
  let omitted = 0;
  for (const memory of byRecency) {
    const line = formatLine(memory);
    const cost = line.length + 1 + (chosen.has(memory.category) ? 0 : heading(memory.category).length + 1);
    if (used + cost > budget) {
      omitted++;
      continue;
    }
    used += cost;
    const lines = chosen.get(memory.category) ?? [];
    lines.push(line);
    chosen.set(memory.category, lines);
  }
  if (!chosen.size) return omitted && HEADER.length + 1 + omittedNote(omitted).length <= maxChars ? `${HEADER}\n${omittedNote(omitted)}` : '';

  const out = [HEADER];
  for (const category of MEMORY_CATEGORIES) {
    const lines = chosen.get(category);
    if (lines) out.push(heading(category), ...lines);
  }
  if (omitted) out.push(omittedNote(omitted));
  return out.join('\n');
}

function heading(category: MemoryCategory): string {
  return `**${category}**:`;
}

/** A memory on one line of a list: a line break in one would read as another memory (with an id it does not have). */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function formatLine(memory: Memory): string {
  const content = oneLine(memory.content);
  const clipped = content.length > MAX_LINE_CHARS ? `${content.slice(0, MAX_LINE_CHARS - 1)}…` : content;
  return `- [#${memory.id}] ${clipped}`;
}

function omittedNote(count: number): string {
  return `(${count} less recently used ${count === 1 ? 'memory is' : 'memories are'} not shown; use the recall tool to search them.)`;
}
