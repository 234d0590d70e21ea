// "Resolve in the Editor" (real git) on a change with no conflict, and with the file open unsaved through a symlinked
// folder. Offered for any worker with changes (the Workers view's menu) and kept on a card after the user fixed their
// side, it used to leave a cleanly applied file unmerged without markers ("0 file(s) cleanly, 1 with conflict markers"),
// or refuse a file the worker added with a false reason, every time; and it compared unsaved buffers by plain path, so
// through a symlinked workspace it wrote markers into a file the editor held unsaved, which Apply refuses.
import * as assert from 'node:assert/strict';
import { readFileSync, realpathSync } from 'node:fs';
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentSessions } from '../../src/core/copilot/agentSessions';
import { NoConflict, resolveOrApply } from '../../src/core/changes/applyWithMarkers';
import { ApplyConflict } from '../../src/core/changes/changeSet';
import { PendingChangeSets } from '../../src/core/changes/pendingChangeSets';
import { WorkerChanges } from '../../src/core/changes/workerChanges';
import { MemoryLogger } from '../../src/core/util/logger';
import { makeRepo, testGit, writeFiles } from '../support/gitFixture';
import { eachStoreFolder } from '../support/storeFolder';

describe('Resolve in the Editor: a change without conflict is applied, an unsaved file is refused as Apply refuses it (real git)', function () {
  this.timeout(120_000);
  const folder = eachStoreFolder();
  const git = testGit();

  const setUp = async () => {
    const root = realpathSync(folder.dir);
    const repo = await makeRepo(git, join(root, 'app'), { 'app.txt': 'original\n', 'keep.txt': 'keep\n' });
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
    const status = async () => git.run(['status', '--porcelain', '--untracked-files=all'], { cwd: repo });
    return { root, repo, pending, changes, create, status };
  };

  it('only modified files: nothing is written unmerged; the command applies it as Apply does (Undo Apply included) and says there was no conflict', async () => {
    const { repo, pending, changes, create, status } = await setUp();
    const wt = await create('w');
    await writeFiles(wt, { 'app.txt': 'worker\n' });

    await assert.rejects(
      changes.resolveInEditor('w', { dirtyBuffers: [] }),
      (err: unknown) =>
        err instanceof NoConflict &&
        err.message ===
          "Nothing was written: the changes of worker 'w' apply to your files without a conflict, so there is nothing to resolve in the editor; Apply lands them.",
    );
    assert.equal(await status(), '', 'nothing written, nothing unmerged');
    assert.ok(pending.get('w'), 'still pending');

    const r = await resolveOrApply(changes, 'w', { dirtyBuffers: [] });
    assert.equal(r.text, "No conflict to resolve: Applied 1 file changed, +1 −1 from worker 'w' to your working tree.");
    assert.deepEqual(r.conflicted, []);
    assert.equal(readFileSync(join(repo, 'app.txt'), 'utf8'), 'worker\n', 'no markers');
    assert.equal(await status(), ' M app.txt\n', 'modified, not unmerged (UU)');
    assert.equal(await git.run(['ls-files', '-u'], { cwd: repo }), '', 'no conflict stages');
    assert.equal(pending.get('w'), undefined, 'the worktree is gone, as after Apply');
    assert.match(await changes.undoApply('w', { dirtyBuffers: [] }), /^Undid the Apply of worker 'w' /);
    assert.equal(readFileSync(join(repo, 'app.txt'), 'utf8'), 'original\n');
  });

  it('a file the worker added: applied, never refused as "your tree has a file of that name"; also after you undid your conflicting edit', async () => {
    const { repo, changes, create, status } = await setUp();
    const wt = await create('n');
    await writeFiles(wt, { 'app.txt': 'worker\n', 'new.txt': 'added\n' });
    // It conflicted, and the card offered Resolve in editor…; then you put your side back.
    await writeFiles(repo, { 'app.txt': 'yours\n' });
    await assert.rejects(changes.apply('n', { dirtyBuffers: [] }), (err: unknown) => err instanceof ApplyConflict && /app\.txt/.test(err.message));
    await git.run(['checkout', '--', 'app.txt'], { cwd: repo });

    await assert.rejects(changes.resolveInEditor('n', { dirtyBuffers: [] }), (err: Error) => {
      assert.doesNotMatch(err.message, /a file of that name/);
      assert.match(err.message, /^Nothing was written: the changes of worker 'n' apply to your files without a conflict/);
      return true;
    });
    assert.equal(await status(), '');
    const r = await resolveOrApply(changes, 'n', { dirtyBuffers: [] });
    assert.equal(r.text, "No conflict to resolve: Applied 2 files changed, +2 −1 from worker 'n' to your working tree.");
    assert.doesNotMatch(r.text, /a file of that name/);
    assert.equal(readFileSync(join(repo, 'app.txt'), 'utf8'), 'worker\n');
    assert.equal(readFileSync(join(repo, 'new.txt'), 'utf8'), 'added\n');
    assert.equal(await status(), ' M app.txt\n?? new.txt\n');
  });

  it('a real conflict still gets its markers through the command, the clean files applied beside it', async () => {
    const { repo, changes, create, status } = await setUp();
    const wt = await create('c');
    await writeFiles(wt, { 'app.txt': 'worker\n', 'new.txt': 'added\n' });
    await writeFiles(repo, { 'app.txt': 'yours\n' });
    const r = await resolveOrApply(changes, 'c', { dirtyBuffers: [] });
    assert.match(r.text, /1 file\(s\) cleanly, 1 with conflict markers to resolve \(app\.txt\)/);
    assert.deepEqual(r.conflicted, [join(repo, 'app.txt')]);
    assert.match(readFileSync(join(repo, 'app.txt'), 'utf8'), /^<<<<<<< your tree\nyours\n=======\nworker\n>>>>>>> worker c\n$/);
    assert.equal(await status(), 'UU app.txt\n?? new.txt\n');
  });

  it('the conflicting file unsaved in the editor, opened through a symlinked folder: refused by name as Apply refuses it, nothing written', async () => {
    const { root, repo, changes, create, status } = await setUp();
    const wt = await create('s');
    await writeFiles(wt, { 'app.txt': 'worker\n' });
    await writeFiles(repo, { 'app.txt': 'yours on disk\n' });
    const linked = join(root, 'workspace');
    await symlink(repo, linked, 'dir');

    const dirtyBuffers = [join(linked, 'app.txt')];
    await assert.rejects(changes.apply('s', { dirtyBuffers }), /Unsaved in the editor \(save or revert them first\): app\.txt/i);
    for (const attempt of [() => changes.resolveInEditor('s', { dirtyBuffers }), () => resolveOrApply(changes, 's', { dirtyBuffers })]) {
      await assert.rejects(
        attempt(),
        (err: Error) => err.name === 'ApplyConflict' && /unsaved in the editor \(save or revert them first\): app\.txt/i.test(err.message),
      );
      assert.equal(readFileSync(join(repo, 'app.txt'), 'utf8'), 'yours on disk\n', 'no markers in the file the editor holds');
      assert.equal(await status(), ' M app.txt\n');
    }

    // Review's right side (the worker's file) unsaved: Apply refuses it, and so does Resolve in the Editor.
    await assert.rejects(
      resolveOrApply(changes, 's', { dirtyBuffers: [join(wt, 'app.txt')] }),
      (err: unknown) => err instanceof ApplyConflict && /edited in Review but not saved/i.test(err.message),
    );
    assert.equal(await status(), ' M app.txt\n');
  });
});
