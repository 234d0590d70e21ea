// Usage the runtime does not report, through the real runtime and the scripted server: a squad's worker listed again after
// a reload goes on as its squad's (its tier's model, its brief, its usage counted for the squad), and a request stopped
// before its first model call returned is still billed at its model's multiplier, once (the runtime reports a call
// only when it returns, so it used to count 0).
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { ScriptedModelServer } from '../support/scriptedModelServer';
import { waitFor } from '../support/waitFor';

const run = promisify(execFile);
const git = async (cwd: string, ...args: string[]): Promise<string> =>
  (await run('git', ['-c', 'user.name=T', '-c', 'user.email=t@e.invalid', ...args], { cwd })).stdout;

// The default (orchestrator, worker) model costs 3 a request; the squad's standard tier (claude-sonnet-4.6) 1.
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

describe('usage the runtime does not report (real runtime, scripted server)', function () {
  this.timeout(180_000);
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

  it("a squad's worker listed again after a reload follows up on its tier's model, with its brief, counted for its squad", async () => {
    core.workerSettings.trustWorkingDir = true;
    const repo = join(core.home, 'dev', 'repo');
    await mkdir(repo, { recursive: true });
    await writeFile(join(repo, 'a.txt'), 'x\n');
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, 'commit', '-q', '-m', 'init');
    await core.squads.create({ name: 'shop', projectDir: repo });
    const mine = { systemIncludes: "You are 'shop-squad'" };
    server.on(
      { ...mine, lastUserIncludes: 'TASK-ONE', afterToolResult: false, name: 'worker edits' },
      { toolCalls: [{ id: 'b1', name: 'bash', arguments: { command: "printf 'y\\n' > a.txt", description: 'edit' } }], ...usage(1000, 10) },
    );
    server.on({ ...mine, lastUserIncludes: 'TASK-ONE', afterToolResult: true, name: 'worker reports' }, { text: 'edited', ...usage(1100, 11) });
    server.on({ lastUserIncludes: "[Background task completed] Worker 'shop-squad'", name: 'results' }, { text: 'noted' }, { text: 'noted again' });
    const { worker, model } = await core.squads.delegate({ squad: 'shop', task: 'TASK-ONE edit a.txt' });
    assert.equal(model, 'claude-sonnet-4.6');
    await waitFor('the first result', () => core.events.some((e) => e.type === 'turn.completed' && e.origin.channel === 'background'), 60_000);
    assert.deepEqual(core.usage.total('squad', 'shop'), { inputTokens: 2100, outputTokens: 21, premiumRequests: 1, requests: 1 });

    // The reload: its changes wait for review, so the new window lists the worker again (a new worker object).
    await core.restart();
    await waitFor('its card back', () => core.pool.list().some((w) => w.name === worker.name), 30_000);
    server.on({ ...mine, lastUserIncludes: 'FOLLOW-TWO', name: 'the follow-up' }, { text: 'checked', ...usage(2000, 20) });
    await core.pool.send(worker.name, 'FOLLOW-TWO please check it too');
    await waitFor('the follow-up counted', () => core.usage.total('worker', worker.name).requests >= 2, 60_000);
    await waitFor(
      'its result summarized',
      () => core.events.filter((e) => e.type === 'turn.completed' && e.origin.channel === 'background').length >= 2,
      60_000,
    );

    const calls = server.chatRequests().filter((r) => r.systemText.includes("You are 'shop-squad'"));
    assert.deepEqual(
      calls.map((r) => [r.model, r.systemText.includes("You work for squad 'shop'")]),
      [
        ['claude-sonnet-4.6', true],
        ['claude-sonnet-4.6', true],
        ['claude-sonnet-4.6', true],
      ],
    );
    // Its follow-up is its squad's: two requests at the standard tier's 1.
    assert.deepEqual(core.usage.total('squad', 'shop'), { inputTokens: 4100, outputTokens: 41, premiumRequests: 2, requests: 2 });
    assert.deepEqual(core.usage.total('worker', worker.name), core.usage.total('squad', 'shop'));
    core.assertScriptDone();
  });

  it('a turn stopped before its first call returned is billed its model multiplier once; a completed one is not billed twice', async () => {
    server.on({ lastUserIncludes: '[via panel] say hi', name: 'a turn' }, { text: 'hi', ...usage(100, 1) });
    assert.equal((await core.orchestrator.enqueue('say hi', { channel: 'panel' }).done).content, 'hi');
    assert.deepEqual(core.usage.total('orchestrator'), { inputTokens: 100, outputTokens: 1, premiumRequests: 3, requests: 1 });

    server.on({ lastUserIncludes: '[via panel] stop early', name: 'hangs' }, { hang: true });
    const stopped = core.orchestrator.enqueue('stop early', { channel: 'panel' });
    await server.waitForRequests(2, 20_000);
    assert.equal(core.orchestrator.stop(), true);
    assert.equal((await stopped.done).status, 'cancelled');
    server.releaseHeld();
    // The prompt went out: a request at the model's 3, though no call of it returned.
    assert.deepEqual(core.usage.total('orchestrator'), { inputTokens: 100, outputTokens: 1, premiumRequests: 6, requests: 2 });
    core.assertScriptDone();
  });

  it('a worker killed during its first call is billed its model multiplier once', async () => {
    // The model's multiplier is known once one of its calls returned (this turn's).
    server.on({ lastUserIncludes: '[via panel] say hi', name: 'a turn' }, { text: 'hi', ...usage(100, 1) });
    await core.orchestrator.enqueue('say hi', { channel: 'panel' }).done;
    core.workerSettings.trustWorkingDir = true;
    server.on({ lastUserIncludes: 'TASK-HANG', name: 'worker hangs' }, { hang: true });
    server.on({ lastUserIncludes: '[Background task completed]', name: 'results' }, { text: 'noted' });
    await core.pool.create({ name: 'slow', workingDir: core.workspace, prompt: 'TASK-HANG wait' });
    await server.waitForRequests(2, 30_000);
    await core.pool.kill('slow');
    server.releaseHeld();
    assert.deepEqual(core.usage.total('worker', 'slow'), { inputTokens: 0, outputTokens: 0, premiumRequests: 3, requests: 1 });
    await waitFor('its result summarized', () => core.events.some((e) => e.type === 'turn.completed' && e.origin.channel === 'background'), 60_000);
    core.assertScriptDone();
  });
});
