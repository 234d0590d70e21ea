// The records of the forks Baton made and their sweep at start (forkSweep.ts): only a recorded fork nothing refers to
// (by id or by its worker's name), old enough and in use by no other process, is deleted; a record whose session is gone
// just goes; the records are bounded.
import * as assert from 'node:assert/strict';
import type { AgentSessions } from '../../src/core/copilot/agentSessions';
import type { BatonStore } from '../../src/core/store/types';
import { MemoryLogger } from '../../src/core/util/logger';
import { FORK_RECORD_PREFIX, FORK_RECORDS_MAX, forgetFork, recordFork, sweepForks } from '../../src/core/workers/forkSweep';

function fixture(existing: string[], busy: string[] = []) {
  const state = new Map<string, string>();
  const store = {
    getState: (k: string) => state.get(k),
    setState: (k: string, v: string) => void state.set(k, v),
    deleteState: (k: string) => void state.delete(k),
    stateKeys: (prefix: string) => [...state.keys()].filter((k) => k.startsWith(prefix)),
  } as unknown as BatonStore;
  const deleted: string[] = [];
  const sessions = {
    inUse: async (ids: string[]) => new Set(ids.filter((id) => busy.includes(id))),
    metadata: async (id: string) => (existing.includes(id) ? { workingDir: '/w' } : undefined),
    delete: async (id: string) => void deleted.push(id),
  } as unknown as AgentSessions;
  return { state, store, deleted, sessions, logger: new MemoryLogger() };
}

describe('forkSweep: Baton\u2019s forks a closed window left', () => {
  it('deletes only recorded forks nothing refers to, old enough and not in use; a gone one loses its record', async () => {
    const fx = fixture(['orphan', 'byId', 'byName', 'young', 'busy', 'user']);
    const old = Date.now() - 3_600_000;
    for (const [id, worker] of [
      ['orphan', 'a'],
      ['byId', 'b'],
      ['byName', 'c'],
      ['busy', 'e'],
      ['gone', 'f'],
    ])
      recordFork(fx.store, fx.logger, id!, worker!, old);
    recordFork(fx.store, fx.logger, 'young', 'd');
    fx.state.set(FORK_RECORD_PREFIX + 'garbled', '{not json');
    const swept = await sweepForks({
      sessions: { ...fx.sessions, inUse: async (ids: string[]) => new Set(ids.filter((id) => id === 'busy')) },
      store: fx.store,
      logger: fx.logger,
      referenced: () => ['byId', 'user', undefined],
      workerNames: () => ['c'],
    });
    assert.deepEqual(swept, ['orphan']);
    assert.deepEqual(fx.deleted, ['orphan'], 'the user\u2019s own session (never recorded) is never touched');
    assert.deepEqual(fx.store.stateKeys(FORK_RECORD_PREFIX).sort(), ['byId', 'byName', 'busy', 'young'].map((id) => FORK_RECORD_PREFIX + id).sort());
  });

  it('deletes nothing when it cannot tell which forks are in use', async () => {
    const fx = fixture(['orphan']);
    recordFork(fx.store, fx.logger, 'orphan', 'a', 0);
    const sessions = {
      ...fx.sessions,
      inUse: async () => {
        throw new Error('runtime down');
      },
    };
    assert.deepEqual(await sweepForks({ sessions, store: fx.store, logger: fx.logger, referenced: () => [], workerNames: () => [] }), []);
    assert.deepEqual(fx.deleted, []);
    assert.equal(fx.store.stateKeys(FORK_RECORD_PREFIX).length, 1);
  });

  it('keeps at most FORK_RECORDS_MAX records, the oldest going first; a fork deleted is forgotten', () => {
    const fx = fixture([]);
    for (let i = 0; i < FORK_RECORDS_MAX + 5; i++) recordFork(fx.store, fx.logger, `f${i}`, `w${i}`, 1000 + i);
    const keys = fx.store.stateKeys(FORK_RECORD_PREFIX);
    assert.equal(keys.length, FORK_RECORDS_MAX);
    assert.ok(!keys.includes(FORK_RECORD_PREFIX + 'f4') && keys.includes(FORK_RECORD_PREFIX + 'f5'));
    forgetFork(fx.store, fx.logger, 'f5');
    forgetFork(fx.store, fx.logger, 'never-recorded');
    assert.equal(fx.store.stateKeys(FORK_RECORD_PREFIX).length, FORK_RECORDS_MAX - 1);
  });
});
