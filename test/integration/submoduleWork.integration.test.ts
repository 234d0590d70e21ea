// Work a worker does in a submodule of its worktree (real git): `git worktree add` leaves the submodule's folder empty,
// git lists none of the files written there and `git apply` writes no pointer, so Apply used to land the rest, remove
// the worktree and lose that work without a word. It is named wherever the change is counted, and its worktree stays.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentSessions } from '../../src/core/copilot/agentSessions';
import { applyConfirm } from '../../src/core/changes/applyConfirm';
import { PendingChangeSets } from '../../src/core/changes/pendingChangeSets';
import { WorkerChanges } from '../../src/core/changes/workerChanges';
import { MemoryLogger } from '../../src/core/util/logger';
import { commitAll, makeRepo, testGit, writeFiles } from '../support/gitFixture';
import { eachStoreFolder } from '../support/storeFolder';

describe('work in a submodule of a worker’s worktree is never dropped unsaid (real git)', function () {
  this.timeout(120_000);
  const folder = eachStoreFolder();
  const git = testGit();

  const setUp = async () => {
    const root = realpathSync(folder.dir);
    const lib = await makeRepo(git, join(root, 'src', 'lib'), { 'src/lib.c': 'int lib;\n' });
    const repo = await makeRepo(git, join(root, 'app'), { 'app.txt': 'app\n', 'b.txt': 'b\n' });
    await git.run(['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', lib, 'lib'], { cwd: repo });
    await commitAll(git, repo, 'add lib');
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
    const create = async (workerName: string) => {
      const { record } = await pending.worktrees.createWorkerWorktree({ repoDir: repo, workerName });
      pending.save(record);
      return record.worktreePath;
    };
    return { repo, pending, changes, create };
  };

  it('files written in the empty submodule folder: named on the card, in the confirm and by Apply, which lands the rest and keeps them', async () => {
    const { repo, pending, changes, create } = await setUp();
    const wt = await create('w');
    await writeFiles(wt, { 'lib/src/fix.c': 'int fix;\n', 'app.txt': 'app fixed\n' });

    const named =
      /Not applied: lib\/ \(files in its folder\), the worker's work in a submodule: Baton applies files, never a submodule's, so it stays in the worker's worktree\./;
    const totals = await changes.totals('w');
    assert.equal(totals.line, '1 file changed, +1 −1');
    assert.match(totals.leftOut ?? '', named);
    assert.match((await applyConfirm(changes, 'w')).detail, named);
    assert.match(await changes.forModel('w'), named);

    const applied = await changes.apply('w', { dirtyBuffers: [] });
    assert.match(applied, /^Applied 1 file changed, \+1 −1 from worker 'w' to your working tree\. Not applied: lib\/ \(files in its folder\), /);
    assert.match(applied, / Its worktree stays, pending with that work, until you Discard it\.$/);
    assert.equal(readFileSync(join(repo, 'app.txt'), 'utf8'), 'app fixed\n');
    assert.equal(readFileSync(join(wt, 'lib', 'src', 'fix.c'), 'utf8'), 'int fix;\n', 'the worker’s file is still there');
    assert.ok(pending.get('w'), 'still pending');
    const after = await changes.totals('w');
    assert.equal(after.line, '0 files changed, +0 −0');
    assert.match(after.leftOut ?? '', named);
    assert.match(await changes.apply('w', { dirtyBuffers: [] }), /^Worker 'w' has no file to apply\. Not applied: lib\/ .* Discard lets its worktree go\.$/);
    assert.ok(existsSync(join(wt, 'lib', 'src', 'fix.c')));
  });

  it('a commit made in the submodule: no pointer counted as a changed file; Keep as branch keeps the worktree that holds the commit', async () => {
    const { pending, changes, create } = await setUp();
    const wt = await create('k');
    await git.run(['-c', 'protocol.file.allow=always', 'submodule', 'update', '--init', '-q'], { cwd: wt });
    await writeFiles(wt, { 'lib/src/lib.c': 'int lib = 1;\n', 'b.txt': 'b changed\n' });
    await commitAll(git, join(wt, 'lib'), 'fix in lib');

    const totals = await changes.totals('k');
    assert.deepEqual([totals.line, totals.paths], ['1 file changed, +1 −1', ['b.txt']]);
    assert.match(totals.leftOut ?? '', /^Not applied: lib\/ \(files in its folder and its commit changed\), /);

    const kept = await changes.keepAsBranch('k', 'Keep b');
    assert.match(kept, /^Kept 1 file changed, \+1 −1 of worker 'k' as commit \w{8} on branch baton\/k, /);
    assert.match(kept, /Its worktree could not be removed \(it holds the worker's work in submodule lib\/: it is at .+\): /);
    assert.equal(pending.get('k'), undefined);
    assert.equal((await git.run(['log', '-1', '--format=%s'], { cwd: join(wt, 'lib') })).trim(), 'fix in lib', 'the submodule’s commit is still there');
    assert.ok(
      (await pending.orphans()).some((o) => o.worktreePath === wt),
      'listed for Clean Up Orphaned Worktrees',
    );
  });
});
