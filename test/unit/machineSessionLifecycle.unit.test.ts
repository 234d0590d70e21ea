// Machine sessions and Baton's own copies of them: which worker marks a session (a killed one marks none), what a cut
// listing says, and a fork's life as a worker's session: deleted when its work is settled, like a session Baton
// created, kept while its changes wait (across a restart too), never an attached session.
import * as assert from 'node:assert/strict';
import type { AgentSessions, SessionSpec } from '../../src/core/copilot/agentSessions';
import type { BatonStore } from '../../src/core/store/types';
import { MemoryLogger } from '../../src/core/util/logger';
import { newestOfNote, sessionWorkers } from '../../src/core/workers/machineSessions';
import { KEPT_SESSION_PREFIX, SessionLifecycle } from '../../src/core/workers/sessionLifecycle';
import { newWorker, type Worker, type WorkerInfo } from '../../src/core/workers/workerTypes';
import { eachUnitCore, type UnitCore } from '../support/inMemoryCore';

describe('machine sessions: worker marks and the bound on a listing', () => {
  it('a killed worker marks no session; any other worker does', () => {
    const marks = sessionWorkers([
      { name: 'att', sessionId: 's1', state: 'killed' },
      { name: 'idle', sessionId: 's2', state: 'idle' },
      { name: 'done', sessionId: 's3', state: 'done' },
      { name: 'none', state: 'running' },
    ]);
    assert.deepEqual(
      [...marks],
      [
        ['s2', 'idle'],
        ['s3', 'done'],
      ],
    );
  });

  it('says how many sessions there are when the listing is cut, nothing when all are shown', () => {
    assert.equal(newestOfNote(100, 150), 'The newest 100 of 150 sessions');
    assert.equal(newestOfNote(100, 100), undefined);
    assert.equal(newestOfNote(3, 3), undefined);
  });

  let fx: UnitCore;
  eachUnitCore((core) => (fx = core));
  it('a listing reports the total past the limit, and a killed worker no longer marks its session', async () => {
    const now = Date.now();
    fx.sessions.machine = Array.from({ length: 150 }, (_, i) => ({
      sessionId: `s-${String(i).padStart(3, '0')}`,
      workingDir: fx.workDir,
      summary: `session ${i}`,
      startedAt: now - i * 60_000,
      modifiedAt: now - i * 60_000,
      isRemote: false,
    }));
    const page = await fx.core.pool.machine.page({ limit: 100 });
    assert.equal(page.sessions.length, 100);
    assert.equal(page.total, 150);
    assert.equal(page.sessions[0]!.sessionId, 's-000', 'newest first');
    assert.equal((await fx.core.pool.machine.page({ limit: 200 })).sessions.length, 100, 'never more than 100');

    await fx.core.pool.machine.attach('s-005', 'att');
    const cards: WorkerInfo[][] = [];
    fx.core.pool.onDidChange((workers) => cards.push(workers));
    assert.equal(sessionWorkers(fx.core.pool.list()).get('s-005'), 'att');
    await fx.core.pool.kill('att');
    // What the Copilot Sessions tree marks from the pool's change event agrees with the core's listing.
    assert.equal(sessionWorkers(cards.at(-1) ?? fx.core.pool.list()).get('s-005'), undefined);
    assert.equal((await fx.core.pool.machine.list({ limit: 100 })).find((s) => s.sessionId === 's-005')!.worker, undefined);
  });
});

describe('SessionLifecycle: a fork is Baton\u2019s own session, an attached one never is', () => {
  function fixture(pending: Set<string>) {
    const state = new Map<string, string>();
    const store = {
      getState: (k: string) => state.get(k),
      setState: (k: string, v: string) => void state.set(k, v),
      deleteState: (k: string) => void state.delete(k),
      stateKeys: (prefix: string) => [...state.keys()].filter((k) => k.startsWith(prefix)),
    } as unknown as BatonStore;
    const deleted: string[] = [];
    const created: SessionSpec[] = [];
    const sessions = {
      delete: async (id: string) => void deleted.push(id),
      // Only sessions in Baton's own folder can be "gone" from it: a fork lives in the user's Copilot home.
      ownSessionGone: async (id: string) => !id.startsWith('own-'),
      create: async (spec: SessionSpec) => (created.push(spec), { id: 'own-new' }),
    } as unknown as AgentSessions;
    const workers = new Map<string, Worker>();
    const lifecycle = new SessionLifecycle({
      sessions,
      store,
      logger: new MemoryLogger(),
      find: (n) => workers.get(n),
      isActive: () => false,
      hasPendingChanges: (n) => pending.has(n),
      disconnect: async () => undefined,
    });
    const worker = (name: string, source: WorkerInfo['source'], sessionId: string): Worker => {
      const w = newWorker({ name, dir: '/tmp/x', replyTo: 'panel', source, now: Date.now }, () => async () => ({ kind: 'approve-once' }));
      w.sessionId = sessionId;
      w.state = 'done';
      workers.set(name, w);
      return w;
    };
    return { lifecycle, deleted, created, workers, worker, state };
  }

  it('deletes a fork when its task ends with nothing pending; never an attached session', async () => {
    const fx = fixture(new Set());
    await fx.lifecycle.taskEnded(fx.worker('f', 'forked', 'fork-1'));
    await fx.lifecycle.taskEnded(fx.worker('a', 'attached', 'user-1'));
    assert.deepEqual(fx.deleted, ['fork-1']);
    assert.equal(fx.workers.get('f')!.sessionId, undefined);
    assert.equal(fx.workers.get('a')!.sessionId, 'user-1');
  });

  it('keeps a fork while its changes wait, across a restart, then deletes it once they are settled', async () => {
    const pending = new Set(['f']);
    const before = fixture(pending);
    before.lifecycle.keepAtClose(before.worker('f', 'forked', 'fork-1'));
    assert.deepEqual(before.deleted, []);
    assert.equal(before.state.get(KEPT_SESSION_PREFIX + 'f'), 'fork-1');

    // The next start lists it again as 'created' (pendingWorkers.ts) with the kept id: the fork is told apart, not
    // taken for one of Baton's own sessions gone from its folder.
    const after = fixture(pending);
    for (const [k, v] of before.state) after.state.set(k, v);
    const w = after.worker('f', 'created', after.lifecycle.keptId('f')!);
    await after.lifecycle.closeIfGone(w);
    assert.equal(w.sessionId, 'fork-1');
    assert.equal(w.source, 'forked');
    assert.equal(w.sessionClosed, undefined);

    pending.clear();
    await after.lifecycle.settled('f');
    assert.deepEqual(after.deleted, ['fork-1']);
    assert.deepEqual([...after.state.keys()], []);
    // A follow-up goes on in a new session of Baton's own, never a new one in the user's Copilot home.
    const spec = { role: 'worker', workingDirectory: '/tmp/x', systemMessage: '', permissions: async () => ({ kind: 'approve-once' }), ownSession: false };
    const { fresh } = await after.lifecycle.reopen(w, spec as SessionSpec);
    assert.equal(fresh, true);
    assert.equal((after.created[0] as { ownSession?: boolean }).ownSession, true);
    assert.equal(w.source, 'created');
  });
});
