// The words of Apply's confirm, decided in core so the editor's dialog, the orchestrator's tool and
// the tests say the same: what is applied, first of all a verify that failed or did not run, and the user's own changes
// it replaces.
import { replacedAmong, replacedSentence } from './replacedFiles';
import type { WorkerChanges } from './workerChanges';

/** The most lines of a failed verify's output the confirm's detail shows (the card has the rest). */
const CONFIRM_TAIL_LINES = 12;

export interface ApplyConfirm {
  /** The dialog's question: "Apply 3 files changed, +4 −1 from worker 'x' to your working tree?" or, after a failed verify, "Verify failed: … Apply … anyway?". */
  message: string;
  detail: string;
  /** The button that applies: "Apply", or "Apply Anyway" after a failed or missing verify. */
  action: 'Apply' | 'Apply Anyway';
  /** The verify line the confirm names ("verify failed: npm test exited 1 after 2.1 s"), when it names one. */
  verify?: string;
}

/** `paths`: the files chosen (undefined: all). */
export async function applyConfirm(changes: WorkerChanges, name: string, paths?: readonly string[]): Promise<ApplyConfirm> {
  const totals = await changes.totals(name);
  const what = paths ? `${paths.length} of the ${totals.files} changed files` : totals.line;
  const warning = await changes.verifyWarning(name);
  // The user's own changes the worker's version goes over (after a Resolve with the worker) are named in the question.
  const replaces = await replacesYours(changes, name, paths);
  const rest = paths ? ' The other files stay in the worktree for a later Apply or Discard.' : '';
  // What no Apply carries (a folder that is a repository of its own, work in a submodule) is said before, not only after.
  const detail = `All or nothing: if any chosen file conflicts or has unsaved edits, nothing changes.${rest}${totals.leftOut ? ` ${totals.leftOut}` : ''}`;
  if (!warning || warning.kind === 'stale') {
    return {
      message: `Apply ${what} from worker '${name}' to your working tree?${replaces}`,
      detail: warning ? `${capitalize(warning.line)}.\n${detail}` : detail,
      action: 'Apply',
      ...(warning ? { verify: warning.line } : {}),
    };
  }
  const tail = warning.tail ? `\n\nLast lines:\n${warning.tail.split('\n').slice(-CONFIRM_TAIL_LINES).join('\n')}` : '';
  return {
    message: `${capitalize(warning.line)}. Apply ${what} from worker '${name}' anyway?${replaces}`,
    detail: `${detail}${tail}`,
    action: 'Apply Anyway',
    verify: warning.line,
  };
}

function capitalize(s: string): string {
  return s ? s[0]!.toUpperCase() + s.slice(1) : s;
}

/** What Apply's confirm says of the user's files it replaces ('' when none); `chosen`: the files chosen (undefined: all). */
export async function replacesYours(changes: WorkerChanges, name: string, chosen?: readonly string[]): Promise<string> {
  const had = changes.list().find((p) => p.worker === name && p.kind === 'worktree')?.changeSet?.replaces;
  if (!had) return '';
  const files = (await changes.files(name)).flatMap((f) => (f.oldPath ? [f.path, f.oldPath] : [f.path]));
  return replacedSentence(replacedAmong(had, chosen ? files.filter((p) => chosen.includes(p)) : files, !chosen), 'replaces');
}
