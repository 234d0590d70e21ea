// How times and changes read: a worker's duration and changes on its result card, in an exported conversation and in the
// Workers view; how long ago a conversation was last active in the panel's list.
import * as assert from 'node:assert/strict';
import { changesText, durationText } from '../../src/shared/workerResultText';
import { ago } from '../../webview/conversationList';

describe('workerResultText', () => {
  it('reads a duration in the unit people use, rounded before it is split so no carry is lost', () => {
    const cases: [number, string][] = [
      [0, '0 s'],
      [-5, '0 s'],
      [940, '0.9 s'],
      [4_200, '4.2 s'],
      [9_949, '9.9 s'],
      [9_960, '10 s'],
      [38_000, '38 s'],
      [59_600, '1 min 0 s'],
      [83_000, '1 min 23 s'],
      [239_600, '4 min 0 s'],
      [3_599_600, '1 h 0 min'],
      [3_720_000, '1 h 2 min'],
    ];
    assert.deepEqual(
      cases.map(([ms]) => [ms, durationText(ms)]),
      cases,
    );
  });

  it('says what a worker changed, or that it changed nothing', () => {
    assert.equal(changesText(undefined), 'No changes');
    assert.equal(changesText({ files: 0, additions: 0, deletions: 0 }), 'No changes');
    assert.equal(changesText({ files: 1, additions: 1, deletions: 1 }), '1 file changed, +1 \u22121');
    assert.equal(changesText({ files: 12, additions: 4_000, deletions: 2 }), '12 files changed, +4,000 \u22122');
  });
});

describe('conversation list: when a conversation was last active', () => {
  it('counts whole units passed, as a clock reads', () => {
    const now = Date.UTC(2026, 10, 30, 12);
    assert.deepEqual(
      [59_000, 60_000, 3_570_000, 3_600_000, 86_000_000].map((ago_) => ago(now - ago_, now)),
      ['just now', '1 min ago', '59 min ago', '1 h ago', '23 h ago'],
    );
  });
});
