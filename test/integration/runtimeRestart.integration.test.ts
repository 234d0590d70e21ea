// The idle restart of a grown runtime, on the real Copilot runtime and a scripted model server, built as the extension
// builds Baton (createBatonCore). The memory bound and its guard are forced low (0.5×: any runtime counts as grown once
// its baseline is read from /proc), so the test decides when Baton is idle and asks the recycler to check.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import type { TurnHandle } from '../../src/core/orchestrator/orchestrator';
import { holdNextOpen, type HeldOpen } from '../support/heldOpen';
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

  it('a follow-up sent to an idle worker while the runtime restarts waits for the new runtime and runs once there', async () => {
    const { server } = core;
    server.on({ lastUserIncludes: /\[via panel\] first$/ }, { text: 'one' });
    await core.orchestrator.enqueue('first', { channel: 'panel' }).done;
    // Idle, holding its slot and its live session (as an attached CLI session does): it leaves the runtime idle.
    await core.pool.create({ name: 'idler', workingDir: core.workspace });
    const sessionId = core.pool.listActive()[0]!.sessionId;
    await waitFor('Baton to go idle', () => core.orchestrator.idle && core.recycler.idle());
    assert.equal(await core.recycler.check(), 'kept', 'the first idle check takes the baseline');
    server.on({ lastUserIncludes: 'IDLER task' }, { text: 'Looked. Nothing to change.' });
    server.on({ lastUserIncludes: "[Background task completed] Worker 'idler'" }, { text: 'noted idler' });
    const noted = new Promise<void>((resolve) =>
      core.conversations.onEvent((e) => e.type === 'turn.completed' && e.origin.channel === 'background' && resolve()),
    );
    const lines = core.logger.lines.length;
    const restarting = core.recycler.check();
    await waitFor('the restart to begin', () => core.logger.lines.slice(lines).some((l) => l.includes('Restarting the Copilot runtime while idle')));
    await core.pool.send('idler', 'IDLER task: look around');
    assert.equal(await restarting, 'restarted');
    await noted;
    const worker = core.pool.list().find((w) => w.name === 'idler')!;
    // Before, it failed at once: sent on the session of the runtime being stopped, then ended as 'lost' by its reset.
    assert.equal(worker.state, 'done', core.logger.lines.filter((l) => l.includes('idler')).join('\n'));
    const task = server.chatRequests().filter((r) => (r.lastUserText ?? '').includes('IDLER task'));
    assert.equal(task.length, 1, 'the follow-up reached the model once');
    // Never sent a prompt, its session had no history the runtime saved: a new one opened on the new runtime.
    assert.notEqual(task[0]!.sessionId, sessionId);
    assert.ok(core.logger.lines.some((l) => l.includes(`its session ${sessionId} has no history to resume`)));
    assert.deepEqual(ofType(core.events, 'turn.failed'), []);
  });
});

// The runtime killed while a session opens (created or resumed): what is asked of a dead runtime is never answered,
// so each open must fail at once, and the turn, the panel's prewarm or a worker's create go on from there.
describe('The runtime lost while a session opens (real runtime, scripted model)', function () {
  this.timeout(60_000);
  let core: CoreFixture;
  let held: HeldOpen;

  beforeEach(async () => {
    core = await startCore();
    // Well under the test's own limit: a turn that waits on a dead runtime fails the test, not its timeout.
    core.settings.turnTimeoutMs = 20_000;
    // Started before the hold, so the hold catches a session open, not the runtime's start.
    await core.sessions.start();
    held = await holdNextOpen(join(core.storageDir, 'copilot-sessions'));
  });
  afterEachCore(() => core, { beforeDispose: () => held.release() });

  /** Kills the runtime once it is inside the held open, then lets the open's file go (nobody reads it now). */
  const killInOpen = async (): Promise<number> => {
    await held.reached;
    const pid = core.sessions.runtimePid()!;
    process.kill(pid, 'SIGKILL');
    await held.release();
    return pid;
  };
  const outcome = async (h: TurnHandle): Promise<[string, string]> => {
    const r = await h.done;
    return [r.status, r.content];
  };

  it("the conversation's first session: the message is answered once on a new runtime, and the one queued behind it too", async () => {
    const { server } = core;
    server.on({ lastUserIncludes: /\[via panel\] very first$/ }, { text: 'first answer' });
    server.on({ lastUserIncludes: /\[via panel\] second one$/ }, { text: 'second answer' });
    const first = core.orchestrator.enqueue('very first', { channel: 'panel' });
    const second = core.orchestrator.enqueue('second one', { channel: 'panel' });
    const killed = await killInOpen();
    assert.deepEqual(await outcome(first), ['complete', 'first answer']);
    assert.deepEqual(await outcome(second), ['complete', 'second answer']);
    assert.notEqual(core.sessions.runtimePid(), killed, 'a new runtime');
    const chats = server.chatRequests();
    assert.equal(chats.length, 2, 'each message went to the model once');
    assert.equal(timesSent(chats, '[via panel] very first'), 1);
    assert.deepEqual(ofType(core.events, 'turn.failed'), []);
    // The queue lets go of its turn just after the turn's promise settles.
    await waitFor('nothing to use the runtime', () => core.recycler.idle(), 5000);
    assert.equal(await core.health.check(), 'ok', 'nothing is left busy');
  });

  it("the panel's prewarm: it fails at once, and the message sent meanwhile is answered once", async () => {
    core.server.on({ lastUserIncludes: /\[via panel\] hello after prewarm$/ }, { text: 'hi' });
    const warming = core.orchestrator.prewarm();
    await held.reached;
    const message = core.orchestrator.enqueue('hello after prewarm', { channel: 'panel' });
    await killInOpen();
    await assert.rejects(warming, /the Copilot runtime exited while opening a session/);
    assert.deepEqual(await outcome(message), ['complete', 'hi']);
    assert.equal(core.server.chatRequests().length, 1);
  });

  it('a worker being created: its create fails with a clear error, and the next worker starts and reports', async () => {
    core.server.on({ lastUserIncludes: 'TASK-next' }, { text: 'Worker done.' });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'next'" }, { text: 'noted' });
    const creating = core.pool.create({ name: 'opener', workingDir: core.workspace, prompt: 'TASK-open go' });
    await killInOpen();
    await assert.rejects(creating, /Could not start worker 'opener': the Copilot runtime exited while opening a session/);
    assert.deepEqual(core.pool.list(), [], 'no worker left behind');
    await core.pool.create({ name: 'next', workingDir: core.workspace, prompt: 'TASK-next go' });
    await waitFor('the worker to report', () => ofType(core.events, 'turn.completed').some((e) => e.origin.channel === 'background'));
    assert.ok(!core.server.chatRequests().some((r) => r.lastUserText?.includes('TASK-open')), 'the lost task never reached the model');
  });

  it('Stop while the runtime has not answered the open: the turn stops at once, and the next message is answered', async () => {
    core.server.on({ lastUserIncludes: /\[via panel\] after the stop$/ }, { text: 'still here' });
    const stopped = core.orchestrator.enqueue('never sent', { channel: 'panel' });
    await held.reached;
    assert.equal(core.orchestrator.stop(stopped.turnId), true);
    assert.deepEqual(await outcome(stopped), ['cancelled', '']);
    assert.equal(core.orchestrator.answering, false);
    // The runtime finishes that open now, for nobody: the session is let go, and the next message opens its own.
    await held.release();
    assert.deepEqual(await outcome(core.orchestrator.enqueue('after the stop', { channel: 'panel' })), ['complete', 'still here']);
    assert.ok(!core.server.chatRequests().some((r) => r.lastUserText?.includes('never sent')));
  });
});
