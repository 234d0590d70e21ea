// The record a "Resolve with the worker" keeps while it moves the worktree: a move that failed and was undone leaves
// the change set as it was; one whose undo failed too keeps its undo on record, for the next settle or start to try again.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import type { BaseRefs } from '../../src/core/changes/baseRefs';
import type { ChangeSet } from '../../src/core/changes/changeSet';
import { ConflictResolver } from '../../src/core/changes/conflictResolution';
import { MoveNotUndone, type MoveUndo, type TreeMover } from '../../src/core/changes/moveOntoUserTree';
import { PendingChangeSets } from '../../src/core/changes/pendingChangeSets';
import { MemoryLogger } from '../../src/core/util/logger';
import { eachStoreFolder } from '../support/storeFolder';

describe('ConflictResolver: a move that fails', () => {
  const folder = eachStoreFolder();

  it('undone: the change set as it was; not undone: its undo stays on record and the error says so', async () => {
    const pending = new PendingChangeSets(await folder.openStore(), folder.dir, new MemoryLogger());
    const cs = {
      worker: 'w',
      repoRoot: join(folder.dir, 'repo'),
      worktreePath: join(folder.dir, 'wt'),
      branch: 'baton/w',
      baseCommit: 'b'.repeat(40),
    } as ChangeSet;
    pending.save(cs);
    const undo: MoveUndo = { cs, before: 'c'.repeat(40), backupDir: join(folder.dir, 'tmp', 'move-w'), saved: [{ path: 'a.txt', was: 'file' }] };
    let failure: Error = new Error('merge-file failed');
    const mover = {
      move: async (_cs: ChangeSet, backedUp: (u: MoveUndo) => void) => {
        backedUp(undo);
        throw failure;
      },
    } as unknown as TreeMover;
    const resolver = new ConflictResolver(pending, mover, { exists: async () => true } as unknown as BaseRefs, async () => undefined);

    await assert.rejects(resolver.resolveWithWorker('w'), /merge-file failed/);
    assert.deepEqual(pending.get('w'), cs, 'undone: the record as it was');

    failure = new MoveNotUndone(new Error('merge-file failed'), new Error('ENOSPC: no space left on device'));
    await assert.rejects(
      resolver.resolveWithWorker('w'),
      (err: Error) =>
        err instanceof MoveNotUndone &&
        err.message ===
          'Moving the worker onto your tree failed (merge-file failed), and its worktree could not be put back yet (ENOSPC: no space left on device): ' +
            'Baton puts it back before anything else is done with its changes, or at the next start. Your files were not touched.',
    );
    assert.deepEqual(pending.get('w')?.resolving, {
      baseCommit: cs.baseCommit,
      hadRef: true,
      before: undo.before,
      backupDir: undo.backupDir,
      saved: undo.saved,
    });
    assert.equal(resolver.isResolving('w'), false, 'so a settle undoes it first (recover)');
  });
});
