// A turn refused because the definition (Baton's version, the model, the tools and their schemas) changed under the
// conversation's session, and its caller asked to be told rather than have the session replaced (Warlock's drift).
export class DriftError extends Error {
  constructor(
    /** The signature in force now. */
    readonly signature: string,
    /** The signature the session was created with. */
    readonly previous: string | undefined,
  ) {
    super(
      'Baton, its tools or the model changed since this conversation\u2019s session was created. Nothing was sent. Ask again with force: true to run it on that session anyway, or without onDrift: "error" to continue in a fresh session with the recent turns as context.',
    );
    this.name = 'DriftError';
  }
}
