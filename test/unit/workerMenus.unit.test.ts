// The Workers view's item menus as package.json declares them, read against the context values the view gives its
// items: what a person finds on right-click (and inline) for a worker in each state.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { followUpRefusal } from '../../src/core/workers/followUpRefusal';
import { workerContextValue } from '../../src/vscode/workerContextValue';

interface MenuItem {
  command: string;
  when: string;
}

const menus = (JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { contributes: { menus: Record<string, MenuItem[]> } })
  .contributes.menus['view/item/context']!;

/** The commands of the Workers view's item menu for `viewItem`: its `when` clauses are "view == x && viewItem =~ /re/". */
function menuOf(viewItem: string): string[] {
  const shown = menus.filter((m) => {
    const clause = /^view == baton\.workers && viewItem =~ \/(.+)\/$/.exec(m.when);
    if (!clause) {
      assert.doesNotMatch(m.when, /baton\.workers/, `a when clause this test cannot read: ${m.when}`);
      return false;
    }
    return new RegExp(clause[1]!).test(viewItem);
  });
  return [...new Set(shown.map((m) => m.command.replace(/^baton\./, '')))].sort();
}

const CHANGES = { files: 2, additions: 3, deletions: 1, paths: ['a.ts', 'b.ts'] };

describe('Workers view menus', () => {
  it('a worker at work offers Review and Open folder for its changes, never what would settle them', () => {
    assert.deepEqual(menuOf(workerContextValue({ state: 'running', changes: CHANGES })), [
      'killWorker',
      'openWorkerFolder',
      'reviewChanges',
      'worker.openTranscript',
    ]);
  });

  it('a finished worker with changes offers everything that settles them; without changes, none of it', () => {
    assert.deepEqual(menuOf(workerContextValue({ state: 'done', changes: CHANGES })), [
      'applyChanges',
      'askWorkerForChanges',
      'discardChanges',
      'keepChangesAsBranch',
      'openWorkerFolder',
      'resolveInEditor',
      'resolveWithWorker',
      'reviewChanges',
      'worker.openTranscript',
      'worker.sendFollowUp',
    ]);
    assert.deepEqual(menuOf(workerContextValue({ state: 'failed' })), ['worker.openTranscript', 'worker.sendFollowUp']);
    assert.ok(menuOf(workerContextValue({ state: 'idle', changes: CHANGES })).includes('applyChanges'), 'an idle worker is not at work');
    // Only a folder left out (a repository of its own): its worktree is still there to discard, or to ask about.
    const leftOut = { files: 0, additions: 0, deletions: 0, note: 'Left out: lib/, a git repository of its own in the worktree.' };
    assert.ok(menuOf(workerContextValue({ state: 'done', changes: leftOut })).includes('discardChanges'));
  });

  it("a copy of a folder without git offers all of it but Keep as Branch (there is no branch of the user's)", () => {
    const isolation = { kind: 'worktree' as const, branch: 'baton/w', baseCommit: 'abc', sourceDir: '/f', uncommittedLeftOut: false, copy: true };
    const inRepo = menuOf(workerContextValue({ state: 'done', changes: CHANGES, isolation: { ...isolation, copy: undefined } }));
    assert.deepEqual(
      menuOf(workerContextValue({ state: 'done', changes: CHANGES, isolation })),
      inRepo.filter((c) => c !== 'keepChangesAsBranch'),
    );
    assert.ok(inRepo.includes('keepChangesAsBranch'));
    assert.deepEqual(menuOf(workerContextValue({ state: 'running', changes: CHANGES, isolation })), [
      'killWorker',
      'openWorkerFolder',
      'reviewChanges',
      'worker.openTranscript',
    ]);
  });

  it('a worker that changed the folder in place offers no Keep as Branch and neither Resolve (it has no worktree), all else as in a worktree', () => {
    const inPlace = { kind: 'in-place' as const };
    assert.equal(workerContextValue({ state: 'done', changes: CHANGES, isolation: inPlace }), 'worker.done.changes.inplace');
    assert.deepEqual(menuOf(workerContextValue({ state: 'done', changes: CHANGES, isolation: inPlace })), [
      'applyChanges',
      'askWorkerForChanges',
      'discardChanges',
      'openWorkerFolder',
      'reviewChanges',
      'worker.openTranscript',
      'worker.sendFollowUp',
    ]);
    assert.deepEqual(menuOf(workerContextValue({ state: 'killed', changes: CHANGES, isolation: inPlace })), [
      'applyChanges',
      'discardChanges',
      'openWorkerFolder',
      'reviewChanges',
      'worker.openTranscript',
    ]);
    assert.deepEqual(menuOf(workerContextValue({ state: 'running', changes: CHANGES, isolation: inPlace })), [
      'killWorker',
      'openWorkerFolder',
      'reviewChanges',
      'worker.openTranscript',
    ]);
  });

  it('a worker stopped for good, or whose changes settled, offers no follow-up: the task typed was refused after, and lost', () => {
    const isolation = { kind: 'worktree' as const, branch: 'baton/w', baseCommit: 'abc', sourceDir: '/r', uncommittedLeftOut: false };
    // Killed with changes: they can still be applied, kept or discarded; the worker cannot be asked again.
    assert.deepEqual(menuOf(workerContextValue({ state: 'killed', changes: CHANGES, isolation })), [
      'applyChanges',
      'discardChanges',
      'keepChangesAsBranch',
      'openWorkerFolder',
      'resolveInEditor',
      'reviewChanges',
      'worker.openTranscript',
    ]);
    assert.deepEqual(menuOf(workerContextValue({ state: 'killed', isolation })), ['worker.openTranscript']);
    const applied = { kind: 'applied' as const, text: 'applied: 2 files changed, +3 −1' };
    assert.deepEqual(menuOf(workerContextValue({ state: 'done', isolation, outcome: applied })), ['worker.openTranscript']);
    // A worker in place whose changes were kept there still has its folder: it can go on.
    const inPlace = { kind: 'in-place' as const };
    assert.ok(menuOf(workerContextValue({ state: 'done', isolation: inPlace, outcome: applied })).includes('worker.sendFollowUp'));

    assert.equal(followUpRefusal({ name: 'w', state: 'done', isolation }), undefined);
    assert.equal(
      followUpRefusal({ name: 'w', state: 'done', isolation, outcome: applied }),
      "Worker 'w' has no worktree any more (applied: 2 files changed, +3 −1): start a new worker to continue.",
    );
    assert.equal(followUpRefusal({ name: 'w', state: 'killed' }), "Worker 'w' was stopped for good: start a new worker to continue.");
    assert.match(followUpRefusal({ name: 'w', state: 'running' }) ?? '', /still working/);
  });
});
