// The runtime compacts a session by itself as it nears the model's context window, and when asked (the compact
// command): what it reports becomes the same `compaction.applied` Baton's own summarize step fires, `how: 'runtime'`.
import type { CallUsage } from '../copilot/callUsage';
import type { Compaction } from './events';

/** The fields of the runtime's `session.compaction_complete` this reads. */
export interface RuntimeCompactionData {
  success: boolean;
  summaryContent?: string;
  messagesRemoved?: number;
  preCompactionMessagesLength?: number;
  tokensRemoved?: number;
  /** The compaction's own model call (no `assistant.usage` event reports it). */
  compactionTokensUsed?: { inputTokens?: number; outputTokens?: number };
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

/**
 * What the compaction's own model call used, counted with the conversation. Its tokens only: the runtime reports no
 * `assistant.usage` (so no multiplier) for it, though it sends it as the user's (X-Initiator, seen on the scripted server).
 */
export function runtimeCompactionUsage(data: RuntimeCompactionData): CallUsage | undefined {
  const used = data.compactionTokensUsed;
  if (!used || !(used.inputTokens || used.outputTokens)) return undefined;
  return { inputTokens: used.inputTokens ?? 0, outputTokens: used.outputTokens ?? 0, premiumRequests: 0, requests: 0 };
}
