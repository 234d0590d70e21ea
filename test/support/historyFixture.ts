// A long chat history for the webview tests that open the panel on one (webviewGroups, webviewFirstPaint), built
// once here so both tests build theirs the same way; each picks where the user messages fall and whether replies count tokens.
import type { ChatMessage } from '../../src/shared/protocol';

export const HISTORY_BASE_TS = Date.UTC(2026, 10, 20, 9, 0);

export interface HistoryOptions {
  /** A user message every `userEvery` messages (starting with the first); the others are assistant replies. */
  userEvery: number;
  /** Give each reply a token usage (input 1000 + i, output 300 + i). */
  withUsage?: boolean;
}

/** `count` messages, one a minute and a second apart from HISTORY_BASE_TS, ids `m0`, `m1`, ... */
export function longHistory(count: number, { userEvery, withUsage = false }: HistoryOptions): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (let i = 0; i < count; i++) {
    const ts = HISTORY_BASE_TS + i * 61_000;
    messages.push(
      i % userEvery === 0
        ? { id: `m${i}`, role: 'user', content: `Question ${i}`, status: 'complete', ts }
        : {
            id: `m${i}`,
            role: 'assistant',
            content: `Answer ${i}.\n\n- it reads the request\n- it checks the session\n\n\`\`\`ts\nconst n${i} = ${i};\n\`\`\``,
            status: 'complete',
            ts,
            ...(withUsage ? { usage: { inputTokens: 1000 + i, outputTokens: 300 + i } } : {}),
          },
    );
  }
  return messages;
}
