// Keep as branch when the worker's worktree is not simply on `baton/<worker>` with uncommitted work: the worker
// switched branch (`git checkout -b feature`) or committed on a detached HEAD, so Keep failed with git's "cannot lock
// ref 'refs/heads/baton/w'" at every retry; or the worker committed everything itself, so Keep said "0 files changed"
// and the user's commit message went nowhere. Now what the worktree holds (its HEAD and anything uncommitted) is kept on
// `baton/<worker>` with the user's message on top, counted from the change's base; a `baton/<worker>` holding commits the
// worktree's HEAD does not is refused by a typed error naming where the worker went, and nothing changes.
import * as assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentSessions } from '../../src/core/copilot/agentSessions';
import { KeepDiverged } from '../../src/core/changes/keepAsBranch';
import { PendingChangeSets } from '../../src/core/changes/pendingChangeSets';
import { WorkerChanges } from '../../src/core/changes/workerChanges';
import { MemoryLogger } from '../../src/core/util/logger';
import { makeRepo, testGit, writeFiles } from '../support/gitFixture';
import { eachStoreFolder } from '../support/storeFolder';

describe('Keep as branch after the worker committed, switched branch or detached its HEAD (real git)', function () {
  this.timeout(120_000);
  const folder = eachStoreFolder();
  const git = testGit();

  const setUp = async () => {
    const root = realpathSync(folder.dir);
    const repo = await makeRepo(git, join(root, 'app'), { 'a.txt': 'one\n', 'b.txt': 'b\n' });
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
    const wt = record.worktreePath;
    const inWt = (...args: string[]) => git.run(['-c', 'user.name=W', '-c', 'user.email=w@baton.invalid', ...args], { cwd: wt });
    const inRepo = async (...args: string[]) => (await git.run(args, { cwd: repo })).trim();
    return { repo, pending, changes, wt, inWt, inRepo, base: record.baseCommit };
  };

  it('the worker committed everything: the whole change is counted, and the message is the tip over its commit', async () => {
    const { changes, wt, inWt, inRepo, pending } = await setUp();
    await writeFiles(wt, { 'a.txt': 'one worker\n' });
    await inWt('commit', '-qam', 'worker commit');
    const workerCommit = await inRepo('rev-parse', 'baton/w');

    const text = await changes.keepAsBranch('w', 'Kept by you');
    assert.match(text, /^Kept 1 file changed, \+1 −1 of worker 'w' as commit [0-9a-f]{8} on branch baton\/w;/);
    assert.equal(await inRepo('log', '-1', '--format=%s', 'baton/w'), 'Kept by you');
    assert.equal(await inRepo('rev-parse', 'baton/w^'), workerCommit, "the worker's own commit stays beneath");
    assert.equal(await inRepo('show', 'baton/w:a.txt'), 'one worker');
    assert.equal(pending.get('w'), undefined);
  });

  it('the worker switched to a branch of its own and committed there, with more left uncommitted: all of it on baton/w', async () => {
    const { changes, wt, inWt, inRepo, pending } = await setUp();
    await writeFiles(wt, { 'a.txt': 'one worker\n' });
    await inWt('checkout', '-q', '-b', 'feature');
    await inWt('commit', '-qam', 'worker commit on feature');
    await writeFiles(wt, { 'b.txt': 'b worker\n' });
    const feature = await inRepo('rev-parse', 'feature');

    const text = await changes.keepAsBranch('w', 'Kept by you');
    assert.match(text, /^Kept 2 files changed, \+2 −2 of worker 'w' as commit [0-9a-f]{8} on branch baton\/w;/);
    assert.equal(await inRepo('log', '-1', '--format=%s', 'baton/w'), 'Kept by you');
    assert.equal(await inRepo('rev-parse', 'baton/w^'), feature);
    assert.equal(await inRepo('show', 'baton/w:a.txt'), 'one worker');
    assert.equal(await inRepo('show', 'baton/w:b.txt'), 'b worker');
    assert.equal(await inRepo('rev-parse', 'feature'), feature, "the worker's branch is left as it was");
    assert.equal(pending.get('w'), undefined);
  });

  it('the worker committed on baton/w, then on a detached HEAD: kept on baton/w, both commits in it', async () => {
    const { changes, wt, inWt, inRepo } = await setUp();
    await writeFiles(wt, { 'a.txt': 'one worker\n' });
    await inWt('commit', '-qam', 'c1');
    await inWt('checkout', '-q', '--detach');
    await writeFiles(wt, { 'b.txt': 'b2\n' });
    await inWt('commit', '-qam', 'c2 detached');

    assert.match(await changes.keepAsBranch('w', 'Kept by you'), /^Kept 2 files changed, \+2 −2 of worker 'w' /);
    assert.equal(await inRepo('log', '--format=%s', 'main..baton/w'), 'Kept by you\nc2 detached\nc1');
  });

  it("baton/w holds commits the worktree's HEAD does not: refused by type, naming the branch, nothing changed, the same at a retry", async () => {
    const { pending, changes, wt, inWt, inRepo, base } = await setUp();
    await writeFiles(wt, { 'a.txt': 'one worker\n' });
    await inWt('commit', '-qam', 'c1 on baton/w');
    const tip = await inRepo('rev-parse', 'baton/w');
    await inWt('checkout', '-q', '-b', 'other', base);
    await writeFiles(wt, { 'b.txt': 'b other\n' });
    await inWt('commit', '-qam', 'c2 on other');

    for (let attempt = 0; attempt < 2; attempt++) {
      await assert.rejects(
        changes.keepAsBranch('w', 'Kept by you'),
        (err: unknown) => err instanceof KeepDiverged && err.switchedTo === 'other' && err.branch === 'baton/w' && /'other'/.test(err.message),
      );
      assert.equal(await inRepo('rev-parse', 'baton/w'), tip, 'baton/w untouched');
      assert.ok(pending.get('w'), 'still pending');
      assert.equal((await git.run(['symbolic-ref', '--short', 'HEAD'], { cwd: wt })).trim(), 'other', 'the worktree as the worker left it');
    }
  });
});
