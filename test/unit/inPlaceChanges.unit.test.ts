import * as assert from 'node:assert/strict';
import { realFileChanges } from '../../src/core/changes/inPlaceChanges';

describe("a worker in place: the runtime's tracked files that are its changes", () => {
  const change = (p: string) => ({ path: p, changeType: 'modified', diff: '' });

  it('drops what lies under /proc, /sys or /dev, relative to the folder or absolute; keeps every real file, outside the folder too', () => {
    const kept = realFileChanges(
      [
        '../../../../proc/self/status',
        '/sys/class/net/lo/statistics/rx_bytes',
        '/dev/null',
        'src/app.ts',
        '../processes.txt',
        '/home/u/.bashrc',
        '/procfs/x',
      ].map(change),
      '/home/u/dev/app',
    );
    assert.deepEqual(
      kept.map((c) => c.path),
      ['src/app.ts', '../processes.txt', '/home/u/.bashrc', '/procfs/x'],
    );
  });
});
