// "Verify before Apply": after each finished run of a worker with pending changes in a worktree,
// baton.workers.verifyCommand runs in that worktree through the worker's own session, so inside the
// worker's sandbox (its filesystem policy, its network mode, the allowlisted environment) and
// within the worker's time limit (baton.workers.timeoutMs). Its exit code, duration and last lines
// are stored with the change set, shown on the card, and told to the orchestrator.
// Invariants: a command never runs without the sandbox (the seam refuses; the record says "not
// run" and why, and Apply's confirm warns); a kill or a shutdown stops a running verify; one a
// shutdown stopped leaves its change set marked (verifyDue), and runs again at the next start.
import type { AgentSession } from '../copilot/agentSessions';
import { SandboxRequiredError, type SandboxedCommandResult } from '../copilot/agentSessions';
import type { WorkerCard } from '../../shared/protocol';
import type { Logger } from '../util/logger';
import type { PendingChangeSets } from './pendingChangeSets';
import { cardChanges, summaryTotals } from './changeTotals';
import { describeVerify, outputTail, verifyCard, verifyNote, type VerifyRecord } from './verifyRecord';

/** What the verifier reads and writes of a worker (the pool's Worker record). */
export interface VerifiedWorker {
  name: string;
  isolation?: WorkerCard['isolation'];
  changes?: WorkerCard['changes'];
  /** The worktree's snapshot `changes` was counted from just before (the completion's count): what is verified. */
  changesTree?: string;
  verify?: WorkerCard['verify'];
}

export interface ChangeVerifierOptions {
  pending: PendingChangeSets;
  /** The worker's live session: its sandbox is the one the command runs in. */
  liveSession: (name: string) => AgentSession | undefined;
  /** baton.workers.verifyCommand (empty: no verify) and baton.workers.timeoutMs, read at each run. */
  settings: () => { verifyCommand?: string; timeoutMs: number };
  /** Tells the views at once. */
  fire: () => void;
  logger: Logger;
  now?: () => number;
}

export class ChangeVerifier {
  private readonly running = new Map<string, AbortController>();

  constructor(private readonly opts: ChangeVerifierOptions) {}

  /**
   * After a finished run: verifies the worker's pending change set when a command is set and it
   * changed something. Returns the paragraph for its completion message ('' when nothing ran).
   */
  async afterRun(w: VerifiedWorker): Promise<string> {
    const command = this.opts.settings().verifyCommand?.trim();
    if (!command || w.isolation?.kind !== 'worktree' || !w.changes?.files || !this.opts.pending.get(w.name)) {
      // This run's change is not verified (no command now, nothing to verify): an earlier verdict on the card is not its,
      // unless the worktree is still the one it was given on.
      if (w.verify && this.opts.pending.get(w.name)?.verify?.tree !== w.changesTree) {
        w.verify = undefined;
        this.opts.fire();
      }
      return '';
    }
    const done = await this.verify(w, command);
    if (!done) return this.disposed ? `\n\nVerify (${command}) was stopped by the window closing: it runs again when Baton starts.` : '';
    // Files the command wrote (not ignored by git) are part of the change, as in the user's checkout: counted again.
    const wrote = done.recounted ? ` The command wrote into the worktree: the change is now ${done.recounted}.` : '';
    return verifyNote(done.record) + wrote;
  }

  /**
   * Runs again the verify a closing window stopped on `w`'s change set (verifyAgain.ts); nothing when none was.
   * `notRun`: why it cannot run now (no slot, its session not opened): recorded "not run" with that reason.
   */
  async again(w: VerifiedWorker, notRun?: string): Promise<void> {
    const cs = this.opts.pending.get(w.name);
    if (!cs?.verifyDue || this.running.has(w.name) || this.disposed) return;
    const command = this.opts.settings().verifyCommand?.trim();
    // Cleared since: no verify is wanted any more, and none is owed.
    if (command) await this.verify(w, command, notRun);
    else this.opts.pending.save({ ...cs, verifyDue: undefined });
  }

  /** Stops the verify of `name` if one runs (the worker was killed). */
  stop(name: string): void {
    this.running.get(name)?.abort();
  }

  dispose(): void {
    this.disposed = true;
    for (const a of this.running.values()) a.abort();
  }

  private disposed = false;

  /**
   * The verdict, and the change's new count when the command wrote into the worktree; undefined: stopped because Baton
   * is closing (no verdict: nothing is saved, the card drops the verify).
   */
  private async verify(w: VerifiedWorker, command: string, notRun?: string): Promise<{ record: VerifyRecord; recounted?: string } | undefined> {
    const now = this.opts.now ?? Date.now;
    const timeoutMs = this.opts.settings().timeoutMs;
    w.verify = { state: 'running', line: `verifying: ${command}` };
    this.opts.fire();
    const abort = new AbortController();
    this.running.set(w.name, abort);
    // Marked until its record is saved: a window closing before that leaves the verify owed, not a verdict.
    const started = this.opts.pending.get(w.name);
    if (started && !started.verifyDue) this.opts.pending.save({ ...started, verifyDue: true });
    // Nothing ran: the reason is the record's, as the user reads it ("verify not run: …").
    const notRunRecord = (reason: string): VerifyRecord => ({ command, state: 'not-run', reason, durationMs: 0, tail: '', at: now() });
    let record: VerifyRecord;
    try {
      const session = notRun === undefined ? this.opts.liveSession(w.name) : undefined;
      record = session
        ? toRecord(command, await session.runSandboxed(command, { timeoutMs, signal: abort.signal }), timeoutMs, now())
        : notRunRecord(notRun ?? "the worker's session is closed");
    } catch (err) {
      record = notRunRecord(err instanceof SandboxRequiredError ? err.message : `could not run: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      this.running.delete(w.name);
    }
    // A window closing stopped it: that is no verdict on the change ("failed: was stopped" was saved, and Apply's
    // confirm asked "apply anyway?" after the reload).
    if (this.disposed) {
      w.verify = undefined;
      return undefined;
    }
    let recounted: string | undefined;
    const cs = this.opts.pending.get(w.name);
    if (cs) {
      // What was verified is the worktree as the command left it: files it wrote are in the change, and a pass stays
      // current for them (it was stored against the tree before, and read "on an earlier version").
      // Counted again only when the tree changed: most commands write nothing git keeps.
      const after = await this.opts.pending.changeSets.summarizeIfChanged(cs, w.changesTree).catch(() => null);
      record.tree = after?.tree ?? w.changesTree;
      if (after) {
        const totals = summaryTotals(after);
        w.changes = cardChanges(totals);
        w.changesTree = after.tree;
        recounted = totals.line;
      }
      this.opts.pending.save({ ...cs, verify: record, verifyDue: undefined });
    }
    w.verify = verifyCard(record);
    this.opts.fire();
    const log = `Worker '${w.name}': ${describeVerify(record)}`;
    if (record.state === 'passed') this.opts.logger.info(log);
    else this.opts.logger.warn(log);
    return { record, recounted };
  }
}

function toRecord(command: string, r: SandboxedCommandResult, timeoutMs: number, at: number): VerifyRecord {
  const base = { command, durationMs: r.durationMs, tail: outputTail(r.output), at };
  if (r.end === 'timed-out') return { ...base, state: 'failed', reason: `did not finish within ${Math.round(timeoutMs / 1000)} s (baton.workers.timeoutMs)` };
  if (r.end === 'stopped') return { ...base, state: 'failed', reason: 'was stopped' };
  if (r.exitCode === undefined) return { ...base, state: 'failed', reason: 'could not be run by the sandbox' };
  return { ...base, state: r.exitCode === 0 ? 'passed' : 'failed', exitCode: r.exitCode };
}
