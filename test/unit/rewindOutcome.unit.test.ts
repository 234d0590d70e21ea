import * as assert from 'node:assert/strict';
import { rewindOutcome } from '../../src/core/copilot/rewindOutcome';
import { AgentError } from '../../src/core/copilot/errors';

describe("the runtime's rewind of a session's files, read", () => {
  it('restored, and kept by name with why: a file changed since, one never captured whole', () => {
    assert.deepEqual(
      rewindOutcome({
        outcome: 'success',
        restoredFiles: ['/w/a.txt'],
        skippedFiles: [
          { path: '/w/notes.txt', reason: 'user-modified' },
          { path: '/w/big.bin', reason: 'skipped-capture' },
        ],
      }),
      {
        restored: ['/w/a.txt'],
        kept: [
          { path: '/w/notes.txt', reason: 'changed-since' },
          { path: '/w/big.bin', reason: 'not-captured' },
        ],
      },
    );
    // Restored, then some bookkeeping failed; an older runtime that names no outcome.
    for (const outcome of ['snapshot-prune-failed', 'checkpoint-cleanup-failed', 'truncation-failed', undefined])
      assert.deepEqual(rewindOutcome({ outcome, restoredFiles: ['/w/a.txt'] }), { restored: ['/w/a.txt'], kept: [] });
  });

  it('a rewind that restored nothing, or left it half done, is an error that says so (never "discarded")', () => {
    const cases: [string, AgentError['kind'], RegExp][] = [
      ['session-busy', 'transient', /still at work, so nothing was restored/],
      ['file-change-tracking-disabled', 'fatal', /tracked no file changes/],
      ['files-rolled-back', 'fatal', /nothing was restored \(disk full\)/],
      ['rollback-incomplete', 'fatal', /some files may be restored and others not \(disk full\)\. Check the folder\./],
      ['some-later-outcome', 'fatal', /answered the rewind with 'some-later-outcome' \(disk full\): Baton cannot tell what it restored/],
    ];
    for (const [outcome, kind, message] of cases)
      assert.throws(
        () => rewindOutcome({ outcome, restoredFiles: [], error: 'disk full' }),
        (err: unknown) => err instanceof AgentError && err.kind === kind && message.test(err.message),
        outcome,
      );
  });
});
