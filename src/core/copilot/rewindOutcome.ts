// What the runtime's rewind of a session's files did (history.rewind, mode conversation-and-files). It leaves a file
// changed after the session's last write as it is (measured: a worker's file the user edited afterwards was kept, and
// restoredFiles was empty), and it can fail as a whole; Baton said "Discarded" whatever came back. So each outcome is
// read: success (with what was kept), or an AgentError saying what became of the files.
import type { RewoundFiles } from './agentSessions';
import { AgentError } from './errors';

/** The fields of the runtime's rewind result Baton reads (its type is experimental in the SDK). */
export interface RewindResult {
  outcome?: string;
  restoredFiles?: string[];
  skippedFiles?: { path: string; reason: string }[];
  error?: string;
}

const RESTORED = new Set(['success', 'truncation-failed', 'checkpoint-cleanup-failed', 'snapshot-prune-failed']);

export function rewindOutcome(result: RewindResult): RewoundFiles {
  const detail = result.error ? ` (${result.error})` : '';
  switch (result.outcome) {
    case 'session-busy':
      throw new AgentError('transient', 'The session is still at work, so nothing was restored. Try again once it has stopped.');
    case 'file-change-tracking-disabled':
    case 'unsupported-remote-session':
      throw new AgentError('fatal', `The runtime tracked no file changes for this session (${result.outcome}), so nothing was restored.`);
    case 'files-rolled-back':
      throw new AgentError('fatal', `Restoring the files failed, and every file was put back as it was before the attempt: nothing was restored${detail}.`);
    case 'rollback-incomplete':
      throw new AgentError(
        'fatal',
        `Restoring the files failed part-way and could not be undone: some files may be restored and others not${detail}. Check the folder.`,
      );
  }
  // success, and the outcomes where the files were restored but some bookkeeping after it failed (truncation,
  // checkpoints, snapshots); an older runtime sends no outcome. One this runtime does not name is not taken for success.
  if (result.outcome !== undefined && !RESTORED.has(result.outcome))
    throw new AgentError('fatal', `The runtime answered the rewind with '${result.outcome}'${detail}: Baton cannot tell what it restored. Check the folder.`);
  return {
    restored: result.restoredFiles ?? [],
    kept: (result.skippedFiles ?? []).map((f) => ({ path: f.path, reason: f.reason === 'user-modified' ? 'changed-since' : 'not-captured' })),
  };
}
