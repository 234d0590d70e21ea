// The key a conversation's usage is totalled under: the time it was started (or last started over), kept in its state.
import { conversationStateKey, type BatonStore, type ConversationRow } from '../store/types';

const STATE_CONVERSATION = 'usage_conversation';

/** The usage key of `conversation`: when it was started over (or first started), written the first time it is asked. */
export function usageConversationId(store: BatonStore, conversation: string): string {
  const key = conversationStateKey(STATE_CONVERSATION, conversation);
  const id = store.getState(key) ?? new Date().toISOString();
  if (!store.getState(key)) store.setState(key, id);
  return id;
}

/** Starts `conversation`'s usage over (New Chat on it): what it uses from now on is totalled under a new key. */
export function restartUsageConversation(store: BatonStore, conversation: string): void {
  store.setState(conversationStateKey(STATE_CONVERSATION, conversation), new Date().toISOString());
}

/** The conversations in the store by their current usage key (one started over is under its newest key only). */
export function conversationsByUsageKey(store: BatonStore): Map<string, ConversationRow> {
  const byKey = new Map<string, ConversationRow>();
  for (const c of store.listConversations()) {
    const key = store.getState(conversationStateKey(STATE_CONVERSATION, c.id));
    if (key) byKey.set(key, c);
  }
  return byKey;
}
