// The sweep of tool results the Copilot runtime saves in its TMPDIR (src/core/runtime/toolOutputSweep.ts): those of a
// runtime no longer running go, the live runtime's once an hour old, nothing else in the folder is touched.
import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sweepToolOutputs, TOOL_OUTPUT_KEEP_MS } from '../../src/core/runtime/toolOutputSweep';

const OWN = 4100;
const OTHER_LIVE = 4200;
const DEAD = 4300;
const name = (pid: number, ms = 1796002145640) => `${ms}-copilot-tool-output-${pid}-c7f03414-9469-4d6c-a73a-d1c502a04b7d.txt`;

describe('sweepToolOutputs', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-tool-outputs-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("deletes a dead runtime's saved results and the live one's past an hour; keeps the rest and everything else", async () => {
    const now = Date.now();
    const files: Record<string, number> = {
      [name(OWN, 1)]: now - TOOL_OUTPUT_KEEP_MS - 1000,
      [name(OWN, 2)]: now - 60_000,
      [name(OTHER_LIVE)]: now - 10 * TOOL_OUTPUT_KEEP_MS,
      [name(DEAD)]: now - 1000,
      'notes.txt': now - 10 * TOOL_OUTPUT_KEEP_MS,
      [`x${name(DEAD)}`]: now - 10 * TOOL_OUTPUT_KEEP_MS,
    };
    for (const [file, at] of Object.entries(files)) {
      await writeFile(join(dir, file), 'saved output');
      await utimes(join(dir, file), at / 1000, at / 1000);
    }
    // A folder of that name is not a saved result.
    await mkdir(join(dir, name(OWN, 3)));
    const removed = await sweepToolOutputs({ dir, own: OWN, now, alive: (pid) => pid === OTHER_LIVE });
    assert.equal(removed, 2);
    assert.deepEqual((await readdir(dir)).sort(), [name(OWN, 2), name(OWN, 3), name(OTHER_LIVE), 'notes.txt', `x${name(DEAD)}`].sort());
  });

  it('a folder that does not exist is nothing to sweep', async () => {
    assert.equal(await sweepToolOutputs({ dir: join(dir, 'missing'), own: OWN }), 0);
  });
});
