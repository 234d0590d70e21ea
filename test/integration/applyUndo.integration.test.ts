// Undo Apply, with the REAL runtime (sandboxed), real git and the production wiring: an Apply that landed a worker's
// changes is taken back exactly (an edited file restored, a new one removed), the user's other edits untouched; one
// changed since, or unsaved in the editor, refuses it by name and nothing moves; a part applied has no undo (it would
// be out of order), the last part has its own; in a folder without git it works once Baton's copy is gone too. Two
// workers' Applies (or Undos) of one file at once both land: they write the folder in turn.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { APPLIED_DIR, UndoConflict } from '../../src/core/changes/applyUndo';
import { ChangeError } from '../../src/core/changes/changeError';
import { FOLDER_REPOS_DIR } from '../../src/core/git/folderRepos';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { makeRepo, testGit } from '../support/gitFixture';
import { scriptWorkerRound } from '../support/scriptedWorker';
import { waitFor } from '../support/waitFor';
import { afterEachCore } from '../support/afterEachCore';

describe('Undo Apply (real runtime, real git)', function () {
  this.timeout(120_000);
  let core: CoreFixture;
  let repo: string;

  const card = (worker: string) => core.pool.list().find((w) => w.name === worker);
  const patches = async (): Promise<string[]> => readdir(join(core.storageDir, APPLIED_DIR)).catch(() => []);
  /** A worker runs `command` in `dir` to the end (its result answered). */
  async function runWorker(name: string, dir: string, command: string): Promise<void> {
    scriptWorkerRound(core.server, { worker: name, does: { command }, report: `${name}: done` });
    await core.pool.create({ name, workingDir: dir, prompt: `TASK-${name}` });
    await waitFor(`${name} to finish`, () => card(name)?.state === 'done');
    await waitFor('its result answered', () => core.server.chatRequests().some((r) => r.lastUserText?.includes(`Worker '${name}' finished`)));
    await waitFor('its changes counted', () => card(name)?.changes);
  }

  beforeEach(async () => {
    core = await startCore();
    core.workerSettings.trustWorkingDir = true;
    repo = await makeRepo(testGit(), join(core.home, 'dev', 'app'), { 'README.md': '# app\n', 'other.txt': 'mine\n' });
  });

  afterEachCore(() => core);

  it('takes an Apply back exactly, leaving the user\u2019s other edits; refused while a file it touched is unsaved; once only', async () => {
    await runWorker('tidy', repo, "printf '# app, tidied\\n' > README.md && printf 'new\\n' > new.txt");
    const changes = core.pool.changes!;
    assert.match(await changes.apply('tidy', { dirtyBuffers: [] }), /^Applied 2 files changed/);
    assert.equal(await readFile(join(repo, 'new.txt'), 'utf8'), 'new\n');
    assert.deepEqual(card('tidy')?.outcome, { kind: 'applied', text: 'applied: 2 files changed, +2 −1', undoable: true }, 'its card offers Undo Apply');
    await writeFile(join(repo, 'other.txt'), 'mine, edited after\n');
    assert.deepEqual(
      changes.undoableApplies().map((r) => [r.worker, [...r.files].sort()]),
      [['tidy', ['README.md', 'new.txt']]],
    );

    await assert.rejects(
      changes.undoApply('tidy', { dirtyBuffers: [join(repo, 'README.md')] }),
      (err: Error) => err instanceof UndoConflict && err.message === 'Nothing was undone: unsaved in the editor (save or revert them first): README.md.',
    );
    assert.equal(existsSync(join(repo, 'new.txt')), true, 'nothing moved');

    assert.equal(
      await changes.undoApply('tidy', { dirtyBuffers: [join(repo, 'other.txt')] }),
      "Undid the Apply of worker 'tidy' (2 files changed, +2 −1): its 2 files are as they were before it.",
    );
    assert.equal(await readFile(join(repo, 'README.md'), 'utf8'), '# app\n');
    assert.equal(existsSync(join(repo, 'new.txt')), false);
    assert.equal(await readFile(join(repo, 'other.txt'), 'utf8'), 'mine, edited after\n', 'the user\u2019s own edit stays');
    assert.equal((await testGit().run(['status', '--porcelain'], { cwd: repo })).trim(), 'M other.txt');
    assert.deepEqual(card('tidy')?.outcome, { kind: 'applied', text: 'Apply undone: 2 files changed, +2 −1 taken back' });
    assert.deepEqual(await patches(), [], 'its patch went with it');
    await assert.rejects(
      changes.undoApply('tidy', { dirtyBuffers: [] }),
      (err: Error) => err instanceof ChangeError && /no Apply of worker 'tidy' to undo/.test(err.message),
    );
  });

  it('a rename the user had made too is left alone by the undo (the Apply found it already there); the rest is taken back', async () => {
    await runWorker('mover', repo, "mv other.txt moved.txt && printf 'more\\n' >> README.md");
    // The user makes the same rename by hand before the Apply.
    await testGit().run(['mv', 'other.txt', 'moved.txt'], { cwd: repo });
    const changes = core.pool.changes!;
    const applied = await changes.apply('mover', { dirtyBuffers: [] });
    assert.match(applied, /moved\.txt/, applied);
    assert.equal(await readFile(join(repo, 'README.md'), 'utf8'), '# app\nmore\n');
    assert.match(await changes.undoApply('mover', { dirtyBuffers: [] }), /^Undid the Apply of worker 'mover'/);
    assert.equal(await readFile(join(repo, 'README.md'), 'utf8'), '# app\n', 'its edit taken back');
    assert.equal(await readFile(join(repo, 'moved.txt'), 'utf8'), 'mine\n', 'the user\u2019s rename stays');
    assert.equal(existsSync(join(repo, 'other.txt')), false);
  });

  it('a file changed since the Apply refuses the undo by name and nothing moves; a part applied has no undo, the last part its own', async () => {
    await runWorker('two', repo, "printf 'two\\n' >> README.md && printf 'two\\n' >> other.txt");
    const changes = core.pool.changes!;
    assert.match(await changes.apply('two', { dirtyBuffers: [], paths: ['README.md'] }), /1 file stays pending/);
    assert.deepEqual(changes.undoableApplies(), [], 'a part applied: undone, it would be out of order');
    assert.match(await changes.apply('two', { dirtyBuffers: [] }), /^Applied 1 file changed/);
    assert.deepEqual(
      changes.undoableApplies().map((r) => r.files),
      [['other.txt']],
    );
    await writeFile(join(repo, 'other.txt'), 'rewritten by the user\n');
    await assert.rejects(
      changes.undoApply('two', { dirtyBuffers: [] }),
      (err: Error) => err instanceof UndoConflict && err.message === 'Nothing was undone: changed since the Apply: other.txt.',
    );
    assert.equal(await readFile(join(repo, 'other.txt'), 'utf8'), 'rewritten by the user\n');
    assert.equal(await readFile(join(repo, 'README.md'), 'utf8'), '# app\ntwo\n', 'the part applied first stays');
    assert.equal(changes.undoableApplies().length, 1, 'still there to undo once the file is back');
    await writeFile(join(repo, 'other.txt'), 'mine\ntwo\n');
    assert.match(await changes.undoApply('two', { dirtyBuffers: [] }), /its file is as it was before it/);
    assert.equal(await readFile(join(repo, 'other.txt'), 'utf8'), 'mine\n');
    assert.equal(await readFile(join(repo, 'README.md'), 'utf8'), '# app\ntwo\n');
  });

  it('in a folder without git: undone after Baton\u2019s repository of its copy is gone, and no .git is made there', async () => {
    const folder = join(core.home, 'dev', 'notes');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'notes.txt'), 'keep me\n');
    await runWorker('scribe', folder, "printf 'keep me\\nand this\\n' > notes.txt && printf 'x\\n' > added.txt");
    const changes = core.pool.changes!;
    assert.match(await changes.apply('scribe', { dirtyBuffers: [] }), /^Applied 2 files changed/);
    assert.deepEqual(
      (await readdir(join(core.storageDir, FOLDER_REPOS_DIR))).filter((n) => !n.startsWith('.')),
      [],
      'its repository went with the Apply',
    );
    assert.match(await changes.undoApply('scribe', { dirtyBuffers: [] }), /its 2 files are as they were before it/);
    assert.equal(await readFile(join(folder, 'notes.txt'), 'utf8'), 'keep me\n');
    assert.deepEqual((await readdir(folder)).sort(), ['notes.txt']);
  });

  it('an Apply already taken back by hand (or by a window closed mid-undo) is said so, not named as changed; its undo goes', async () => {
    await runWorker('tidy', repo, "printf '# app, tidied\\n' > README.md && printf 'new\\n' > new.txt");
    const changes = core.pool.changes!;
    await changes.apply('tidy', { dirtyBuffers: [] });
    await testGit().run(['checkout', '--', 'README.md'], { cwd: repo });
    await rm(join(repo, 'new.txt'));
    assert.equal(
      await changes.undoApply('tidy', { dirtyBuffers: [] }),
      "The Apply of worker 'tidy' (2 files changed, +2 −1) was already taken back: its 2 files are as they were before it, and nothing was written.",
    );
    assert.equal((await testGit().run(['status', '--porcelain'], { cwd: repo })).trim(), '');
    assert.deepEqual(changes.undoableApplies(), []);
    assert.deepEqual(await patches(), []);
    assert.deepEqual(card('tidy')?.outcome, { kind: 'applied', text: 'Apply undone: 2 files changed, +2 −1 taken back' });
  });

  it('two workers\u2019 Applies of one file at once both land, and their two Undos at once both take theirs back', async () => {
    // Long enough that git takes a few milliseconds to rewrite it: two at once lost one edit every time on the code before.
    const lines = Array.from({ length: 400_000 }, (_, i) => `line ${i + 1}`);
    const original = `${lines.join('\n')}\n`;
    await writeFile(join(repo, 'big.txt'), original);
    await testGit().run(['add', 'big.txt'], { cwd: repo });
    await testGit().run(['commit', '-qm', 'big'], { cwd: repo });
    await runWorker('head', repo, "sed -i '1s/.*/HEAD EDIT/' big.txt");
    await runWorker('tail', repo, "sed -i '$s/.*/TAIL EDIT/' big.txt");
    const changes = core.pool.changes!;

    const applied = await Promise.all([changes.apply('head', { dirtyBuffers: [] }), changes.apply('tail', { dirtyBuffers: [] })]);
    assert.deepEqual(
      applied.map((t) => t.split(' from ')[0]),
      ['Applied 1 file changed, +1 −1', 'Applied 1 file changed, +1 −1'],
    );
    const both = (await readFile(join(repo, 'big.txt'), 'utf8')).split('\n');
    assert.deepEqual([both[0], both[1], both.at(-3), both.at(-2)], ['HEAD EDIT', 'line 2', 'line 399999', 'TAIL EDIT'], 'both edits landed');

    const undone = await Promise.all([changes.undoApply('head', { dirtyBuffers: [] }), changes.undoApply('tail', { dirtyBuffers: [] })]);
    assert.deepEqual(
      undone.map((t) => t.split(':')[0]),
      ["Undid the Apply of worker 'head' (1 file changed, +1 −1)", "Undid the Apply of worker 'tail' (1 file changed, +1 −1)"],
    );
    assert.equal(await readFile(join(repo, 'big.txt'), 'utf8'), original, 'both taken back');
    assert.equal((await testGit().run(['status', '--porcelain'], { cwd: repo })).trim(), '');
  });

  it('the orchestrator\u2019s undo_worker_apply asks the user first and a no holds; yes takes it back; a worker with none is told which can', async () => {
    await runWorker('tidy', repo, "printf '# app, tidied\\n' > README.md");
    const changes = core.pool.changes!;
    await changes.apply('tidy', { dirtyBuffers: [] });
    const toolResult = (text: string): string =>
      String(
        core.server
          .chatRequests()
          .filter((r) => r.lastUserText?.includes(text))
          .at(-1)
          ?.messages.filter((m) => m.role === 'tool')
          .at(-1)?.content,
      );
    const turn = async (text: string, args: Record<string, unknown>, reply: string): Promise<string> => {
      core.server.on(
        { lastUserIncludes: `[via panel] ${text}`, afterToolResult: false, name: text },
        { toolCalls: [{ id: `u-${text}`, name: 'undo_worker_apply', arguments: args }] },
      );
      core.server.on({ lastUserIncludes: `[via panel] ${text}`, afterToolResult: true, name: `after ${text}` }, { text: reply });
      await core.orchestrator.enqueue(text, { channel: 'panel' }).done;
      return toolResult(text);
    };

    assert.equal(
      await turn('undo the other one', { name: 'other' }, 'None to undo.'),
      "There is no Apply of worker 'other' to undo (Applies that can be undone: tidy). Only an Apply that landed all of a worker's changes can be undone, the last of each worker.",
    );
    assert.equal(core.broker.asked.length, 0, 'nothing to ask about');

    core.broker.answer = 'deny';
    assert.equal(await turn('undo tidy', { name: 'tidy' }, 'Declined.'), "The user did not approve undoing the Apply of 'tidy'. Do not retry.");
    assert.deepEqual(
      core.broker.asked.map((p) => [p.worker, p.kind, p.detail]),
      [['tidy', 'undo an apply', "undo the Apply of worker 'tidy' (1 file changed, +1 −1), putting README.md back as before it"]],
    );
    assert.equal(await readFile(join(repo, 'README.md'), 'utf8'), '# app, tidied\n', 'a no holds');

    core.broker.answer = 'once';
    assert.equal(
      await turn('undo tidy now', { name: 'tidy' }, 'Undone.'),
      "Undid the Apply of worker 'tidy' (1 file changed, +1 −1): its file is as it was before it.",
    );
    assert.equal(await readFile(join(repo, 'README.md'), 'utf8'), '# app\n');
    assert.deepEqual(card('tidy')?.outcome, { kind: 'applied', text: 'Apply undone: 1 file changed, +1 −1 taken back' });
    core.assertScriptDone();
  });
});
