// "Resolve with the worker": when a worker's change no longer applies to the user's tree, Baton moves
// the worker onto that tree (moveOntoUserTree.ts) and sends the same worker (its session resumed,
// same worktree, same sandbox) the conflicted files and what each side meant; the worker resolves
// the markers; its change set is then based on the user's current tree, so Apply lands cleanly.
// Invariants: the user's files are never written here (the final Apply still asks); if the worker
// gives up (markers left, or a file git could not merge line by line left as the move left it: nobody chose
// between the user's version and its own), fails or times out, its worktree and base are put back exactly as before
// the attempt and the result says so; so they are at the next start when its window died first (the
// undo is kept with the change set until the attempt ends); one resolution per worker at a time.
import type { BaseRefs } from './baseRefs';
import { ChangeError } from './changeError';
import type { ChangeSet, ResolvingRecord } from './changeSet';
import { MoveNotUndone, type MovedConflict, type MoveResult, type MoveUndo, type TreeMover } from './moveOntoUserTree';
import type { PendingChangeSets } from './pendingChangeSets';
import { withReplaced } from './replacedFiles';

/** How the worker's resolving task ended. */
export type ResolveTaskEnd = 'completed' | 'failed' | 'timed_out' | 'killed';

/** Sends `prompt` to the same worker; `after` runs when that task ends, its text joins the completion message. */
export type SendToWorker = (name: string, prompt: string, after: (end: ResolveTaskEnd) => Promise<string>) => Promise<void>;

/** The most of each side's diff a conflicted file shows the worker. */
const MAX_SIDE_DIFF = 3000;
/** The most conflicted files described one by one (the rest are named). */
const MAX_DESCRIBED = 10;
/** The most further conflicted files named (the rest are counted): a branch switch can conflict thousands. */
const MAX_NAMED = 200;

export class ConflictResolver {
  private readonly resolving = new Set<string>();

  constructor(
    private readonly pending: PendingChangeSets,
    private readonly mover: TreeMover,
    private readonly baseRefs: BaseRefs,
    private readonly send: SendToWorker,
  ) {}

  isResolving(name: string): boolean {
    return this.resolving.has(name);
  }

  async resolveWithWorker(name: string): Promise<string> {
    if (this.resolving.has(name)) throw new ChangeError(`Worker '${name}' is already resolving its conflicts.`);
    const cs = this.pending.require(name);
    this.resolving.add(name);
    try {
      const hadRef = await this.baseRefs.exists(cs);
      const record = (u: MoveUndo): ResolvingRecord => ({
        baseCommit: cs.baseCommit,
        hadRef,
        before: u.before,
        backupDir: u.backupDir,
        saved: u.saved,
        ...(cs.movedOnto ? { movedOnto: cs.movedOnto } : {}),
      });
      // The undo is in the store before the worktree is written, and stays there until the attempt ends either way.
      const moved = await this.mover
        .move(cs, (u) => this.pending.save({ ...cs, resolving: record(u) }))
        .catch((err: unknown) => {
          // Put back: the record as it was. Not put back: its undo stays on record, for recover to try again.
          if (!(err instanceof MoveNotUndone)) this.pending.save(cs);
          throw err;
        });
      const restore = async (): Promise<void> => {
        await this.mover.undo(moved.undo);
        await this.baseRefs.restore(cs, cs.baseCommit, !hadRef);
        this.pending.save(cs);
      };
      const movedOnto = { base: moved.newBase, head: moved.userHead };
      this.pending.save({ ...cs, baseCommit: moved.newBase, movedOnto, ...(moved.conflicts.length ? { resolving: record(moved.undo) } : {}) });
      if (!moved.conflicts.length) {
        await this.mover.dropBackup(moved.undo);
        this.resolving.delete(name);
        return `Moved worker '${name}' onto your current tree: ${moved.moved} file(s) replayed without a conflict, so its changes now apply cleanly. Nothing changed in your files.`;
      }
      const prompt = await this.message(cs, moved);
      try {
        await this.send(name, prompt, (end) => this.finish(name, cs, moved, end, restore));
      } catch (err) {
        await restore();
        throw err;
      }
      const paths = named(
        moved.conflicts.map((c) => c.path),
        MAX_DESCRIBED,
      );
      return (
        `Moved worker '${name}' onto your current tree; ${moved.conflicts.length} conflicted file(s) (${paths}) went to the worker to resolve. ` +
        "Its result arrives as a [Background task completed] message; then Apply (which still asks the user). Nothing changed in the user's files."
      );
    } catch (err) {
      this.resolving.delete(name);
      throw err;
    }
  }

  /**
   * Undoes a resolution no window is running any more (its window closed or died while the worker worked): the
   * worktree and its base back as before the attempt, from the record kept with the change set. False: none to undo.
   */
  async recover(name: string): Promise<boolean> {
    const cs = this.pending.get(name);
    if (!cs?.resolving || this.resolving.has(name)) return false;
    // The attempt's movedOnto goes with it: kept, Keep as branch counted the worker's change from the undone move's
    // base, and refused it, or put it on the user's HEAD with their later commits reverted.
    const { resolving: r, movedOnto: _attempt, ...rest } = cs;
    const before: ChangeSet = { ...rest, baseCommit: r.baseCommit, ...(r.movedOnto ? { movedOnto: r.movedOnto } : {}) };
    await this.mover.undo({ cs: before, before: r.before, backupDir: r.backupDir, saved: r.saved });
    await this.baseRefs.restore(before, r.baseCommit, !r.hadRef);
    this.pending.save(before);
    return true;
  }

  private async finish(name: string, cs: ChangeSet, moved: MoveResult, end: ResolveTaskEnd, restore: () => Promise<void>): Promise<string> {
    try {
      const { left, overriding } = end === 'completed' ? await this.mover.unresolved(cs, moved) : { left: [], overriding: [] };
      if (end === 'completed' && !left.length) {
        // The record goes before its backup does: a start in between would find a record it cannot undo with.
        const now = this.pending.get(name);
        if (now) {
          // The files the worker's version replaces stay with the record, for Apply's confirm to name (replacedFiles.ts).
          const { resolving: _done, ...resolved } = now;
          const paths = overriding.map((c) => c.path);
          const replaces = withReplaced(resolved.replaces, paths);
          this.pending.save({ ...resolved, ...(replaces ? { replaces } : {}) });
        }
        await this.mover.dropBackup(moved.undo);
        // What the worker chose instead of a merge replaces the user's version at Apply: said, never silent.
        const it = overriding.length === 1 ? 'it' : 'them';
        const replaces = overriding.length
          ? ` The worker chose the version of ${named(overriding.map(described), MAX_DESCRIBED)} (git cannot merge ${it} line by line): Apply puts ${it} in place of the user's.`
          : '';
        return `\n\nConflicts resolved: its change set is now based on the user's current tree, so Apply will land cleanly.${replaces}`;
      }
      await restore();
      const markers = left.filter((c) => c.kind === 'text').map((c) => c.path);
      const undecided = left.filter((c) => c.kind !== 'text').map(described);
      const why =
        end !== 'completed'
          ? `the worker ${end === 'timed_out' ? 'timed out' : end === 'killed' ? 'was stopped' : 'failed'}`
          : [
              ...(markers.length ? [`conflict markers are left in ${named(markers, MAX_DESCRIBED)}`] : []),
              ...(undecided.length
                ? [`the worker left ${named(undecided, MAX_DESCRIBED)} unchanged, so nothing chose between the user's version and its own`]
                : []),
            ].join('; ');
      // Resolve in the editor puts markers in text only: the other files are the user's to choose.
      const then = undecided.length
        ? `Tell the user: only they can choose for ${undecided.length === 1 ? 'that file' : 'those files'}.`
        : 'Tell the user; they can Resolve in the editor instead.';
      return `\n\nConflict resolution gave up (${why}): its worktree is back exactly as before the attempt, and nothing reached the user's files. ${then}`;
    } finally {
      this.resolving.delete(name);
    }
  }

  /** The message to the worker: which files conflict and what each side meant there. */
  private async message(cs: ChangeSet, moved: MoveResult): Promise<string> {
    const parts = [
      "The user's working tree moved on while you worked (other changes landed there). Baton has moved your worktree onto the user's current files " +
        'and replayed your changes on top with a 3-way merge. These files conflict:',
    ];
    for (const c of moved.conflicts.slice(0, MAX_DESCRIBED)) {
      const [user, yours] = await Promise.all([
        this.mover.fileDiff(cs, cs.baseCommit, moved.userTree, c.path, MAX_SIDE_DIFF),
        this.mover.fileDiff(cs, cs.baseCommit, moved.undo.before, c.path, MAX_SIDE_DIFF),
      ]);
      const state =
        c.kind === 'text'
          ? "it holds conflict markers: <<<<<<< user's tree … ======= … >>>>>>> your change"
          : `${OTHER_STATE[c.kind](c)}. Baton cannot tell a choice from no choice here: unless you change this file, the resolution gives up and the user chooses`;
      parts.push(
        `\n## ${c.path} (${state})\nWhat the user's side changed:\n${user || '(nothing shown)'}\nWhat your side changed:\n${yours || '(nothing shown)'}`,
      );
    }
    const also = moved.conflicts.slice(MAX_DESCRIBED).map((c) => c.path);
    if (also.length) parts.push(`\nAlso conflicted: ${named(also, MAX_NAMED)}`);
    parts.push(
      "\nResolve every conflict so that both intents hold: keep the user's change and redo yours on top of it. Remove all the markers; edit only what the " +
        'conflicts need; do not commit. If you cannot, leave the markers in place and say why: Baton then puts your worktree back as it was.',
    );
    return parts.join('\n');
  }
}

/** What the worker hears of a conflict that holds no markers, and what it must do. */
const OTHER_STATE: Record<Exclude<MovedConflict['kind'], 'text'>, (c: MovedConflict) => string> = {
  'deleted-by-user': (c) =>
    `the user ${c.renamedTo ? `renamed it to ${c.renamedTo}` : 'deleted it'}; your version is in place: ` +
    (c.renamedTo ? `redo your change in ${c.renamedTo} and delete this file` : 'delete it, or change it only if your change still needs the file'),
  'deleted-by-worker': () => 'you deleted it, the user changed it; it is deleted: restore it with their change, or redo their change where it went',
  binary: () => 'binary, changed on both sides; your version is in place: write a version that holds both changes',
  symlink: () => 'a symbolic link on one side, changed on both; your version is in place: point it (or write it) so both intents hold',
};

/** A conflict that holds no markers, named with what happened to it. */
function described(c: MovedConflict): string {
  const what = {
    text: 'text',
    'deleted-by-user': c.renamedTo ? `renamed by the user to ${c.renamedTo}` : 'deleted by the user',
    'deleted-by-worker': 'deleted by the worker',
    binary: 'binary',
    symlink: 'symbolic link',
  }[c.kind];
  return `${c.path} (${what})`;
}

/** `paths` joined, the first `max` of them, the rest counted. */
function named(paths: readonly string[], max: number): string {
  return `${paths.slice(0, max).join(', ')}${paths.length > max ? `, and ${paths.length - max} more` : ''}`;
}
