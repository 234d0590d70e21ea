// The inbox between workers and the orchestrator, on a real SqlJsStore in a temp folder: a result is
// stored before it is handed over, marked delivered only once accepted, and handed over once.
import * as assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Origin } from '../../src/core/orchestrator/events';
import { SqlJsStore } from '../../src/core/store/sqlJsStore';
import { MemoryLogger } from '../../src/core/util/logger';
import { WorkerInbox, originOf } from '../../src/core/workers/workerInbox';
import { Gate } from '../support/inMemoryAgentSessions';

describe('WorkerInbox', () => {
  let dir: string;
  let store: SqlJsStore;
  let logger: MemoryLogger;
  let delivered: Array<{ text: string; origin: Origin; inboxId?: number }>;
  /** What deliver() does: by default accepts at once. */
  let accept: (text: string) => Promise<void> | void;
  let inbox: WorkerInbox;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-inbox-'));
    store = await SqlJsStore.open({ dir, flushDelayMs: 5, pollIntervalMs: 0 });
    logger = new MemoryLogger();
    delivered = [];
    accept = () => undefined;
    inbox = new WorkerInbox(
      store,
      (text, origin, inboxId) => {
        delivered.push({ text, origin, inboxId });
        return accept(text);
      },
      logger,
    );
  });

  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const none = (): boolean => false;

  it('delivers each undelivered row exactly once when deliverPending is called twice concurrently', async () => {
    const ids = ['a', 'b', 'c'].map((w) => store.addInbox({ worker_name: w, origin: 'panel', kind: 'completed', content: `result of ${w}` }));
    const gate = new Gate();
    accept = () => gate.promise;
    const first = inbox.deliverPending(none);
    const second = inbox.deliverPending(none);
    gate.open();
    assert.deepEqual(await Promise.all([first, second]), [3, 0]);
    assert.deepEqual(
      delivered.map((d) => [d.text, d.inboxId]),
      ids.map((id, i) => [`result of ${['a', 'b', 'c'][i]}`, id]),
    );
    assert.deepEqual(store.undeliveredInbox(), []);
    assert.equal(await inbox.deliverPending(none), 0, 'nothing is left to deliver');
    assert.equal(delivered.length, 3);
  });

  it('hands each result to the channel that asked for the worker', async () => {
    store.addInbox({ worker_name: 'w', origin: 'command', kind: 'failed', content: 'x' });
    store.addInbox({ worker_name: 'v', origin: 'something-old', kind: 'completed', content: 'y' });
    await inbox.deliverPending(none);
    assert.deepEqual(
      delivered.map((d) => d.origin),
      [originOf('w', 'command'), { channel: 'background', worker: 'v', replyTo: 'panel' }],
    );
  });

  it('keeps a row whose delivery failed (the window closed first) for the next deliverPending, which delivers only it', async () => {
    store.addInbox({ worker_name: 'a', origin: 'panel', kind: 'completed', content: 'first' });
    store.addInbox({ worker_name: 'b', origin: 'panel', kind: 'completed', content: 'second' });
    accept = (text) => {
      if (text === 'second') throw new Error('Baton was closed before this message was sent.');
    };
    assert.equal(await inbox.deliverPending(none), 1);
    assert.deepEqual(
      store.undeliveredInbox().map((r) => r.content),
      ['second'],
    );
    assert.ok(logger.lines.some((l) => l.startsWith("error The result of worker 'b' could not be delivered now; it will be at the next start")));
    accept = () => undefined;
    assert.equal(await inbox.deliverPending(none), 1);
    assert.deepEqual(
      delivered.map((d) => d.text),
      ['first', 'second', 'second'],
    );
    assert.deepEqual(store.undeliveredInbox(), []);
  });

  it('a result recorded and about to be handed over (its worker retiring) is not delivered a second time by deliverPending', async () => {
    // The pool records a result, awaits the worker's disconnect, then calls deliverOne. A
    // deliverPending in that gap must not take the row as well.
    const text = "[Background task completed] Worker 'w' finished";
    const id = inbox.record('w', 'panel', 'completed', text);
    assert.ok(id !== undefined);
    const pending = inbox.deliverPending(none);
    const own = inbox.deliverOne(id, text, originOf('w', 'panel'));
    await Promise.all([pending, own]);
    assert.equal(delivered.length, 1, `delivered ${delivered.length} times`);
    assert.deepEqual(store.undeliveredInbox(), []);
  });

  it('reports a task a previous window left running as interrupted, once, and drops the rows of idle workers', async () => {
    store.upsertWorker({ name: 'busy', copilot_session_id: 's1', working_dir: '/w/busy', status: 'running', last_output: 'half done', origin: 'command' });
    store.upsertWorker({ name: 'lazy', copilot_session_id: 's2', working_dir: '/w/lazy', status: 'idle', last_output: null, origin: 'panel' });
    store.upsertWorker({ name: 'mine', copilot_session_id: 's3', working_dir: '/w/mine', status: 'running', last_output: null, origin: 'panel' });
    const active = (row: { name: string }): boolean => row.name === 'mine';
    assert.equal(await inbox.deliverPending(active), 1);
    assert.equal(await inbox.deliverPending(active), 0, 'cleaned once');
    assert.deepEqual(
      store.listWorkers().map((w) => w.name),
      ['mine'],
    );
    const [report] = delivered;
    assert.deepEqual(report?.origin, originOf('busy', 'command'));
    assert.match(
      report?.text ?? '',
      /^\[Background task completed\] Worker 'busy' failed: its task was interrupted when VS Code closed or reloaded \(directory \/w\/busy, session s1\)/,
    );
    assert.match(report?.text ?? '', /half done/);
    assert.ok(logger.lines.some((l) => l.includes("Cleaned 2 worker(s) left by a previous window: 'busy' (running), 'lazy' (idle)")));
  });
});
