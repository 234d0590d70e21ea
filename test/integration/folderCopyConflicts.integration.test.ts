// A folder without git, where each worker works in a copy (folderRepos.ts): two workers edit one line, the first is
// applied and the second conflicts with the folder as the user has it now. The conflict tools work as in a repository,
// with the REAL runtime (sandboxed), real git and the production wiring: Resolve with the worker moves its change onto
// the folder as it is and the worker merges; Resolve in the editor leaves markers in the folder's file; two workers at
// work on one file are flagged. The folder never gets a `.git`, and Baton's repository of it goes when the last settles.
import * as assert from 'node:assert/strict';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FOLDER_REPOS_DIR } from '../../src/core/git/folderRepos';
import type { OrchestratorEvent } from '../../src/core/orchestrator/events';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { scriptWorkerRound, workerToolResults } from '../support/scriptedWorker';
import { waitFor } from '../support/waitFor';
import { afterEachCore } from '../support/afterEachCore';

describe('a folder without git: conflicts between copies, resolved (real runtime, real git)', function () {
  this.timeout(120_000);
  let core: CoreFixture;
  let folder: string;

  const doneCount = (): number => core.events.filter((e) => e.type === 'turn.completed' && e.origin.channel === 'background').length;
  const results = (): Array<Extract<OrchestratorEvent, { type: 'turn.queued' }>> =>
    core.events.filter((e): e is Extract<OrchestratorEvent, { type: 'turn.queued' }> => e.type === 'turn.queued' && e.origin.channel === 'background');
  const card = (worker: string) => core.pool.list().find((w) => w.name === worker);
  const repos = async (): Promise<string[]> => (await readdir(join(core.storageDir, FOLDER_REPOS_DIR)).catch(() => [])).filter((n) => !n.startsWith('.'));

  /** alpha and beta edit the same line of notes.txt in their copies; alpha is applied; beta's Apply conflicts. */
  const conflict = async (): Promise<void> => {
    scriptWorkerRound(core.server, { worker: 'alpha', prompt: 'TASK-alpha', does: { command: "printf 'alpha line\\n' > notes.txt" }, report: 'alpha: edited' });
    scriptWorkerRound(core.server, {
      worker: 'beta',
      prompt: 'TASK-beta',
      does: { command: "printf 'beta line\\n' > notes.txt && printf 'beta extra\\n' > beta.txt" },
      report: 'beta: edited',
    });
    await Promise.all([
      core.pool.create({ name: 'alpha', workingDir: folder, prompt: 'TASK-alpha' }),
      core.pool.create({ name: 'beta', workingDir: folder, prompt: 'TASK-beta' }),
    ]);
    await waitFor('both results', () => doneCount() >= 2);
    // Their commands wrote their copies (else what their tool calls returned says why: seen once under a heavy load).
    for (const [worker, line] of [
      ['alpha', 'alpha line\n'],
      ['beta', 'beta line\n'],
    ])
      assert.equal(await readFile(join(card(worker)!.workingDir, 'notes.txt'), 'utf8'), line, JSON.stringify(workerToolResults(core.server, worker)));
    assert.match(await core.pool.changes!.apply('alpha', { dirtyBuffers: [] }), /^Applied 1 file changed/);
    await assert.rejects(
      core.pool.changes!.apply('beta', { dirtyBuffers: [] }),
      (err: Error) => err.name === 'ApplyConflict' && /notes\.txt/.test(err.message),
    );
    assert.deepEqual(card('beta')?.conflicts, ['notes.txt']);
  };

  beforeEach(async () => {
    core = await startCore();
    core.workerSettings.trustWorkingDir = true;
    folder = join(core.home, 'dev', 'notes');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'notes.txt'), 'original line\n');
    await writeFile(join(folder, 'keep.txt'), 'untouched\n');
  });

  afterEachCore(() => core);

  it('Resolve with the worker: it gets both sides of the file, merges them in its copy; Apply lands both intents; no .git in the folder, no repository left', async () => {
    await conflict();
    scriptWorkerRound(core.server, {
      worker: 'beta',
      prompt: 'These files conflict',
      does: { command: "printf 'alpha line\\nbeta line\\n' > notes.txt" },
      report: 'Kept both lines.',
      answer: 'Apply it now.',
    });
    await core.pool.changes!.resolveWithWorker('beta');
    await waitFor('the resolution', () => doneCount() >= 3);
    const asked = core.server.chatRequests().find((r) => r.systemText.includes("You are 'beta'") && r.lastUserText?.includes('These files conflict'))!;
    assert.match(asked.lastUserText!, /## notes\.txt \(it holds conflict markers/);
    assert.match(asked.lastUserText!, /What the user's side changed:\n[\s\S]*\+alpha line[\s\S]*What your side changed:\n[\s\S]*\+beta line/);
    assert.match(results().at(-1)!.prompt, /Conflicts resolved: its change set is now based on the user's current tree, so Apply will land cleanly\./);
    assert.equal(await readFile(join(folder, 'notes.txt'), 'utf8'), 'alpha line\n', 'the folder waits for Apply');

    assert.match(await core.pool.changes!.apply('beta', { dirtyBuffers: [] }), /^Applied 2 files changed, \+2 −0 from worker 'beta'/);
    assert.equal(await readFile(join(folder, 'notes.txt'), 'utf8'), 'alpha line\nbeta line\n', 'both intents');
    assert.equal(await readFile(join(folder, 'beta.txt'), 'utf8'), 'beta extra\n');
    assert.deepEqual((await readdir(folder)).sort(), ['beta.txt', 'keep.txt', 'notes.txt'], 'no .git, nothing else');
    assert.deepEqual(await repos(), []);
  });

  it("Resolve in the editor: the markers land in the folder's file, the rest applies, and the copy and its repository go", async () => {
    await conflict();
    const r = await core.pool.changes!.resolveInEditor('beta', { dirtyBuffers: [] });
    assert.deepEqual(r.conflicted, [join(folder, 'notes.txt')]);
    assert.match(r.text, /1 file\(s\) cleanly, 1 with conflict markers to resolve \(notes\.txt\)/);
    assert.equal(await readFile(join(folder, 'notes.txt'), 'utf8'), '<<<<<<< your tree\nalpha line\n=======\nbeta line\n>>>>>>> worker beta\n');
    assert.equal(await readFile(join(folder, 'beta.txt'), 'utf8'), 'beta extra\n');
    assert.deepEqual((await readdir(folder)).sort(), ['beta.txt', 'keep.txt', 'notes.txt'], 'no .git, nothing else');
    assert.deepEqual(card('beta')?.outcome, { kind: 'applied', text: 'applied with conflict markers: 1 file to merge in the editor' });
    assert.deepEqual(await repos(), []);
  });

  it('two workers at work on one file, each in its copy: both cards are flagged before either finishes', async () => {
    for (const name of ['left', 'right']) {
      const mine = (r: { systemText: string }) => r.systemText.includes(`You are '${name}'`);
      core.server.on(
        { predicate: (r) => mine(r) && !r.messages.some((m) => m.role === 'tool'), name: `${name} edits` },
        { toolCalls: [{ id: `${name}-1`, name: 'bash', arguments: { command: `printf '${name}\\n' > notes.txt`, description: 'edit' } }] },
      );
      // Still working when the overlap must show.
      core.server.on({ predicate: (r) => mine(r) && r.messages.some((m) => m.role === 'tool'), name: `${name} keeps working` }, { hang: true });
    }
    await Promise.all([
      core.pool.create({ name: 'left', workingDir: folder, prompt: 'TASK-left' }),
      core.pool.create({ name: 'right', workingDir: folder, prompt: 'TASK-right' }),
    ]);
    await waitFor('both cards flagged', () => card('left')?.overlaps?.length && card('right')?.overlaps?.length);
    assert.deepEqual(card('left')?.overlaps, [{ worker: 'right', paths: ['notes.txt'] }]);
    assert.deepEqual(card('right')?.overlaps, [{ worker: 'left', paths: ['notes.txt'] }]);
    assert.equal(card('left')?.state, 'running');
    await core.pool.kill('left', 'tool');
    await core.pool.kill('right', 'tool');
  });
});
