import * as assert from 'node:assert/strict';
import { FRAME_MS, MAX_FLUSH_CHARS, MIN_FLUSH_CHARS, StreamBudget } from '../../webview/streamBudget';

describe('stream budget (streamed characters a frame renders)', () => {
  it('starts at the least: the first frame of a stream applies MIN_FLUSH_CHARS before any rate is known', () => {
    // 1,024 characters of a task list were 13–17 ms of script and 24–44 ms of the frame's CPU: every stream's longest
    // task, traced (docs/performance.md, streamed lists). The budget grows twofold a frame from here while text is cheap.
    const budget = new StreamBudget();
    assert.equal(budget.chars, MIN_FLUSH_CHARS);
    budget.record(MIN_FLUSH_CHARS, 0);
    assert.equal(budget.chars, 2 * MIN_FLUSH_CHARS);
  });

  it('fits the characters to FRAME_MS at the rate the last frame measured', () => {
    const budget = new StreamBudget();
    // 1,024 characters of a costly list in twice FRAME_MS: half as many fit.
    budget.record(1024, 2 * FRAME_MS);
    assert.equal(budget.chars, 512);
    budget.record(512, FRAME_MS / 2);
    assert.equal(budget.chars, 1024, 'grows at most twofold a frame');
  });

  it('stays within its bounds, and ignores frames that applied too little to tell', () => {
    const budget = new StreamBudget();
    budget.record(1024, 1000);
    assert.equal(budget.chars, MIN_FLUSH_CHARS, 'a stalled frame leaves the stream moving');
    for (let i = 0; i < 20; i++) budget.record(budget.chars, 0);
    assert.equal(budget.chars, MAX_FLUSH_CHARS, 'cheap text is bounded too');
    budget.record(10, 1000);
    assert.equal(budget.chars, MAX_FLUSH_CHARS);
  });

  it('times a frame to the task after it, so what ran after the script counts', async () => {
    const budget = new StreamBudget();
    budget.record(1024, 2 * FRAME_MS);
    assert.equal(budget.chars, 512);
    const started = performance.now();
    budget.recordFrame(1024, started);
    assert.equal(budget.chars, 512, 'not recorded before the frame ends');
    // The frame's rendering, in the same task after its script: here, a busy wait of 4 × FRAME_MS.
    while (performance.now() - started < 4 * FRAME_MS);
    // The record runs in a task after this one; in Node that is a MessagePort message, which a 0 ms timer can
    // overtake, so wait for the task (up to a second) rather than for one timer.
    for (const until = Date.now() + 1000; budget.chars === 512 && Date.now() < until;) await new Promise((resolve) => setTimeout(resolve, 5));
    // 1,024 characters in at least 4 × FRAME_MS: at most a quarter of them fit (the script alone took next to none).
    assert.equal(budget.chars, MIN_FLUSH_CHARS, 'the whole frame counted');
  });
});
