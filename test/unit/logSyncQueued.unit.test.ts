// A message still waiting in this window's queue shows as "Queued" (with its Remove) in every snapshot, and the
// panel's log sync keeps it so: the log cannot tell it from the message being answered (both are 'pending' rows until
// their reply is written), so only the queue's word marks it. Real sql.js store, LogSync as ChatController builds it.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogSync } from '../../src/core/chat/logSync';
import { queuedRows } from '../../src/core/chat/queuedRows';
import { recordDelivered } from '../../src/core/orchestrator/rewind';
import { toChatMessage } from '../../src/core/chat/toChatMessage';
import { SqlJsStore } from '../../src/core/store/sqlJsStore';
import type { HostMessageBody } from '../../src/shared/protocol';

describe('queued messages in the panel log sync', () => {
  let dir: string;
  let store: SqlJsStore;
  let sync: LogSync;
  let sent: HostMessageBody[];
  let waiting: Map<number, string>;
  /** Whether another window runs the conversation (its queue holds what waits), and how often that was asked. */
  let elsewhere: boolean;
  let claimReads: number;
  let snapshots: number;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-logsync-queued-'));
    store = await SqlJsStore.open({ dir, flushDelayMs: 5, pollIntervalMs: 0 });
    sent = [];
    snapshots = 0;
    waiting = new Map();
    elsewhere = false;
    claimReads = 0;
    sync = new LogSync(
      store,
      () => store.recentLog(200),
      (body) => sent.push(body),
      () => snapshots++,
      undefined,
      undefined,
      () => queuedRows(waiting, () => (claimReads++, elsewhere)),
    );
  });
  afterEach(async () => {
    sync.dispose();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 40));
  const shown = (): string[] => sent.map((b) => (b.type === 'message/update' ? `${b.id} ${b.patch.status}` : b.type));

  it('a whole read of the log while a message waits leaves it queued; once it runs, it is shown as sent', async () => {
    const running = store.appendLog({ role: 'user', content: 'first', source: 'panel', status: 'pending' });
    const queued = store.appendLog({ role: 'user', content: 'second', source: 'panel', status: 'pending' });
    const result = store.appendLog({ role: 'system', content: 'Worker x finished', source: 'background:x', status: 'pending' });
    waiting.set(queued, 't-2').set(result, 't-3');
    const rows = store.recentLog(200);
    const queuedNow = queuedRows(waiting, () => elsewhere);
    const messages = rows.map((row) => toChatMessage(row, undefined, queuedNow(row)));
    assert.deepEqual(
      messages.map((m) => `${m.role} ${m.status}`),
      ['user complete', 'user pending', 'background pending'],
      'the snapshot marks only the messages still waiting (a worker result waits too)',
    );
    sync.reset(rows, messages);
    await settle();
    sent.length = 0;
    // A change the sync cannot pin to rows of its own (here another conversation's log cleared) reads the log whole.
    store.clearLog('elsewhere');
    await settle();
    assert.deepEqual(shown(), [], 'nothing changed for the panel: the queued message stays queued');
    // Its turn starts: it leaves the queue (the panel is told at once by the turn's start; a later read agrees).
    waiting.delete(queued);
    store.clearLog('elsewhere');
    await settle();
    assert.deepEqual(shown(), [`log-${queued} complete`]);
    assert.equal(snapshots, 0);
    assert.ok(running < queued);
  });

  it('a message waiting in the queue of the window that runs the conversation is shown queued there until its prompt is delivered', async () => {
    elsewhere = true;
    const running = store.appendLog({ role: 'user', content: 'first', source: 'panel', status: 'pending' });
    recordDelivered(store, running, { session: 's-1', event: 'e-1', carried: false });
    const queued = store.appendLog({ role: 'user', content: 'second', source: 'panel', status: 'pending' });
    const answered = store.appendLog({ role: 'user', content: 'earlier', source: 'panel', status: 'complete' });
    const rows = store.recentLog(200);
    const queuedNow = queuedRows(waiting, () => (claimReads++, elsewhere));
    const messages = rows.map((row) => toChatMessage(row, undefined, queuedNow(row)));
    assert.deepEqual(
      messages.map((m) => `${m.content} ${m.status} ${m.queuedElsewhere ?? '-'}`),
      ['first complete -', 'second pending true', 'earlier complete -'],
      'only the message not yet delivered waits, marked as waiting in the other window',
    );
    assert.equal(claimReads, 1, 'the claim is read once for the whole log');
    sync.reset(rows, messages);
    await settle();
    sent.length = 0;
    store.clearLog('elsewhere');
    await settle();
    assert.deepEqual(shown(), [], 'a whole read leaves it queued');
    // The owner starts its turn: the prompt is delivered, and this window shows it sent.
    recordDelivered(store, queued, { session: 's-1', event: 'e-2', carried: false });
    await settle();
    assert.deepEqual(shown(), [`log-${queued} complete`]);
    assert.equal(snapshots, 0);
    assert.ok(answered > queued);
  });
});
