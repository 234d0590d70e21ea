// A worker's output reaches the panel and the Workers view a few times a second, whatever the clock does: a clock set
// back (an NTP step, a laptop's time zone fix) made the throttle wait the size of the jump, so no output was shown
// for an hour while state changes still were.
import * as assert from 'node:assert/strict';
import { WorkerRegistry } from '../../src/core/workers/workerRegistry';

describe("a worker's output updates", () => {
  it('keep coming within the throttle after the clock is set back an hour', async () => {
    const reg = new WorkerRegistry({ settings: () => ({}) as never, now: Date.now });
    let fired = 0;
    reg.onDidChange(() => fired++);
    reg.fireNow();
    const realNow = Date.now;
    const back = realNow() - 3_600_000;
    Date.now = () => back;
    try {
      reg.fireSoon();
      await new Promise((r) => setTimeout(r, 600));
    } finally {
      Date.now = realNow;
      reg.dispose();
    }
    assert.equal(fired, 2, 'the output update came within the throttle');
  });
});
