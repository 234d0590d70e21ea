// A worker in place: its changes as the runtime tracks them, and what Discard says of them.
//
// The runtime's file-change tracking for a worker in place reports, besides the files the worker changed, files a
// command only read whose content changes by itself: measured (runtime 1.0.85), `grep VmRSS /proc/self/status` in a
// worker's command made the runtime list `../../../proc/self/status` (its own process's status, read twice) as a
// change, so a worker that changed nothing had "1 file changed" to review, apply or discard. Files under the kernel's
// pseudo file systems are never a worker's change.
import * as path from 'node:path';
import type { FileChange, RewoundFiles } from '../copilot/agentSessions';
import type { WorkerCard } from '../../shared/protocol';
import type { BatonStore } from '../store/types';

/** State key of a worker's changes tracked in place: the session they are tracked in, and the folder. */
export const TRACKED_PREFIX = 'tracked:';

export interface TrackedRecord {
  sessionId: string;
  workingDir: string;
}

/** The record of `name`'s changes tracked in place, if it has one (and it can be read). */
export function readTracked(store: Pick<BatonStore, 'getState'>, name: string): TrackedRecord | undefined {
  const raw = store.getState(TRACKED_PREFIX + name);
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as TrackedRecord;
  } catch {
    return undefined;
  }
}

/** Whether the runtime tracks a worker's changes in place: it works in the folder itself, and not to read only. */
export function tracksInPlace(isolation: WorkerCard['isolation']): boolean {
  return isolation?.kind === 'in-place' && isolation.readOnly !== true;
}

const PSEUDO = ['/proc', '/sys', '/dev'];

/** `changes` without those under /proc, /sys and /dev (a path relative to `workingDir` resolved against it first). */
export function realFileChanges(changes: FileChange[], workingDir: string): FileChange[] {
  if (process.platform === 'win32') return changes;
  return changes.filter((c) => {
    const abs = path.posix.resolve(workingDir, c.path);
    return !PSEUDO.some((root) => abs === root || abs.startsWith(`${root}/`));
  });
}

/**
 * A file's unified diff as the runtime gave it or, for one whose diff it left out (over its per-file size limit: a
 * dataset, a build output), a stanza that names the file: a review that showed only the diffs it had hid such files.
 */
export function diffOrNote(f: FileChange): string {
  if (f.diff || !f.truncated) return f.diff;
  return `diff --git a/${f.path} b/${f.path}\n# ${f.changeType}, too large for a diff: its content is not shown\n`;
}

/**
 * What Discard of a worker in place says: how many files were restored and, by name, those the runtime left with the
 * worker's changes because they were changed after it (by the user, say) or never captured whole.
 */
export function discardedInPlace(worker: string, dir: string, restored: number, kept: RewoundFiles['kept']): string {
  const head = `Discarded the changes of worker '${worker}': ${restored} file(s) in ${dir} restored.`;
  if (!kept.length) return head;
  const names = (reason: RewoundFiles['kept'][number]['reason']) =>
    kept
      .filter((k) => k.reason === reason)
      .map((k) => path.relative(dir, k.path) || k.path)
      .join(', ');
  const since = names('changed-since');
  const whole = names('not-captured');
  return [
    head,
    since && `Left as they are, since they changed after the worker's last edit (your edits would be lost): ${since}.`,
    whole && `Left as they are, since the runtime kept no whole copy of them from before: ${whole}.`,
    'They still hold what the worker changed.',
  ]
    .filter(Boolean)
    .join(' ');
}
