// The undo of an Apply keeps its patch in Baton's storage: bounded to MAX_UNDOABLE_APPLIES, one per worker, with what a
// closed window left swept at start (real sql.js store, real files).
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APPLIED_DIR, ApplyUndo, MAX_UNDOABLE_APPLIES } from '../../src/core/changes/applyUndo';
import { Git } from '../../src/core/git/git';
import { SqlJsStore } from '../../src/core/store/sqlJsStore';
import { MemoryLogger } from '../../src/core/util/logger';

describe('the undo of an Apply (its patch kept)', () => {
  let dir: string;
  let store: SqlJsStore;
  let clock = 1_000;
  let undo: ApplyUndo;
  const patches = async (): Promise<string[]> => (await readdir(join(dir, APPLIED_DIR)).catch(() => [])).sort();
  /** An Apply of `worker` settled: its patch written where PendingChangeSets leaves it, then kept. */
  const applied = async (worker: string): Promise<void> => {
    const file = join(dir, 'tmp', `undo-${worker}-${clock}`);
    await mkdir(join(dir, 'tmp'), { recursive: true });
    await writeFile(file, `patch of ${worker}\n`);
    clock += 1;
    await undo.keep({ worker, root: dir, files: ['a.txt'], exclude: [], summary: '1 file changed, +1 −0' }, file);
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-undo-'));
    store = await SqlJsStore.open({ dir, flushDelayMs: 5, pollIntervalMs: 0 });
    undo = new ApplyUndo(new Git(), dir, store, new MemoryLogger(), () => clock);
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it(`keeps the last ${MAX_UNDOABLE_APPLIES} Applies, one per worker (its newest); the patch of each one let go goes`, async () => {
    await applied('w0');
    await applied('w0');
    assert.deepEqual(
      undo.list().map((r) => r.worker),
      ['w0'],
      'one per worker',
    );
    assert.equal((await patches()).length, 1, 'its earlier patch went');
    for (let i = 1; i <= MAX_UNDOABLE_APPLIES; i++) await applied(`w${i}`);
    assert.equal(undo.list().length, MAX_UNDOABLE_APPLIES);
    assert.equal(undo.get('w0'), undefined, 'the oldest let go');
    assert.equal(undo.list()[0]!.worker, `w${MAX_UNDOABLE_APPLIES}`, 'the newest first');
    assert.deepEqual(
      await patches(),
      undo
        .list()
        .map((r) => r.patch)
        .sort(),
      'a patch for each record, no other',
    );
    await undo.drop('w3');
    assert.equal(undo.get('w3'), undefined);
    assert.equal((await patches()).length, MAX_UNDOABLE_APPLIES - 1);
  });

  it('an Apply whose folder is gone says so, and its undo goes', async () => {
    const file = join(dir, 'p');
    await writeFile(file, 'x');
    await undo.keep({ worker: 'moved', root: join(dir, 'gone'), files: ['a.txt'], exclude: [], summary: '1 file changed, +1 −0' }, file);
    await assert.rejects(undo.undo('moved', []), {
      name: 'ChangeError',
      message: `The Apply of worker 'moved' cannot be undone: ${join(dir, 'gone')}, where it landed, is no longer there.`,
    });
    assert.deepEqual(undo.list(), []);
    assert.deepEqual(await patches(), []);
  });

  it('an Apply undone meanwhile elsewhere (its patch gone) says so, not that its files changed', async () => {
    await applied('elsewhere');
    await rm(join(dir, APPLIED_DIR, undo.get('elsewhere')!.patch));
    await assert.rejects(undo.undo('elsewhere', []), {
      name: 'ChangeError',
      message: "The Apply of worker 'elsewhere' cannot be undone: it was undone or let go meanwhile (another window?).",
    });
    assert.deepEqual(undo.list(), []);
  });

  it('at start, a patch no record names goes once an hour old (a younger one may be another window\u2019s, about to be recorded)', async () => {
    await applied('kept');
    await writeFile(join(dir, APPLIED_DIR, 'left-old.patch'), 'x');
    await writeFile(join(dir, APPLIED_DIR, 'left-young.patch'), 'x');
    const hourAgo = new Date(Date.now() - 61 * 60 * 1000);
    await utimes(join(dir, APPLIED_DIR, 'left-old.patch'), hourAgo, hourAgo);
    clock = Date.now();
    await undo.sweep(60 * 60 * 1000);
    assert.deepEqual(await patches(), ['left-young.patch', undo.get('kept')!.patch].sort());
  });
});
