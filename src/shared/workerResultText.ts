// A finished worker's result in words: the panel's result card and an exported conversation say it the same way.
import { countText } from './countText';
import type { WorkerResultCard } from './protocol';

/** How a task ended, as the card's state reads. */
export const END_LABEL: Record<WorkerResultCard['state'], string> = {
  done: 'Finished',
  failed: 'Failed',
  timed_out: 'Timed out',
  killed: 'Stopped',
};

/**
 * A duration as people read it: "4.2 s", "38 s", "3 min 5 s", "1 h 2 min". Rounded once, before it is split, so a
 * carry is never lost ("60 s" and "3 min 60 s" cannot be read).
 */
export function durationText(ms: number): string {
  const tenths = Math.round(Math.max(0, ms) / 100);
  if (tenths < 100) return `${tenths / 10} s`;
  const s = Math.round(tenths / 10);
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min ${s % 60} s`;
  return `${Math.floor(min / 60)} h ${min % 60} min`;
}

/** "3 files changed, +40 −2", or that it changed nothing. */
export function changesText(changes: WorkerResultCard['changes']): string {
  if (!changes || changes.files === 0) return 'No changes';
  return `${countText(changes.files)} file${changes.files === 1 ? '' : 's'} changed, +${countText(changes.additions)} \u2212${countText(changes.deletions)}`;
}
