// The idle restart of a grown runtime, on the real Copilot runtime and a scripted model server, built as the extension
// builds Baton (createBatonCore). The memory bound and its guard are forced low (0.5×: any runtime counts as grown once
// its baseline is read from /proc), so the test decides when Baton is idle and asks the recycler to check.
import * as assert from 'node:assert/strict';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { isAlive } from '../support/copilotHarness';
import { waitFor } from '../support/waitFor';
import { afterEachCore } from '../support/afterEachCore';
import { ofType, timesSent } from '../support/orchestratorEvents';

describe('Idle restart of the runtime (real runtime, scripted model)', function () {
  this.timeout(120_000);
  let core: CoreFixture;

  beforeEach(async () => {
    core = await startCore({ overrides: { runtimeQuietMs: 0 } });
    core.runtimeSettings = { growth: 0.5, guardGrowth: 0.5, warmupSessions: 1, warmupIdles: 1, maxSessions: 0 };
  });
  afterEachCore(() => core);

  it('restarts the grown runtime only when idle; the conversation resumes there, and messages (one sent during the restart) are answered once', async () => {
    const { server } = core;
    server.on({ lastUserIncludes: /\[via panel\] first$/ }, { text: 'one' });
    await core.orchestrator.enqueue('first', { channel: 'panel' }).done;
    const session = core.orchestrator.currentSessionId!;
    const firstPid = core.sessions.runtimePid()!;
    const idle = (): Promise<unknown> => waitFor('Baton to go idle', () => core.orchestrator.idle && !core.pool.listActive().length);
    await idle();
    assert.equal(await core.recycler.check(), 'kept', 'the first idle check takes the baseline');
    assert.ok(core.recycler.baseline! > 10 * 1024 * 1024, `the runtime's RSS read from the system: ${core.recycler.baseline}`);

    // Not while a turn runs ...
    server.on({ lastUserIncludes: /\[via panel\] slow$/ }, { text: 'slowly', delayMs: 1500 });
    const slow = core.orchestrator.enqueue('slow', { channel: 'panel' });
    await waitFor('the slow turn to start', () => ofType(core.events, 'turn.started').length === 2);
    assert.equal(await core.recycler.check(), 'busy');
    assert.equal((await slow.done).content, 'slowly');
    // ... nor while a worker runs.
    server.on({ lastUserIncludes: 'RECYCLE task' }, { text: 'Looked. Nothing to change.', delayMs: 1500 });
    server.on({ lastUserIncludes: "[Background task completed] Worker 'looker'" }, { text: 'noted' });
    const noted = new Promise<void>((resolve) =>
      core.conversations.onEvent((e) => e.type === 'turn.completed' && e.origin.channel === 'background' && resolve()),
    );
    await core.pool.create({ name: 'looker', workingDir: core.workspace, prompt: 'RECYCLE task: look around' });
    assert.equal(await core.recycler.check(), 'busy');
    await noted;
    await idle();
    assert.equal(core.sessions.runtimePid(), firstPid, 'no restart while anything ran');

    // Idle: restarted, and the session resumed on the new runtime ahead of the next message.
    assert.equal(await core.recycler.check(), 'restarted');
    const secondPid = core.sessions.runtimePid()!;
    assert.notEqual(secondPid, firstPid);
    await waitFor('the old runtime to exit', () => !isAlive(firstPid));
    await waitFor('the session to be resumed', () => core.orchestrator.currentSessionId === session);
    assert.equal(ofType(core.events, 'session.ready').at(-1)!.how, 'resumed');
    assert.ok(core.logger.lines.some((l) => /Restarting the Copilot runtime while idle: its memory grew to \d+ MB/.test(l)));

    // The next message is answered once, in the same conversation: the model sees the turns before the restart.
    server.on({ lastUserIncludes: /\[via panel\] second$/ }, { text: 'two' });
    assert.equal((await core.orchestrator.enqueue('second', { channel: 'panel' }).done).content, 'two');
    const seen = server.chatRequests().filter((r) => r.sessionId === session);
    assert.equal(timesSent(seen, '[via panel] second'), 1);
    assert.equal(timesSent(seen, '[via panel] first'), 1, 'the history from before the restart, once');
    assert.ok(JSON.stringify(seen.at(-1)!.messages).includes('slowly'));

    // A message sent while the runtime restarts waits for it and is answered once.
    await idle();
    assert.equal(await core.recycler.check(), 'kept', 'the new runtime warms up first (its own size, for the guard)');
    server.on({ lastUserIncludes: /\[via panel\] meanwhile$/ }, { text: 'after the restart' });
    const lines = core.logger.lines.length;
    const restarting = core.recycler.check();
    await waitFor('the restart to begin', () => core.logger.lines.slice(lines).some((l) => l.includes('Restarting the Copilot runtime while idle')));
    assert.equal(core.chat.state().runtimeRestarting, true, 'the panel says "Restarting Copilot…"');
    const meanwhile = core.orchestrator.enqueue('meanwhile', { channel: 'panel' });
    assert.equal(await restarting, 'restarted');
    assert.equal(core.chat.state().runtimeRestarting, undefined, 'and no longer once it is done');
    assert.notEqual(core.sessions.runtimePid(), secondPid);
    assert.equal((await meanwhile.done).content, 'after the restart');
    const after = server.chatRequests().filter((r) => r.sessionId === session);
    assert.equal(timesSent(after, '[via panel] meanwhile'), 1);
    assert.equal(timesSent(after, '[via panel] second'), 1);
    assert.deepEqual(ofType(core.events, 'turn.failed'), [], 'nothing failed: the panel showed no error');
    assert.equal(core.recycler.restarts, 2);
  });
});
