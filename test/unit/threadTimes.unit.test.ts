// The calling thread's time on a CPU and waiting for one: what the core-ready log line reports next to its wall time.
import assert from 'node:assert/strict';
import { threadTimes, threadTimesSince } from '../../src/core/util/threadTimes';

describe('threadTimes', () => {
  it('counts a busy loop of this thread as time on a CPU, never more than the wall time it took', () => {
    const before = threadTimes();
    if (process.platform !== 'linux') {
      assert.equal(before, undefined, 'only Linux counts it');
      return;
    }
    assert.ok(before, 'Linux counts it');
    const start = performance.now();
    let spent = threadTimesSince(before);
    // Spin until the kernel has counted 30 ms on a CPU (a loaded machine stretches the wall time, not this).
    while (spent && spent.onCpuMs < 30 && performance.now() - start < 10_000) spent = threadTimesSince(before);
    const wall = performance.now() - start;
    assert.ok(spent);
    assert.ok(spent.onCpuMs >= 30, `${JSON.stringify(spent)} after ${wall} ms of spinning`);
    assert.ok(spent.waitingMs >= 0, JSON.stringify(spent));
    // The kernel brings a running thread's count up to date at each scheduler tick (up to 10 ms): the first reading
    // may lag by that much, never the time itself.
    assert.ok(spent.onCpuMs <= wall + 10, `${JSON.stringify(spent)} over ${wall} ms`);
  });

  it('says nothing where the kernel does not count it', () => {
    assert.equal(threadTimes('darwin'), undefined);
    assert.equal(threadTimes('win32'), undefined);
    assert.equal(threadTimesSince(undefined), undefined);
  });
});
