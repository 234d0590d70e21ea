// What the API, the Chat view and the language-model tools reject with (api/baton.d.ts BatonError): an Error named
// "BatonError" whose kind says what the caller can do.
import type { ErrorClass } from '../copilot/errors';

export type BatonErrorKind = ErrorClass | 'invalid-input' | 'worker' | 'drift';

/** What ask and delegate reject with (api/baton.d.ts BatonError): the kind says what the caller can do. */
export class BatonApiError extends Error {
  override readonly name = 'BatonError' as const;
  constructor(
    readonly kind: BatonErrorKind,
    message: string,
    readonly partial?: string,
    readonly action?: { label: string; command: string },
  ) {
    super(message);
  }
}

/** What a call gets when its signal (or a tool's token) was cancelled before anything was sent: nothing was queued. */
export function cancelledBeforeSent(): BatonApiError {
  return new BatonApiError('cancelled', 'The request was cancelled before it was sent.');
}

/**
 * `err` as callers get it: a BatonApiError as it is; an error Baton already classified (its `readable`, e.g. Baton
 * closed: 'cancelled') with that kind; anything else as `fallback`. Classified by type and kind, never by its text.
 */
export function toBatonApiError(err: unknown, fallback: BatonErrorKind = 'fatal'): BatonApiError {
  if (err instanceof BatonApiError) return err;
  const readable = (err as { readable?: { kind: ErrorClass; message: string; action?: { label: string; command: string } } } | null)?.readable;
  const partial = (err as { partial?: string } | null)?.partial;
  if (readable) return new BatonApiError(readable.kind, readable.message, partial, readable.action);
  return new BatonApiError(fallback, err instanceof Error ? err.message : String(err), partial);
}
