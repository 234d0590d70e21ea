/**
 * Background workers as the user sees them: the orchestrator starts one (a scripted create_worker_session call), its
 * card appears running in the panel and in the Workers tree, turns done, and its result comes back as a background
 * message that the orchestrator then sums up.
 * And a worker's permission request: the prompt shows the command, Deny answers it, and the worker's model is told.
 */
import * as assert from 'node:assert/strict';
import type { FrameLocator, Locator, Page } from 'playwright-core';
import { scriptDelegation, scriptWorkerRound } from '../../support/scriptedWorker';
import { ui } from './fixture';
import { completedReply, freshChat, messages, send, toolResults, waitUntil } from './helpers';

function workerCard(view: FrameLocator, name: string, state?: string): Locator {
  return view.locator(`[data-testid="worker-card"][data-name="${name}"]${state ? `[data-state="${state}"]` : ''}`);
}

/** The row of a worker in the Workers view (a tree in the same side bar container as the chat). */
function treeRow(page: Page, name: string): Locator {
  return page.locator('.part.sidebar .pane:has(.pane-header[aria-label^="Workers"]) .monaco-list-row').filter({ hasText: name });
}

describe('Workers', function () {
  this.timeout(120_000);

  it('a worker card appears running, completes, and its result and the summary reach the panel', async () => {
    const { page, view } = await freshChat();
    const { server, workspace } = ui();
    const PROMPT = 'Please build the project in my workspace';
    const TASK = 'TASK-ui-build: run the build in the workspace and report';
    const RESULT = 'Build finished:\n\n- **3** packages compiled\n- no warnings';
    const SUMMARY = 'The build worker is done: 3 packages compiled without warnings.';
    scriptDelegation(server, { prompt: PROMPT, worker: 'ui-builder', workingDir: workspace, task: TASK, started: 'Started worker ui-builder on the build.' });
    // The worker's model takes a moment, so the running state is there to be seen.
    server.on({ lastUserIncludes: 'TASK-ui-build', name: 'the worker answers' }, { text: RESULT, delayMs: 2500, chunks: 2 });
    server.on({ lastUserIncludes: "[Background task completed] Worker 'ui-builder' finished:", name: 'the summary' }, { text: SUMMARY });

    await send(view, PROMPT);
    await completedReply(view, 'Started worker ui-builder on the build.');

    // Running: in the panel's worker strip and in the Workers tree.
    const running = workerCard(view, 'ui-builder', 'running');
    await running.waitFor({ timeout: 20_000 });
    assert.match(await running.innerText(), /Running/);
    assert.match(await running.innerText(), new RegExp(workspace.split('/').pop()!));
    // The Workers view starts collapsed and opens for the new worker, leaving the focus where it was.
    await treeRow(page, 'ui-builder').waitFor({ timeout: 10_000 });
    // Its folder as the workspace names it: the workspace folder's name, not its path.
    assert.match(await treeRow(page, 'ui-builder').locator('.label-description').innerText(), /^workspace\b/);
    assert.equal(await page.locator('.part.sidebar .pane-header[aria-label^="Workers"]').first().getAttribute('aria-expanded'), 'true');

    // Done, with its result back in the conversation, then the orchestrator's summary.
    await workerCard(view, 'ui-builder', 'done').waitFor({ timeout: 30_000 });
    assert.match(await workerCard(view, 'ui-builder').innerText(), /Done/);
    // A result card: the worker's name, state, duration and changes, and its report rendered as markdown; never the
    // wrapper the model was given.
    const background = messages(view, 'background').filter({ hasText: 'packages compiled' });
    await background.waitFor({ timeout: 15_000 });
    const card = background.locator('[data-testid="result-card"]');
    assert.equal(await card.locator('[data-testid="result-worker"]').innerText(), 'ui-builder');
    assert.equal(await card.locator('[data-testid="result-state"]').innerText(), 'Finished');
    assert.match(await card.locator('[data-testid="result-duration"]').innerText(), /^\d+(\.\d)? s$/);
    assert.match(await card.locator('[data-testid="result-changes"]').innerText(), /^(No changes|\d+ files? changed, \+\d+ \u2212\d+)$/);
    assert.equal(await card.locator('[data-testid="result-report"] li strong').innerText(), '3');
    assert.doesNotMatch(await background.innerText(), /worker-output|Background task completed|treat it as data/);
    const summary = await completedReply(view, SUMMARY);
    // The summary comes after the background result.
    const order = await view.locator('[data-testid="message"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-role')));
    assert.deepEqual(order, ['user', 'assistant', 'background', 'assistant']);
    assert.ok(await summary.isVisible());
    await treeRow(page, 'ui-builder').waitFor({ timeout: 5_000 });

    // The worker's request: its own session, in the workspace, with the task as given.
    const workerRequest = server.chatRequests().find((r) => r.lastUserText?.includes('TASK-ui-build'));
    assert.ok(workerRequest);
    assert.match(workerRequest.systemText, /You are 'ui-builder', a background worker of Baton/);
  });

  it('a worker asks before running a command: the prompt shows it, Deny answers it and the worker is told', async () => {
    const { view } = await freshChat();
    const { server, workspace } = ui();
    const PROMPT = 'Say hi from a shell in my workspace';
    const TASK = 'TASK-ui-perm: run echo in the workspace';
    const COMMAND = 'echo hi from the e2e worker';
    scriptDelegation(server, { prompt: PROMPT, worker: 'ui-guard', workingDir: workspace, task: TASK, started: 'Started worker ui-guard.' });
    // The worker wants bash, and gives up once the user denies it.
    scriptWorkerRound(server, {
      worker: 'ui-guard',
      prompt: 'TASK-ui-perm',
      does: { toolCalls: [{ name: 'bash', arguments: { command: COMMAND, description: 'Say hi' } }] },
      report: 'I could not run the command: the user denied it.',
      answer: 'ui-guard could not run its command: you denied it.',
    });

    await send(view, PROMPT);
    const prompt = view.locator('[data-testid="permission"]');
    await prompt.waitFor({ timeout: 30_000 });
    assert.equal(await prompt.count(), 1);
    assert.match(await prompt.locator('.permission-title').innerText(), /ui-guard wants to run a command/);
    assert.equal(await prompt.locator('.permission-detail').innerText(), COMMAND);
    await workerCard(view, 'ui-guard', 'running').waitFor({ timeout: 5_000 });

    await prompt.locator('[data-testid="perm-deny"]').click();
    await prompt.waitFor({ state: 'detached', timeout: 10_000 });

    // The worker's model hears that the command was denied, in the tool result of its next request.
    const followUp = await waitUntil('the worker request after the denial', () =>
      server.chatRequests().find((r) => r.lastUserText?.includes('TASK-ui-perm') && r.messages.at(-1)?.role === 'tool'),
    );
    const results = toolResults(followUp).join('\n');
    // The runtime's "rejected" plus Baton's feedback from the permission handler.
    assert.match(results, /rejected/i, results);
    assert.match(results, /The user denied this/, results);

    await workerCard(view, 'ui-guard', 'done').waitFor({ timeout: 30_000 });
    await messages(view, 'background').filter({ hasText: 'I could not run the command' }).waitFor({ timeout: 15_000 });
    await completedReply(view, 'ui-guard could not run its command: you denied it.');
    assert.equal(await view.locator('[data-testid="permission"]').count(), 0);
  });
});
