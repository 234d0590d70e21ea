// The worker pool on the production wiring (createBatonCore, a real SqlJsStore in a temp folder),
// with the runtime in memory: the limit, kill, timeout, and results that must reach the
// orchestrator exactly once even when the window closes around them.
import * as assert from 'node:assert/strict';
import type { OrchestratorEvent } from '../../src/core/orchestrator/events';
import { SqlJsStore } from '../../src/core/store/sqlJsStore';
import { WorkerError } from '../../src/core/workers/workerPool';
import { KEEP_FINISHED } from '../../src/core/workers/workerRegistry';
import { Gate, hangAfter, reply, type TurnScript } from '../support/inMemoryAgentSessions';
import { eachUnitCore, nextEvent, until, type UnitCore } from '../support/inMemoryCore';

const RESULT = /^\[Background task completed\] Worker '([^']+)'/;

describe('WorkerPool (in-memory runtime)', () => {
  let f: UnitCore;

  eachUnitCore((core) => (f = core));

  /** The orchestrator prompts that carried a result of `worker`. */
  function resultsOf(worker: string): string[] {
    return f.sessions.orchestratorPrompts.filter((p) => RESULT.exec(p)?.[1] === worker);
  }

  /** The orchestrator answers the next result of `worker` with a short acknowledgement. */
  function acknowledge(worker: string, script: TurnScript = reply(`noted ${worker}`)): void {
    f.sessions.scriptWhen('orchestrator', (p) => RESULT.exec(p)?.[1] === worker, script);
  }

  function backgroundDone(worker: string): Promise<OrchestratorEvent> {
    return nextEvent(f.core, 'turn.completed', (e) => e.origin.channel === 'background' && e.origin.worker === worker);
  }

  it(`keeps the last ${KEEP_FINISHED} finished workers (and their transcripts) in the Workers view, no more`, async () => {
    f.sessions.script('worker', ...Array.from({ length: KEEP_FINISHED + 5 }, (_, i) => reply(`report ${i}`)));
    for (let i = 0; i < KEEP_FINISHED + 5; i++) {
      acknowledge(`w${i}`);
      const answered = backgroundDone(`w${i}`);
      await f.core.pool.create({ name: `w${i}`, workingDir: f.workDir, prompt: `task ${i}` });
      await answered;
    }
    const listed = f.core.pool.list();
    assert.equal(listed.length, KEEP_FINISHED);
    assert.equal(listed[0]!.name, `w${KEEP_FINISHED + 4}`, 'newest first');
    assert.throws(() => f.core.pool.transcript('w0'), /No worker named 'w0'/);
  });

  it('refuses a worker past baton.workers.max, naming the active ones; concurrent creates cannot overshoot', async () => {
    f.workerSettings.max = 2;
    // In place, so the refusal names the folder itself (in a copy each worker has its own directory).
    f.workerSettings.isolation = 'none';
    f.sessions.script('worker', hangAfter('working on a'), hangAfter('working on b'));
    const creates = await Promise.allSettled(['a', 'b', 'c'].map((name) => f.core.pool.create({ name, workingDir: f.workDir, prompt: `task ${name}` })));
    assert.deepEqual(
      creates.map((c) => c.status),
      ['fulfilled', 'fulfilled', 'rejected'],
    );
    const refused = creates[2]!.status === 'rejected' ? (creates[2] as PromiseRejectedResult).reason : undefined;
    assert.ok(refused instanceof WorkerError);
    // The slots were taken before the sessions existed: a and b were still starting.
    assert.match(
      refused.message,
      /^Too many workers: 2 of 2 are active \(baton\.workers\.max\)\. Active workers: 'a' \(idle, [^)]+\); 'b' \(idle, [^)]+\)\. Wait for one to finish or stop one, then try again\.$/,
    );
    // A command's message (Start a Worker Here…) names no tool; the model's answer adds how its tools help.
    assert.equal(refused.toolHint, 'kill_session stops one.');
    assert.equal(f.sessions.created.filter((s) => s.role === 'worker').length, 2, 'the refused one opened no session');
    await assert.rejects(f.core.pool.create({ name: 'd', workingDir: f.workDir }), (err: Error) => {
      assert.match(
        err.message,
        new RegExp(
          `^Too many workers: 2 of 2 are active \\(baton\\.workers\\.max\\)\\. Active workers: 'a' \\(running, ${f.workDir.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}, [\\d.]+s\\); 'b' \\(running, `,
        ),
      );
      return true;
    });
    // Killing one (by the orchestrator's tool: not reported back) frees its slot.
    await f.core.pool.kill('a', 'tool');
    f.sessions.script('worker', reply('d done'));
    acknowledge('d');
    const done = backgroundDone('d');
    await f.core.pool.create({ name: 'd', workingDir: f.workDir, prompt: 'task d' });
    await done;
    assert.deepEqual(resultsOf('a'), [], 'a kill the orchestrator asked for is not reported to it');
  });

  it('kills a running worker: its session is disconnected, its slot freed, and the user’s kill reported once with the output so far', async () => {
    f.sessions.script('worker', hangAfter('Reading the tests', '... half way'));
    acknowledge('w1');
    const info = await f.core.pool.create({ name: 'w1', workingDir: f.workDir, prompt: 'fix the tests' });
    await until(() => f.core.pool.status('w1').lastOutput.includes('half way'), 'the worker to stream');
    const reported = backgroundDone('w1');
    const answer = await f.core.pool.kill('w1', 'user');
    assert.match(answer, /^Killed worker 'w1' after [\d.]+s of work; its session was disconnected\.$/);
    assert.equal(f.core.pool.status('w1').state, 'killed');
    assert.deepEqual(f.core.pool.listActive(), []);
    assert.ok(f.sessions.disconnects.includes(info.sessionId!), 'its session was disconnected');
    await reported;
    const [prompt, ...more] = resultsOf('w1');
    assert.deepEqual(more, []);
    assert.match(prompt ?? '', /^\[Background task completed\] Worker 'w1' was stopped by the user before it finished\.\n\nOutput so far:/);
    assert.match(prompt ?? '', /Reading the tests\.\.\. half way/);
    assert.deepEqual(f.core.store.listWorkers(), [], 'its row is gone');
    assert.deepEqual(f.core.store.undeliveredInbox(), []);
    await assert.rejects(f.core.pool.kill('w1'), /Worker 'w1' is not active: it already/);
  });

  it('a kill that arrives while the worker’s session is still opening leaves no task running', async () => {
    const opening = new Gate();
    const open = new Gate();
    f.sessions.beforeCreate = (spec) => {
      if (spec.role !== 'worker') return;
      opening.open();
      return open.promise;
    };
    // No script: a run of the killed worker would show in `runs` below, and as unscripted after the test.
    const created = f.core.pool.create({ name: 'w1', workingDir: f.workDir, prompt: 'task' });
    await opening.promise;
    const killed = f.core.pool.kill('w1', 'tool');
    open.open();
    await Promise.allSettled([created, killed]);
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(f.core.pool.status('w1').state, 'killed');
    assert.deepEqual(f.core.pool.listActive(), []);
    assert.deepEqual(
      f.sessions.runs.filter((r) => r.role === 'worker'),
      [],
      'a killed worker ran its task',
    );
    assert.equal(f.sessions.inFlight, 0);
  });

  it('times a worker out after baton.workers.timeoutMs and says which setting to raise', async () => {
    f.workerSettings.timeoutMs = 30;
    f.sessions.script('worker', hangAfter('partial work'));
    acknowledge('slow');
    const reported = backgroundDone('slow');
    await f.core.pool.create({ name: 'slow', workingDir: f.workDir, prompt: 'take forever' });
    await reported;
    assert.equal(f.core.pool.status('slow').state, 'timed_out');
    const [prompt] = resultsOf('slow');
    assert.match(
      prompt ?? '',
      /^\[Background task completed\] Worker 'slow' timed out after [\d.]+s \(limit: [\d.]+s\)\. Raise baton\.workers\.timeoutMs to allow more time\./,
    );
    assert.match(prompt ?? '', /partial work/);
    assert.equal(f.sessions.runs.filter((r) => r.role === 'worker').length, 1);
  });

  it('a result that waited in the queue when the window closed is delivered once by the next start', async () => {
    const turnGate = new Gate();
    f.sessions.script('orchestrator', async (ctx) => {
      ctx.delta('thinking');
      await ctx.wait(turnGate.promise);
    });
    f.sessions.script('worker', reply('all green'));
    const user = f.core.orchestrator.enqueue('a long question', { channel: 'panel' });
    await nextEvent(f.core, 'turn.delta');
    const queued = nextEvent(f.core, 'turn.queued', (e) => e.origin.channel === 'background');
    await f.core.pool.create({ name: 'w1', workingDir: f.workDir, prompt: 'run the tests' });
    await queued;
    acknowledge('w1');
    let left: { inbox: string[]; rows: Array<[string, string | null]> } | undefined;
    await f.restart({}, async () => {
      const store = await SqlJsStore.open({ dir: f.storageDir, pollIntervalMs: 0 });
      left = { inbox: store.undeliveredInbox().map((r) => r.worker_name), rows: store.recentLog(10).map((e) => [e.role, e.status]) };
      await store.close();
    });
    await assert.rejects(user.done);
    // At the close: the result's inbox row was not delivered, its queued row was set aside, the user's turn kept as interrupted.
    assert.deepEqual(left, {
      inbox: ['w1'],
      rows: [
        ['user', 'interrupted'],
        ['assistant', 'partial'],
        ['system', 'cancelled'],
      ],
    });
    await until(() => f.core.store.undeliveredInbox().length === 0, 'the result to be delivered');
    await until(() => !f.core.orchestrator.busy, 'the result turn to settle');
    assert.equal(resultsOf('w1').length, 1, 'the runtime received the result once');
    assert.equal(await f.core.pool.deliverPending(), 0);
    const shown = f.core.store.recentLog(20).filter((e) => e.role === 'system' && e.status !== 'cancelled');
    assert.deepEqual(
      shown.map((e) => [RESULT.exec(e.content)?.[1], e.status]),
      [['w1', 'complete']],
    );
  });

  it('a result recorded while the window closes (its worker still disconnecting) is delivered once by the next start', async () => {
    const disconnecting = new Gate();
    const slowDisconnect = new Gate();
    f.sessions.beforeDisconnect = (state) => {
      if (state.spec.role !== 'worker') return;
      disconnecting.open();
      return slowDisconnect.promise;
    };
    f.sessions.script('worker', reply('done before the close'));
    await f.core.pool.create({ name: 'w1', workingDir: f.workDir, prompt: 'quick task' });
    // The result is in the inbox; the pool awaits the session's disconnect before handing it over.
    await disconnecting.promise;
    assert.equal(f.core.store.undeliveredInbox().length, 1);
    const closing = f.core.dispose();
    await closing;
    // Only now does the pool try to hand the result over: the orchestrator is gone.
    slowDisconnect.open();
    await new Promise((r) => setTimeout(r, 10));
    f.sessions.beforeDisconnect = undefined;
    acknowledge('w1');
    await f.restart();
    await until(() => f.core.store.undeliveredInbox().length === 0, 'the result to be delivered');
    await until(() => !f.core.orchestrator.busy, 'the result turn to settle');
    assert.equal(resultsOf('w1').length, 1);
    assert.match(resultsOf('w1')[0] ?? '', /finished:\n\n<worker-output>\ndone before the close\n<\/worker-output>/);
    // Nothing was handed to the closing window (where a conversation being disposed could take it and lose it).
    assert.ok(!f.logger.lines.some((l) => l.includes('could not be delivered now')), f.logger.lines.join('\n'));
  });

  it('a task still running when the window closes is reported as interrupted by the next start, once', async () => {
    f.sessions.script('worker', hangAfter('step 1 of 3'));
    await f.core.pool.create({ name: 'w1', workingDir: f.workDir, prompt: 'long job' });
    await until(() => f.core.pool.status('w1').lastOutput.includes('step 1'), 'the worker to stream');
    acknowledge('w1');
    await f.restart();
    await until(() => resultsOf('w1').length === 1 && !f.core.orchestrator.busy, 'the interruption to be reported');
    assert.match(resultsOf('w1')[0] ?? '', /^\[Background task completed\] Worker 'w1' failed: its task was interrupted when VS Code closed or reloaded/);
    assert.deepEqual(f.core.store.listWorkers(), []);
    assert.deepEqual(f.core.store.undeliveredInbox(), []);
    // A third window has nothing left to report.
    await f.restart();
    assert.equal(await f.core.pool.deliverPending(), 0);
    assert.equal(resultsOf('w1').length, 1);
  });

  it('results left by a previous window reach the orchestrator once even with deliverPending called again concurrently', async () => {
    for (const name of ['a', 'b', 'c']) {
      f.core.store.addInbox({ worker_name: name, origin: 'panel', kind: 'completed', content: `[Background task completed] Worker '${name}' finished:\n\nok` });
      acknowledge(name);
    }
    await f.restart();
    // createBatonCore already started a delivery; two more race it.
    await Promise.all([f.core.pool.deliverPending(), f.core.pool.deliverPending()]);
    await until(() => f.core.store.undeliveredInbox().length === 0 && !f.core.orchestrator.busy, 'all results delivered');
    assert.deepEqual(
      f.sessions.orchestratorPrompts.map((p) => RESULT.exec(p)?.[1]),
      ['a', 'b', 'c'],
    );
  });
});
