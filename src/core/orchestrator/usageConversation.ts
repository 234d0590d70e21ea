// The key a conversation's usage is totalled under: the time it was started, kept in its state (a
// deleted conversation's usage is still known by it).
import { TOOL_CONVERSATION_PREFIX } from '../store/bounds';
import { conversationStateKey, type BatonStore, type ConversationRow } from '../store/types';

const STATE_CONVERSATION = 'usage_conversation';

/**
 * The one key the conversations tool calls open for themselves (asTool 'fresh', one per call) are all totalled under:
 * a key each made usage_totals grow a row per call, where only the newest TOOL_CONVERSATIONS_KEEP of them are kept.
 * So those rows are one a day, and each day's totals stay whole.
 */
export const TOOL_CALLS_USAGE_KEY = 'tool-calls';

/** The usage key of `conversation`: when it was started, written the first time it is asked (a tool call's: one for all). */
export function usageConversationId(store: BatonStore, conversation: string): string {
  if (conversation.startsWith(TOOL_CONVERSATION_PREFIX)) return TOOL_CALLS_USAGE_KEY;
  const key = conversationStateKey(STATE_CONVERSATION, conversation);
  const id = store.getState(key) ?? new Date().toISOString();
  if (!store.getState(key)) store.setState(key, id);
  return id;
}

/** The conversations in the store by their usage key. */
export function conversationsByUsageKey(store: BatonStore): Map<string, ConversationRow> {
  const byKey = new Map<string, ConversationRow>();
  for (const c of store.listConversations()) {
    const key = store.getState(conversationStateKey(STATE_CONVERSATION, c.id));
    if (key) byKey.set(key, c);
  }
  return byKey;
}
