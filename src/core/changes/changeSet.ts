// The data a worker's isolated changes are known by, and the shapes review and apply answer with.
// A ChangeSet is plain data (strings and numbers) so the store can persist it and a reload or a
// restart finds it again; everything else is recomputed from git when asked.
import type { WorktreeRecord } from '../git/worktrees';
import type { VerifyRecord } from './verifyRecord';

/**
 * One worker's isolated changes: its worktree on `baton/<worker>`, diffed from `baseCommit` (moved
 * forward by a partial apply or a move onto the user's tree; see changeSets.ts).
 */
export type ChangeSet = WorktreeRecord & {
  /** The last run of baton.workers.verifyCommand on it (see verifyRecord.ts). */
  verify?: VerifyRecord;
  /** A verify started and not recorded yet: one a closing window stopped is run again at the next start (verifyAgain.ts). */
  verifyDue?: boolean;
  /**
   * The last move onto the user's tree (Resolve with the worker): the base it made (their tree, uncommitted and
   * untracked files included) and their HEAD it was made on. What the worker changed is counted from `base`; a branch
   * kept from it goes on `head`, without the user's files the move brought in.
   */
  movedOnto?: { base: string; head: string };
  /**
   * A "Resolve with the worker" under way (conflictResolution.ts): how to put the worktree and its base back. Kept with
   * the change set, so a window that dies before the worker finishes has it undone at the next start, instead of
   * leaving a worktree full of conflict markers on a base that makes them apply cleanly.
   */
  resolving?: ResolvingRecord;
  /**
   * The user's files a "Resolve with the worker" left with the worker's version over theirs (git could not merge them
   * line by line): Apply's confirm and result name them until they land (replacedFiles.ts).
   */
  replaces?: ReplacedFiles;
  /**
   * A Keep as branch under way (set before its commit goes on the branch): a window that dies before the change set is
   * let go leaves a branch that is the user's now, which a Discard then keeps. Said by the record, not read from the
   * worktree: a worktree on no branch may be a worker's own `git checkout --detach`.
   */
  keeping?: boolean;
};

/** A path a move onto the user's tree touched, as it was before: a file (copied aside), a symlink (its target) or absent. */
export type SavedPath = { path: string; was: 'file' | 'absent' } | { path: string; was: 'symlink'; target: string };

/** Files of the user's an Apply puts the worker's version over, the first of them by path and the rest counted. */
export interface ReplacedFiles {
  paths: string[];
  more?: number;
}

/** What undoes a move onto the user's tree (moveOntoUserTree.ts) once the window that made it is gone. */
export interface ResolvingRecord {
  /** The base before the move, and whether the worker's base ref existed then. */
  baseCommit: string;
  hadRef: boolean;
  /** The worktree's snapshot before the move. */
  before: string;
  /** The change set's `movedOnto` before the move (an earlier move's), put back with it: the attempt's own goes. */
  movedOnto?: { base: string; head: string };
  /** Where the touched files were copied, and how each was. */
  backupDir: string;
  saved: SavedPath[];
}

export type FileChangeStatus = 'added' | 'modified' | 'deleted' | 'renamed';

export interface FileChange {
  /** Relative to the repository root, `/`-separated; the new path of a rename. */
  path: string;
  /** The path before a rename. */
  oldPath?: string;
  status: FileChangeStatus;
  additions: number;
  deletions: number;
  /** Binary content: no line counts. */
  binary: boolean;
}

/** What "N files changed, +a −b" is made of. */
export interface ChangeSummary {
  files: FileChange[];
  additions: number;
  deletions: number;
  /** The worktree's snapshot (a git tree) it was counted from, when it was counted from the worktree now. */
  tree?: string;
  /** Folders of the worktree that are git repositories of their own (a clone, a `git init`): never part of the change. */
  nested?: string[];
  /** Submodules holding work of the worker's that no Apply carries (submoduleWork.ts): it stays in the worktree. */
  submodules?: SubmoduleWork[];
}

/** A submodule of the repository the worker did something in, which Baton neither applies nor lets go unasked. */
export interface SubmoduleWork {
  /** Relative, `/`-separated. */
  path: string;
  /** Its folder holds files: `git worktree add` leaves it empty, so the worker wrote them or checked it out. */
  files: boolean;
  /** Its commit differs from the base's: a commit that lives only in the worktree's own git folder. */
  commit: boolean;
}

/** A bounded unified diff for the model. */
export interface BoundedDiff {
  summary: ChangeSummary;
  /** The summary line, then the diff; a truncation says so in the text itself. */
  text: string;
  truncated: boolean;
}

/** One row of VS Code's multi-file diff (`vscode.changes`: [resource, original, modified]). */
export interface ReviewEntry extends FileChange {
  /** The file in the user's checkout (the resource the row is about). */
  userPath: string;
  /** The base version, materialized in Baton's storage (an empty file for an added file). */
  originalPath: string;
  /** The worker's version: the live file in the worktree (an empty file in storage for a deleted one). */
  modifiedPath: string;
}

export interface ApplyResult {
  /** Paths (relative to the repository root) now changed in the user's working tree. */
  applied: string[];
  /** Changed files not chosen: they stay pending in the worktree. */
  remaining: number;
  /** The worktree's snapshot the apply was taken from (a partial apply moves the base to it for the applied files). */
  tree?: string;
  /** The whole change set at the time of the apply (applied or not). */
  before?: ChangeSummary;
  /** Of the applied files, those the user's tree already had exactly as the worker left them: left as they were. */
  alreadyThere?: string[];
  /** The folder the files were applied in (the root of the user's repository). */
  root?: string;
}

/**
 * Why a file that does not apply cannot carry conflict markers (Resolve in the editor): only a text file both sides
 * changed in place, with nothing of the user's staged for it, can.
 */
export type NoMarkersWhy = 'deleted-by-you' | 'not-a-file' | 'binary' | 'symlink' | 'staged' | 'added-by-worker' | 'deleted-by-worker' | 'renamed-by-worker';

/** Why one file blocks an apply. */
export type ApplyConflictFile =
  | {
      path: string;
      /**
       * `unsaved-in-editor`: the editor holds unsaved changes; `unsaved-in-review`: Review's right side
       * (the worker's file) holds unsaved edits; `does-not-apply`: the user's file differs where the
       * worker changed it (or a file is in the way); `outside-repository`: a folder on its way is a symbolic link to a
       * folder outside the repository (userTreePath.ts), which neither git nor Baton writes through.
       */
      reason: 'unsaved-in-editor' | 'unsaved-in-review' | 'does-not-apply' | 'outside-repository';
      detail?: string;
    }
  | {
      path: string;
      /** Resolve in the editor: it does not apply, and markers cannot show the conflict (`why`). */
      reason: 'no-markers';
      why: NoMarkersWhy;
      detail?: string;
    };

/** Each NoMarkersWhy as the user reads it, after the file's name. */
const NO_MARKERS: Record<NoMarkersWhy, string> = {
  'deleted-by-you': 'not in your tree: you deleted or renamed it',
  'not-a-file': 'not a regular file in your tree',
  binary: 'binary: markers cannot go into it',
  symlink: 'a symbolic link: its target cannot take markers',
  staged: 'you have staged changes to it, which its conflict stages would replace: commit or unstage them first',
  'added-by-worker': 'the worker added it and your tree has a file of that name',
  'deleted-by-worker': 'the worker deleted it and you changed it',
  'renamed-by-worker': 'the worker renamed it and you changed it',
};

/** Nothing was applied: these files block it. The user's tree is exactly as it was. */
export class ApplyConflict extends Error {
  constructor(readonly files: ApplyConflictFile[]) {
    super(ApplyConflict.describe(files));
    this.name = 'ApplyConflict';
  }

  private static describe(files: ApplyConflictFile[]): string {
    const unsaved = files.filter((f) => f.reason === 'unsaved-in-editor').map((f) => f.path);
    const inReview = files.filter((f) => f.reason === 'unsaved-in-review').map((f) => f.path);
    const conflicts = files.filter((f) => f.reason === 'does-not-apply').map((f) => f.path);
    const outside = files.filter((f) => f.reason === 'outside-repository').map((f) => f.path);
    const noMarkers = files.flatMap((f) => (f.reason === 'no-markers' ? [`${f.path} (${NO_MARKERS[f.why]})`] : []));
    const parts: string[] = [];
    if (unsaved.length) parts.push(`unsaved in the editor (save or revert them first): ${unsaved.join(', ')}`);
    if (inReview.length) parts.push(`edited in Review but not saved (save them to apply your edits): ${inReview.join(', ')}`);
    if (conflicts.length) parts.push(`changed differently in your working tree: ${conflicts.join(', ')}`);
    if (outside.length) parts.push(`behind a symbolic link to a folder outside the repository: ${outside.join(', ')}`);
    if (noMarkers.length) parts.push(`cannot be merged in the editor: ${noMarkers.join('; ')}`);
    const list = parts.join('; ');
    return `Nothing was applied. ${list.charAt(0).toUpperCase()}${list.slice(1)}.`;
  }
}

/** How many folders left out of a change a sentence names; the rest are counted. */
const MAX_NESTED_NAMED = 10;

/**
 * The folders left out of a change as repositories of their own, in one sentence ('' when none): what an Apply or a
 * Keep leaves behind, said before and after it.
 */
export function describeLeftOut(nested: readonly string[] | undefined): string {
  if (!nested?.length) return '';
  const named = nested.slice(0, MAX_NESTED_NAMED).map((p) => `${p}/`);
  const more = nested.length - named.length;
  const list = named.join(', ') + (more ? ` and ${more} more` : '');
  const one = nested.length === 1;
  return (
    `Left out: ${list}, ${one ? 'a git repository' : 'git repositories'} of ${one ? 'its' : 'their'} own in the worktree ` +
    `(a clone, a git init): Baton applies files, never a repository, and ${one ? 'it goes' : 'they go'} with the worktree.`
  );
}

/**
 * The submodules holding the worker's work, in one sentence ('' when none): said wherever the change is counted, and
 * why its worktree stays after an Apply (git carries none of it: `git add` keeps a pointer, `git apply` writes nothing).
 */
export function describeSubmoduleWork(subs: readonly SubmoduleWork[] | undefined): string {
  if (!subs?.length) return '';
  const what = (s: SubmoduleWork): string => [s.files ? 'files in its folder' : '', s.commit ? 'its commit changed' : ''].filter(Boolean).join(' and ');
  const named = subs.slice(0, MAX_NESTED_NAMED).map((s) => `${s.path}/ (${what(s)})`);
  const more = subs.length - named.length;
  const one = subs.length === 1;
  return (
    `Not applied: ${named.join(', ')}${more ? ` and ${more} more` : ''}, the worker's work in ${one ? 'a submodule' : 'submodules'}: ` +
    `Baton applies files, never a submodule's, so ${one ? 'it stays' : 'they stay'} in the worker's worktree.`
  );
}

/** "3 files changed, +10 −2" (the card's and the tool result's wording). */
export function describeSummary(s: ChangeSummary): string {
  const n = s.files.length;
  return `${n} file${n === 1 ? '' : 's'} changed, +${s.additions} −${s.deletions}`;
}
