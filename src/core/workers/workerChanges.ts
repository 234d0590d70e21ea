// A worker's pending changes, whatever the folder: a git worktree's change set (WorkerIsolation),
// or, in a folder without git, the files the runtime tracked for the worker's session (diffed and
// rewound through that session). Both are recorded in the store, so a reload or a restart still
// lists them, and they stay until the user applies (keeps) or discards them.
import type { AgentSession, AgentSessions, FileChange as SessionFileChange } from '../copilot/agentSessions';
import { describeSummary, type ReviewEntry } from '../git/changeSet';
import type { BatonStore } from '../store/types';
import type { Logger } from '../util/logger';
import type { WorkerIsolation } from './workerIsolation';
import { MAX_MODEL_DIFF_BYTES } from './workerIsolation';
import { errorText } from './workerMessages';
import { WorkerError, type Worker } from './workerTypes';

const TRACKED_PREFIX = 'tracked:';

export interface ChangeTotals {
  files: number;
  additions: number;
  deletions: number;
  /** "N files changed, +a −b". */
  line: string;
}

export interface PendingChanges {
  worker: string;
  kind: 'worktree' | 'tracked';
  /** The worktree (worktree) or the folder the worker changed in place (tracked). */
  dir: string;
  branch?: string;
}

/** What the multi-file diff shows: real files side by side (worktree), or the runtime's unified diffs (tracked). */
export type Review = { kind: 'files'; entries: ReviewEntry[] } | { kind: 'unified'; dir: string; text: string };

interface TrackedRecord {
  sessionId: string;
  workingDir: string;
}

export class WorkerChanges {
  constructor(
    private readonly isolation: WorkerIsolation,
    private readonly sessions: AgentSessions,
    private readonly store: BatonStore,
    private readonly logger: Logger,
    /** The live session of a worker still in the pool (a running worker can be reviewed too). */
    private readonly liveSession: (name: string) => AgentSession | undefined,
    /** Called after a change set was applied or discarded (the pool clears the card's count). */
    private readonly onSettled: (name: string) => void = () => undefined,
  ) {}

  /** A worker in a folder without git: its session's tracked changes are its change set. */
  trackInPlace(name: string, sessionId: string, workingDir: string): void {
    this.store.setState(TRACKED_PREFIX + name, JSON.stringify({ sessionId, workingDir } satisfies TrackedRecord));
  }

  list(): PendingChanges[] {
    const worktrees = this.isolation.list().map((c): PendingChanges => ({ worker: c.worker, kind: 'worktree', dir: c.worktreePath, branch: c.branch }));
    const tracked = this.store
      .stateKeys(TRACKED_PREFIX)
      .map((k) => k.slice(TRACKED_PREFIX.length))
      .map((worker): PendingChanges | undefined => {
        const r = this.tracked(worker);
        return r ? { worker, kind: 'tracked', dir: r.workingDir } : undefined;
      })
      .filter((p): p is PendingChanges => p !== undefined);
    return [...worktrees, ...tracked];
  }

  /** Worktrees in Baton's storage no change set owns (a crash, a lost record): Doctor lists them. */
  orphans(): ReturnType<WorkerIsolation['orphans']> {
    return this.isolation.orphans();
  }

  /** Removes the orphaned worktrees (and their baton/ branches); the user asked for it. */
  async removeOrphans(): Promise<number> {
    const orphans = await this.isolation.orphans();
    for (const o of orphans) await this.isolation.removeOrphan(o);
    return orphans.length;
  }

  /** The sessions whose tracked changes wait for review (their rewind needs them). */
  trackedSessionIds(): string[] {
    return this.store.stateKeys(TRACKED_PREFIX).flatMap((k) => this.tracked(k.slice(TRACKED_PREFIX.length))?.sessionId ?? []);
  }

  has(name: string): boolean {
    return this.isolation.get(name) !== undefined || this.tracked(name) !== undefined;
  }

  async totals(name: string): Promise<ChangeTotals> {
    if (this.isolation.get(name)) {
      const s = await this.isolation.summarize(name);
      return { files: s.files.length, additions: s.additions, deletions: s.deletions, line: describeSummary(s) };
    }
    return totalsOf(await this.trackedFiles(name));
  }

  /** A bounded summary and diff for the model. */
  async forModel(name: string): Promise<string> {
    if (this.isolation.get(name)) return (await this.isolation.diff(name)).text;
    const files = await this.trackedFiles(name);
    let text = `${totalsOf(files).line}\n\n${files.map((f) => f.diff).join('\n')}`;
    if (text.length > MAX_MODEL_DIFF_BYTES)
      text = `${text.slice(0, MAX_MODEL_DIFF_BYTES)}\n[… diff truncated at ${MAX_MODEL_DIFF_BYTES} characters; review it in VS Code]`;
    return text;
  }

  async review(name: string): Promise<Review> {
    if (this.isolation.get(name)) return { kind: 'files', entries: await this.isolation.reviewEntries(name) };
    const record = this.requireTracked(name);
    const files = await this.trackedFiles(name);
    return { kind: 'unified', dir: record.workingDir, text: files.map((f) => f.diff).join('\n') };
  }

  /** Worktree: all or nothing onto the user's tree. Tracked: the changes are already in place; the record is let go. */
  async apply(name: string, opts: { dirtyBuffers: readonly string[]; keep?: boolean }): Promise<string> {
    if (this.isolation.get(name)) {
      const r = await this.isolation.apply(name, opts);
      this.onSettled(name);
      return `Applied ${r.summary} from worker '${name}' to your working tree${opts.keep ? ' (its worktree and branch are kept)' : ''}.`;
    }
    const record = this.requireTracked(name);
    const totals = await this.totals(name);
    this.store.deleteState(TRACKED_PREFIX + name);
    this.onSettled(name);
    return `Kept ${totals.line} that worker '${name}' made in ${record.workingDir}.`;
  }

  /** Worktree: worktree and branch removed. Tracked: every file the worker changed is put back as it was. */
  async discard(name: string): Promise<string> {
    if (this.isolation.get(name)) {
      await this.isolation.discard(name);
      this.onSettled(name);
      return `Discarded the changes of worker '${name}': its worktree and branch are gone.`;
    }
    const record = this.requireTracked(name);
    const { restored } = await this.withSession(name, record, (s) => s.rewindFiles());
    this.store.deleteState(TRACKED_PREFIX + name);
    this.onSettled(name);
    this.logger.info(`Rewound ${restored.length} file(s) worker '${name}' changed in ${record.workingDir}`);
    return `Discarded the changes of worker '${name}': ${restored.length} file(s) in ${record.workingDir} restored.`;
  }

  /** The worker's changes in one line for its result (and its card), while its session is still open. */
  async resultNote(w: Worker): Promise<string> {
    // A worker in place is tracked for every task (a follow-up may change files after an earlier one changed none).
    if (w.isolation?.kind === 'in-place' && w.sessionId) this.trackInPlace(w.name, w.sessionId, w.workingDir);
    if (!this.has(w.name)) return '';
    try {
      const t = await this.totals(w.name);
      w.changes = { files: t.files, additions: t.additions, deletions: t.deletions };
      if (!t.files) {
        // Nothing to review in place: the record goes, so the Workers view does not list it as waiting.
        if (w.isolation?.kind !== 'worktree') this.store.deleteState(TRACKED_PREFIX + w.name);
        return '';
      }
      const where =
        w.isolation?.kind === 'worktree'
          ? ` in its worktree on ${w.isolation.branch}; nothing reaches the user's files until they apply it`
          : ` in ${w.workingDir} (can be undone)`;
      return `\n\nChanges: ${t.line}${where}. See review_worker_changes('${w.name}').`;
    } catch (err) {
      this.logger.warn(`Worker '${w.name}': could not summarize its changes (${errorText(err)})`);
      return '';
    }
  }

  private async trackedFiles(name: string): Promise<SessionFileChange[]> {
    const record = this.requireTracked(name);
    return this.withSession(name, record, (s) => s.changedFiles());
  }

  /** The worker's live session, or its session resumed just for this (it runs no turn: every permission is refused). */
  private async withSession<T>(name: string, record: TrackedRecord, fn: (s: AgentSession) => Promise<T>): Promise<T> {
    const live = this.liveSession(name);
    if (live) return fn(live);
    const session = await this.sessions.resume(record.sessionId, {
      role: 'worker',
      workingDirectory: record.workingDir,
      systemMessage: `You are '${name}', a finished background worker of Baton.`,
      permissions: () => ({ kind: 'reject', feedback: 'This session is only being reviewed.' }),
      ownSession: true,
      trackChanges: true,
    });
    try {
      return await fn(session);
    } finally {
      await session.disconnect();
    }
  }

  private tracked(name: string): TrackedRecord | undefined {
    const raw = this.store.getState(TRACKED_PREFIX + name);
    if (!raw) return undefined;
    try {
      return JSON.parse(raw) as TrackedRecord;
    } catch {
      return undefined;
    }
  }

  private requireTracked(name: string): TrackedRecord {
    const r = this.tracked(name);
    if (!r) throw new WorkerError(`Worker '${name}' has no pending changes.`);
    return r;
  }
}

function totalsOf(files: SessionFileChange[]): ChangeTotals {
  let additions = 0;
  let deletions = 0;
  for (const f of files) {
    for (const line of f.diff.split('\n')) {
      if (line.startsWith('+') && !line.startsWith('+++')) additions++;
      else if (line.startsWith('-') && !line.startsWith('---')) deletions++;
    }
  }
  const n = files.length;
  return { files: n, additions, deletions, line: `${n} file${n === 1 ? '' : 's'} changed, +${additions} −${deletions}` };
}
