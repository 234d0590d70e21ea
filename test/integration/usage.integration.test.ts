// Usage that is true, through the real runtime and the scripted model server (which reports each call's tokens, and
// gives the model a premium-request multiplier of 3 the way the Copilot API does): a request costs its multiplier once
// however many tool rounds it takes, for the orchestrator and for workers and squads alike; failed and stopped turns
// count with their tokens; and the figures land where people read them (the Show Usage page, the header's tooltip).
import * as assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { ScriptedModelServer } from '../support/scriptedModelServer';
import { waitFor } from '../support/waitFor';
import { renderUsageHtml } from '../../src/vscode/usageHtml';

// The orchestrator's model costs 3 premium requests a request; the squad's standard tier (claude-sonnet-4.6) costs 1.
// The fast tier (claude-haiku-4.5), which the classifier and the summaries run on with automatic routing, costs 0.25.
const MODELS = [
  { id: 'claude-sonnet-4.5', multiplier: 3 },
  'gpt-4.1',
  'claude-opus-4.6',
  { id: 'claude-sonnet-4.6', multiplier: 1 },
  { id: 'claude-haiku-4.5', multiplier: 0.25 },
];

function usage(prompt: number, completion: number) {
  return { usage: { prompt_tokens: prompt, completion_tokens: completion } };
}

/** The text of the Show Usage page's table `id`, row by row, cells joined by " | ". */
function tableRows(html: string, id: string): string[] {
  const table = new RegExp(`<table data-testid="${id}">([\\s\\S]*?)</table>`).exec(html)?.[1] ?? '';
  return [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)]
    .slice(1)
    .map((m) => [...m[1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((c) => c[1]!.replace(/<[^>]+>/g, '')).join(' | '));
}

describe('usage (real runtime, scripted server reporting usage)', function () {
  this.timeout(120_000);
  let server: ScriptedModelServer;
  let core: CoreFixture;

  beforeEach(async () => {
    server = await ScriptedModelServer.start();
    server.setModels(MODELS);
    core = await startCore({ server, flushDelayMs: 50 });
  });

  afterEach(async () => {
    try {
      await core.dispose();
    } finally {
      await server.close();
    }
  });

  it('a turn with two tool rounds is one request at the multiplier; a failed and a stopped turn count with their tokens', async () => {
    server.on(
      { lastUserIncludes: '[via panel] list my workers', afterToolResult: false, name: 'first call: a tool' },
      { toolCalls: [{ name: 'list_workers', arguments: {} }], ...usage(1000, 10) },
    );
    server.on(
      { lastUserIncludes: '[via panel] list my workers', afterToolResult: true, name: 'tool rounds' },
      { toolCalls: [{ name: 'list_workers', arguments: {} }], ...usage(1100, 20) },
      { text: 'No workers are running.', ...usage(1200, 30) },
    );
    const done = await core.orchestrator.enqueue('list my workers', { channel: 'panel' }).done;
    assert.equal(done.content, 'No workers are running.');
    assert.deepEqual(done.usage, { inputTokens: 3300, outputTokens: 60, premiumRequests: 3 });
    assert.deepEqual(core.usage.total('orchestrator'), { inputTokens: 3300, outputTokens: 60, premiumRequests: 3, requests: 1 });

    // A turn that fails after a tool round: its first call was billed and used tokens.
    server.on(
      { lastUserIncludes: '[via panel] break after a tool', afterToolResult: false, name: 'break: a tool' },
      { toolCalls: [{ name: 'list_workers', arguments: {} }], ...usage(500, 5) },
    );
    server.on(
      { lastUserIncludes: '[via panel] break after a tool', afterToolResult: true, name: 'break: the error' },
      { error: 400, body: { error: { message: 'scripted bad request' } } },
    );
    await assert.rejects(core.orchestrator.enqueue('break after a tool', { channel: 'panel' }).done);

    // A turn stopped while its second call hangs: the first call counts.
    server.on(
      { lastUserIncludes: '[via panel] stop me', afterToolResult: false, name: 'stop: a tool' },
      { toolCalls: [{ name: 'list_workers', arguments: {} }], ...usage(700, 7) },
    );
    server.on({ lastUserIncludes: '[via panel] stop me', afterToolResult: true, name: 'stop: hangs' }, { hang: true });
    const stopped = core.orchestrator.enqueue('stop me', { channel: 'panel' });
    // Its tool round went out (the 7th chat request) and hangs.
    await server.waitForRequests(7, 20_000);
    assert.equal(core.orchestrator.stop(), true);
    assert.equal((await stopped.done).status, 'cancelled');
    server.releaseHeld();

    const total = core.usage.total('orchestrator');
    assert.deepEqual(total, { inputTokens: 3300 + 500 + 700, outputTokens: 60 + 5 + 7, premiumRequests: 9, requests: 3 });
    // What people read: the header's tooltip and the Show Usage page, this conversation's row.
    assert.match(
      core.chat.state().usageToday ?? '',
      /^today: 4\.5k in \/ 72 out tokens · 9 premium requests · 3 requests\nthis conversation: 4\.5k in \/ 72 out tokens · 9 premium requests · 3 turns\n/,
    );
    const html = renderUsageHtml(core.usage.report(30), { cspSource: 'vscode-webview:', nonce: 'n0nce' });
    assert.deepEqual(tableRows(html, 'usage-conversations'), [`${tableRows(html, 'usage-conversations')[0]!.split(' | ')[0]} | 3 | 9 | 4.5k | 72`]);
    // Named by its title (its first message's words) and when it started.
    assert.match(tableRows(html, 'usage-conversations')[0]!, /^list my workers \(started \w{3} \d+, \d\d:\d\d\) \| /);
    // Deleted: what it used is still there, known by when it started.
    await core.conversations.delete(core.conversations.activeId);
    const after = renderUsageHtml(core.usage.report(30), { cspSource: 'vscode-webview:', nonce: 'n0nce' });
    assert.match(tableRows(after, 'usage-conversations')[0]!, /^started \w{3} \d+, \d\d:\d\d \| 3 \| 9 \| /);
    assert.match(html, /<p data-testid="usage-total">Last 30 days: 3 requests, 9 premium requests, 4\.5k input \/ 72 output tokens\.<\/p>/);
    core.assertScriptDone();
  });

  it('a turn cut off by a reload counts with what it used: its first call was made and billed', async () => {
    server.on(
      { lastUserIncludes: '[via panel] reload me', afterToolResult: false, name: 'reload: a tool' },
      { toolCalls: [{ name: 'list_workers', arguments: {} }], ...usage(800, 8) },
    );
    server.on({ lastUserIncludes: '[via panel] reload me', afterToolResult: true, name: 'reload: hangs' }, { hang: true });
    const cut = core.orchestrator.enqueue('reload me', { channel: 'panel' });
    await server.waitForRequests(2, 20_000);
    await core.restart();
    server.releaseHeld();
    await cut.done.catch(() => undefined);
    assert.deepEqual(core.usage.total('orchestrator'), { inputTokens: 800, outputTokens: 8, premiumRequests: 3, requests: 1 });
    core.assertScriptDone();
  });

  it("Baton's own requests count: the classifier's with the turn it routes, a compaction's summary with its conversation", async () => {
    core.settings.routing.auto = true;
    server.on({ lastUserIncludes: '[via panel] explain how the queue works here', name: 'the answer' }, { text: 'One message at a time.', ...usage(1000, 10) });
    server.on({ lastUserIncludes: 'Summarize this conversation so far', name: 'the summary' }, { text: 'They asked how the queue works.', ...usage(500, 5) });
    // Newest rules are matched first: the classifier's request carries the message too.
    server.on({ systemIncludes: 'You label messages', name: 'the classifier' }, { text: 'standard', ...usage(150, 1) });
    const done = await core.orchestrator.enqueue('explain how the queue works here', { channel: 'panel' }).done;
    assert.deepEqual([done.route.reason, done.route.model], ['classifier', 'claude-sonnet-4.6']);
    // The turn cost its own request and the one that routed it.
    assert.deepEqual(done.usage, { inputTokens: 1150, outputTokens: 11, premiumRequests: 1.25 });
    assert.ok(await core.orchestrator.summarizeNow(1), 'compacted');
    // The summary is billed to the conversation, and is no turn of it.
    assert.deepEqual(core.usage.total('orchestrator'), { inputTokens: 1650, outputTokens: 16, premiumRequests: 1.5, requests: 1 });
    assert.match(core.chat.state().usageToday ?? '', /\nthis conversation: 1\.7k in \/ 16 out tokens · 1\.5 premium requests · 1 turn\n/);
    core.assertScriptDone();
  });

  it("a worker with three tool rounds is one request at its model's multiplier, for it and for its squad; the page shows each", async () => {
    await writeFile(join(core.workspace, 'notes.md'), 'a note\n');
    await core.squads.create({ name: 'shop', projectDir: core.workspace, universe: 'goonies' });
    const agent = core.squads.addAgent({ squad: 'shop', role: 'Tester', charter: 'Tests things.', tier: 'medium' });
    server.on(
      { lastUserIncludes: 'TASK-count', afterToolResult: false, name: 'worker: first call' },
      { toolCalls: [{ name: 'view', arguments: { path: join(core.workspace, 'notes.md') } }], ...usage(2000, 20) },
    );
    server.on(
      { lastUserIncludes: 'TASK-count', afterToolResult: true, name: 'worker: tool rounds' },
      { toolCalls: [{ name: 'view', arguments: { path: join(core.workspace, 'notes.md') } }], ...usage(2100, 21) },
      { toolCalls: [{ name: 'view', arguments: { path: join(core.workspace, 'notes.md') } }], ...usage(2200, 22) },
      { text: 'Counted: one note.', ...usage(2300, 23) },
    );
    server.on({ lastUserIncludes: '[Background task completed]', name: 'the summary' }, { text: 'The count is done.', ...usage(300, 3) });
    const { worker } = await core.squads.delegate({ squad: 'shop', agent: agent.name, task: 'TASK-count: count the notes' });
    await waitFor('the summary turn', () => core.events.some((e) => e.type === 'turn.completed' && e.origin.channel === 'background'));

    const expected = { inputTokens: 8600, outputTokens: 86, premiumRequests: 1, requests: 1 };
    assert.deepEqual(core.usage.total('worker', worker.name), expected);
    assert.deepEqual(core.usage.total('squad', 'shop'), expected);
    const html = renderUsageHtml(core.usage.report(30), { cspSource: 'vscode-webview:', nonce: 'n0nce' });
    assert.deepEqual(tableRows(html, 'usage-workers'), [`${worker.name} | 1 | 1 | 8.6k | 86`]);
    assert.deepEqual(tableRows(html, 'usage-squads'), ['shop | 1 | 1 | 8.6k | 86']);
    // The day's total: the worker's request and the summary turn (the squad's is the worker's, not added again).
    assert.match(html, /Last 30 days: 2 requests, 4 premium requests, 8\.9k input \/ 89 output tokens\./);
    assert.match(core.chat.state().usageToday ?? '', /\nworkers: 8\.6k in \/ 86 out tokens · 1 premium request · 1 request\n/);
    core.assertScriptDone();
  });
});
