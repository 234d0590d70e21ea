// A delegate call's result is its own worker's report, whatever else happens to the worker's name meanwhile: a second
// call of the same name, a follow-up that takes the worker up again before its report arrived, a runtime slow to close
// the worker's session. And the API's events hold nothing per turn or per worker once they ended. Against the REAL
// Copilot runtime and a scripted model, built as the extension builds Baton (createBatonCore).
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { BatonApi, BatonError, BatonEventV2, WorkerResult } from '../../api/baton';
import { createBatonApi } from '../../src/core/api/batonApi';
import type { OrchestratorEvent } from '../../src/core/orchestrator/events';
import { afterEachCore } from '../support/afterEachCore';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { waitFor } from '../support/waitFor';

/** The result, or a failure naming the wait: a result that never settles fails the test instead of hanging it. */
async function within(ms: number, result: Promise<WorkerResult>): Promise<WorkerResult> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`job.result did not settle within ${ms} ms`)), ms)));
  try {
    return await Promise.race([result, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('delegate results per worker run, and the events’ bounds (real runtime, scripted model, production wiring)', function () {
  this.timeout(120_000);
  let core: CoreFixture;
  let api: BatonApi & { dispose(): void };
  let project: string;
  let resume: (() => void) | undefined;

  const backgroundTurns = () => core.events.filter((e) => e.type === 'turn.queued' && e.origin.channel === 'background').length;
  const backgroundDone = () =>
    core.events.filter((e) => (e.type === 'turn.completed' || e.type === 'turn.failed') && 'origin' in e && e.origin.channel === 'background').length;

  /** Holds the runtime (the process every session lives in) for `ms` once worker `name`'s card shows its task ended. */
  const holdRuntimeAtEnd = (name: string, ms: number, then?: () => void): void => {
    const off = core.pool.onDidChange((cards) => {
      if (!cards.some((c) => c.name === name && c.state === 'done')) return;
      off();
      const pid = core.sessions.runtimePid()!;
      process.kill(pid, 'SIGSTOP');
      const timer = setTimeout(() => resume?.(), ms);
      resume = () => {
        clearTimeout(timer);
        resume = undefined;
        process.kill(pid, 'SIGCONT');
      };
      then?.();
    });
  };

  beforeEach(async () => {
    core = await startCore();
    core.workerSettings.isolation = 'none';
    api = createBatonApi(() => Promise.resolve(core.access));
    project = join(core.home, 'dev', 'app');
    await mkdir(project, { recursive: true });
  });

  afterEachCore(() => core, {
    settle: () => waitFor('the background turns', () => backgroundDone() >= backgroundTurns()),
    beforeDispose: () => {
      resume?.();
      api.dispose();
    },
  });

  it('two delegate calls with one worker name: the second is refused (kind "worker"), the first gets its own worker’s report', async () => {
    core.server.on({ lastUserIncludes: 'TASK-twin first' }, { text: 'First report.', delayMs: 1500 });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'twin'" }, { text: 'noted twin' });
    const firstEvents: BatonEventV2[] = [];
    const first = await api.getApi(2).delegate('TASK-twin first', { folder: project, name: 'twin', on: (e) => firstEvents.push(e) });
    const secondEvents: BatonEventV2[] = [];
    await assert.rejects(api.getApi(2).delegate('TASK-twin second', { folder: project, name: 'twin', on: (e) => secondEvents.push(e) }), (err: BatonError) => {
      assert.equal(err.name, 'BatonError');
      assert.equal(err.kind, 'worker');
      return true;
    });
    assert.deepEqual(await within(20_000, first.result), { worker: 'twin', state: 'done', text: 'First report.' });
    assert.equal(firstEvents.filter((e) => e.type === 'worker.finished').length, 1);
    assert.deepEqual(secondEvents, [], 'the refused call follows no worker');
  });

  it('a worker taken up again by a follow-up before its first report arrived: the delegate call gets the first task’s report, never a hang or the second’s', async () => {
    core.server.on({ lastUserIncludes: 'TASK-again first' }, { text: 'First report.' });
    core.server.on({ lastUserIncludes: 'TASK-again second' }, { text: 'Second report.' });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'again'" }, { text: 'noted first' }, { text: 'noted second' });
    const finished: Array<Extract<BatonEventV2, { type: 'worker.finished' }>> = [];
    api.getApi(2).on('worker.finished', (e) => finished.push(e));
    let sent: Promise<unknown> | undefined;
    // The runtime held as the first task ends: its session closes (and its report goes out) only after the follow-up started.
    holdRuntimeAtEnd('again', 1000, () => (sent = core.pool.send('again', 'TASK-again second')));
    const job = await api.delegate('TASK-again first', { folder: project, name: 'again' });
    assert.deepEqual(await within(20_000, job.result), { worker: 'again', state: 'done', text: 'First report.' });
    await sent;
    await waitFor('the second report', () => finished.length === 2);
    assert.deepEqual(
      finished.map((e) => e.result),
      ['First report.', 'Second report.'],
    );
  });

  it('a report that comes after 1.5 s (the runtime slow to close the worker’s session) is the result, not "was stopped"; turn.starting tells the report, not the model’s wrapper', async () => {
    core.server.on({ lastUserIncludes: 'TASK-slow close' }, { text: 'Slow report.' });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'slow'" }, { text: 'noted slow' });
    const starting: Array<Extract<BatonEventV2, { type: 'turn.starting' }>> = [];
    api.getApi(2).on('turn.starting', (e) => starting.push(e));
    holdRuntimeAtEnd('slow', 1900);
    const job = await api.delegate('TASK-slow close', { folder: project, name: 'slow' });
    assert.deepEqual(await within(20_000, job.result), { worker: 'slow', state: 'done', text: 'Slow report.' });
    await waitFor('the orchestrator’s answer', () => backgroundDone() === 1);
    const background = starting.filter((e) => e.origin.channel === 'background');
    assert.deepEqual(
      background.map((e) => e.prompt),
      ['Slow report.'],
    );
    // The model still got the wrapper.
    assert.ok(core.server.chatRequests().some((r) => r.lastUserText?.includes('<worker-output>\nSlow report.\n</worker-output>')));
  });

  it('holds nothing per turn or per worker once they ended: asks, delegated workers, a queued message taken back, messages sent to the window that runs a conversation', async () => {
    for (const n of [1, 2, 3]) core.server.on({ lastUserIncludes: `[via api] question ${n}` }, { text: `answer ${n}` });
    for (const n of [1, 2]) {
      core.server.on({ lastUserIncludes: `TASK-bound ${n}` }, { text: `report ${n}` });
      core.server.on({ lastUserIncludes: `[Background task completed] Worker 'bound-${n}'` }, { text: `noted ${n}` });
    }
    for (const n of [1, 2, 3]) await api.ask(`question ${n}`);
    for (const n of [1, 2]) await (await api.delegate(`TASK-bound ${n}`, { folder: project, name: `bound-${n}` })).result;
    await waitFor('the orchestrator’s answers', () => backgroundDone() === 2);
    assert.deepEqual(core.access.events.held, { turns: 0, workers: 0 });

    // A panel message taken back while it waited behind another never starts.
    core.server.on({ lastUserIncludes: '[via panel] ahead' }, { text: 'ahead answered', delayMs: 300 });
    const ahead = core.orchestrator.enqueue('ahead', { channel: 'panel' });
    const behind = core.orchestrator.enqueue('behind', { channel: 'panel' });
    behind.done.catch(() => undefined);
    assert.ok(core.orchestrator.withdraw(behind.turnId));
    await ahead.done;
    assert.deepEqual(core.access.events.held, { turns: 0, workers: 0 });

    // Another live process (standing in for a second VS Code window) runs conversation c-remote: the panel's messages
    // go to it through the store, and their turns start and end there.
    const other = spawn('sleep', ['60']);
    try {
      const claims = join(core.storageDir, 'claims');
      mkdirSync(claims, { recursive: true });
      const window = { pid: other.pid, host: hostname(), instance: 'other-window', beats: true };
      // As a window does: its presence file (it beats while open), then its claim.
      writeFileSync(join(claims, `window-${other.pid}-other-window.present`), JSON.stringify(window));
      writeFileSync(join(claims, 'conversation-c-remote.owner'), JSON.stringify({ ...window, conversation: 'c-remote' }));
      const remote = core.conversations.get('c-remote');
      for (const n of [1, 2, 3]) remote.enqueue(`remote ${n}`, { channel: 'panel', conversation: 'c-remote' }).done.catch(() => undefined);
      const queued = core.events.filter((e): e is Extract<OrchestratorEvent, { type: 'turn.queued' }> => e.type === 'turn.queued' && !!e.elsewhere);
      assert.equal(queued.length, 3, 'sent to the other window');
      assert.deepEqual(core.access.events.held, { turns: 0, workers: 0 });
    } finally {
      other.kill();
    }
  });
});
