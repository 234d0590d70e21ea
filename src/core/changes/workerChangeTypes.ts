// The shapes WorkerChanges (workerChanges.ts) hands out: a worker's pending changes, how they ended (for its card), what
// Review shows, and what a finished task's note needs.
import type { WorkerCard } from '../../shared/protocol';
import type { ChangeSet, ReviewEntry } from './changeSet';

export interface PendingChanges {
  worker: string;
  kind: 'worktree' | 'tracked';
  /** The worktree (worktree) or the folder the worker changed in place (tracked). */
  dir: string;
  branch?: string;
  /** The change set (worktree), or the session its changes are tracked in (tracked). */
  changeSet?: ChangeSet;
  sessionId?: string;
}

/** How a change set ended (or, partly applied, went on): what the card shows. */
export interface Settlement {
  kind: 'applied' | 'partly-applied' | 'kept' | 'discarded';
  /** "applied 2 files changed, +3 −1", "kept on baton/x", "discarded". */
  text: string;
  /** An Apply that can be undone (applyUndo.ts). */
  undoable?: boolean;
}

/**
 * What the card hears of a change set: how it ended, that an Apply met a conflict (by file), or that the Apply that
 * ended it was undone (applyUndo.ts: the worker's files are as before it).
 */
export type ChangeEvent = Settlement | { kind: 'conflicted'; paths: string[] } | { kind: 'undone'; text: string };

/** What the multi-file diff shows: real files side by side (worktree), or the runtime's unified diffs (tracked). */
export type Review = { kind: 'files'; entries: ReviewEntry[] } | { kind: 'unified'; dir: string; text: string };

/** What the result note needs of a worker (its card's count is updated here). */
export interface FinishedWorker {
  name: string;
  sessionId?: string;
  workingDir: string;
  isolation?: WorkerCard['isolation'];
  changes?: WorkerCard['changes'];
  /** The worktree's snapshot its `changes` were counted from (what a verify right after runs on). */
  changesTree?: string;
}

/** A finished task left changes to review: where they are and which files. */
export interface ChangesReady {
  worker: string;
  /** The worker's worktree, or the folder it changed in place. */
  dir: string;
  files: string[];
}
