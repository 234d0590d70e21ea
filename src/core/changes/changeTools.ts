// The orchestrator's tools for a worker's pending changes. The model may look at them freely, but
// landing or throwing away work is the user's call: apply and discard always ask in the panel
// first, and a denial is final for that call.
import { z } from 'zod';
import { defineBatonTool, ToolFailure, type BatonTool, type ToolJournal } from '../copilot/batonTool';
import { replacesYours } from './applyConfirm';
import { namedFiles, UndoConflict } from './applyUndo';
import { ApplyConflict } from './changeSet';
import { suggestCommitMessage } from './keepAsBranch';
import type { WorkerChanges } from './workerChanges';

export interface ChangeToolOptions {
  journal?: ToolJournal;
  /** Asks the user (the panel's permission prompt); true only when they said yes. */
  confirm: (worker: string, action: string, detail: string) => Promise<boolean>;
  /** Absolute paths with unsaved edits in the editor (never overwritten). */
  dirtyBuffers: () => readonly string[];
  /** The worker's own summary of its work (its last report), the default message of a kept branch. */
  summaryOf?: (worker: string) => string | undefined;
}

const name = z.string().min(1).max(48).describe('The worker whose changes these are.');

export function createChangeTools(changes: WorkerChanges, opts: ChangeToolOptions): BatonTool[] {
  return [
    defineBatonTool(
      {
        name: 'review_worker_changes',
        description: "A worker's pending changes: a summary line (files, +added −removed) and the diff, bounded. Read-only.",
        schema: z.object({ name }),
        run: async (a) => (await changes.forModel(a.name)) || `Worker '${a.name}' changed nothing.`,
      },
      opts.journal,
    ),
    defineBatonTool(
      {
        name: 'apply_worker_changes',
        description:
          "Bring a worker's changes into the user's working tree, all or nothing. The user is asked first; " +
          'a conflict or a file with unsaved edits is reported by name and nothing changes.',
        schema: z.object({
          name,
          files: z
            .array(z.string().min(1))
            .min(1)
            .max(500)
            .optional()
            .describe(
              'Only these changed files (paths relative to the repository root, as review_worker_changes lists them); the rest stay pending. Default: all.',
            ),
          keep_worktree: z.boolean().optional().describe('Keep the worktree and branch after applying (default: remove them).'),
        }),
        sideEffect: true,
        run: async (a) => {
          // Refused before the user is asked: a worker at work in its worktree (settleGate.ts).
          changes.assertSettleable(a.name, 'apply them');
          const expectTree = await changes.pinned(a.name);
          const totals = await changes.totals(a.name);
          const what = a.files ? `${a.files.length} of the ${totals.files} changed files (${a.files.join(', ')})` : totals.line;
          // A failed (or missing) verify is named in the question the user answers, and in what the model hears.
          const warning = await changes.verifyWarning(a.name);
          const asked = warning && warning.kind !== 'stale' ? ` although ${warning.line}` : '';
          const replaces = await replacesYours(changes, a.name, a.files);
          if (
            !(await opts.confirm(a.name, 'apply changes', `apply ${what} from worker '${a.name}' to your working tree${asked}${replaces && `.${replaces}`}`))
          ) {
            throw new ToolFailure(`The user did not approve applying the changes of '${a.name}'${asked}. Do not retry; ask them what they want.`);
          }
          try {
            const applied = await changes.apply(a.name, { dirtyBuffers: opts.dirtyBuffers(), keep: a.keep_worktree, paths: a.files, expectTree });
            return warning ? `${applied} Note: ${warning.line}.` : applied;
          } catch (err) {
            if (err instanceof ApplyConflict) {
              const conflicting = err.files.some((f) => f.reason === 'does-not-apply');
              throw new ToolFailure(
                conflicting
                  ? `${err.message} Call resolve_worker_conflicts('${a.name}') to have the worker rebuild its change on the user's current tree, then apply again; or the user can choose Resolve in the Editor on the worker's card.`
                  : err.message,
              );
            }
            throw err;
          }
        },
      },
      opts.journal,
    ),
    defineBatonTool(
      {
        name: 'undo_worker_apply',
        description:
          "Take back a worker's last Apply (Baton keeps the last 10 that landed all of a worker's changes): its files go back to how they were before it, " +
          "all or nothing, the user's other edits untouched. A file changed since the Apply, or unsaved in the editor, is named and nothing changes. The user is asked first.",
        schema: z.object({ name }),
        sideEffect: true,
        run: async (a) => {
          const rec = changes.undoableApplies().find((r) => r.worker === a.name);
          if (!rec) {
            const others = changes.undoableApplies().map((r) => r.worker);
            throw new ToolFailure(
              `There is no Apply of worker '${a.name}' to undo${others.length ? ` (Applies that can be undone: ${others.join(', ')})` : ''}. Only an Apply that landed all of a worker's changes can be undone, the last of each worker.`,
            );
          }
          if (
            !(await opts.confirm(
              a.name,
              'undo an apply',
              `undo the Apply of worker '${a.name}' (${rec.summary}), putting ${namedFiles(rec.files)} back as before it`,
            ))
          ) {
            throw new ToolFailure(`The user did not approve undoing the Apply of '${a.name}'. Do not retry.`);
          }
          try {
            return await changes.undoApply(a.name, { dirtyBuffers: opts.dirtyBuffers() });
          } catch (err) {
            if (err instanceof UndoConflict)
              throw new ToolFailure(`${err.message} Tell the user; the undo stays possible once those files are back as the Apply left them.`);
            throw err;
          }
        },
      },
      opts.journal,
    ),
    defineBatonTool(
      {
        name: 'resolve_worker_conflicts',
        description:
          "When a worker's changes no longer apply to the user's tree: move the worker onto the user's current tree (HEAD plus uncommitted changes), " +
          "replay its changes there with a 3-way merge, and send the same worker the conflicted files to resolve. The user's files are not touched; " +
          'the result arrives as a [Background task completed] message, after which apply_worker_changes lands cleanly (and still asks the user).',
        schema: z.object({ name }),
        sideEffect: true,
        run: async (a) => changes.resolveWithWorker(a.name),
      },
      opts.journal,
    ),
    defineBatonTool(
      {
        name: 'keep_worker_changes_as_branch',
        description:
          "Commit a worker's whole change on its branch baton/<name> and remove its worktree, keeping the branch (for merge, cherry-pick or a pull request). " +
          "The user's files are not touched. The user is asked first.",
        schema: z.object({
          name,
          message: z.string().min(1).max(10_000).optional().describe("The commit message (default: the worker's own summary of its work)."),
        }),
        sideEffect: true,
        run: async (a) => {
          changes.assertSettleable(a.name, 'keep them as a branch');
          const totals = await changes.totals(a.name);
          const message = a.message ?? suggestCommitMessage(a.name, opts.summaryOf?.(a.name));
          const subject = message.split('\n')[0];
          if (
            !(await opts.confirm(
              a.name,
              'keep as a branch',
              `commit ${totals.line} of worker '${a.name}' on baton/${a.name} ("${subject}") and remove its worktree`,
            ))
          ) {
            throw new ToolFailure(`The user did not approve keeping the changes of '${a.name}' as a branch. Do not retry.`);
          }
          return changes.keepAsBranch(a.name, message);
        },
      },
      opts.journal,
    ),
    defineBatonTool(
      {
        name: 'discard_worker_changes',
        description:
          "Throw away a worker's pending changes (its worktree and branch, or, for a worker that worked in the folder itself, restore the files it changed). The user is asked first.",
        schema: z.object({ name }),
        sideEffect: true,
        run: async (a) => {
          changes.assertSettleable(a.name, 'discard them');
          const totals = await changes.totals(a.name);
          if (!(await opts.confirm(a.name, 'discard changes', `discard ${totals.line} of worker '${a.name}'`))) {
            throw new ToolFailure(`The user did not approve discarding the changes of '${a.name}'. Do not retry.`);
          }
          return changes.discard(a.name);
        },
      },
      opts.journal,
    ),
  ];
}
