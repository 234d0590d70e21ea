/**
 * Work that lands, by clicks in a real VS Code: a worker changes three files of a git repository in its worktree;
 * Apply on its card offers the files one by one (all chosen); unticking one applies the other two and leaves it
 * pending (the card counts 1 file); "Ask for changes…" on the card sends the user's words to the same worker, which
 * continues in its worktree; its card shows its new summary and the file it touched. With a verify command set from the
 * palette, the card says the worker's change failed it (its last lines one click away) and Apply's dialog names the
 * failure before it applies. After a window reload, a worker whose changes wait is back on its card, and its Apply works.
 */
import * as assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { FrameLocator, Locator, Page } from 'playwright-core';
import type { ScriptedModelServer } from '../../support/scriptedModelServer';
import { scriptDelegation, scriptWorkerRound } from '../../support/scriptedWorker';
import { repoRoot, resultsDir, testsRepoExtension, ui } from './fixture';
import { answerDialog, completedReply, freshChat, openBaton, runCommand, send, waitUntil } from './helpers';

const run = promisify(execFile);
const git = (cwd: string, ...args: string[]) => run('git', ['-c', 'user.name=E2E', '-c', 'user.email=e2e@example.invalid', ...args], { cwd });

function card(view: FrameLocator, name: string): Locator {
  return view.locator('.worker-item').filter({ has: view.locator(`[data-testid="worker-card"][data-name="${name}"]`) });
}

/** A git repository `name` in the workspace holding `files` (paths relative to it), all of them committed. */
async function repoWith(workspace: string, name: string, files: Record<string, string>): Promise<string> {
  const repo = join(workspace, name);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(repo, path)), { recursive: true });
    await writeFile(join(repo, path), text);
  }
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, 'commit', '-q', '-m', 'init');
  return repo;
}

/**
 * A file Apply is writing, read while it waits: undefined while it is not there (`git apply` replaces a file by removing
 * it and writing it anew, and a read in between failed the wait at once: seen in CI).
 */
function readWhileWritten(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** A worker delegated from the panel that changes src/app.txt's line to "<name> line"; returns what the user sends. */
function scriptLineEdit(server: ScriptedModelServer, repo: string, name: string): string {
  const prompt = `Worker ${name}: change app.txt`;
  scriptDelegation(server, { prompt, worker: name, workingDir: repo, task: `TASK-${name}`, started: `Started ${name}.` });
  scriptWorkerRound(server, {
    worker: name,
    prompt: `TASK-${name}`,
    does: { toolCalls: [{ name: 'edit', arguments: { path: 'src/app.txt', old_str: 'original line', new_str: `${name} line` } }] },
    report: `${name}: changed app.txt`,
    answer: `${name} is done.`,
  });
  return prompt;
}

/**
 * Two workers delegated from the panel change src/app.txt's line in `dir`; the first is applied by clicks, the second's
 * Apply conflicts and its card says so. Returns both cards.
 */
async function conflictingPair(page: Page, view: FrameLocator, dir: string, names: [string, string]): Promise<[Locator, Locator]> {
  const { server } = ui();
  for (const name of names) {
    const prompt = scriptLineEdit(server, dir, name);
    await send(view, prompt);
    await completedReply(view, `${name} is done.`);
  }
  const [first, second] = [card(view, names[0]), card(view, names[1])];
  await first.locator('[data-testid="worker-apply"]').click();
  await answerDialog(page, 'Apply');
  await first.locator('[data-testid="worker-changes"]').waitFor({ state: 'hidden', timeout: 15_000 });
  await second.locator('[data-testid="worker-apply"]').click();
  await answerDialog(page, 'Apply');
  await second.locator('[data-testid="worker-conflicts"]').filter({ hasText: 'Conflicts with your tree: src/app.txt' }).waitFor({ timeout: 15_000 });
  return [first, second];
}

describe('Work that lands, by clicks', function () {
  this.timeout(180_000);

  // First: run last, it met VS Code's "save the changes you made to app.txt?" of the merge editor the test before leaves.
  it('a window reload: the card of a worker whose changes wait comes back, its Apply lands them, and Undo Apply takes them back', async () => {
    const { page, view } = await freshChat();
    const { server, workspace } = ui();
    const repo = await repoWith(workspace, 'reload-repo', { 'src/app.txt': 'original line\n' });
    const prompt = scriptLineEdit(server, repo, 'ui-kept');
    await send(view, prompt);
    await completedReply(view, 'ui-kept is done.');
    const changes = (v: FrameLocator) => card(v, 'ui-kept').locator('[data-testid="worker-changes"]').filter({ hasText: '1 file changed, +1 \u22121' });
    await changes(view).waitFor({ timeout: 30_000 });

    await page.reload({ waitUntil: 'domcontentloaded' });
    await page.locator('.monaco-workbench .activitybar').first().waitFor({ state: 'visible', timeout: 60_000 });
    const reloaded = await openBaton(page);
    await changes(reloaded).waitFor({ timeout: 30_000 });
    await card(reloaded, 'ui-kept').locator('[data-testid="worker-apply"]').click();
    await answerDialog(page, 'Apply');
    await waitUntil('the change in the file', () => (readWhileWritten(join(repo, 'src', 'app.txt')) === 'ui-kept line\n' ? true : undefined));
    await card(reloaded, 'ui-kept').locator('[data-testid="worker-where"]').filter({ hasText: 'applied' }).waitFor({ timeout: 15_000 });

    // Taken back from the Apply's own notification (the card offers it too): asked first, then the file is as it was and
    // the card says so.
    await card(reloaded, 'ui-kept').locator('[data-testid="worker-undo"]').waitFor({ timeout: 15_000 });
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: "Applied 1 file changed, +1 \u22121 from worker 'ui-kept'" });
    await toast.getByRole('button', { name: 'Undo Apply' }).click();
    await answerDialog(page, 'Undo Apply', /Undo the Apply of worker 'ui-kept' \(1 file changed, \+1 \u22121\)\?[\s\S]*src\/app\.txt/);
    await waitUntil('the file as it was', () => (readWhileWritten(join(repo, 'src', 'app.txt')) === 'original line\n' ? true : undefined));
    await card(reloaded, 'ui-kept').locator('[data-testid="worker-where"]').filter({ hasText: 'Apply undone' }).waitFor({ timeout: 15_000 });
    await card(reloaded, 'ui-kept').locator('[data-testid="worker-undo"]').waitFor({ state: 'hidden', timeout: 15_000 });
  });

  it('partial Apply from the card (two of three files), then Ask for changes continues the same worker', async () => {
    const { page, view } = await freshChat();
    const { server, workspace } = ui();
    const repo = await repoWith(workspace, 'landing-repo', { 'src/a.txt': 'a original\n', 'src/b.txt': 'b original\n', 'src/c.txt': 'c original\n' });
    const read = (f: string) => readFile(join(repo, 'src', `${f}.txt`), 'utf8');

    const prompt = 'Worker ui-trio: change the three files';
    scriptDelegation(server, { prompt, worker: 'ui-trio', workingDir: repo, task: 'TASK-ui-trio', started: 'Started ui-trio.' });
    scriptWorkerRound(server, {
      worker: 'ui-trio',
      prompt: 'TASK-ui-trio',
      does: {
        toolCalls: ['a', 'b', 'c'].map((f) => ({ name: 'edit', arguments: { path: `src/${f}.txt`, old_str: `${f} original`, new_str: `${f} by trio` } })),
      },
      report: 'Round one: edited a, b and c',
      answer: 'ui-trio finished round one.',
    });

    await send(view, prompt);
    await completedReply(view, 'Started ui-trio.');
    await completedReply(view, 'ui-trio finished round one.');
    const trio = card(view, 'ui-trio');
    await trio.locator('[data-testid="worker-changes"]').filter({ hasText: '3 files changed, +3 \u22123' }).waitFor({ timeout: 30_000 });
    assert.equal(await trio.locator('[data-testid="worker-touched"]').innerText(), 'src/a.txt, src/b.txt, src/c.txt');

    // Apply: the files one by one, all chosen; untick c.txt, accept, confirm.
    await trio.locator('[data-testid="worker-apply"]').click();
    const pick = page.locator('.quick-input-widget');
    await pick.waitFor({ state: 'visible', timeout: 15_000 });
    await pick.getByText('3 Selected').waitFor({ timeout: 5_000 });
    // In a multi-select, a click on a row toggles its box.
    await pick.getByText('src/c.txt', { exact: true }).click();
    await pick.getByText('2 Selected').waitFor({ timeout: 5_000 });
    await pick.locator('input.input').press('Enter');
    await answerDialog(page, 'Apply');
    await trio.locator('[data-testid="worker-changes"]').filter({ hasText: '1 file changed, +1 \u22121' }).waitFor({ timeout: 15_000 });
    assert.equal(await read('a'), 'a by trio\n');
    assert.equal(await read('b'), 'b by trio\n');
    assert.equal(await read('c'), 'c original\n', 'the file left out stays in the worktree');

    // Ask for changes: the same worker continues in its worktree.
    scriptWorkerRound(server, {
      worker: 'ui-trio',
      prompt: 'also say twice in c',
      does: { toolCalls: [{ name: 'edit', arguments: { path: 'src/c.txt', old_str: 'c by trio', new_str: 'c by trio, twice' } }] },
      report: 'Round two: c says twice',
      answer: 'ui-trio finished round two.',
    });
    await trio.locator('[data-testid="worker-ask"]').click();
    const box = page.locator('.quick-input-widget input.input');
    await box.waitFor({ state: 'visible', timeout: 15_000 });
    await box.fill('also say twice in c');
    await box.press('Enter');
    await completedReply(view, 'ui-trio finished round two.');
    await trio.locator('[data-testid="worker-summary"]').filter({ hasText: 'Round two: c says twice' }).waitFor({ timeout: 15_000 });
    assert.equal(await trio.locator('[data-testid="worker-touched"]').innerText(), 'src/c.txt');
    assert.equal(await read('c'), 'c original\n', 'still nothing in the user\u2019s file until Apply');
  });

  it('Resolve with the worker by clicks: the second Apply conflicts, the card offers both ways, the worker merges, Apply lands both', async () => {
    const { page, view } = await freshChat();
    const { server, workspace } = ui();
    const repo = await repoWith(workspace, 'conflict-repo', { 'src/app.txt': 'original line\n' });
    const read = () => readFile(join(repo, 'src', 'app.txt'), 'utf8');

    const [, second] = await conflictingPair(page, view, repo, ['ui-first', 'ui-second']);
    assert.equal(await read(), 'ui-first line\n');

    scriptWorkerRound(server, {
      worker: 'ui-second',
      prompt: 'These files conflict',
      delayMs: 1500,
      // The worker's own edit tool on the markers (a shell command would ask the user in the panel first).
      does: {
        toolCalls: [
          {
            name: 'edit',
            arguments: {
              path: 'src/app.txt',
              old_str: "<<<<<<< user's tree\nui-first line\n=======\nui-second line\n>>>>>>> your change",
              new_str: 'ui-first line\nui-second line',
            },
          },
        ],
      },
      report: 'Kept both lines.',
      answer: 'ui-second resolved it.',
    });
    await second.locator('[data-testid="worker-resolve-worker"]').click();
    await second.locator('[data-testid="worker-card"]').filter({ hasText: 'resolving conflicts' }).waitFor({ timeout: 15_000 });
    await completedReply(view, 'ui-second resolved it.');
    assert.equal(await read(), 'ui-first line\n', 'untouched until Apply');

    await second.locator('[data-testid="worker-apply"]').click();
    await answerDialog(page, 'Apply');
    await second.locator('[data-testid="worker-where"]').filter({ hasText: 'applied' }).waitFor({ timeout: 15_000 });
    assert.equal(await read(), 'ui-first line\nui-second line\n', 'both intents landed');
    await mkdir(resultsDir, { recursive: true });
    const shot = join(resultsDir, 'resolved-conflict.png');
    await page.screenshot({ path: shot });
    if (testsRepoExtension()) await copyFile(shot, join(repoRoot, 'media', 'resolved-conflict.png'));
    const { stdout: worktrees } = await git(repo, 'worktree', 'list', '--porcelain');
    assert.deepEqual(
      worktrees.split('\n').filter((l) => l.startsWith('worktree ')),
      [`worktree ${repo}`],
    );
  });

  it('Verify before Apply by clicks: the card says verify failed, its last lines one click away; Apply names the failure', async () => {
    const { page, view } = await freshChat();
    const { server, workspace } = ui();
    const setVerify = async (command: string): Promise<void> => {
      await runCommand(page, "Baton: Set the Command that Verifies Workers' Changes");
      const box = page.locator('.quick-input-widget input.input');
      await box.waitFor({ state: 'visible', timeout: 15_000 });
      await box.fill(command);
      await box.press('Enter');
      await box.waitFor({ state: 'hidden', timeout: 10_000 });
    };
    // Set as a user does (this window does not pick up edits of settings.json on disk).
    await setVerify('echo "FAIL-E2E: 1 failing"; exit 2');
    try {
      const repo = await repoWith(workspace, 'verify-repo', { 'src/v.txt': 'v original\n' });
      const prompt = 'Worker ui-verify: change v.txt';
      scriptDelegation(server, { prompt, worker: 'ui-verify', workingDir: repo, task: 'TASK-ui-verify', started: 'Started ui-verify.' });
      scriptWorkerRound(server, {
        worker: 'ui-verify',
        prompt: 'TASK-ui-verify',
        does: { toolCalls: [{ name: 'edit', arguments: { path: 'src/v.txt', old_str: 'v original', new_str: 'v by worker' } }] },
        report: 'ui-verify: changed v.txt',
        answer: 'ui-verify is done, but its verify failed.',
      });
      await send(view, prompt);
      await completedReply(view, 'ui-verify is done, but its verify failed.');
      const told = server.chatRequests().find((r) => r.lastUserText?.includes("[Background task completed] Worker 'ui-verify'"));
      assert.match(
        told?.lastUserText ?? '',
        /Verify failed: echo "FAIL-E2E: 1 failing"; exit 2 exited 2 after [\d.]+ s\. Its last lines:\nFAIL-E2E: 1 failing/,
      );

      const verifier = card(view, 'ui-verify');
      const line = verifier.locator('[data-testid="worker-verify"]');
      await line.filter({ hasText: /^verify failed: echo "FAIL-E2E: 1 failing"; exit 2 exited 2 after [\d.]+ s$/ }).waitFor({ timeout: 30_000 });
      const tail = verifier.locator('[data-testid="worker-verify-tail"]');
      assert.equal(await tail.isVisible(), false, 'the last lines wait for a click');
      await line.click();
      await tail.filter({ hasText: 'FAIL-E2E: 1 failing' }).waitFor({ state: 'visible', timeout: 5_000 });

      await verifier.locator('[data-testid="worker-apply"]').click();
      const dialog = page.locator('.monaco-dialog-box');
      await dialog.waitFor({ timeout: 15_000 });
      const text = await dialog.innerText();
      assert.match(
        text,
        /Verify failed: echo "FAIL-E2E: 1 failing"; exit 2 exited 2 after [\d.]+ s\. Apply 1 file changed, \+1 \u22121 from worker 'ui-verify' anyway\?/,
      );
      assert.match(text, /Last lines:\s+FAIL-E2E: 1 failing/);
      await answerDialog(page, 'Apply Anyway');
      await verifier.locator('[data-testid="worker-where"]').filter({ hasText: 'applied' }).waitFor({ timeout: 15_000 });
      assert.equal(await readFile(join(repo, 'src', 'v.txt'), 'utf8'), 'v by worker\n');
      assert.equal(await line.isVisible(), false, 'an applied change set no longer shows its verify');
    } finally {
      await setVerify('');
    }
  });

  it('Resolve in the editor in a folder without git: the confirm says so, the file opens with its markers as text (no repository for a merge editor)', async () => {
    const { page, view } = await freshChat();
    const folder = join(ui().workspace, 'merge-folder');
    await mkdir(join(folder, 'src'), { recursive: true });
    await writeFile(join(folder, 'src', 'app.txt'), 'original line\n');
    const [, right] = await conflictingPair(page, view, folder, ['copy-left', 'copy-right']);

    await right.locator('[data-testid="worker-resolve-editor"]').click();
    await answerDialog(page, 'Apply with Conflict Markers', /conflict markers and opens in the editor\. The worker\u2019s copy is removed\./);
    const text = await waitUntil('the markers', () => {
      const t = readWhileWritten(join(folder, 'src', 'app.txt'));
      return t?.includes('<<<<<<<') ? t : undefined;
    });
    assert.match(text, /^<<<<<<< .*\ncopy-left line\n=======\ncopy-right line\n>>>>>>> .*\n$/);
    // The file itself, in a text editor showing the markers.
    await page.locator('.tabs-container .tab.active', { hasText: 'app.txt' }).first().waitFor({ timeout: 20_000 });
    await page
      .locator('.editor-instance .view-line', { hasText: /copy-right.line/ })
      .first()
      .waitFor({ timeout: 20_000 });
    assert.equal(await page.locator('.tabs-container .tab', { hasText: 'Merging: app.txt' }).count(), 0);
    await right.locator('[data-testid="worker-where"]').filter({ hasText: 'to merge in the editor' }).waitFor({ timeout: 15_000 });
  });

  it('Resolve in the editor by clicks: after a confirm the conflicted file gets markers, stays unmerged, and opens in the merge editor', async () => {
    const { page, view } = await freshChat();
    const repo = await repoWith(ui().workspace, 'merge-repo', { 'src/app.txt': 'original line\n' });
    const [, right] = await conflictingPair(page, view, repo, ['ui-left', 'ui-right']);

    await right.locator('[data-testid="worker-resolve-editor"]').click();
    await answerDialog(page, 'Apply with Conflict Markers');
    const text = await waitUntil('the markers', () => {
      const t = readWhileWritten(join(repo, 'src', 'app.txt'));
      return t?.includes('<<<<<<<') ? t : undefined;
    });
    assert.match(text, /^<<<<<<< .*\nui-left line\n=======\nui-right line\n>>>>>>> .*\n$/);
    // The file is written just before the index gets its three stages: waited for, not read in between.
    const unmerged = await waitUntil('the conflict in the index', () => {
      const stages = execFileSync('git', ['ls-files', '-u', '--', 'src/app.txt'], { cwd: repo, encoding: 'utf8' });
      return stages.trim().split('\n').length === 3 ? stages : undefined;
    });
    assert.equal(unmerged.trim().split('\n').length, 3, 'base, ours and theirs stay in the index');
    // VS Code's merge editor (the git extension's command), as for a conflicting `git stash pop`.
    await page.locator('.tabs-container .tab', { hasText: 'Merging: app.txt' }).first().waitFor({ timeout: 20_000 });
    const merge = page.locator('.merge-editor').first();
    await merge.waitFor({ state: 'visible', timeout: 20_000 });
    // Both sides of the conflict, each in its own pane (Monaco renders a space as a no-break space).
    await merge
      .locator('.view-line', { hasText: /ui-left.line/ })
      .first()
      .waitFor({ timeout: 20_000 });
    await merge
      .locator('.view-line', { hasText: /ui-right.line/ })
      .first()
      .waitFor({ timeout: 20_000 });
    await right.locator('[data-testid="worker-where"]').filter({ hasText: 'to merge in the editor' }).waitFor({ timeout: 15_000 });
    await mkdir(resultsDir, { recursive: true });
    await page.screenshot({ path: join(resultsDir, 'resolve-in-editor.png') });
  });
});
