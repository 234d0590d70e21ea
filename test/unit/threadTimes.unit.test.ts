// The calling thread's time on a CPU and waiting for one: what the core-ready log line reports next to its wall time.
import assert from 'node:assert/strict';
import { threadTimes, threadTimesSince } from '../../src/core/util/threadTimes';

describe('threadTimes', () => {
  it('counts a busy loop of this thread as time on a CPU or waiting for one, never more than the wall time', () => {
    const before = threadTimes();
    if (process.platform !== 'linux') {
      assert.equal(before, undefined, 'only Linux counts it');
      return;
    }
    assert.ok(before, 'Linux counts it');
    const start = performance.now();
    while (performance.now() - start < 30) {
      // Spin: all of this wall time is spent running, or ready to run and waiting for a CPU.
    }
    const spent = threadTimesSince(before);
    const wall = performance.now() - start;
    assert.ok(spent);
    assert.ok(spent.onCpuMs > 0 && spent.waitingMs >= 0, JSON.stringify(spent));
    // 1 ms of slack: the two readings sit just outside the timed span.
    assert.ok(spent.onCpuMs + spent.waitingMs >= 29, `${JSON.stringify(spent)} over ${wall} ms`);
    assert.ok(spent.onCpuMs <= wall + 1, `${JSON.stringify(spent)} over ${wall} ms`);
  });

  it('says nothing where the kernel does not count it', () => {
    assert.equal(threadTimes('darwin'), undefined);
    assert.equal(threadTimes('win32'), undefined);
    assert.equal(threadTimesSince(undefined), undefined);
  });
});
