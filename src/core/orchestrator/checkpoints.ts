// One checkpoint row per settled turn (after Warlock): its index, the definition signature in force, the route and
// the tokens it used, per conversation. Bookkeeping apart from the message log (its own retention, CHECKPOINT_KEEP):
// a failed write is only logged, and the turn's reply is never held back by it.
import type { RouteInfo, UsageInfo } from '../../shared/protocol';
import type { BatonStore } from '../store/types';
import type { Logger } from '../util/logger';
import { conversationStateKey } from '../store/types';
import { STATE_FINGERPRINT } from './sessionKeeper';

export class CheckpointWriter {
  /** The turn index continues from the newest checkpoint; kept in memory so a turn costs one write. */
  private turnIndex: number | undefined;

  constructor(
    private readonly store: BatonStore,
    private readonly logger: Logger,
    private readonly fingerprint: () => string | undefined,
    private readonly conversation: () => string,
  ) {}

  /** Turns settled so far in this conversation (the newest checkpoint's index). */
  get settledTurns(): number {
    this.turnIndex ??= this.store.recentCheckpoints(this.conversation(), 1)[0]?.turn_index ?? 0;
    return this.turnIndex;
  }

  /** Writes the turn's checkpoint and returns its index, or undefined when the write failed. */
  record(route: RouteInfo, status: string, usage?: UsageInfo): number | undefined {
    try {
      const turnIndex = this.settledTurns + 1;
      this.store.addCheckpoint({
        conversation: this.conversation(),
        turn_index: turnIndex,
        fingerprint: this.fingerprint() ?? this.store.getState(conversationStateKey(STATE_FINGERPRINT, this.conversation())) ?? '',
        route: `${route.tier}:${route.model}:${route.reason}`,
        status,
        input_tokens: usage?.inputTokens ?? null,
        output_tokens: usage?.outputTokens ?? null,
      });
      this.turnIndex = turnIndex;
      return turnIndex;
    } catch (err) {
      this.logger.warn(`Could not write a checkpoint: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  }
}
