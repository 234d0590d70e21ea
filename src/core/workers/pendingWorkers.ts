// Workers whose changes still wait for review when a window starts (after a reload, a restart of VS Code): listed again
// as finished, so their card is back in the panel with Review, Apply and Discard, and Ask for changes and Resolve with
// the worker go on in the session kept for them (or, when it is gone, a new one told what the worker did). Before, such
// a worker was gone from the panel and every follow-up was answered "No worker named 'x'", although its change set and
// its session were kept for exactly that. A worker another live window holds is left to that window.
import { lstat } from 'node:fs/promises';
import * as path from 'node:path';
import { cardChanges } from '../changes/changeTotals';
import type { ChangeSet } from '../changes/changeSet';
import type { WorkerChanges } from '../changes/workerChanges';
import { verifyCard } from '../changes/verifyRecord';
import { forgetTold } from '../changes/toldOverlaps';
import { linkedTargets, type IncludedEntry } from '../git/worktreeInclude';
import type { BatonStore } from '../store/types';
import type { Logger } from '../util/logger';
import { readEnding, sweepEndings } from './workerEnding';
import { restoreWorkerExtras, sweepWorkerExtras } from './workerExtras';
import { errorText } from './workerMessages';
import { changedNothing, KEEP_FINISHED, type WorkerRegistry } from './workerRegistry';
import type { Worker } from './workerTypes';

export interface RestoreDeps {
  /** The session id kept for the worker's pending changes (sessionLifecycle.ts). */
  keptSession(name: string): string | undefined;
  /** Marks the worker's session closed when its history is gone from disk (SessionLifecycle.closeIfGone). */
  closeIfGone(w: Worker): Promise<void>;
  /** Whether another live window runs the worker. */
  elsewhere(name: string): boolean;
  /** Where git keeps the repository of `dir` (read-only to the worker, as at its placement: workerIsolation.ts). */
  gitFolders(dir: string): Promise<string[]>;
  /** A new worker record working in `dir`, with its permission handler. */
  make(name: string, dir: string): Worker;
  /** Runs the verify a closing window stopped on the worker's change set, once it is counted (verifyAgain.ts). */
  verifyAgain(w: Worker): void;
  store: BatonStore;
  logger: Logger;
}

/** Lists again, finished, the worker of each pending change set nobody lists; then counts each one's changes for its card. */
export async function restorePendingWorkers(reg: WorkerRegistry, changes: WorkerChanges, deps: RestoreDeps): Promise<void> {
  const restored: Worker[] = [];
  const owed = new Set<Worker>();
  const pending = new Set(changes.list().map((p) => p.worker));
  const kept = (name: string): boolean => pending.has(name) || !!reg.lookup(name) || deps.elsewhere(name);
  // A worker running here or in another window records its ending when it ends.
  sweepEndings(deps.store, kept);
  sweepWorkerExtras(deps.store, kept);
  // An overlap told stays told only while both change sets wait (toldOverlaps.ts).
  forgetTold(deps.store, (name) => !kept(name));
  for (const p of changes.list()) {
    if (reg.lookup(p.worker) || deps.elsewhere(p.worker)) continue;
    const cs = p.changeSet;
    if (p.kind === 'worktree' && !cs) continue;
    const w = deps.make(p.worker, cs?.workingDir ?? p.dir);
    // The squad that started it, its charter and model: a follow-up goes on as its squad's worker (workerExtras.ts).
    restoreWorkerExtras(w, deps.store);
    // As its task ended; from an earlier version, which kept no ending: "done", and no time is shown for it.
    const ending = readEnding(deps.store, p.worker);
    w.state = ending?.state ?? 'done';
    w.startedAt = ending?.startedAt ?? 0;
    w.finishedAt = ending?.finishedAt ?? 0;
    if (ending?.summary) w.summary = ending.summary;
    const sessionId = cs ? deps.keptSession(p.worker) : p.sessionId;
    if (sessionId) w.sessionId = sessionId;
    // Its session was deleted (or never recorded): a follow-up starts a new one, told what the worker did before.
    else w.sessionClosed = true;
    await deps.closeIfGone(w);
    if (cs) {
      const included = await includedEntries(cs);
      w.isolation = {
        kind: 'worktree',
        branch: cs.branch,
        baseCommit: cs.baseCommit,
        sourceDir: path.join(cs.repoRoot, path.relative(cs.worktreePath, cs.workingDir)),
        uncommittedLeftOut: false,
        ...(cs.folderRepo ? { copy: true } : {}),
      };
      w.included = included;
      // Its last verify, as the card showed it (Apply's confirm reads the record itself).
      if (cs.verify) w.verify = verifyCard(cs.verify);
      if (cs.verifyDue) owed.add(w);
      w.linkedTargets = linkedTargets(cs.repoRoot, included);
      w.sandboxReadonly = [...(await deps.gitFolders(cs.worktreePath)), ...w.linkedTargets];
    } else {
      w.isolation = { kind: 'in-place' };
      w.sandboxReadonly = await deps.gitFolders(p.dir);
    }
    restored.push(w);
  }
  // Checked again after the awaits: a worker of that name may have started meanwhile.
  const fresh = restored.filter((w) => !reg.lookup(w.name));
  if (!fresh.length) return;
  reg.finished = [...reg.finished, ...fresh];
  reg.fireNow();
  for (const w of fresh) {
    await changes.totals(w.name).then(
      async (t) => {
        w.changes = cardChanges(t);
        // A worktree its worker left empty (it only read, ran, reported) is kept for a follow-up while its window
        // lives; at the next start it goes, so such worktrees do not pile up (README, "Bounds").
        if (!t.files && !t.leftOut && w.isolation?.kind === 'worktree' && changedNothing(w)) {
          await changes.discard(w.name).then(
            () => {
              reg.finished = reg.finished.filter((f) => f !== w);
              deps.logger.info(`Worker '${w.name}' changed nothing in its worktree: the worktree is removed`);
            },
            (err: unknown) => deps.logger.warn(`Worker '${w.name}': its empty worktree stays (${errorText(err)})`),
          );
        }
        reg.fireNow();
        if (owed.has(w) && reg.lookup(w.name) === w && changes.has(w.name)) deps.verifyAgain(w);
      },
      (err: unknown) => {
        // Its worktree gone, its repository moved: the card says why, and keeps Discard.
        w.changes = { files: 0, additions: 0, deletions: 0, note: errorText(err) };
        reg.fireNow();
        deps.logger.warn(`Worker '${w.name}': could not count its pending changes (${errorText(err)})`);
      },
    );
  }
  deps.logger.info(`Listed again ${fresh.length} worker(s) whose changes wait for review: ${fresh.map((w) => `'${w.name}'`).join(', ')}`);
}

/** The include entries Baton linked (not copied) into the worktree: links to the user's checkout, read-only to the worker. */
/** What its worktree holds of the user's checkout, as placed: a link is a folder linked in, anything else a copy. */
async function includedEntries(cs: ChangeSet): Promise<IncludedEntry[]> {
  const included: IncludedEntry[] = [];
  for (const p of cs.includedPaths) {
    const st = await lstat(path.join(cs.worktreePath, p)).catch(() => undefined);
    if (st) included.push({ path: p, how: st.isSymbolicLink() ? 'linked' : 'copied' });
  }
  return included;
}

/**
 * The finished workers listed (newest first, `finished`): the newest KEEP_FINISHED, and every one whose changes wait for
 * review, as a window's start lists them (restorePendingWorkers); pushed out, such a worker's card went and every
 * follow-up was "No worker named 'x'" although its change set and session were kept for it. The rest are `evicted`.
 */
export function listedFinished(finished: readonly Worker[], changes: WorkerChanges | undefined): { kept: Worker[]; evicted: Worker[] } {
  let others = 0;
  const waits = (w: Worker): boolean => !!changes?.has(w.name) && !changedNothing(w);
  const kept = finished.filter((w) => waits(w) || ++others <= KEEP_FINISHED);
  return { kept, evicted: finished.filter((w) => !kept.includes(w)) };
}

/**
 * Finished workers pushed out of the list the panel shows (KEEP_FINISHED): a worktree one of them left empty was kept
 * for a follow-up, which nothing can ask of it any more, so it goes now; in a window that lives for weeks such
 * worktrees (each a whole checkout) would otherwise pile up until the next start. One with changes stays for review.
 */
export async function letGoEmptyWorktrees(evicted: readonly Worker[], changes: WorkerChanges | undefined, reg: WorkerRegistry, logger: Logger): Promise<void> {
  for (const w of evicted) {
    if (!changes?.has(w.name) || reg.lookup(w.name) || !changedNothing(w)) continue;
    await changes.discard(w.name).then(
      () => logger.info(`Worker '${w.name}' changed nothing in its worktree and left the list of finished workers: the worktree is removed`),
      (err: unknown) => logger.warn(`Worker '${w.name}': its empty worktree stays until the next start (${errorText(err)})`),
    );
  }
}
