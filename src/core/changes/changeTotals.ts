// A change set's size in one line ("3 files changed, +10 −2") and the paths a card lists, from a worktree's summary or
// from the unified diffs the runtime tracked for a worker that changed its folder in place.
import type { FileChange as SessionFileChange } from '../copilot/agentSessions';
import type { WorkerCard } from '../../shared/protocol';
import { describeLeftOut, describeSubmoduleWork, describeSummary, type ChangeSummary } from './changeSet';

/** How many touched paths a card and a status list (the count is always exact). */
export const MAX_LISTED_PATHS = 50;
/** How many files too large to count a line names (the rest are counted). */
const MAX_UNCOUNTED_NAMED = 5;

export interface ChangeTotals {
  /** The changed files (at most MAX_LISTED_PATHS). */
  paths: string[];
  files: number;
  additions: number;
  deletions: number;
  /** "N files changed, +a −b". */
  line: string;
  /** A worktree's snapshot the totals were counted from (a verify is stored against it). */
  tree?: string;
  /** The folders left out as git repositories of their own and the work in submodules, in sentences (changeSet.ts). */
  leftOut?: string;
}

/** A worktree's change set, from its summary. */
export function summaryTotals(s: ChangeSummary): ChangeTotals {
  return {
    files: s.files.length,
    additions: s.additions,
    deletions: s.deletions,
    line: describeSummary(s),
    // A rename touches both names: an edit of the old one by another worker overlaps it.
    paths: s.files.slice(0, MAX_LISTED_PATHS).flatMap((f) => (f.oldPath ? [f.path, f.oldPath] : [f.path])),
    ...(s.tree ? { tree: s.tree } : {}),
    ...(s.nested?.length || s.submodules?.length
      ? { leftOut: [describeLeftOut(s.nested), describeSubmoduleWork(s.submodules)].filter(Boolean).join(' ') }
      : {}),
  };
}

/** What a worker's card shows of its change set. */
export function cardChanges(t: ChangeTotals): NonNullable<WorkerCard['changes']> {
  return { files: t.files, additions: t.additions, deletions: t.deletions, paths: t.paths, ...(t.leftOut ? { note: t.leftOut } : {}) };
}

/** The changes tracked in place, from their unified diffs. */
export function totalsOf(files: SessionFileChange[]): ChangeTotals {
  let additions = 0;
  let deletions = 0;
  for (const f of files) {
    for (const line of f.diff.split('\n')) {
      if (line.startsWith('+') && !line.startsWith('+++')) additions++;
      else if (line.startsWith('-') && !line.startsWith('---')) deletions++;
    }
  }
  const n = files.length;
  // Lines of a file whose diff the runtime left out cannot be counted: the line says which, rather than count them as 0.
  const uncounted = files.filter((f) => f.truncated).map((f) => f.path);
  const named =
    uncounted.slice(0, MAX_UNCOUNTED_NAMED).join(', ') + (uncounted.length > MAX_UNCOUNTED_NAMED ? ` and ${uncounted.length - MAX_UNCOUNTED_NAMED} more` : '');
  return {
    files: n,
    additions,
    deletions,
    line: `${n} file${n === 1 ? '' : 's'} changed, +${additions} −${deletions}${uncounted.length ? ` (not counted, too large for a diff: ${named})` : ''}`,
    paths: files.slice(0, MAX_LISTED_PATHS).map((f) => f.path),
  };
}
