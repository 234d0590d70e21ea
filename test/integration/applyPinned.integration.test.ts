// Apply lands what the user confirmed (real git). The confirm (and the file picker before it) can stay open for as long
// as the user reads; the orchestrator could send the worker a follow-up meanwhile, and Apply then landed files nobody
// had reviewed (with no verify warning). The changes are pinned before the user is asked (WorkerChanges.pinned), and
// an Apply whose changes moved since is refused, nothing written.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { ChangedSinceConfirm } from '../../src/core/changes/changeError';
import { PendingChangeSets } from '../../src/core/changes/pendingChangeSets';
import { WorkerChanges } from '../../src/core/changes/workerChanges';
import type { AgentSessions } from '../../src/core/copilot/agentSessions';
import { MemoryLogger } from '../../src/core/util/logger';
import { makeRepo, testGit, writeFiles } from '../support/gitFixture';
import { eachStoreFolder } from '../support/storeFolder';

describe('Apply lands what the user confirmed (real git)', function () {
  this.timeout(120_000);
  const folder = eachStoreFolder();
  const git = testGit();

  it('the worker changed more while the confirm was open: nothing is applied, and it says why; confirmed again, all of it lands', async () => {
    const root = realpathSync(folder.dir);
    const repo = await makeRepo(git, join(root, 'app'), { 'app.txt': 'original\n' });
    const store = await folder.openStore();
    const pending = new PendingChangeSets(store, join(root, 'storage'), new MemoryLogger(), () => [], git);
    const changes = new WorkerChanges({
      pending,
      sessions: {} as AgentSessions,
      store,
      logger: new MemoryLogger(),
      liveSession: () => undefined,
      working: () => false,
    });
    const { record } = await pending.worktrees.createWorkerWorktree({ repoDir: repo, workerName: 'w' });
    pending.save(record);
    await writeFiles(record.worktreePath, { 'app.txt': 'reviewed\n' });

    const confirmed = await changes.pinned('w');
    assert.ok(confirmed);
    // A follow-up while the dialog is open.
    await writeFiles(record.worktreePath, { 'secret-plan.txt': 'never reviewed\n' });
    await assert.rejects(
      changes.apply('w', { dirtyBuffers: [], expectTree: confirmed }),
      (err: unknown) =>
        err instanceof ChangedSinceConfirm &&
        err.message === "Nothing was applied: the changes of worker 'w' changed after you chose to apply them (it worked on). Review them and Apply again.",
    );
    assert.equal(readFileSync(join(repo, 'app.txt'), 'utf8'), 'original\n', 'nothing written');
    assert.equal(existsSync(join(repo, 'secret-plan.txt')), false);
    assert.ok(pending.get('w'), 'still pending');

    const again = await changes.pinned('w');
    assert.match(await changes.apply('w', { dirtyBuffers: [], expectTree: again }), /^Applied 2 files changed/);
    assert.equal(readFileSync(join(repo, 'secret-plan.txt'), 'utf8'), 'never reviewed\n');
  });
});
