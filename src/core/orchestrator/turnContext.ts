// What a turn sends beside the user's message, chosen per turn (Warlock's windowing and memory recall): the memories
// that best match the message, and history a caller passed for a conversation that has none of its own. The static
// memory summary stays in the system message; this is only the part picked for this message. Text for the model.
import { oneLine } from '../memory/memorySummary';
import type { Memory } from '../store/types';

/** At most this many memories ride on one turn, each cut to MEMORY_CHARS. */
export const RELEVANT_MEMORIES = 5;
const MEMORY_CHARS = 400;
/** Caller-given history: the newest messages, each cut. */
const HISTORY_MESSAGES = 20;
const HISTORY_CHARS = 1500;

export function memoryContext(memories: readonly Memory[]): string {
  if (!memories.length) return '';
  const lines = memories.map((m) => {
    const text = oneLine(m.content);
    return `- (${m.category}) ${text.length > MEMORY_CHARS ? `${text.slice(0, MEMORY_CHARS)}…` : text}`;
  });
  return ['[Memories that may be relevant to this message; use them only if they are]', ...lines].join('\n');
}

export function historyContext(history: ReadonlyArray<{ role: string; content: string }>): { text: string; count: number } {
  const recent = history.filter((m) => typeof m?.content === 'string' && m.content.trim()).slice(-HISTORY_MESSAGES);
  if (!recent.length) return { text: '', count: 0 };
  const lines = recent.map(
    (m) => `${m.role === 'assistant' ? 'Assistant' : 'User'}: ${m.content.length > HISTORY_CHARS ? `${m.content.slice(0, HISTORY_CHARS)}…` : m.content}`,
  );
  return {
    text: ['[Earlier conversation, as the caller kept it: absorb it as context, do not answer it]', ...lines, '[End of earlier conversation]'].join('\n'),
    count: recent.length,
  };
}
