/**
 * Baton inside VS Code's own AI, in a real VS Code (code-server): @baton in the Chat view, the language-model tools
 * through vscode.lm, and Baton's public API from another extension (the test-only helper; see ./fixture.ts). The
 * model is the scripted server; Copilot Chat itself is not here (see the README for what only it can show).
 */
import * as assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type { AskResult, BatonEvent } from '../../../api/baton';
import { runCommand } from '../ui/workbench';
import { ai, hostRequest, repoRoot } from './fixture';

/** Opens the Chat view (the helper's default participant makes it exist) and returns its input. */
async function openChat(page: Page): Promise<Locator> {
  const input = page.locator('.interactive-input-part textarea.inputarea').first();
  if (!(await input.isVisible().catch(() => false))) await runCommand(page, 'Chat: Focus on Chat View');
  await input.waitFor({ state: 'attached', timeout: 30_000 });
  return input;
}

/** Types a message into the Chat view as a user does (a click is intercepted, focus works) and sends it. */
async function sendInChat(page: Page, text: string): Promise<void> {
  const input = await openChat(page);
  await input.focus();
  // @baton is sticky: after a first message the input starts with it already; start from an empty input.
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

/** The last response in the Chat view that contains `text`. */
function response(page: Page, text: string): Locator {
  return page.locator('.interactive-item-container').filter({ hasText: text }).last();
}

/** Presses a response's Retry as a user does (shown on hover). */
async function retryResponse(reply: Locator): Promise<void> {
  await reply.hover();
  const retry = reply.locator('a.action-label[aria-label^="Retry"], .codicon-refresh').first();
  try {
    await retry.click({ timeout: 10_000 });
  } catch (err) {
    const labels = await reply.locator('[aria-label]').evaluateAll((els) => els.map((e) => `${e.className} ${e.getAttribute('aria-label')}`));
    throw new Error(`no Retry on the response (${labels.join(' | ')}): ${String(err)}`);
  }
}

/** Answers VS Code's modal tool confirmation ("Continue" in 1.100, "Yes" elsewhere) the way a user does. */
async function confirmDialog(page: Page): Promise<void> {
  const dialog = page.locator('.monaco-dialog-box').first();
  await dialog.waitFor({ state: 'visible', timeout: 30_000 });
  assert.match(await dialog.innerText(), /Start a Baton worker\?/);
  await dialog
    .locator('a.monaco-button, button')
    .filter({ hasText: /^(Continue|Yes|Allow)$/ })
    .first()
    .click();
}

describe('Baton in VS Code\u2019s Chat view, language-model tools and public API', function () {
  this.timeout(120_000);

  beforeEach(() => ai().server.reset());

  it('another extension gets the API from activate() and its ask handler receives the events in order, exactly once', async () => {
    ai().server.on({ lastUserIncludes: '[via api] API-PING' }, { text: 'API-PONG from the orchestrator', chunks: 3 });
    const r = await hostRequest<{ apiVersion: number; sameAsExports: boolean; reply: AskResult; perCall: BatonEvent[]; instance: BatonEvent[] }>('apiAsk', {
      text: 'API-PING',
    });
    assert.ok(r.ok, !r.ok ? r.error : '');
    const { apiVersion, sameAsExports, reply, perCall, instance } = r.value;
    assert.equal(apiVersion, 1);
    assert.equal(sameAsExports, true, 'extension.exports is the API');
    assert.equal(reply.text, 'API-PONG from the orchestrator');
    const types = perCall.map((e) => e.type);
    assert.deepEqual(types.slice(0, 2), ['turn.starting', 'turn.routed']);
    assert.equal(types.at(-1), 'turn.completed');
    assert.ok(types.slice(2, -1).every((t) => t === 'turn.streaming'));
    assert.equal(
      perCall
        .filter((e) => e.type === 'turn.streaming')
        .map((e) => (e as { delta: string }).delta)
        .join(''),
      reply.text,
      'each delta once, in order',
    );
    assert.deepEqual(
      instance.filter((e) => 'turnId' in e && e.turnId === reply.turnId).map((e) => e.type),
      types,
      'the instance subscription saw the same events',
    );
  });

  it('vscode.lm.tools lists Baton\u2019s tools; bad input is rejected with a readable message before any confirmation', async () => {
    const tools = await hostRequest<Array<{ name: string; inputSchema: { required?: string[] } }>>('tools');
    assert.ok(tools.ok);
    assert.deepEqual(tools.value.map((t) => t.name).sort(), ['baton_ask', 'baton_delegate', 'baton_recall', 'baton_workers']);
    assert.deepEqual(tools.value.find((t) => t.name === 'baton_delegate')!.inputSchema.required, ['task', 'folder']);

    const bad = await hostRequest('invokeTool', { name: 'baton_delegate', input: { task: 'x' } });
    assert.ok(!bad.ok);
    assert.match(bad.error, /Invalid input for baton_delegate: folder: is required\./);
    assert.equal(await ai().page.locator('.monaco-dialog-box').count(), 0, 'no confirmation for a call that cannot run');
  });

  it('a second extension registers Baton\u2019s asTool with vscode.lm.registerTool in one line; invokeTool runs a turn in a fresh conversation', async () => {
    const registered = await hostRequest<{ name: string; parameters: { required: string[] }; listed: boolean }>('registerAsTool', {});
    assert.ok(registered.ok, !registered.ok ? registered.error : '');
    assert.deepEqual(registered.value, { ...registered.value, name: 'batonTestHost_askBaton', listed: true });
    assert.deepEqual(registered.value.parameters.required, ['message']);
    ai().server.on({ lastUserIncludes: '[via tool] ASTOOL-PING' }, { text: 'ASTOOL-PONG from Baton' });
    const r = await hostRequest<string[]>('invokeTool', { name: 'batonTestHost_askBaton', input: { message: 'ASTOOL-PING' } });
    assert.ok(r.ok, !r.ok ? r.error : '');
    assert.deepEqual(r.value, ['ASTOOL-PONG from Baton']);
    const bad = await hostRequest('invokeTool', { name: 'batonTestHost_askBaton', input: { message: '' } });
    assert.ok(!bad.ok);
    assert.match(bad.error, /Invalid input for batonTestHost_askBaton: message: must not be empty\./);
  });

  it('baton_ask answers from the orchestrator\u2019s shared session', async () => {
    ai().server.on({ lastUserIncludes: '[via tool] TOOL-ASK' }, { text: 'TOOL-ANSWER from the orchestrator' });
    const r = await hostRequest<string[]>('invokeTool', { name: 'baton_ask', input: { question: 'TOOL-ASK what did we do?' } });
    assert.ok(r.ok, !r.ok ? r.error : '');
    assert.deepEqual(r.value, ['TOOL-ANSWER from the orchestrator']);
  });

  it('baton_delegate runs a worker against the scripted model after the user confirms, and returns its report', async () => {
    const { server, workspace } = ai();
    const folder = join(workspace, 'lib');
    await mkdir(folder, { recursive: true });
    server.on({ lastUserIncludes: 'TASK-e2e-delegate' }, { text: 'DELEGATE-REPORT: added the test.' });
    server.on({ lastUserIncludes: "[Background task completed] Worker 'e2e-worker'" }, { text: 'The e2e worker is done.' });
    const r = await hostRequest<string[]>(
      'invokeTool',
      { name: 'baton_delegate', input: { task: 'TASK-e2e-delegate add a test', folder, name: 'e2e-worker', wait: true } },
      confirmDialog,
    );
    assert.ok(r.ok, !r.ok ? r.error : '');
    assert.match(r.value[0]!, /^Baton worker 'e2e-worker' finished\. Its report:[\s\S]*DELEGATE-REPORT: added the test\./);
    // The orchestrator is told of the result too, in a turn of its own after the tool returned.
    await server.waitForRequests(1, 30_000, (q) => q.lastUserText?.includes("[Background task completed] Worker 'e2e-worker'") ?? false);
  });

  it('"@baton <ping>" in the Chat view streams the scripted model\u2019s reply', async () => {
    const { page, server } = ai();
    server.on(
      { lastUserIncludes: '[via chat] CHAT-PING' },
      { text: 'CHAT-PONG: **Baton** answers in the Chat view, from the same conversation as its panel.', chunks: 4, chunkDelayMs: 40 },
    );
    server.on({ lastUserIncludes: '[via chat] CHAT-PING-AGAIN' }, { text: 'CHAT-PONG-AGAIN' });
    await sendInChat(page, '@baton CHAT-PING say hello');
    const reply = response(page, 'CHAT-PONG:');
    await reply.getByText('from the same conversation as its panel').waitFor({ timeout: 30_000 });
    assert.match(await reply.innerText(), /CHAT-PONG: Baton answers in the Chat view/);
    // A plain answer ends there: no button under it (the next message is answered only once it has ended).
    await sendInChat(page, '@baton CHAT-PING-AGAIN');
    await response(page, 'CHAT-PONG-AGAIN').waitFor({ timeout: 30_000 });
    assert.equal(await reply.getByText('Open Baton panel').count(), 0);
  });

  it('a file attached in the Chat view reaches the model with @baton\u2019s request, read as the panel reads a chip', async () => {
    const { page, server, workspace } = ai();
    const file = join(workspace, 'launch-notes.md');
    await writeFile(file, '# Launch\n\nThe launch code is AZURE-OTTER-7.\n');
    server.on({ lastUserIncludes: '[via chat] CHAT-REF' }, { text: 'CHAT-REF-ANSWER: the code is in the notes.' });
    await openChat(page);
    const attached = await hostRequest('attachFileToChat', { path: file });
    assert.ok(attached.ok, JSON.stringify(attached));
    await sendInChat(page, '@baton CHAT-REF what is the launch code?');
    await response(page, 'CHAT-REF-ANSWER').waitFor({ timeout: 30_000 });
    const asked = server.chatRequests().filter((r) => (r.lastUserText ?? '').includes('CHAT-REF what is the launch code?'));
    assert.equal(asked.length, 1);
    assert.match(asked[0]!.lastUserText ?? '', /launch-notes\.md[\s\S]*The launch code is AZURE-OTTER-7\./, 'the file\u2019s text, with its name');
  });

  it('a worker started from Chat shows as progress and reports back into the same Chat response (screenshot for the README)', async () => {
    const { page, server, workspace } = ai();
    server.on(
      { lastUserIncludes: '[via chat] CHAT-WORK', afterToolResult: false },
      {
        toolCalls: [
          { name: 'create_worker_session', arguments: { name: 'chat-worker', working_dir: workspace, initial_prompt: 'TASK-chat-worker tidy the README' } },
        ],
      },
    );
    server.on({ lastUserIncludes: '[via chat] CHAT-WORK', afterToolResult: true }, { text: 'Started chat-worker.' });
    server.on({ lastUserIncludes: 'TASK-chat-worker' }, { text: 'Tidied the README.', delayMs: 500 });
    server.on({ lastUserIncludes: "[Background task completed] Worker 'chat-worker'" }, { text: 'CHAT-WORKER-RESULT: the README is tidy.' });
    await sendInChat(page, '@baton CHAT-WORK tidy the readme');
    const reply = response(page, 'Started chat-worker.');
    await reply.waitFor({ timeout: 30_000 });
    await reply.getByText('CHAT-WORKER-RESULT: the README is tidy.').waitFor({ timeout: 45_000 });
    assert.match(await reply.innerText(), /Worker 'chat-worker' finished\./);
    await reply.getByText("Show 'chat-worker' transcript").waitFor({ timeout: 15_000 });
    await reply.getByText('Open Baton panel').waitFor({ timeout: 15_000 });
    await runCommand(page, 'Notifications: Clear All Notifications');
    await page.screenshot({ path: join(repoRoot, 'media', 'chat-view.png') });
  });

  it('each chat of the Chat view is its own Baton conversation: a follow-up stays in its session, a new chat starts another', async () => {
    const { page, server } = ai();
    server.on({ lastUserIncludes: '[via chat] CONVO-ONE' }, { text: 'CONVO-ONE-REPLY' });
    server.on({ lastUserIncludes: '[via chat] CONVO-ONE-AGAIN' }, { text: 'CONVO-ONE-AGAIN-REPLY' });
    server.on({ lastUserIncludes: '[via chat] CONVO-TWO' }, { text: 'CONVO-TWO-REPLY' });
    const sessionOf = (needle: string) => server.chatRequests().find((r) => r.lastUserText?.includes(needle))?.sessionId;

    await runCommand(page, 'Chat: New Chat');
    await sendInChat(page, '@baton CONVO-ONE start here');
    await response(page, 'CONVO-ONE-REPLY').waitFor({ timeout: 30_000 });
    await sendInChat(page, '@baton CONVO-ONE-AGAIN and go on');
    await response(page, 'CONVO-ONE-AGAIN-REPLY').waitFor({ timeout: 30_000 });
    assert.ok(sessionOf('CONVO-ONE start here'), 'the first message reached the model');
    assert.equal(sessionOf('CONVO-ONE-AGAIN'), sessionOf('CONVO-ONE start here'), 'a follow-up in the same chat continues its conversation');

    await runCommand(page, 'Chat: New Chat');
    await sendInChat(page, '@baton CONVO-TWO another chat');
    await response(page, 'CONVO-TWO-REPLY').waitFor({ timeout: 30_000 });
    assert.notEqual(sessionOf('CONVO-TWO'), sessionOf('CONVO-ONE start here'), 'a new chat is a new Baton conversation (its own session)');
    const two = server.chatRequests().find((r) => r.lastUserText?.includes('CONVO-TWO'))!;
    assert.ok(!JSON.stringify(two.messages).includes('CONVO-ONE'), 'nothing of the first chat in the second');
  });

  it('Stop in the Chat view stops the turn and keeps what streamed', async () => {
    const { page, server } = ai();
    server.on({ lastUserIncludes: '[via chat] CHAT-LONG' }, { textThenHang: 'CHAT-PARTIAL so far' });
    await sendInChat(page, '@baton CHAT-LONG write an essay');
    const reply = response(page, 'CHAT-PARTIAL so far');
    await reply.waitFor({ timeout: 30_000 });
    // Toasts (Baton tells about the earlier worker's result) would cover the button.
    await runCommand(page, 'Notifications: Clear All Notifications');
    // While a request runs, the send button of the Chat input is its Stop ("Cancel") button.
    const stop = page.locator('.interactive-input-part a.action-label[aria-label^="Cancel"], .interactive-input-part .codicon-stop-circle').first();
    try {
      await stop.click({ timeout: 10_000 });
    } catch (err) {
      const labels = await page
        .locator('.interactive-input-part [aria-label]')
        .evaluateAll((els) => els.map((e) => `${e.className} ${e.getAttribute('aria-label')}`));
      throw new Error(`no Stop button in the Chat input (${labels.join(' | ')}): ${String(err)}`);
    }
    // The request ends with what streamed (VS Code shows nothing a participant writes after a cancel).
    await stop.waitFor({ state: 'detached', timeout: 15_000 });
    assert.match(await reply.innerText(), /CHAT-PARTIAL so far/);
    // Baton's turn really stopped: the orchestrator takes one turn at a time, and the next message is answered.
    server.on({ lastUserIncludes: '[via chat] CHAT-AFTER' }, { text: 'CHAT-AFTER-REPLY' });
    await sendInChat(page, '@baton CHAT-AFTER are you free?');
    const after = response(page, 'CHAT-AFTER-REPLY');
    await after.waitFor({ timeout: 30_000 });
    // The chat still shows the stopped request: the conversation keeps it too (VS Code keeps no result for a stopped
    // request, and @baton took its absence for an edit that removed it, and cut the conversation there).
    assert.doesNotMatch(await after.innerText(), /Taken back/);
    const asked = server.chatRequests().find((r) => r.lastUserText?.includes('CHAT-AFTER'));
    assert.ok(
      asked?.messages.some((m) => m.role === 'user' && JSON.stringify(m.content).includes('CHAT-LONG')),
      'the model still has the stopped request',
    );
    server.releaseHeld();
  });

  it('Retry in the Chat view takes the conversation back first: the model sees the request once, not its earlier answer', async () => {
    const { page, server } = ai();
    server.on({ lastUserIncludes: '[via chat] CHAT-BEFORE' }, { text: 'CHAT-BEFORE-REPLY' });
    server.on({ lastUserIncludes: '[via chat] CHAT-RETRY' }, { text: 'CHAT-RETRY-FIRST' }, { text: 'CHAT-RETRY-SECOND' });
    // Not the chat's first request: a retry of that one starts a new conversation (the chat then names none).
    await runCommand(page, 'Chat: New Chat');
    await sendInChat(page, '@baton CHAT-BEFORE remember the colour teal');
    await response(page, 'CHAT-BEFORE-REPLY').waitFor({ timeout: 30_000 });
    await sendInChat(page, '@baton CHAT-RETRY pick a number');
    const first = response(page, 'CHAT-RETRY-FIRST');
    await first.waitFor({ timeout: 30_000 });
    await runCommand(page, 'Notifications: Clear All Notifications');
    await retryResponse(first);
    const second = response(page, 'CHAT-RETRY-SECOND');
    await second.waitFor({ timeout: 30_000 });
    assert.match(await second.innerText(), /Taken back 2 earlier messages of this conversation, as this chat no longer has them/);
    const requests = server.chatRequests().filter((r) => r.lastUserText?.includes('CHAT-RETRY'));
    assert.equal(requests.length, 2);
    assert.equal(requests[1]!.sessionId, requests[0]!.sessionId, 'the same conversation and session, taken back');
    const said = JSON.stringify(requests[1]!.messages);
    assert.equal(said.split('CHAT-RETRY pick a number').length - 1, 1, 'the request once');
    assert.ok(!said.includes('CHAT-RETRY-FIRST'), 'not the answer the retry replaced');
    assert.ok(said.includes('CHAT-BEFORE remember the colour teal') && said.includes('CHAT-BEFORE-REPLY'), 'the turn before it stays');
  });
  // Whether the stopped turn is still settling when Retry lands depends on the machine (here it has usually settled);
  // the integration suite (messageEdit) shows that case itself. This is the user's path through VS Code end to end.
  it('Retry pressed right after Stop takes the stopped request back: the model sees the request once, not the partial answer', async () => {
    const { page, server } = ai();
    server.on({ lastUserIncludes: '[via chat] STOPPED-BEFORE' }, { text: 'STOPPED-BEFORE-REPLY' });
    server.on({ lastUserIncludes: '[via chat] STOPPED-ESSAY' }, { textThenHang: 'STOPPED-PARTIAL so far' }, { text: 'STOPPED-ESSAY-FULL' });
    await runCommand(page, 'Chat: New Chat');
    await sendInChat(page, '@baton STOPPED-BEFORE remember the colour red');
    await response(page, 'STOPPED-BEFORE-REPLY').waitFor({ timeout: 30_000 });
    await sendInChat(page, '@baton STOPPED-ESSAY write an essay');
    const partial = response(page, 'STOPPED-PARTIAL so far');
    await partial.waitFor({ timeout: 30_000 });
    await runCommand(page, 'Notifications: Clear All Notifications');
    // Stop, then Retry at once, as an impatient user does.
    await page.locator('.interactive-input-part a.action-label[aria-label^="Cancel"], .interactive-input-part .codicon-stop-circle').first().click();
    await retryResponse(partial);
    const full = response(page, 'STOPPED-ESSAY-FULL');
    await full.waitFor({ timeout: 30_000 });
    assert.match(await full.innerText(), /Taken back 2 earlier messages of this conversation, as this chat no longer has them/);
    assert.doesNotMatch(await full.innerText(), /not taken back/);
    const requests = server.chatRequests().filter((r) => r.lastUserText?.includes('STOPPED-ESSAY'));
    assert.equal(requests.length, 2);
    const said = JSON.stringify(requests[1]!.messages);
    assert.equal(said.split('STOPPED-ESSAY write an essay').length - 1, 1, 'the request once');
    assert.ok(!said.includes('STOPPED-PARTIAL'), 'not the stopped answer');
    assert.ok(said.includes('STOPPED-BEFORE-REPLY'), 'the turn before it stays');
    server.releaseHeld();
  });
});
