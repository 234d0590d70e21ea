// What BatonEvents keeps per call and per worker, and the small rules it applies to them.
import type { BatonEventV2, BatonWorkerEndState } from '../../../api/baton';
import type { WorkerCard } from '../../shared/protocol';
import type { Origin } from '../orchestrator/events';
import type { ReplyChannel } from '../workers/workerPool';

/** A handler of events (an instance's, a conversation's or a call's). */
export type Handler = (event: BatonEventV2) => void;

export interface TurnCall {
  handler: Handler;
  ended: boolean;
  /** Stop the turn as soon as it starts (the caller cancelled while it was queued). */
  stopOnStart: boolean;
}

/** The channel a worker started by this origin's turn reports back to. */
export function replyChannelOf(origin: Origin | undefined): ReplyChannel {
  if (!origin) return 'panel';
  return origin.channel === 'background' ? (origin.replyTo ?? 'panel') : origin.channel;
}

export function isEnd(state: WorkerCard['state']): state is BatonWorkerEndState {
  return state === 'done' || state === 'failed' || state === 'timed_out' || state === 'killed';
}
