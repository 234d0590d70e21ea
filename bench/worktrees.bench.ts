// What isolating a worker in its own git worktree costs git, on a 10,000-file repository: the
// worktree a worker starts in (against what a start without isolation does to the folder: resolve it
// with one `git rev-parse`), and the review of 100 changed files (summary and bounded diff, as the
// card and the model get them). Real git in a temp folder. The whole worker start, through Baton and
// the runtime, is measured in isolation.bench.ts. A folder without git: the same files, copied for a worker through a
// repository of Baton's own (folderRepos.ts), the first worker (the repository made) and a later one.
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChangeSets } from '../src/core/changes/changeSets';
import { WorktreeManager } from '../src/core/git/worktrees';
import { FolderRepos } from '../src/core/git/folderRepos';
import { makeLargeRepo, testGit } from '../test/support/gitFixture';
import { median, type BenchFigure } from './figure';

const FILES = 10_000;
const CHANGED = 100;

export async function benchWorktrees(opts: { quick: boolean }): Promise<BenchFigure[]> {
  const git = testGit();
  const root = await mkdtemp(join(tmpdir(), 'baton-bench-worktrees-'));
  try {
    const repo = await makeLargeRepo(git, join(root, 'repo'), FILES);
    const storageDir = join(root, 'storage');
    const worktrees = new WorktreeManager({ git, storageDir });
    const changeSets = new ChangeSets({ git, storageDir, worktrees });

    // Warm the page cache and git's own first-run costs so the first sample is not an outlier.
    await git.repoRoot(repo);
    await git.status(repo);

    const baseline: number[] = [];
    for (let i = 0; i < (opts.quick ? 5 : 20); i++) {
      const t = performance.now();
      await git.repoRoot(repo);
      baseline.push(performance.now() - t);
    }

    const starts: number[] = [];
    const removals: number[] = [];
    for (let i = 0; i < (opts.quick ? 2 : 5); i++) {
      const t = performance.now();
      const wt = await worktrees.createWorkerWorktree({ repoDir: repo, workerName: `bench${i}` });
      starts.push(performance.now() - t);
      const r = performance.now();
      await changeSets.discard(wt.record);
      removals.push(performance.now() - r);
    }

    const { record: changeSet } = await worktrees.createWorkerWorktree({ repoDir: repo, workerName: 'review' });
    for (let i = 0; i < CHANGED; i++) {
      await writeFile(join(changeSet.worktreePath, 'src', `mod${i}`, 'file7.ts'), `export const changed${i} = true;\n`);
    }
    await changeSets.summarize(changeSet); // the first add after a fresh checkout re-reads racily clean files once
    const summaries: number[] = [];
    const diffs: number[] = [];
    for (let i = 0; i < (opts.quick ? 3 : 10); i++) {
      let t = performance.now();
      await changeSets.summarize(changeSet);
      summaries.push(performance.now() - t);
      t = performance.now();
      const d = await changeSets.diff(changeSet, { maxBytes: 200_000 });
      diffs.push(performance.now() - t);
      if (d.summary.files.length !== CHANGED) throw new Error(`expected ${CHANGED} changed files, got ${d.summary.files.length}`);
    }

    // The same 10,000 files in a folder without git.
    const plain = join(root, 'plain');
    await cp(repo, plain, { recursive: true, filter: (src) => !src.startsWith(join(repo, '.git')) });
    const repos = new FolderRepos(git, storageDir);
    git.folders.setOwnStorage(storageDir);
    const copies: number[] = [];
    for (let i = 0; i < (opts.quick ? 2 : 5); i++) {
      const t = performance.now();
      await repos.snapshot(plain);
      const wt = await worktrees.createWorkerWorktree({ repoDir: plain, workerName: `copy${i}` });
      copies.push(performance.now() - t);
      await repos.release(plain);
      await changeSets.discard(wt.record);
    }

    const start = median(starts);
    const base = median(baseline);
    return [
      { name: `worktree creation (checks, git worktree add), ${FILES.toLocaleString('en')}-file repo (median)`, value: start, unit: 'ms' },
      { name: 'resolve the folder (git rev-parse, median)', value: base, unit: 'ms' },
      { name: 'worktree creation / git rev-parse', value: start / base, unit: '×' },
      {
        name: `a copy of a ${FILES.toLocaleString('en')}-file folder without git for its first worker (repository made, folder committed, worktree added)`,
        value: copies[0]!,
        unit: 'ms',
      },
      { name: 'the same for a later worker (the folder committed again)', value: median(copies.slice(1)), unit: 'ms' },
      { name: 'a later worker\u2019s copy / a worktree in a repository', value: median(copies.slice(1)) / start, unit: '×' },
      { name: `discard (remove worktree + branch), ${FILES.toLocaleString('en')}-file repo (median)`, value: median(removals), unit: 'ms' },
      { name: `summary of ${CHANGED} changed files ("N files changed, +a −b", median)`, value: median(summaries), unit: 'ms' },
      { name: `diff of ${CHANGED} changed files (summary + bounded diff, median)`, value: median(diffs), unit: 'ms', target: '≤ 300' },
    ];
  } finally {
    await rm(root, { recursive: true, force: true, maxRetries: 3 });
  }
}
