/**
 * A worker's changes as the user reviews them in a real VS Code: the worker edits a file of a git repository in its
 * own worktree; its card says "1 file changed"; Review opens VS Code's multi-file diff editor with the change; Apply
 * (after the confirmation dialog) brings it into the user's file; a second worker's change is thrown away by Discard.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FrameLocator, Locator, Page } from 'playwright-core';
import type { ScriptedModelServer } from '../../support/scriptedModelServer';
import { repoRoot, resultsDir, testsRepoExtension, ui } from './fixture';
import { completedReply, freshChat, send } from './helpers';

/** Polls an async check until it holds. */
async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const run = promisify(execFile);
const git = (cwd: string, ...args: string[]) => run('git', ['-c', 'user.name=E2E', '-c', 'user.email=e2e@example.invalid', ...args], { cwd });

function card(view: FrameLocator, name: string): Locator {
  return view.locator('.worker-item').filter({ has: view.locator(`[data-testid="worker-card"][data-name="${name}"]`) });
}

/** The orchestrator delegates; the worker edits src/app.txt (relative: the runtime resolves it in the worker's folder). */
function scriptEdit(server: ScriptedModelServer, name: string, repo: string, newLine: string): string {
  const prompt = `Worker ${name}: change the line in app.txt`;
  server.on(
    { lastUserIncludes: `[via panel] ${prompt}`, afterToolResult: false, name: `delegate ${name}` },
    { toolCalls: [{ name: 'create_worker_session', arguments: { name, working_dir: repo, initial_prompt: `TASK-${name}` } }] },
  );
  server.on({ lastUserIncludes: `[via panel] ${prompt}`, afterToolResult: true, name: `started ${name}` }, { text: `Started ${name}.` });
  server.on(
    { lastUserIncludes: `TASK-${name}`, afterToolResult: false, name: `${name} edits` },
    { toolCalls: [{ name: 'edit', arguments: { path: 'src/app.txt', old_str: 'original line', new_str: newLine } }] },
  );
  server.on({ lastUserIncludes: `TASK-${name}`, afterToolResult: true, name: `${name} reports` }, { text: `${name}: changed app.txt` });
  server.on(
    { lastUserIncludes: `[Background task completed] Worker '${name}' finished:`, name: `summary of ${name}` },
    { text: `${name} is done; its change waits for your review.` },
  );
  return prompt;
}

async function answerDialog(page: Page, button: string): Promise<void> {
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 15_000 });
  await dialog
    .locator('.monaco-button', { hasText: new RegExp(`^${button}$`) })
    .first()
    .click();
  await dialog.waitFor({ state: 'detached', timeout: 10_000 });
}

describe('Reviewing a worker\u2019s changes', function () {
  this.timeout(180_000);

  it('Review opens the multi-file diff; Apply lands the change after the dialog; Discard throws another away', async () => {
    const { page, view } = await freshChat();
    const { server, workspace } = ui();
    const repo = join(workspace, 'review-repo');
    await mkdir(join(repo, 'src'), { recursive: true });
    await writeFile(join(repo, 'src', 'app.txt'), 'original line\n');
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, 'commit', '-q', '-m', 'init');

    await send(view, scriptEdit(server, 'ui-reviewer', repo, 'reviewed line'));
    await completedReply(view, 'Started ui-reviewer.');
    const first = card(view, 'ui-reviewer');
    await first.locator('[data-testid="worker-changes"]').filter({ hasText: '1 file changed, +1 \u22121' }).waitFor({ timeout: 60_000 });
    assert.match(await first.locator('[data-testid="worker-where"]').innerText(), /worktree on baton\/ui-reviewer/);
    assert.equal(await readFile(join(repo, 'src', 'app.txt'), 'utf8'), 'original line\n', 'the user\u2019s file is untouched until Apply');

    // Review: VS Code's multi-file diff editor, original against the worker's version. (The side bar is not widened
    // here: dragging its sash over the open diff can let go on the diff's "revert block" arrow and undo the edit.)
    // Known flake in code-server (see the note on issue 11): now and then the command runs but no tab shows; a second
    // click opens it. The test allows three clicks and says how many it took.
    const tab = page.locator('.tab.active', { hasText: /Worker 'ui-reviewer'/ });
    let clicks = 0;
    while (!(await tab.isVisible())) {
      if (++clicks > 3) throw new Error('Review did not open the multi-file diff after three clicks');
      await first.locator('[data-testid="worker-review"]').click();
      await tab.waitFor({ timeout: 8_000 }).catch(() => undefined);
    }
    if (clicks > 1) console.log(`      Review needed ${clicks} clicks`);
    const multiDiff = page.locator('.editor-instance .monaco-component.multiDiffEditor').first();
    await multiDiff.waitFor({ state: 'attached', timeout: 10_000 });
    await eventually('both sides of the diff', async () => {
      // Monaco renders spaces as no-break spaces.
      const text = (await multiDiff.innerText()).replace(/\u00a0/g, ' ');
      return text.includes('original line') && text.includes('reviewed line');
    });
    await mkdir(resultsDir, { recursive: true });
    const shot = join(resultsDir, 'review.png');
    await page.screenshot({ path: shot });
    if (testsRepoExtension()) await copyFile(shot, join(repoRoot, 'media', 'review.png'));

    // Apply, confirmed in VS Code's dialog: the user's file now has the change, and the card's changes are gone.
    await first.locator('[data-testid="worker-apply"]').click();
    await answerDialog(page, 'Apply');
    await eventually('the applied file', async () => (await readFile(join(repo, 'src', 'app.txt'), 'utf8')) === 'reviewed line\n');
    await first.locator('.worker-changes').waitFor({ state: 'hidden', timeout: 10_000 });

    // A second worker on the same file: Discard, confirmed, removes its worktree and branch; the file keeps the first change.
    await send(view, scriptEdit(server, 'ui-discarded', repo, 'discarded line'));
    await completedReply(view, 'Started ui-discarded.');
    const second = card(view, 'ui-discarded');
    await second.locator('[data-testid="worker-changes"]').filter({ hasText: '1 file changed' }).waitFor({ timeout: 60_000 });
    await second.locator('[data-testid="worker-discard"]').click();
    await answerDialog(page, 'Discard');
    await second.locator('.worker-changes').waitFor({ state: 'hidden', timeout: 10_000 });
    assert.equal(await readFile(join(repo, 'src', 'app.txt'), 'utf8'), 'reviewed line\n');
    const { stdout: branches } = await git(repo, 'branch', '--list', 'baton/*');
    assert.equal(branches.trim(), '', 'no baton/ branch is left');
    const { stdout: worktrees } = await git(repo, 'worktree', 'list', '--porcelain');
    assert.equal(worktrees.split('\n').filter((l) => l.startsWith('worktree ')).length, 1);
    await completedReply(view, 'ui-discarded is done; its change waits for your review.');
  });
});
