// Listeners removed while an event is delivered: whoever disposed one expects no more events, as with VS Code's own
// emitter. Before, the copy of the listeners taken at the start of the delivery still called it: an API handler
// disposed by another handler of the same event (BatonEvents' instance handlers ride on this emitter) got that event.
import * as assert from 'node:assert/strict';
import { Emitter } from '../../src/core/util/emitter';

describe('Emitter', () => {
  it('does not call a listener removed by one before it in the same delivery; one added meanwhile waits for the next', () => {
    const emitter = new Emitter<number>();
    const heard: string[] = [];
    let offSecond: () => void = () => undefined;
    emitter.event((n) => {
      heard.push(`first ${n}`);
      offSecond();
      if (n === 1) emitter.event((m) => heard.push(`late ${m}`));
    });
    offSecond = emitter.event((n) => heard.push(`second ${n}`));
    emitter.fire(1);
    emitter.fire(2);
    assert.deepEqual(heard, ['first 1', 'first 2', 'late 2']);
  });

  it('keeps delivering to the others when one throws', () => {
    const emitter = new Emitter<number>();
    const heard: number[] = [];
    const error = console.error;
    console.error = () => undefined;
    try {
      emitter.event(() => {
        throw new Error('faulty subscriber');
      });
      emitter.event((n) => heard.push(n));
      emitter.fire(7);
    } finally {
      console.error = error;
    }
    assert.deepEqual(heard, [7]);
  });
});
