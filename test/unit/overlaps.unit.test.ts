import * as assert from 'node:assert/strict';
import { describeOverlaps, findOverlaps } from '../../src/core/changes/overlaps';

describe('overlaps between pending change sets', () => {
  it('pairs the workers that touched one file, both ways, and nobody else', () => {
    const found = findOverlaps(
      new Map([
        ['alpha', ['src/app.txt', 'README.md']],
        ['beta', ['src/app.txt', 'README.md', 'b.txt']],
        ['gamma', ['c.txt']],
      ]),
    );
    assert.deepEqual(found.get('alpha'), [{ worker: 'beta', paths: ['README.md', 'src/app.txt'] }]);
    assert.deepEqual(found.get('beta'), [{ worker: 'alpha', paths: ['README.md', 'src/app.txt'] }]);
    assert.equal(found.get('gamma'), undefined);
    assert.equal(describeOverlaps(found.get('alpha')!), "worker 'beta' (README.md, src/app.txt)");
  });
});
