// "Resolve with the worker" on a file git cannot merge line by line (a binary both sides changed): the worker keeps its
// version, and Apply then puts it over the user's uncommitted one. That used to be said only to the orchestrator
// model; Apply's confirm read "Apply 2 files changed, +1 −1 from worker 'w' to your working tree?" and the user's bytes
// went. Now the confirm (the editor's and the orchestrator tool's), and the Apply's result, name the file, across a
// reload too, until it lands.
import * as assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentSessions } from '../../src/core/copilot/agentSessions';
import { applyConfirm } from '../../src/core/changes/applyConfirm';
import { ApplyConflict } from '../../src/core/changes/changeSet';
import { createChangeTools } from '../../src/core/changes/changeTools';
import type { ResolveTaskEnd } from '../../src/core/changes/conflictResolution';
import { PendingChangeSets } from '../../src/core/changes/pendingChangeSets';
import { WorkerChanges } from '../../src/core/changes/workerChanges';
import type { BatonStore } from '../../src/core/store/types';
import { MemoryLogger } from '../../src/core/util/logger';
import { makeRepo, testGit } from '../support/gitFixture';
import { eachStoreFolder } from '../support/storeFolder';
import { callTool } from '../support/workerCore';

const NAMED = "It replaces your uncommitted changes to img.bin with the worker's version.";

describe('Resolve with the worker, then Apply: the files whose version the worker chose over yours are named (real git, real store)', function () {
  this.timeout(120_000);
  const folder = eachStoreFolder();
  const git = testGit();

  /** WorkerChanges over `store`; `resolve` is what the worker does when sent its conflicts. */
  const changesOn = (store: BatonStore, storage: string, resolve?: () => Promise<void>) => {
    let ended: Promise<string> = Promise.resolve('');
    const pending = new PendingChangeSets(store, storage, new MemoryLogger(), () => [], git);
    const changes = new WorkerChanges({
      pending,
      sessions: {} as AgentSessions,
      store,
      logger: new MemoryLogger(),
      liveSession: () => undefined,
      working: () => false,
      send: async (_name: string, _prompt: string, after: (end: ResolveTaskEnd) => Promise<string>) => {
        ended = (resolve ?? (() => Promise.resolve()))().then(() => after('completed'));
      },
    });
    return { pending, changes, resolved: () => ended };
  };

  const setUp = async () => {
    const root = realpathSync(folder.dir);
    const storage = join(root, 'storage');
    const repo = await makeRepo(git, join(root, 'app'), { 'img.bin': '\0\x01\x02\x03', 'a.txt': 'a\n' });
    const store = await folder.openStore();
    let wt = '';
    const { pending, changes, resolved } = changesOn(store, storage, () => writeFile(join(wt, 'img.bin'), Buffer.from([0, 9, 9, 9, 1])));
    const { record } = await pending.worktrees.createWorkerWorktree({ repoDir: repo, workerName: 'w' });
    pending.save(record);
    wt = record.worktreePath;
    await writeFile(join(wt, 'img.bin'), Buffer.from([0, 9, 9, 9]));
    await writeFile(join(wt, 'a.txt'), 'a worker\n');
    await writeFile(join(repo, 'img.bin'), Buffer.from([0, 7, 7, 7, 7])); // the user's, not committed
    await assert.rejects(changes.apply('w', { dirtyBuffers: [] }), (err: unknown) => err instanceof ApplyConflict && /img\.bin/.test(err.message));
    await changes.resolveWithWorker('w');
    assert.match(await resolved(), /Conflicts resolved/);
    return { root, storage, repo, store, pending, changes };
  };

  it("the confirm names the file the worker's version replaces, after a reload too; the orchestrator's question names it; the Apply's result says it", async () => {
    const { storage, repo, store, changes } = await setUp();

    const confirm = await applyConfirm(changes, 'w');
    assert.equal(confirm.message, `Apply 2 files changed, +1 −1 from worker 'w' to your working tree? ${NAMED}`);
    const onlyText = await applyConfirm(changes, 'w', ['a.txt']);
    assert.equal(onlyText.message, "Apply 1 of the 2 changed files from worker 'w' to your working tree?", 'not chosen: not replaced');

    await store.close();
    const reloaded = changesOn(await folder.openStore(), storage).changes;
    assert.equal((await applyConfirm(reloaded, 'w')).message, confirm.message, 'kept with the change set across a reload');

    const asked: string[] = [];
    const tools = createChangeTools(reloaded, { confirm: async (_w, _a, detail) => (asked.push(detail), false), dirtyBuffers: () => [] });
    await callTool(tools, 'apply_worker_changes', { name: 'w' });
    assert.equal(asked[0], `apply 2 files changed, +1 −1 from worker 'w' to your working tree. ${NAMED}`);

    const text = await reloaded.apply('w', { dirtyBuffers: [] });
    assert.equal(
      text,
      "Applied 2 files changed, +1 −1 from worker 'w' to your working tree. It replaced your uncommitted changes to img.bin with the worker's version (Undo Apply puts them back).",
    );
    assert.deepEqual([...(await readFile(join(repo, 'img.bin')))], [0, 9, 9, 9, 1]);
  });

  it('a part applied: the record keeps only what is still to land; once img.bin landed it is named no more', async () => {
    const { pending, changes } = await setUp();
    assert.match(
      await changes.apply('w', { dirtyBuffers: [], paths: ['a.txt'] }),
      /^Applied 1 file changed, \+1 −1 from worker 'w' to your working tree; 1 file stays pending/,
    );
    assert.equal((await applyConfirm(changes, 'w')).message, `Apply 1 file changed, +0 −0 from worker 'w' to your working tree? ${NAMED}`);
    assert.match(await changes.apply('w', { dirtyBuffers: [], keep: true }), new RegExp(`It replaced your uncommitted changes to img\\.bin`));
    assert.equal(pending.get('w')?.replaces, undefined, 'landed: gone from the record');
  });

  it("the worker's next task puts your version back: nothing of yours is replaced any more, and nothing is named", async () => {
    const { repo, pending, changes } = await setUp();
    await writeFile(join(pending.get('w')!.worktreePath, 'img.bin'), await readFile(join(repo, 'img.bin')));
    assert.equal((await applyConfirm(changes, 'w')).message, "Apply 1 file changed, +1 −1 from worker 'w' to your working tree?");
    assert.equal(await changes.apply('w', { dirtyBuffers: [] }), "Applied 1 file changed, +1 −1 from worker 'w' to your working tree.");
  });
});
