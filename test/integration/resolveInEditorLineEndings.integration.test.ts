// "Resolve in the editor" in a repository whose working tree has CRLF line endings (core.autocrlf=true, or a
// .gitattributes eol=crlf). It merged the user's file as it is on disk (CRLF) with the base and the worker's blobs as git
// stores them (LF): no line matched, so the whole file became one conflict, its markers and the worker's side with LF
// in a CRLF file, although only line 2 clashed. Now the merge runs on git's normalized form and the result is written in
// the working-tree form: markers around line 2 only, the user's other edit kept, CRLF throughout.
import * as assert from 'node:assert/strict';
import { readFileSync, realpathSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentSessions } from '../../src/core/copilot/agentSessions';
import { PendingChangeSets } from '../../src/core/changes/pendingChangeSets';
import { WorkerChanges } from '../../src/core/changes/workerChanges';
import { MemoryLogger } from '../../src/core/util/logger';
import { makeRepo, testGit } from '../support/gitFixture';
import { eachStoreFolder } from '../support/storeFolder';

const LINES = Array.from({ length: 12 }, (_, i) => `line ${i}`);
const withEnds = (lines: string[], eol: string) => lines.map((l) => `${l}${eol}`).join('');
const edited = (edits: Record<number, string>) => LINES.map((l, i) => edits[i] ?? l);

describe('Resolve in the editor with CRLF working-tree files: only the clashing lines conflict, the endings stay (real git)', function () {
  this.timeout(120_000);
  const folder = eachStoreFolder();
  const git = testGit();

  /** A repository converted as `convert` sets it up, a worker 'w' that changed line 2, the user who changed lines 2 and 10. */
  const setUp = async (convert: (repo: string) => Promise<Record<string, string>>, userEol: string) => {
    const root = realpathSync(folder.dir);
    const repo = join(root, 'app');
    await mkdir(repo, { recursive: true });
    await git.run(['init', '-q', '-b', 'main'], { cwd: repo });
    const extra = await convert(repo);
    await makeRepo(git, repo, { 'a.txt': withEnds(LINES, '\r\n'), ...extra });
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
    await writeFile(join(record.worktreePath, 'a.txt'), withEnds(edited({ 2: 'line 2 WORKER' }), '\r\n'));
    await writeFile(join(repo, 'a.txt'), withEnds(edited({ 2: 'line 2 USER', 10: 'line 10 USER' }), userEol));
    return { repo, changes };
  };

  const expected = (eol: string) =>
    withEnds(
      [
        'line 0',
        'line 1',
        '<<<<<<< your tree',
        'line 2 USER',
        '=======',
        'line 2 WORKER',
        '>>>>>>> worker w',
        ...LINES.slice(3, 10),
        'line 10 USER',
        'line 11',
      ],
      eol,
    );

  const check = async (repo: string, changes: WorkerChanges, eol: string) => {
    const r = await changes.resolveInEditor('w', { dirtyBuffers: [] });
    assert.deepEqual(r.conflicted, [join(repo, 'a.txt')]);
    assert.equal(readFileSync(join(repo, 'a.txt'), 'utf8'), expected(eol), 'markers around line 2 only, one line ending throughout');
    // The unmerged stages hold what git stores (LF): the merge editor and `git checkout --theirs` convert them as usual.
    const stages = (await git.run(['ls-files', '-u', '--', 'a.txt'], { cwd: repo })).trim().split('\n');
    assert.deepEqual(
      stages.map((s) => s.split('\t')[0]!.split(' ')[2]),
      ['1', '2', '3'],
    );
    assert.equal(await git.run(['show', ':2:a.txt'], { cwd: repo }), withEnds(edited({ 2: 'line 2 USER', 10: 'line 10 USER' }), '\n'));
  };

  it('core.autocrlf=true', async () => {
    const { repo, changes } = await setUp(async (dir) => (await git.run(['config', 'core.autocrlf', 'true'], { cwd: dir }), {}), '\r\n');
    await check(repo, changes, '\r\n');
  });

  it('.gitattributes eol=crlf', async () => {
    const { repo, changes } = await setUp(async () => ({ '.gitattributes': '*.txt text eol=crlf\n' }), '\r\n');
    await check(repo, changes, '\r\n');
  });

  it('core.autocrlf=true and a user file saved with LF: merged and written as it was, LF (as without conversion)', async () => {
    const { repo, changes } = await setUp(async (dir) => (await git.run(['config', 'core.autocrlf', 'true'], { cwd: dir }), {}), '\n');
    await check(repo, changes, '\n');
  });

  it('no conversion: LF files behave as before', async () => {
    const root = realpathSync(folder.dir);
    const repo = await makeRepo(git, join(root, 'plain'), { 'a.txt': withEnds(LINES, '\n') });
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
    await writeFile(join(record.worktreePath, 'a.txt'), withEnds(edited({ 2: 'line 2 WORKER' }), '\n'));
    await writeFile(join(repo, 'a.txt'), withEnds(edited({ 2: 'line 2 USER', 10: 'line 10 USER' }), '\n'));
    await check(repo, changes, '\n');
  });
});
