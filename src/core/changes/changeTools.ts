// The orchestrator's tools for a worker's pending changes. The model may look at them freely, but
// landing or throwing away work is the user's call: apply and discard always ask in the panel
// first, and a denial is final for that call.
import { z } from 'zod';
import { defineBatonTool, ToolFailure, type BatonTool, type ToolJournal } from '../copilot/batonTool';
import { ApplyConflict } from './changeSet';
import type { WorkerChanges } from './workerChanges';

export interface ChangeToolOptions {
  journal?: ToolJournal;
  /** Asks the user (the panel's permission prompt); true only when they said yes. */
  confirm: (worker: string, action: string, detail: string) => Promise<boolean>;
  /** Absolute paths with unsaved edits in the editor (never overwritten). */
  dirtyBuffers: () => readonly string[];
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
        schema: z.object({ name, keep_worktree: z.boolean().optional().describe('Keep the worktree and branch after applying (default: remove them).') }),
        sideEffect: true,
        run: async (a) => {
          const totals = await changes.totals(a.name);
          if (!(await opts.confirm(a.name, 'apply changes', `apply ${totals.line} from worker '${a.name}' to your working tree`))) {
            throw new ToolFailure(`The user did not approve applying the changes of '${a.name}'. Do not retry; ask them what they want.`);
          }
          try {
            return await changes.apply(a.name, { dirtyBuffers: opts.dirtyBuffers(), keep: a.keep_worktree });
          } catch (err) {
            if (err instanceof ApplyConflict) throw new ToolFailure(err.message);
            throw err;
          }
        },
      },
      opts.journal,
    ),
    defineBatonTool(
      {
        name: 'discard_worker_changes',
        description:
          "Throw away a worker's pending changes (its worktree and branch, or, in a folder without git, restore the files it changed). The user is asked first.",
        schema: z.object({ name }),
        sideEffect: true,
        run: async (a) => {
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
