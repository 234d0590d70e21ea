// The panel's host-side view of the log (LogSync) holds entries for the rows the panel shows, never one per turn ever
// run: a month of turns through one window leaves it the size of the visible log. Real sql.js store, as ChatController
// drives it (a message queued, its reply settled under the turn's id). A turn's own writes reach it by the rows they
// name, so the visible log is not read again on every turn; what those rows cannot decide still reads it whole.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogSync, shownInPanel } from '../../src/core/chat/logSync';
import { LOG_KEEP } from '../../src/core/store/bounds';
import { SqlJsStore } from '../../src/core/store/sqlJsStore';
import type { HostMessageBody } from '../../src/shared/protocol';

describe('bounds of the panel log sync', () => {
  let dir: string;
  let store: SqlJsStore;
  let sync: LogSync;
  let sent: HostMessageBody[];
  let snapshots: number;
  /** How often the sync read the whole visible log. */
  let reads: number;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-logsync-'));
    store = await SqlJsStore.open({ dir, flushDelayMs: 5, pollIntervalMs: 0 });
    sent = [];
    snapshots = 0;
    reads = 0;
    sync = new LogSync(
      store,
      () => {
        reads++;
        // As ChatController reads it: a worker result set aside is not shown.
        return store.recentLog(LOG_KEEP).filter(shownInPanel);
      },
      (body) => sent.push(body),
      () => snapshots++,
    );
  });
  afterEach(async () => {
    sync.dispose();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** One turn as the chat controller records it: the message queued and shown, then its reply under the turn's id. */
  async function turn(i: number): Promise<void> {
    const message = store.appendLog({ role: 'user', content: `question ${i}`, source: 'panel', status: 'pending' });
    sync.queued(message);
    store.updateLog(message, { status: 'complete' });
    const reply = store.appendLog({ role: 'assistant', content: `answer ${i}`, source: 'panel', status: 'complete' });
    sync.ownReply(reply, `turn-${i}`);
    // The sync runs 20 ms after a change to the log: every few turns, as the panel sees it.
    if (i % 10 === 9) await new Promise((r) => setTimeout(r, 25));
  }

  const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 30));
  const shownAs = (body: HostMessageBody): string =>
    body.type === 'message/update' ? `update ${body.id} ${body.patch.status ?? ''}` : body.type === 'message/append' ? `append ${body.message.id}` : body.type;

  it("brings this window's own turn to the panel from the rows it wrote, without reading the visible log again", async () => {
    const message = store.appendLog({ role: 'user', content: 'question', source: 'panel', status: 'pending' });
    sync.queued(message);
    await settle();
    store.updateLog(message, { status: 'complete' });
    const reply = store.appendLog({ role: 'assistant', content: 'answer', source: 'panel', status: 'complete' });
    sync.ownReply(reply, 'turn-1');
    await settle();
    // A background row written meanwhile (not shown before) is appended in order.
    const result = store.appendLog({ role: 'system', content: 'worker done', source: 'background:w1', status: 'complete' });
    await settle();
    // The message's update shows no change (a queued message is shown as sent); the reply's row replaces what streamed.
    assert.deepEqual(sent.map(shownAs), [`update log-${message} complete`, 'update turn-1 complete', `append log-${result}`]);
    assert.equal(reads, 0);
    assert.equal(snapshots, 0);
  });

  it('takes a message this window deletes (or sets aside) off the panel with a snapshot of the log, as before', async () => {
    const message = store.appendLog({ role: 'user', content: 'refused', source: 'panel', status: 'pending' });
    sync.queued(message);
    await settle();
    store.deleteLog(message);
    await settle();
    assert.equal(snapshots, 1);
    assert.equal(reads, 1, 'a change the rows alone cannot decide reads the visible log');
    const result = store.appendLog({ role: 'system', content: 'worker done', source: 'background:w1', status: 'pending' });
    await settle();
    store.updateLog(result, { status: 'cancelled' });
    await settle();
    assert.equal(snapshots, 2);
    store.clearLog();
    await settle();
    assert.equal(snapshots, 3, 'a cleared log (no rows named) is read whole');
  });

  it(`holds entries for the visible log (${LOG_KEEP} rows), not for every turn`, async () => {
    const turns = 2 * LOG_KEEP; // four times the rows the log keeps
    for (let i = 0; i < turns; i++) await turn(i);
    const visible = store.recentLog(LOG_KEEP).length;
    // shown + own replies + converted rows: each at most the visible rows (a few over between prunes).
    assert.ok(sync.tracked <= 3 * visible, `${sync.tracked} entries for ${visible} visible rows after ${turns} turns`);
    assert.equal(snapshots, 0, 'pruning old rows never forces a snapshot');
    // Nothing this window already showed was sent again: each settled reply is shown as it streamed.
    assert.deepEqual(
      sent.filter((b) => b.type === 'message/append'),
      [],
    );
  });
});
