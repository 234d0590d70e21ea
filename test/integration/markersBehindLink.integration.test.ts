// The user's `src` is a symbolic link to a folder outside the repository. "Resolve in the editor" wrote through it:
// conflict markers went into the outside file, and the repository's index was left with conflict stages for a path git
// itself refuses to write beyond a link. Apply, which git refuses there, said "changed differently in your working
// tree", which is not why. Both now refuse by name and reason, and write nothing.
import * as assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { mkdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentSessions } from '../../src/core/copilot/agentSessions';
import { ApplyConflict } from '../../src/core/changes/changeSet';
import { PendingChangeSets } from '../../src/core/changes/pendingChangeSets';
import { WorkerChanges } from '../../src/core/changes/workerChanges';
import { MemoryLogger } from '../../src/core/util/logger';
import { makeRepo, testGit } from '../support/gitFixture';
import { eachStoreFolder } from '../support/storeFolder';

const SAID = 'Nothing was applied. Behind a symbolic link to a folder outside the repository: src/a.txt.';

describe('Apply and Resolve in the editor through a folder linked outside the repository (real git, real store)', function () {
  this.timeout(120_000);
  const folder = eachStoreFolder();
  const git = testGit();

  it('both refused with that reason by name; the outside file and the index untouched; still pending', async () => {
    const root = realpathSync(folder.dir);
    const repo = await makeRepo(git, join(root, 'app'), { 'src/a.txt': 'one\ntwo\nthree\n', 'b.txt': 'b\n' });
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
    await writeFile(join(record.worktreePath, 'src/a.txt'), 'one\nTWO-worker\nthree\n');
    await writeFile(join(record.worktreePath, 'b.txt'), 'b worker\n');
    const outside = join(root, 'outside');
    await mkdir(outside);
    await rename(join(repo, 'src'), join(outside, 'src'));
    await symlink(join(outside, 'src'), join(repo, 'src'), 'dir');
    await writeFile(join(outside, 'src/a.txt'), 'one\ntwo-user\nthree\n');
    const status = async () => git.run(['status', '--porcelain'], { cwd: repo });
    const before = await status();

    for (const attempt of [() => changes.apply('w', { dirtyBuffers: [] }), () => changes.resolveInEditor('w', { dirtyBuffers: [] })]) {
      await assert.rejects(attempt(), (err: unknown) => {
        assert.ok(err instanceof ApplyConflict);
        assert.deepEqual(
          err.files.map((f) => [f.path, f.reason]),
          [['src/a.txt', 'outside-repository']],
        );
        assert.equal(err.message, SAID);
        return true;
      });
      assert.equal(await readFile(join(outside, 'src/a.txt'), 'utf8'), 'one\ntwo-user\nthree\n', 'no markers outside the repository');
      assert.equal(await git.run(['ls-files', '-u'], { cwd: repo }), '', 'no conflict stages');
      assert.equal(await readFile(join(repo, 'b.txt'), 'utf8'), 'b\n', 'nothing applied beside it');
      assert.equal(await status(), before);
      assert.ok(pending.get('w'), 'still pending');
    }
  });
});
