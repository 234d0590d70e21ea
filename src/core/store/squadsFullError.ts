// The refusal of a squad or an agent past the bound (bounds.ts, SQUADS_MAX / SQUAD_AGENTS_MAX): none is removed for
// room, since each is something the user set up; one must be deleted first.
/** Baton holds SQUADS_MAX squads, or the squad `squad` holds SQUAD_AGENTS_MAX agents. */
export class SquadsFullError extends Error {
  readonly kind = 'squads-full';
  constructor(
    readonly max: number,
    readonly squad?: string,
  ) {
    super(
      squad === undefined
        ? `Baton holds ${max} squads, as many as it keeps. Delete one first (squad_delete, or the Squads view).`
        : `Squad '${squad}' has ${max} agents, as many as a squad keeps. Remove one first (squad_remove_agent, or the Squads view).`,
    );
    this.name = 'SquadsFullError';
  }
}
