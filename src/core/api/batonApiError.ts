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
