// What "Resolve with the worker" costs before the worker even starts: moving a worker onto the
// user's current tree (a snapshot of the user's tree through a copy of their index, the worker's
// snapshot, and the 3-way replay of the user's changes into the worktree) on a 10,000-file
// repository where the user has 20 uncommitted changes, one of them clashing with the worker's. Each
// sample is undone (byte for byte, as when a worker gives up), which is measured too. Real git.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BaseRefs } from '../src/core/changes/baseRefs';
import { ChangeSets } from '../src/core/changes/changeSets';
import { TreeMover } from '../src/core/changes/moveOntoUserTree';
import { WorktreeManager } from '../src/core/git/worktrees';
import { makeLargeRepo, testGit } from '../test/support/gitFixture';
import { median, type BenchFigure } from './figure';

const FILES = 10_000;
const USER_CHANGES = 20;
const WORKER_CHANGES = 20;

export async function benchLanding(opts: { quick: boolean }): Promise<BenchFigure[]> {
  const git = testGit();
  const root = await mkdtemp(join(tmpdir(), 'baton-bench-landing-'));
  try {
    const repo = await makeLargeRepo(git, join(root, 'repo'), FILES);
    const storageDir = join(root, 'storage');
    const worktrees = new WorktreeManager({ git, storageDir });
    const changeSets = new ChangeSets({ git, storageDir, worktrees });
    const baseRefs = new BaseRefs(git, storageDir);
    const mover = new TreeMover(git, changeSets, baseRefs, storageDir);
    const { record: cs } = await worktrees.createWorkerWorktree({ repoDir: repo, workerName: 'mover' });
    for (let i = 0; i < WORKER_CHANGES; i++) {
      await writeFile(join(cs.worktreePath, 'src', `mod${i}`, 'file3.ts'), `export const worker${i} = true;\n// line two\n// line three\n`);
    }
    // The user's uncommitted work: 19 files the worker did not touch, and one it did (a conflict).
    for (let i = 0; i < USER_CHANGES - 1; i++) {
      await writeFile(join(repo, 'src', `mod${50 + i}`, 'file5.ts'), `export const user${i} = true;\n// line two\n// line three\n`);
    }
    await writeFile(join(repo, 'src', 'mod0', 'file3.ts'), `export const user = 'clash';\n// line two\n// line three\n`);
    // The first snapshots after a fresh checkout re-read racily clean files once.
    await changeSets.snapshot(cs);
    await changeSets.userSnapshot(cs);

    const moves: number[] = [];
    const undos: number[] = [];
    for (let i = 0; i < (opts.quick ? 3 : 10); i++) {
      let t = performance.now();
      const moved = await mover.move(cs);
      moves.push(performance.now() - t);
      if (moved.conflicts.length !== 1 || moved.moved !== USER_CHANGES)
        throw new Error(`unexpected move: ${JSON.stringify(moved.conflicts)}, ${moved.moved} files`);
      t = performance.now();
      await mover.undo(moved.undo);
      undos.push(performance.now() - t);
    }
    return [
      {
        name: `move a worker onto the user's tree (snapshots + 3-way replay of ${USER_CHANGES} changes), ${FILES.toLocaleString('en')}-file repo (median)`,
        value: median(moves),
        unit: 'ms',
        target: '≤ 1000',
      },
      { name: 'undo the move, byte for byte (median)', value: median(undos), unit: 'ms' },
    ];
  } finally {
    await rm(root, { recursive: true, force: true, maxRetries: 3 });
  }
}
