/**
 * "Start a Worker Here…" on a folder in the explorer: Baton asks for the task and starts a worker in that folder.
 * The worker's own model request (its session's working directory, recorded by the scripted server: a copy of the
 * folder, since the workspace has no git), the panel's worker card and the Workers tree all name the folder.
 */
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { explorerMenu, seedWorkspace, type ContextWorkspace } from './contextSupport';
import { ui } from './fixture';
import { completedReply, freshChat, messages, openBaton, runCommand, waitUntil } from './helpers';

const TASK = 'TASK-HERE: list the files of this folder';
const NAME = 'docs-task-here-list-the';

describe('Start a Worker Here', function () {
  this.timeout(180_000);
  let seeded: ContextWorkspace;

  before(() => {
    seeded = seedWorkspace(ui().workspace);
  });
  after(async () => {
    await runCommand(ui().page, 'View: Close All Editors').catch(() => undefined);
    seeded.cleanUp();
  });

  it('starts a worker in the folder that was right-clicked, and the request, the card and the Workers tree agree', async () => {
    const { page } = await freshChat();
    const { server, workspace } = ui();
    const docs = join(workspace, 'docs');
    server.on({ lastUserIncludes: 'TASK-HERE', name: 'the worker answers' }, { text: 'The folder holds guide.md.', delayMs: 2000 });
    server.on({ lastUserIncludes: `[Background task completed] Worker '${NAME}'`, name: 'the summary' }, { text: 'The docs worker found guide.md.' });

    await explorerMenu(page, 'docs', 'Start a Worker Here…');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    assert.match(
      (await page
        .locator('.quick-input-widget .quick-input-title')
        .innerText()
        .catch(() => '')) || '',
      /start a worker in docs/,
    );
    await input.fill(TASK);
    await input.press('Enter');

    // The worker's session: its request carries the task, and its working directory is its copy of the folder (the
    // workspace has no git: a worktree of Baton's own repository of `docs`, in Baton's storage).
    const request = await waitUntil('the worker request', () => server.chatRequests().find((r) => r.lastUserText?.includes('TASK-HERE')));
    assert.match(request.systemText, new RegExp(`You are '${NAME}', a background worker of Baton`));
    assert.match(request.rawBody, new RegExp(`worktrees/docs-[0-9a-f]{8}/${NAME}`), 'the worker works in its copy of docs');
    assert.ok(!request.rawBody.includes(`${workspace}/src`), 'nothing of another folder');

    await page
      .locator('.notifications-toasts')
      .filter({ hasText: `worker '${NAME}' started in` })
      .filter({ hasText: `It works in a copy of ${docs}` })
      .first()
      .waitFor({ timeout: 15_000 });
    const view = await openBaton(page);
    const card = view.locator(`[data-testid="worker-card"][data-name="${NAME}"]`);
    await card.waitFor({ timeout: 15_000 });
    assert.match(await card.innerText(), /docs/);
    const row = page.locator('.part.sidebar .pane:has(.pane-header[aria-label^="Workers"]) .monaco-list-row').filter({ hasText: NAME });
    await row.waitFor({ timeout: 15_000 });
    // The folder as the workspace names it (its path inside the workspace folder), its whole path in the tooltip.
    assert.match((await row.getAttribute('aria-label')) ?? (await row.innerText()), new RegExp(`^${NAME} docs \\(a copy\\) · `));

    // Its result comes back into the chat, summed up by the orchestrator.
    await messages(view, 'background').filter({ hasText: 'The folder holds guide.md.' }).waitFor({ timeout: 30_000 });
    await completedReply(view, 'The docs worker found guide.md.');
  });

  it('refused once typed (a link to ~/.ssh): the error offers Edit and Try Again, and the box comes back holding the task', async () => {
    const { page, server } = ui();
    const typed = 'TASK-REFUSED: read what is in this folder';
    await explorerMenu(page, 'keys', 'Start a Worker Here…');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    await input.fill(typed);
    await input.press('Enter');
    const toast = page.locator('.notifications-toasts .notification-toast').filter({ hasText: 'Baton could not start a worker in' }).first();
    await toast.waitFor({ timeout: 15_000 });
    assert.match(await toast.innerText(), /inside the protected path ~\/\.ssh/);
    await toast.getByRole('button', { name: 'Edit and Try Again' }).click();
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal(await input.inputValue(), typed, 'what was typed is in the box again');
    await input.press('Escape');
    await input.waitFor({ state: 'hidden', timeout: 10_000 });
    assert.equal(server.chatRequests().filter((r) => r.rawBody.includes('TASK-REFUSED')).length, 0, 'nothing reached the model');
  });
});
