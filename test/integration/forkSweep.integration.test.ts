// A fork Baton made of a machine session ("baton: <name>", in the user's Copilot home) whose worker was idle or running
// when the window closed (or crashed) is nobody's at the next start: against the REAL runtime, the sweep at start
// deletes it there (forkSweep.ts), as it deletes Baton's own orphaned sessions; the session it was forked from, an
// attached one and a fork whose changes wait for review stay, and a record whose session is gone just goes.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { FORK_RECORD_PREFIX } from '../../src/core/workers/forkSweep';
import { KEPT_FORK_PREFIX, KEPT_SESSION_PREFIX } from '../../src/core/workers/sessionLifecycle';
import { userCliSessions } from '../support/userCliSessions';
import { waitFor } from '../support/waitFor';
import { useWorkerCore } from '../support/workerCore';

describe('forks a closed window left are swept at start (real runtime)', function () {
  this.timeout(120_000);
  const fx = useWorkerCore();

  it('an idle fork and a running one go at the next start; the source, an attached session and a fork whose changes wait stay', async () => {
    const env = fx.core.env;
    const ids = await userCliSessions(fx, ['cli task one', 'cli task two']);
    const [source, user] = ids as [string, string];
    const folder = (id: string) => join(env.COPILOT_HOME!, 'session-state', id);
    const pool = fx.core.pool;

    // A fork whose changes wait for review, as its task's end leaves it (sessionLifecycle.ts keepWhilePending): its
    // session id kept by the worker's name, so the next start lists it again. Kept by the sweep too.
    const keep = await pool.machine.fork(source, 'keep');
    fx.core.store.setState(KEPT_SESSION_PREFIX + 'keep', keep.sessionId!);
    fx.core.store.setState(KEPT_FORK_PREFIX + 'keep', keep.sessionId!);

    // An idle fork, and one whose task runs as the window closes.
    const idle = await pool.machine.fork(source, 'idle');
    const busy = await pool.machine.attach(source, 'busy', { fork: true });
    fx.core.server.on({ systemIncludes: "You are 'busy'", lastUserIncludes: 'TASK-busy', name: 'busy, held' }, { text: 'never seen', delayMs: 60_000 });
    fx.answerResults('busy', 'noted the interruption');
    await pool.send('busy', 'TASK-busy');
    await waitFor('the busy fork running its task', () => fx.core.server.chatRequests().some((r) => r.lastUserText?.includes('TASK-busy')));
    // The user's own session, attached: never Baton's to delete.
    await pool.machine.attach(user, 'mine');

    // Recorded long enough ago for the sweep (a fork made in the last minutes may be another window's, not listed yet).
    const store = fx.core.store;
    for (const key of store.stateKeys(FORK_RECORD_PREFIX))
      store.setState(key, JSON.stringify({ ...(JSON.parse(store.getState(key)!) as object), at: Date.now() - 3_600_000 }));
    const ghost = 'a0a0a0a0-0000-4000-8000-000000000000';
    store.setState(FORK_RECORD_PREFIX + ghost, JSON.stringify({ worker: 'ghost', at: 0 }));

    await fx.core.restart();
    await waitFor('the idle and the running forks deleted', () => !existsSync(folder(idle.sessionId!)) && !existsSync(folder(busy.sessionId!)));
    await waitFor('their records and the ghost\u2019s gone', () => fx.core.store.stateKeys(FORK_RECORD_PREFIX).length === 1);
    assert.deepEqual(fx.core.store.stateKeys(FORK_RECORD_PREFIX), [FORK_RECORD_PREFIX + keep.sessionId]);
    assert.ok(existsSync(join(folder(keep.sessionId!), 'events.jsonl')), 'the fork whose changes wait stays');
    assert.ok(existsSync(join(folder(source), 'events.jsonl')), 'the source session stays');
    assert.ok(existsSync(join(folder(user), 'events.jsonl')), 'the attached session stays');
    assert.deepEqual(
      new Set((await fx.core.pool.machine.list()).map((s) => s.sessionId)),
      new Set([source, user, keep.sessionId]),
      'no other "baton: <name>" left in the list',
    );
    await waitFor('the interrupted task reported', () => fx.backgroundDone() >= 1);
  });
});
