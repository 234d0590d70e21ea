// A worker card's change buttons in the real webview bundle (Chromium): while a worker asked for more works in its
// worktree, what would settle its changes (Apply, Ask for changes, Keep as branch, Discard) waits, and comes back when it
// ends; Review and Open folder stay. The core refuses them meanwhile too (settleGate.ts); the card does not offer them.
import * as assert from 'node:assert/strict';
import type { WorkerCard } from '../../src/shared/protocol';
import { openWebviewPage, useWebviewBrowser, waitInPage, type WebviewPage } from '../support/webviewPage';

const STATE = { busy: false, model: 'gpt-4.1', routingAuto: true };
const CHANGES = { files: 2, additions: 3, deletions: 1, paths: ['src/a.ts', 'src/b.ts'] };

function card(state: WorkerCard['state']): WorkerCard {
  return {
    name: 'iter',
    workingDir: '/work/app',
    state,
    startedAt: Date.now(),
    summary: 'Round one: changed a.ts and b.ts',
    changes: CHANGES,
    lastLine: 'Editing src/b.ts',
    isolation: { kind: 'worktree', branch: 'baton/iter', baseCommit: 'a1b2c3d', sourceDir: '/work/app', uncommittedLeftOut: false },
  };
}

/** The change buttons a person sees on the card, by test id. */
async function shown(wp: WebviewPage): Promise<string[]> {
  return (await wp.page.evaluate(
    `[...document.querySelectorAll('.worker-changes button')].filter(function (b) { return b.offsetParent !== null; }).map(function (b) { return b.dataset.testid; })`,
  )) as string[];
}

describe('webview: a worker card while the worker works again (Chromium)', function () {
  this.timeout(120_000);
  const chromium = useWebviewBrowser();

  it('hides Apply, Ask, Keep and Discard while it runs, keeps Review and Open folder, and moves the focus from a button that goes', async () => {
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      viewport: { width: 420, height: 700 },
      replyToReady: [{ type: 'snapshot', seq: 1, snapshot: { messages: [], workers: [card('done')], permissions: [], state: STATE } }],
    });
    try {
      await wp.page.waitForSelector('[data-testid="worker-apply"]', { state: 'visible' });
      const all = ['worker-review', 'worker-apply', 'worker-ask', 'worker-branch', 'worker-discard', 'worker-folder'];
      assert.deepEqual(await shown(wp), all);
      await wp.page.focus('[data-testid="worker-apply"]');
      // Asked for changes: it runs again in its worktree, with the changes of its first round still on the card.
      await wp.push({ type: 'workers/update', seq: 2, workers: [card('running')] });
      await waitInPage(wp.page, `document.querySelector('[data-testid="worker-apply"]').offsetParent === null`);
      assert.deepEqual(await shown(wp), ['worker-review', 'worker-folder']);
      assert.equal(
        await wp.page.evaluate(`document.activeElement && document.activeElement.dataset.testid`),
        'worker-card',
        'the focus Apply had went to the card, not to the page',
      );
      assert.match((await wp.page.textContent('[data-testid="worker-changes"]')) ?? '', /^2 files changed, \+3 −1$/);
      await wp.push({ type: 'workers/update', seq: 3, workers: [card('done')] });
      await waitInPage(wp.page, `document.querySelector('[data-testid="worker-apply"]').offsetParent !== null`);
      assert.deepEqual(await shown(wp), all);
      assert.deepEqual(await wp.cspViolations(), []);
    } finally {
      await wp.close();
    }
  });

  it('an Apply that can be undone: its card offers Undo Apply alone, which asks the host; once undone the button goes and the focus stays on the card', async () => {
    const applied: WorkerCard = { ...card('done'), changes: undefined, outcome: { kind: 'applied', text: 'applied: 2 files changed, +3 −1', undoable: true } };
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      viewport: { width: 420, height: 700 },
      replyToReady: [{ type: 'snapshot', seq: 1, snapshot: { messages: [], workers: [applied], permissions: [], state: STATE } }],
    });
    try {
      await wp.page.waitForSelector('[data-testid="worker-undo"]', { state: 'visible' });
      assert.deepEqual(await shown(wp), ['worker-undo']);
      await wp.page.click('[data-testid="worker-undo"]');
      assert.deepEqual(
        (await wp.posted()).filter((m) => m.type === 'worker/open'),
        [{ type: 'worker/open', name: 'iter', action: 'undo' }],
      );
      await wp.page.focus('[data-testid="worker-undo"]');
      await wp.push({
        type: 'workers/update',
        seq: 2,
        workers: [{ ...applied, outcome: { kind: 'applied', text: 'Apply undone: 2 files changed, +3 −1 taken back' } }],
      });
      await waitInPage(wp.page, `document.querySelector('[data-testid="worker-undo"]').offsetParent === null`);
      assert.deepEqual(await shown(wp), []);
      assert.equal((await wp.page.textContent('[data-testid="worker-where"]'))?.trim(), 'Apply undone: 2 files changed, +3 −1 taken back');
      assert.equal(await wp.page.evaluate(`document.activeElement && document.activeElement.dataset.testid`), 'worker-card');
      assert.deepEqual(await wp.cspViolations(), []);
    } finally {
      await wp.close();
    }
  });

  it('a copy of a folder without git: the card says so, and offers no Keep as branch (there is no branch of the user\u2019s)', async () => {
    const copy: WorkerCard = {
      ...card('done'),
      isolation: { kind: 'worktree', branch: 'baton/iter', baseCommit: 'a1b2c3d', sourceDir: '/work/app', uncommittedLeftOut: false, copy: true },
    };
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      viewport: { width: 420, height: 700 },
      replyToReady: [{ type: 'snapshot', seq: 1, snapshot: { messages: [], workers: [copy], permissions: [], state: STATE } }],
    });
    try {
      await wp.page.waitForSelector('[data-testid="worker-apply"]', { state: 'visible' });
      assert.deepEqual(await shown(wp), ['worker-review', 'worker-apply', 'worker-ask', 'worker-discard', 'worker-folder']);
      assert.equal((await wp.page.textContent('[data-testid="worker-where"]'))?.trim(), 'a copy of the folder (it has no git)');
      assert.deepEqual(await wp.cspViolations(), []);
    } finally {
      await wp.close();
    }
  });

  it('a worker that changed the folder in place: no Keep as branch (it has no worktree to commit from)', async () => {
    const inPlace: WorkerCard = { ...card('done'), isolation: { kind: 'in-place' } };
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      viewport: { width: 420, height: 700 },
      replyToReady: [{ type: 'snapshot', seq: 1, snapshot: { messages: [], workers: [inPlace], permissions: [], state: STATE } }],
    });
    try {
      await wp.page.waitForSelector('[data-testid="worker-apply"]', { state: 'visible' });
      assert.deepEqual(await shown(wp), ['worker-review', 'worker-apply', 'worker-ask', 'worker-discard', 'worker-folder']);
      assert.deepEqual(await wp.cspViolations(), []);
    } finally {
      await wp.close();
    }
  });

  it('says what is left out of the change (a folder that is a repository of its own), and still offers Discard when that is all there is', async () => {
    const leftOut =
      'Left out: vendor/lib/, a git repository of its own in the worktree (a clone, a git init): Baton applies files, never a repository, and it goes with the worktree.';
    const only: WorkerCard = { ...card('done'), name: 'cloner', changes: { files: 0, additions: 0, deletions: 0, paths: [], note: leftOut } };
    const both: WorkerCard = { ...card('done'), changes: { ...CHANGES, note: leftOut } };
    const settled: WorkerCard = { ...card('done'), name: 'applied', changes: undefined, outcome: { kind: 'applied', text: 'applied: 1 file changed, +1 −0' } };
    const wp = await openWebviewPage(chromium.browser(), {
      build: chromium.build(),
      viewport: { width: 420, height: 900 },
      // A settled worker listed before it: one with only folders left out still waits for a decision, so it is shown too.
      replyToReady: [{ type: 'snapshot', seq: 1, snapshot: { messages: [], workers: [both, settled, only], permissions: [], state: STATE } }],
    });
    try {
      await wp.page.waitForSelector('[data-testid="worker-changes-note"]', { state: 'visible' });
      const cards = (await wp.page.evaluate(
        `[...document.querySelectorAll('.worker-item')].map(function (item) {
          var q = function (id) { var e = item.querySelector('[data-testid="' + id + '"]'); return e && e.offsetParent !== null ? e.textContent : null; };
          return { name: item.querySelector('.worker-name').textContent, changes: q('worker-changes'), note: q('worker-changes-note'), discard: q('worker-discard') };
        })`,
      )) as Array<Record<string, string | null>>;
      assert.deepEqual(cards, [
        { name: 'iter', changes: '2 files changed, +3 \u22121', note: leftOut, discard: 'Discard' },
        { name: 'applied', changes: null, note: null, discard: null },
        { name: 'cloner', changes: 'No file to apply', note: leftOut, discard: 'Discard' },
      ]);
      // A card with nothing left out has no such line.
      await wp.push({ type: 'workers/update', seq: 2, workers: [card('done')] });
      await waitInPage(wp.page, `document.querySelector('[data-testid="worker-changes-note"]').offsetParent === null`);
      assert.deepEqual(await wp.cspViolations(), []);
    } finally {
      await wp.close();
    }
  });
});
