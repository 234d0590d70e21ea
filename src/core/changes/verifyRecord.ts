// What "Verify before Apply" keeps of one run of baton.workers.verifyCommand, and the words the
// card, the completion message and Apply's confirm use for it. Plain data: it is stored with the
// change set, so a reload still knows whether the pending change passed.
import type { WorkerCard } from '../../shared/protocol';

/** The most lines of a verify run's output kept (its end: where test runners put the verdict). */
export const MAX_VERIFY_LINES = 40;
/** The most characters of those lines kept (the runtime itself keeps only the last ~3.5 KB). */
export const MAX_VERIFY_CHARS = 4000;

export interface VerifyRecord {
  command: string;
  /** passed: exit code 0; failed: any other end (exit code, time limit, stop); not-run: it could not run in the sandbox. */
  state: 'passed' | 'failed' | 'not-run';
  exitCode?: number;
  /** Why it failed without an exit code, or was not run. */
  reason?: string;
  durationMs: number;
  /** The last lines of its output (bounded by MAX_VERIFY_LINES and MAX_VERIFY_CHARS). */
  tail: string;
  /** When it finished (ms since the epoch). */
  at: number;
  /** The worktree's snapshot (a git tree) it ran on: a later edit makes the result stale. */
  tree?: string;
}

/** The end of `output`: at most MAX_VERIFY_LINES lines and MAX_VERIFY_CHARS characters, trailing blank lines dropped. */
export function outputTail(output: string): string {
  const lines = output.replace(/\s+$/, '').split('\n').slice(-MAX_VERIFY_LINES);
  let text = lines.join('\n');
  if (text.length > MAX_VERIFY_CHARS) text = text.slice(text.length - MAX_VERIFY_CHARS);
  return text;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The card's line: "verify passed: npm test (2.1 s)", "verify failed: npm test exited 1 after 2.1 s". */
/** What a worker's card shows of a verify record. */
export function verifyCard(v: VerifyRecord): NonNullable<WorkerCard['verify']> {
  return { state: v.state, line: describeVerify(v), ...(v.tail ? { tail: v.tail } : {}) };
}

export function describeVerify(v: VerifyRecord): string {
  if (v.state === 'passed') return `verify passed: ${v.command} (${seconds(v.durationMs)})`;
  if (v.state === 'not-run') return `verify not run: ${v.reason ?? 'unknown reason'}`;
  const why = v.exitCode !== undefined ? `exited ${v.exitCode} after ${seconds(v.durationMs)}` : (v.reason ?? 'did not finish');
  return `verify failed: ${v.command} ${why}`;
}

/** The completion message's paragraph for the orchestrator: the verdict, and the last lines of a failure. */
export function verifyNote(v: VerifyRecord): string {
  const line = describeVerify(v);
  if (v.state !== 'failed' || !v.tail) return `\n\n${line[0]!.toUpperCase()}${line.slice(1)}.`;
  return `\n\n${line[0]!.toUpperCase()}${line.slice(1)}. Its last lines:\n${v.tail}`;
}

/** What Apply's confirm must say about the last verify, or undefined when nothing (no verify, or a current pass). */
export interface VerifyWarning {
  /** failed / not-run: the confirm asks "apply anyway?"; stale: a pass on an earlier version of the changes. */
  kind: 'failed' | 'not-run' | 'stale';
  /** "verify failed: npm test exited 1 after 2.1 s" (plus " (on an earlier version of these changes)" when stale). */
  line: string;
  tail: string;
}

/** `currentTree`: the worktree's snapshot now (a different one than the verified makes the result stale). */
export function verifyWarning(v: VerifyRecord | undefined, currentTree?: string): VerifyWarning | undefined {
  if (!v) return undefined;
  const stale = v.tree !== undefined && currentTree !== undefined && v.tree !== currentTree;
  const line = `${describeVerify(v)}${stale ? ' (on an earlier version of these changes)' : ''}`;
  if (v.state === 'passed') return stale ? { kind: 'stale', line, tail: '' } : undefined;
  return { kind: v.state, line, tail: v.tail };
}
