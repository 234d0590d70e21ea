// What can go wrong when the user (or an API caller) acts on a conversation, as a kind callers switch on.

/** `held-elsewhere`: another open VS Code window runs the conversation (its session is live there). */
export type ConversationErrorKind = 'not-found' | 'bad-id' | 'bad-title' | 'held-elsewhere';

export class ConversationError extends Error {
  constructor(
    readonly kind: ConversationErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'ConversationError';
  }
}
