// The bound on a reply as people read it (src/core/orchestrator/replyBound.ts), delta by delta.
import * as assert from 'node:assert/strict';
import { boundedDelta, REPLY_CUT_NOTE } from '../../src/core/orchestrator/replyBound';
import { MAX_REPLY_CHARS } from '../../src/core/store/bounds';

/** Streams `deltas` through the bound as the orchestrator does and returns the reply kept. */
function stream(deltas: string[]): string {
  let text = '';
  for (const d of deltas) text += boundedDelta(text, d);
  return text;
}

describe('replyBound', () => {
  const full = 'a'.repeat(MAX_REPLY_CHARS);

  it('keeps a reply of exactly the bound whole, with no note', () => {
    assert.equal(stream([full.slice(0, 100), full.slice(100)]), full);
  });

  it('cuts at the bound and says so once, whatever streams after', () => {
    assert.equal(stream([full.slice(0, 10), `${full.slice(10)}b`, 'more', 'and more']), `${full}\n\n${REPLY_CUT_NOTE}`);
    assert.equal(stream([full, 'x']), `${full}\n\n${REPLY_CUT_NOTE}`, 'a delta just past a reply at the bound');
  });

  it('never keeps half of a character written as two UTF-16 units', () => {
    const kept = stream([`${'a'.repeat(MAX_REPLY_CHARS - 1)}😀 tail`]);
    assert.equal(kept, `${'a'.repeat(MAX_REPLY_CHARS - 1)}\n\n${REPLY_CUT_NOTE}`);
  });

  it('closes a code block open at the cut with its own fence, so the note reads as text', () => {
    const before = `intro\n\n~~~~python\n`;
    const kept = stream([before, 'x = 1\n'.repeat(MAX_REPLY_CHARS / 4)]);
    assert.ok(kept.endsWith(`\n~~~~\n\n${REPLY_CUT_NOTE}`), kept.slice(-120));
    const closed = stream(['```\ncode\n```\n', 'b'.repeat(MAX_REPLY_CHARS)]);
    assert.ok(closed.endsWith(`b\n\n${REPLY_CUT_NOTE}`), 'a block closed before the cut gets no fence');
  });
});
