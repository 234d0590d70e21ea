// "Resolve in the editor" after a "Resolve with the worker" that kept the worker's version of a file git cannot merge
// (a binary): nothing conflicts any more, so the command applies the whole change after its own confirm, which asked
// only "Apply the changes of worker 'w' with conflict markers?": the user's uncommitted bytes went unnamed. Its question
// now names them as Apply's confirm does.
import * as assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentSessions } from '../../src/core/copilot/agentSessions';
import { resolveInEditorQuestion, resolveOrApply } from '../../src/core/changes/applyWithMarkers';
import { ApplyConflict } from '../../src/core/changes/changeSet';
import type { ResolveTaskEnd } from '../../src/core/changes/conflictResolution';
import { PendingChangeSets } from '../../src/core/changes/pendingChangeSets';
import { WorkerChanges } from '../../src/core/changes/workerChanges';
import { MemoryLogger } from '../../src/core/util/logger';
import { makeRepo, testGit } from '../support/gitFixture';
import { eachStoreFolder } from '../support/storeFolder';

describe("Resolve in the editor's confirm names your files the worker's version replaces (real git)", function () {
  this.timeout(120_000);
  const folder = eachStoreFolder();
  const git = testGit();

  const setUp = async (userEdit: boolean) => {
    const root = realpathSync(folder.dir);
    const repo = await makeRepo(git, join(root, 'app'), { 'img.bin': '\0\x01\x02\x03', 'a.txt': 'a\n' });
    const store = await folder.openStore();
    let wt = '';
    let ended: Promise<string> = Promise.resolve('');
    const pending = new PendingChangeSets(store, join(root, 'storage'), new MemoryLogger(), () => [], git);
    const changes = new WorkerChanges({
      pending,
      sessions: {} as AgentSessions,
      store,
      logger: new MemoryLogger(),
      liveSession: () => undefined,
      working: () => false,
      // The worker settles the binary conflict by changing its own version (the move kept it over the user's).
      send: async (_name: string, _prompt: string, after: (end: ResolveTaskEnd) => Promise<string>) => {
        ended = writeFile(join(wt, 'img.bin'), Buffer.from([0, 9, 9, 9, 1])).then(() => after('completed'));
      },
    });
    const { record } = await pending.worktrees.createWorkerWorktree({ repoDir: repo, workerName: 'w' });
    pending.save(record);
    wt = record.worktreePath;
    await writeFile(join(wt, 'img.bin'), Buffer.from([0, 9, 9, 9]));
    await writeFile(join(wt, 'a.txt'), 'a worker\n');
    if (userEdit) {
      await writeFile(join(repo, 'img.bin'), Buffer.from([0, 7, 7, 7, 7])); // the user's, not committed
      await assert.rejects(changes.apply('w', { dirtyBuffers: [] }), (err: unknown) => err instanceof ApplyConflict && /img\.bin/.test(err.message));
      await changes.resolveWithWorker('w');
      assert.match(await ended, /Conflicts resolved/);
    }
    return { repo, changes };
  };

  it('after Resolve with the worker: the question names img.bin, and the Apply it turns into says it replaced it', async () => {
    const { repo, changes } = await setUp(true);
    assert.equal(
      await resolveInEditorQuestion(changes, 'w'),
      "Apply the changes of worker 'w' with conflict markers? It replaces your uncommitted changes to img.bin with the worker's version.",
    );
    const r = await resolveOrApply(changes, 'w', { dirtyBuffers: [] });
    assert.match(r.text, /^No conflict to resolve: Applied .* It replaced your uncommitted changes to img\.bin with the worker's version/);
    assert.deepEqual([...(await readFile(join(repo, 'img.bin')))], [0, 9, 9, 9, 1]);
  });

  it('nothing of yours replaced: the question is as it was', async () => {
    const { changes } = await setUp(false);
    assert.equal(await resolveInEditorQuestion(changes, 'w'), "Apply the changes of worker 'w' with conflict markers?");
  });
});
