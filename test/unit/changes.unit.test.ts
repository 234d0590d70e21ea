import * as assert from 'node:assert/strict';
import { suggestCommitMessage } from '../../src/core/changes/keepAsBranch';
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

describe('the commit message of a kept branch', () => {
  it("starts from the worker's summary: its first line (without markdown) as the subject, the rest as the body", () => {
    assert.equal(suggestCommitMessage('w', '## Renamed parseConfig\n\nAlso updated the two callers.'), 'Renamed parseConfig\n\nAlso updated the two callers.');
    assert.equal(suggestCommitMessage('w', 'One line'), 'One line');
    assert.equal(suggestCommitMessage('w', undefined), "Changes by Baton worker 'w'");
    assert.equal(suggestCommitMessage('w', `${'x'.repeat(100)}`).length, 72, 'a subject is at most 72 characters');
  });
});
