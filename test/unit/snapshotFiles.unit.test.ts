// Which files a session's snapshots copied, read from the runtime's index of them to decide whose they are: anything
// unexpected reads as no files, so the sweep keeps the folder.
import * as assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { snapshotFiles } from '../../src/core/copilot/snapshotFiles';

describe('snapshotFiles', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-snapshots-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const read = async (content: string): Promise<string[]> => {
    await writeFile(join(dir, 'index.json'), content);
    return snapshotFiles(join(dir, 'index.json'));
  };

  it('lists every file of every snapshot, as the runtime resolved it', async () => {
    const index = {
      schema: 1,
      snapshots: [
        { files: { a: { path: '/w/link/a.ts', preimage: { kind: 'content', resolvedPath: '/w/real/a.ts' } } } },
        { files: { b: { path: '/w/real/b.ts' }, c: { path: '/w/real/c.ts', preimage: { kind: 'absent' } } } },
      ],
    };
    assert.deepEqual(await read(JSON.stringify(index)), ['/w/real/a.ts', '/w/real/b.ts', '/w/real/c.ts']);
  });

  it('reads anything unexpected as no files', async () => {
    for (const content of [
      'not json',
      '{}',
      '{"snapshots": {}}',
      '{"snapshots": [null]}',
      '{"snapshots": [{"files": {"a": {"path": 7}}}]}',
      '{"snapshots": [{"files": {"a": {"path": "/ok"}}}, {"files": {"b": {}}}]}',
    ])
      assert.deepEqual(await read(content), [], content);
    assert.deepEqual(await snapshotFiles(join(dir, 'missing.json')), []);
  });
});
