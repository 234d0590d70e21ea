// The overlapping pairs the orchestrator was told of, kept in the store: told once per pair while both change sets
// wait, a reload included. Kept in memory only, every pair was told again after a reload, in the next completion of
// either worker: a message to the model (a premium request) that said nothing new.
// Bound: one state row per pair told whose workers both still have pending changes; a pair goes when either change
// set is applied, kept as a branch or discarded (changeWatch.ts), and at start the pairs of a worker with nothing
// pending any more are swept (pendingWorkers.ts).
import type { BatonStore } from '../store/types';

const PREFIX = 'overlap-told:';

/** Worker names have no spaces (workerRegistry.ts): "a b", sorted. */
function pairKey(a: string, b: string): string {
  return PREFIX + [a, b].sort().join(' ');
}

export function wasTold(store: BatonStore, a: string, b: string): boolean {
  return store.getState(pairKey(a, b)) !== undefined;
}

export function recordTold(store: BatonStore, a: string, b: string): void {
  store.setState(pairKey(a, b), '1');
}

/** Removes the pairs naming a worker `gone` says is gone. */
export function forgetTold(store: BatonStore, gone: (name: string) => boolean): void {
  for (const key of store.stateKeys(PREFIX)) if (key.slice(PREFIX.length).split(' ').some(gone)) store.deleteState(key);
}
