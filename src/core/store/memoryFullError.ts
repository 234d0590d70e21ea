// The one refusal of a memory the user asked to keep: none is removed for room (bounds.ts, USER_MEMORIES_MAX).
/** Long-term memory holds USER_MEMORIES_MAX memories the user asked to keep: one must be forgotten first. */
export class MemoryFullError extends Error {
  readonly kind = 'memory-full';
  constructor(readonly max: number) {
    super(`Long-term memory is full: it holds ${max} memories you asked to keep. Forget one first (the Memories view, or ask Baton to forget it).`);
    this.name = 'MemoryFullError';
  }
}
