/**
 * A worker's changes as the user reviews them in a real VS Code: the worker edits a file of a git repository in its
 * own worktree; its card says "1 file changed"; one click on Review opens VS Code's multi-file diff editor with the
 * change; Apply (after the confirmation dialog) brings it into the user's file; a second worker's change is thrown away
 * by Discard, its worktree and branch with it.
 *
 * The worker edits right after its worktree is created, within the same second, without changing the file's size:
 * the case where git's stat data alone cannot see the edit (see ChangeSets.snapshot), which once made Review, and
 * Apply, find nothing in about half of the runs.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FrameLocator, Locator } from 'playwright-core';
import type { ScriptedModelServer } from '../../support/scriptedModelServer';
import { scriptDelegation, scriptWorkerRound } from '../../support/scriptedWorker';
import { repoRoot, resultsDir, testsRepoExtension, ui, widenSideBar } from './fixture';
import { answerDialog, completedReply, freshChat, runCommand, send } from './helpers';

const run = promisify(execFile);
const git = (cwd: string, ...args: string[]) => run('git', ['-c', 'user.name=E2E', '-c', 'user.email=e2e@example.invalid', ...args], { cwd });

/** The worker's card and the changes row under it (Review / Apply / Discard), found by data-testid. */
function card(view: FrameLocator, name: string): Locator {
  return view.locator('.worker-item').filter({ has: view.locator(`[data-testid="worker-card"][data-name="${name}"]`) });
}

/** The orchestrator delegates; the worker edits src/app.txt (relative: the runtime resolves it in the worker's folder). */
function scriptEdit(server: ScriptedModelServer, name: string, repo: string, newLine: string): { prompt: string; summary: string } {
  const prompt = `Worker ${name}: change the line in app.txt`;
  const summary = `${name} is done; its change waits for your review.`;
  scriptDelegation(server, { prompt, worker: name, workingDir: repo, task: `TASK-${name}`, started: `Started ${name}.` });
  scriptWorkerRound(server, {
    worker: name,
    prompt: `TASK-${name}`,
    does: { toolCalls: [{ name: 'edit', arguments: { path: 'src/app.txt', old_str: 'original line', new_str: newLine } }] },
    report: `${name}: changed app.txt`,
    answer: summary,
  });
  return { prompt, summary };
}

const readApp = (repo: string): Promise<string> => readFile(join(repo, 'src', 'app.txt'), 'utf8');

describe('Reviewing a worker\u2019s changes', function () {
  this.timeout(180_000);

  it('Review opens the multi-file diff with the change; Apply lands it after the dialog; Discard removes worktree and branch', async () => {
    const { page, view } = await freshChat();
    const { server, workspace } = ui();
    // Widened now, before any editor opens: dragging the sash over the open diff could let go on its "revert block"
    // arrow and undo the worker's edit.
    await widenSideBar(page);
    const repo = join(workspace, 'review-repo');
    await mkdir(join(repo, 'src'), { recursive: true });
    await writeFile(join(repo, 'src', 'app.txt'), 'original line\n');
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, 'commit', '-q', '-m', 'init');

    const first = scriptEdit(server, 'ui-reviewer', repo, 'reviewed line');
    await send(view, first.prompt);
    await completedReply(view, 'Started ui-reviewer.');
    await completedReply(view, first.summary);
    const reviewer = card(view, 'ui-reviewer');
    await reviewer.locator('[data-testid="worker-changes"]').filter({ hasText: '1 file changed, +1 \u22121' }).waitFor({ timeout: 30_000 });
    // The Workers view, collapsed until now, opened for the new worker, its row in it. (Revealing a tree view for the
    // first time once left the pane blank until some later layout: about 2 s here, when a toast came; the wait is
    // short so that a blank pane fails.)
    await page.waitForFunction(() => document.querySelector('.part.sidebar .pane-header[aria-label^="Workers"]')?.getAttribute('aria-expanded') === 'true');
    await page
      .locator('.part.sidebar .pane:has(.pane-header[aria-label^="Workers"]) .monaco-list-row')
      .filter({ hasText: 'ui-reviewer' })
      .waitFor({ timeout: 1_000 });
    // Where it works, and the network its shell had: the default (the internet, not this machine), through the proxy of
    // VS Code's environment, which the e2e run points at the scripted server (so a stray internet call fails loudly).
    // It has ended, so the card says where its changes are, and the network it ran with is on hover.
    const where = reviewer.locator('[data-testid="worker-where"]');
    assert.equal(await where.innerText(), 'worktree on baton/ui-reviewer');
    assert.equal(
      await where.getAttribute('title'),
      `worktree on baton/ui-reviewer\nnetwork: internet over HTTP(S), not this machine or the local network; via your proxy ${server.url}`,
    );
    assert.equal(await readApp(repo), 'original line\n', 'the user\u2019s file is untouched until Apply');

    // Review, one click: VS Code's multi-file diff editor, the original against the worker's version, in the active tab.
    await reviewer.locator('[data-testid="worker-review"]').click();
    const tab = page.locator('.tabs-container .tab.active', { hasText: "Worker 'ui-reviewer' \u2014 1 file changed, +1 \u22121" });
    await tab.waitFor({ state: 'visible', timeout: 15_000 });
    const multiDiff = page.locator('.editor-instance .monaco-component.multiDiffEditor').first();
    await multiDiff.waitFor({ state: 'visible', timeout: 10_000 });
    // Monaco renders spaces as no-break spaces (\s matches both).
    await multiDiff
      .locator('.view-lines', { hasText: /reviewed\sline/ })
      .first()
      .waitFor({ timeout: 15_000 });
    const shown = (await multiDiff.innerText()).replace(/\u00a0/g, ' ');
    assert.ok(shown.includes('original line') && shown.includes('reviewed line'), `both sides of the change in the diff:\n${shown}`);
    assert.match(shown, /app\.txt/);
    // No toast over the picture (the git extension offers to open the worktree's repository).
    await runCommand(page, 'Notifications: Clear All Notifications');
    await page.locator('.notifications-toasts .notification-toast').first().waitFor({ state: 'hidden', timeout: 5_000 });
    await mkdir(resultsDir, { recursive: true });
    const shot = join(resultsDir, 'review.png');
    await page.screenshot({ path: shot });
    if (testsRepoExtension()) await copyFile(shot, join(repoRoot, 'media', 'review.png'));

    // Apply, confirmed in VS Code's dialog: the user's file on disk has the change, and the card's changes are gone.
    await reviewer.locator('[data-testid="worker-apply"]').click();
    await answerDialog(page, 'Apply');
    await reviewer.locator('[data-testid="worker-changes"]').waitFor({ state: 'hidden', timeout: 15_000 });
    assert.equal(await readApp(repo), 'reviewed line\n', 'Apply wrote the worker\u2019s line into the user\u2019s file');

    // A second worker on the same file: Discard, confirmed, removes its worktree and branch; the file keeps the first change.
    const second = scriptEdit(server, 'ui-discarded', repo, 'discarded line');
    await send(view, second.prompt);
    await completedReply(view, 'Started ui-discarded.');
    await completedReply(view, second.summary);
    const discarded = card(view, 'ui-discarded');
    await discarded.locator('[data-testid="worker-changes"]').filter({ hasText: '1 file changed' }).waitFor({ timeout: 30_000 });
    const { stdout: before } = await git(repo, 'worktree', 'list', '--porcelain');
    assert.equal(before.split('\n').filter((l) => l.startsWith('worktree ')).length, 2, 'the second worker has its worktree');
    await discarded.locator('[data-testid="worker-discard"]').click();
    await answerDialog(page, 'Discard');
    await discarded.locator('[data-testid="worker-changes"]').waitFor({ state: 'hidden', timeout: 15_000 });
    assert.equal(await readApp(repo), 'reviewed line\n');
    const { stdout: branches } = await git(repo, 'branch', '--list');
    assert.equal(branches.trim(), '* main', 'no baton/ branch is left');
    const { stdout: worktrees } = await git(repo, 'worktree', 'list', '--porcelain');
    assert.deepEqual(
      worktrees.split('\n').filter((l) => l.startsWith('worktree ')),
      [`worktree ${repo}`],
      'only the user\u2019s own checkout is left',
    );
  });
});
