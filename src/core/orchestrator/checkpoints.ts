// One checkpoint row per settled turn (after Warlock): its index, the session fingerprint and the
// route. Bookkeeping, not the conversation: written just after the reply is handed over, so it
// stays off the path between the model's last token and the user, and a failed write is only logged.
import type { RouteInfo } from '../../shared/protocol';
import type { BatonStore } from '../store/types';
import type { Logger } from '../util/logger';
import { STATE_FINGERPRINT } from './sessionKeeper';

export class CheckpointWriter {
  /** The turn index continues from the newest checkpoint; kept in memory so a turn costs one write. */
  private turnIndex: number | undefined;

  constructor(
    private readonly store: BatonStore,
    private readonly logger: Logger,
    private readonly fingerprint: () => string | undefined,
    private readonly closed: () => boolean,
  ) {}

  record(route: RouteInfo, status: string): void {
    setImmediate(() => {
      if (this.closed()) return;
      try {
        this.turnIndex ??= this.store.recentCheckpoints(1)[0]?.turn_index ?? 0;
        this.turnIndex++;
        this.store.addCheckpoint({
          turn_index: this.turnIndex,
          fingerprint: this.fingerprint() ?? this.store.getState(STATE_FINGERPRINT) ?? '',
          route: `${route.tier}:${route.model}:${route.reason}`,
          status,
        });
      } catch (err) {
        this.logger.warn(`Could not write a checkpoint: ${err instanceof Error ? err.message : String(err)}`);
      }
    });
  }
}
