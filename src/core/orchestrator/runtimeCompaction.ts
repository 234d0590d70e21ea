// The runtime compacts a session by itself as it nears the model's context window, and when asked (the compact
// command): what it reports becomes the same `compaction.applied` Baton's own summarize step fires, `how: 'runtime'`.
import type { Compaction } from './events';

/** The fields of the runtime's `session.compaction_complete` this reads. */
export interface RuntimeCompactionData {
  success: boolean;
  summaryContent?: string;
  messagesRemoved?: number;
  preCompactionMessagesLength?: number;
  tokensRemoved?: number;
}

/**
 * The compaction the runtime reported, or undefined when it removed nothing (a failed one, or an empty session's
 * "Nothing to compact" from warmUp). Indices count the runtime's own messages, oldest 0: it folds the oldest ones.
 */
export function runtimeCompaction(data: RuntimeCompactionData): Compaction | undefined {
  const removed = data.messagesRemoved ?? 0;
  if (!data.success || removed <= 0) return undefined;
  return {
    summary: data.summaryContent ?? '',
    replacesFromIndex: 0,
    replacesToIndex: removed - 1,
    kept: Math.max(0, (data.preCompactionMessagesLength ?? removed) - removed),
    tokensFreed: data.tokensRemoved ?? 0,
    how: 'runtime',
  };
}
