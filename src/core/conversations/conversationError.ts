// What can go wrong when the user (or an API caller) acts on a conversation, as a kind callers switch on.

export type ConversationErrorKind = 'not-found' | 'bad-id' | 'bad-title';

export class ConversationError extends Error {
  constructor(
    readonly kind: ConversationErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'ConversationError';
  }
}
