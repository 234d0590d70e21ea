import * as assert from 'node:assert/strict';
import { SeqGate } from '../../webview/seqGate';

describe('SeqGate', () => {
  it('drops everything until the first snapshot, then applies messages in sequence', () => {
    const gate = new SeqGate();
    assert.equal(gate.accept({ type: 'message/delta', seq: 4 }), 'ignore');
    assert.equal(gate.accept({ type: 'snapshot', seq: 5 }), 'apply');
    assert.equal(gate.accept({ type: 'message/delta', seq: 6 }), 'apply');
    assert.equal(gate.accept({ type: 'state', seq: 7 }), 'apply');
  });

  it('ignores messages the snapshot already covers', () => {
    const gate = new SeqGate();
    gate.accept({ type: 'snapshot', seq: 10 });
    assert.equal(gate.accept({ type: 'message/delta', seq: 9 }), 'ignore');
    assert.equal(gate.accept({ type: 'message/delta', seq: 10 }), 'ignore');
    assert.equal(gate.accept({ type: 'message/delta', seq: 11 }), 'apply');
  });

  it('asks for a snapshot once on a gap and drops messages until it comes', () => {
    const gate = new SeqGate();
    gate.accept({ type: 'snapshot', seq: 1 });
    assert.equal(gate.accept({ type: 'message/delta', seq: 3 }), 'request');
    assert.equal(gate.awaitingSnapshot, true);
    assert.equal(gate.accept({ type: 'message/delta', seq: 4 }), 'ignore');
    assert.equal(gate.accept({ type: 'snapshot', seq: 4 }), 'apply');
    assert.equal(gate.accept({ type: 'message/delta', seq: 5 }), 'apply');
  });

  it('always takes a snapshot, even one numbered lower (the host restarted its count)', () => {
    const gate = new SeqGate();
    gate.accept({ type: 'snapshot', seq: 50 });
    assert.equal(gate.accept({ type: 'snapshot', seq: 1 }), 'apply');
    assert.equal(gate.accept({ type: 'state', seq: 2 }), 'apply');
  });

  it('can be invalidated when the caller finds itself out of sync', () => {
    const gate = new SeqGate();
    gate.accept({ type: 'snapshot', seq: 1 });
    gate.invalidate();
    assert.equal(gate.accept({ type: 'message/delta', seq: 2 }), 'ignore');
  });
});
