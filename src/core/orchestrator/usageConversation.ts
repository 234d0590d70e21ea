// The key a conversation's usage is totalled under: the time it was started, kept in its state (a
// deleted conversation's usage is still known by it).
import { conversationStateKey, type BatonStore, type ConversationRow } from '../store/types';

const STATE_CONVERSATION = 'usage_conversation';

/** The usage key of `conversation`: when it was started, written the first time it is asked. */
export function usageConversationId(store: BatonStore, conversation: string): string {
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
