// Clean Up Orphaned Worktrees never takes a worker's worktree being placed for an orphan: a worktree exists before its
// change set is recorded (git's add, the include copy), and another window's store learns that record only later. It
// removed such worktrees (and their baton/ branches), and the worker then ran in a folder that no longer existed. And it
// removes only what the user confirmed: it listed the orphans again after the click and removed whatever it found then.
// Real git; two WorktreeManagers (or two cores) over one storage folder are two windows.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, realpath, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BatonCore } from '../../src/core/batonCore';
import { STALE_MS } from '../../src/core/git/placingMarkers';
import { RECORDED_GRACE_MS, WorktreeMarkers } from '../../src/core/git/worktreeMarkers';
import { WorktreeManager } from '../../src/core/git/worktrees';
import { makeRepo, testGit } from '../support/gitFixture';
import { InMemoryAgentSessions, reply } from '../support/inMemoryAgentSessions';
import { startUnitCore, until, type UnitCore } from '../support/inMemoryCore';

const git = testGit();
const paths = (list: Array<{ worktreePath: string }>): string[] => list.map((o) => o.worktreePath).sort();

describe('orphaned worktrees: never one being placed, only those confirmed (real git)', function () {
  this.timeout(30_000);

  describe('two windows’ WorktreeManagers over one storage', () => {
    let root: string;
    let repo: string;
    let storage: string;
    beforeEach(async () => {
      root = await realpath(await mkdtemp(join(tmpdir(), 'baton-orphans-')));
      repo = await makeRepo(git, join(root, 'app'), { 'README.md': '# app\n' });
      storage = join(root, 'storage');
    });
    afterEach(() => rm(root, { recursive: true, force: true, maxRetries: 3 }));

    const markerFiles = (): Promise<string[]> => readdir(join(storage, 'worktree-placing')).catch(() => []);

    it('a worktree being placed, or just recorded, is no orphan to any window; one a dead window left is, and so is one past the grace', async () => {
      const one = new WorktreeManager({ git, storageDir: storage });
      const two = new WorktreeManager({ git: testGit(), storageDir: storage });

      // Made, not recorded yet: the state of a placement between `git worktree add` and the store's write.
      const placing = await one.createWorkerWorktree({ repoDir: repo, workerName: 'w1', recordLater: true });
      assert.ok(existsSync(placing.worktreePath));
      assert.deepEqual(await one.listOrphans(new Set()), [], 'not to its own window');
      assert.deepEqual(await two.listOrphans(new Set()), [], 'nor to another');
      assert.ok(placing.marker);

      // Recorded: the other window's store may not have the row yet.
      await one.recorded(placing.marker);
      assert.deepEqual(await two.listOrphans(new Set()), [], 'nor once recorded, to a window whose store lags');

      // A window that died mid-placement: its marker stops counting after an hour, and goes.
      const dead = await one.createWorkerWorktree({ repoDir: repo, workerName: 'w2', recordLater: true });
      const old = new Date(Date.now() - STALE_MS - 1000);
      await utimes(dead.marker!, old, old);
      assert.deepEqual(paths(await two.listOrphans(new Set([placing.worktreePath]))), [dead.worktreePath]);
      assert.equal((await markerFiles()).length, 1, "the dead window's marker is gone");

      // Past the grace, a worktree whose record is lost (a crash) is an orphan again.
      await new WorktreeMarkers(join(storage, 'worktree-placing')).recorded(placing.marker, Date.now() - RECORDED_GRACE_MS);
      assert.deepEqual(paths(await two.listOrphans(new Set())), [placing.worktreePath, dead.worktreePath].sort());
      assert.deepEqual(await markerFiles(), []);
    });

    it('leaves no marker: a worktree made for no record, one whose placement was undone, one removed', async () => {
      const manager = new WorktreeManager({ git, storageDir: storage });
      const plain = await manager.createWorkerWorktree({ repoDir: repo, workerName: 'w1' });
      assert.equal(plain.marker, undefined);
      assert.deepEqual(await markerFiles(), []);
      assert.deepEqual(paths(await manager.listOrphans(new Set())), [plain.worktreePath]);

      const undone = await manager.createWorkerWorktree({ repoDir: repo, workerName: 'w2', recordLater: true });
      assert.equal((await markerFiles()).length, 1);
      await manager.removeWorkerWorktree(undone.record);
      assert.deepEqual(await markerFiles(), []);
      await assert.rejects(manager.createWorkerWorktree({ repoDir: repo, workerName: 'w1', recordLater: true }), /already exists/);
      assert.deepEqual(await markerFiles(), [], 'a placement refused leaves none');
    });
  });

  describe('through the core', () => {
    let fixture: UnitCore;
    let other: BatonCore | undefined;
    beforeEach(async () => {
      fixture = await startUnitCore();
    });
    afterEach(async () => {
      await other?.dispose();
      other = undefined;
      fixture.sessions.assertScriptDone();
      await fixture.dispose();
    });

    it("another window, whose store has not learned of a worker's change set yet, neither lists nor removes its worktree", async () => {
      const repo = await makeRepo(git, join(fixture.workDir, 'repo'), { 'README.md': '# repo\n' });
      // Opened first, polling off (startUnitCore's store): it never learns the row this window writes next.
      other = await fixture.openAnother(new InMemoryAgentSessions());
      fixture.sessions.script('worker', reply('done'));
      fixture.sessions.scriptWhen('orchestrator', (p) => p.startsWith("[Background task completed] Worker 'w1'"), reply('noted'));
      const info = await fixture.core.pool.create({ name: 'w1', workingDir: repo, prompt: 'task' });
      await until(
        () => fixture.sessions.pendingScripts === 0 && fixture.core.pool.status('w1')?.state === 'done',
        'the worker done, its result answered',
        5000,
      );
      assert.equal(other.pool.changes!.list().length, 0, "the other window's store lags");

      assert.deepEqual(await other.pool.changes!.orphans(), []);
      assert.equal(await other.pool.changes!.removeOrphans(), 0);
      assert.ok(existsSync(info.workingDir), 'its worktree stays');
      assert.ok(await git.succeeds(['show-ref', '--verify', '--quiet', 'refs/heads/baton/w1'], { cwd: repo }), 'and its branch');
      await fixture.core.pool.changes!.totals('w1');
    });

    it('removes only the orphans the user confirmed: one found after the confirm stays, listed for the next time', async () => {
      const repo = await makeRepo(git, join(fixture.workDir, 'repo'), { 'README.md': '# repo\n' });
      // Worktrees a crash left: made, never recorded.
      const crashed = new WorktreeManager({ git, storageDir: fixture.storageDir });
      const listed = await crashed.createWorkerWorktree({ repoDir: repo, workerName: 'a' });
      const changes = fixture.core.pool.changes!;
      const confirmed = await changes.orphans();
      assert.deepEqual(paths(confirmed), [listed.worktreePath]);

      const after = await crashed.createWorkerWorktree({ repoDir: repo, workerName: 'b' });
      assert.equal(await changes.removeOrphans(confirmed.map((o) => o.worktreePath)), 1);
      assert.ok(!existsSync(listed.worktreePath), 'the confirmed one goes');
      assert.ok(existsSync(after.worktreePath), 'the one found after the confirm stays');
      assert.ok(await git.succeeds(['show-ref', '--verify', '--quiet', 'refs/heads/baton/b'], { cwd: repo }), 'with its branch');
      assert.deepEqual(paths(await changes.orphans()), [after.worktreePath]);
      assert.equal(await changes.removeOrphans([after.worktreePath]), 1);
      assert.deepEqual(await changes.orphans(), []);
    });
  });
});
