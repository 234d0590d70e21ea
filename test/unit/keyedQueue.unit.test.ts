import * as assert from 'node:assert/strict';
import { KeyedQueue } from '../../src/core/util/keyedQueue';

describe('KeyedQueue', () => {
  const later =
    <T>(ms: number, value: T, log: string[], tag: string): (() => Promise<T>) =>
    () => {
      log.push(`start ${tag}`);
      return new Promise((res) => setTimeout(() => (log.push(`end ${tag}`), res(value)), ms));
    };

  it('runs one key\u2019s tasks one after the other in order, other keys at once; a failure does not stop the next', async () => {
    const q = new KeyedQueue();
    const log: string[] = [];
    const a1 = q.run('a', later(30, 1, log, 'a1'));
    const failed = q.run('a', () => Promise.reject(new Error('boom')));
    const b1 = q.run('b', later(5, 2, log, 'b1'));
    const a2 = q.run('a', later(1, 3, log, 'a2'));
    assert.equal(await a1, 1);
    await assert.rejects(failed, /boom/);
    assert.equal(await b1, 2);
    assert.equal(await a2, 3);
    assert.deepEqual(log, ['start a1', 'start b1', 'end b1', 'end a1', 'start a2', 'end a2']);
  });

  it('keeps nothing of a key once its last task settled', async () => {
    const q = new KeyedQueue();
    await Promise.allSettled([q.run('a', async () => 1), q.run('a', () => Promise.reject(new Error('x'))), q.run('b', async () => 2)]);
    await new Promise((res) => setImmediate(res));
    assert.equal(q.size, 0);
  });
});
