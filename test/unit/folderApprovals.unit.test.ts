// "Allow in this folder" is kept for a bounded number of folders: past the bound the oldest is asked about again.
import * as assert from 'node:assert/strict';
import { FolderApprovals, MAX_FOLDER_APPROVALS } from '../../src/core/workers/folderApprovals';

describe('folder approvals ("Allow in this folder")', () => {
  it(`keeps at most ${MAX_FOLDER_APPROVALS} folders, forgetting the one approved longest ago; approving again makes it the newest`, () => {
    const approvals = new FolderApprovals();
    for (let i = 0; i < MAX_FOLDER_APPROVALS; i++) approvals.add(`/home/u/f${i}`);
    assert.equal(approvals.size, MAX_FOLDER_APPROVALS);
    approvals.add('/home/u/f0');
    approvals.add('/home/u/new');
    assert.equal(approvals.size, MAX_FOLDER_APPROVALS);
    assert.equal(approvals.has('/home/u/f0'), true, 'approved again: kept');
    assert.equal(approvals.has('/home/u/f1'), false, 'the oldest: asked again');
    assert.equal(approvals.has('/home/u/new'), true);
    assert.equal(approvals.has('/home/u/f2'), true);
  });
});

describe('one question at a time about a folder', () => {
  type Decision = 'once' | 'worker' | 'deny';
  /** Questions put to the "user", each answered by the test. */
  function user() {
    const open: Array<{ who: string; answer: (d: Decision) => void }> = [];
    const question = (who: string) => () => new Promise<Decision>((answer) => open.push({ who, answer }));
    return { open, question };
  }
  const tick = () => new Promise((resolve) => setImmediate(resolve));
  const allows = (d: Decision) => d === 'worker';

  it('workers started while a question is open wait for it: "Allow in this folder" covers them unasked', async () => {
    const approvals = new FolderApprovals();
    const { open, question } = user();
    const live = new AbortController().signal;
    const a = approvals.ask('/home/u/big', live, question('a'), allows);
    const b = approvals.ask('/home/u/big', live, question('b'), allows);
    const c = approvals.ask('/home/u/big', live, question('c'), allows);
    const elsewhere = approvals.ask('/home/u/other', live, question('other'), allows);
    await tick();
    assert.deepEqual(
      open.map((q) => q.who),
      ['a', 'other'],
      'one question per folder',
    );
    open[0]!.answer('worker');
    assert.deepEqual([await a, await b, await c], ['worker', 'earlier', 'earlier']);
    assert.equal(open.length, 2, 'b and c were never asked');
    open[1]!.answer('deny');
    assert.equal(await elsewhere, 'deny');
    assert.equal(approvals.has('/home/u/other'), false);
  });

  it('after "Allow once" or Deny the next waiting worker asks, one at a time; a withdrawn waiter asks nothing', async () => {
    const approvals = new FolderApprovals();
    const { open, question } = user();
    const live = new AbortController().signal;
    const killed = new AbortController();
    const a = approvals.ask('/f', live, question('a'), allows);
    const b = approvals.ask('/f', live, question('b'), allows);
    const gone = approvals.ask('/f', killed.signal, async () => (killed.signal.aborted ? 'deny' : question('gone')()), allows);
    const c = approvals.ask('/f', live, question('c'), allows);
    await tick();
    killed.abort();
    assert.equal(await gone, 'deny', 'stopped waiting at once, never asked');
    open[0]!.answer('once');
    assert.equal(await a, 'once');
    await tick();
    assert.deepEqual(
      open.map((q) => q.who),
      ['a', 'b'],
    );
    open[1]!.answer('deny');
    assert.equal(await b, 'deny');
    await tick();
    assert.deepEqual(
      open.map((q) => q.who),
      ['a', 'b', 'c'],
    );
    open[2]!.answer('once');
    assert.equal(await c, 'once');
    assert.equal(approvals.has('/f'), false, 'nothing kept');
  });
});
