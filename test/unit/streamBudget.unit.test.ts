import * as assert from 'node:assert/strict';
import { MAX_FLUSH_CHARS, MIN_FLUSH_CHARS, STREAM_MS, StreamBudget } from '../../webview/streamBudget';

describe('stream budget (streamed characters a frame renders)', () => {
  it('fits the characters to STREAM_MS at the rate the last frame measured', () => {
    const budget = new StreamBudget();
    // 1,024 characters of a costly list in 12 ms: half as many fit.
    budget.record(1024, 2 * STREAM_MS);
    assert.equal(budget.chars, 512);
    budget.record(512, STREAM_MS / 2);
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
});
