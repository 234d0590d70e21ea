// readFileInPieces, which the store's open reads its file with: the bytes readFileSync would give, through one small
// buffer that every read reuses.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { readFileInPieces } from '../../src/core/store/readFileInPieces';

const PIECE = 256 * 1024;

describe('readFileInPieces', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-read-pieces-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  for (const size of [0, 1, PIECE - 1, PIECE, PIECE + 1, 3 * PIECE + 123]) {
    it(`gives every byte of a ${size}-byte file, in order`, async () => {
      const bytes = randomBytes(size);
      await writeFile(join(dir, 'f'), bytes);
      const read = readFileInPieces(join(dir, 'f'));
      assert.equal(read.length, size);
      assert.ok(read.equals(bytes));
    });
  }

  it('leaves what an earlier read gave as it was (the piece it reads through is reused)', async () => {
    const first = randomBytes(2 * PIECE + 7);
    const second = randomBytes(PIECE + 5);
    await writeFile(join(dir, 'a'), first);
    await writeFile(join(dir, 'b'), second);
    const a = readFileInPieces(join(dir, 'a'));
    const b = readFileInPieces(join(dir, 'b'));
    assert.ok(a.equals(first));
    assert.ok(b.equals(second));
  });

  it('fails with the error code the store decides by: ENOENT for a missing file, EISDIR for a folder', async () => {
    assert.throws(() => readFileInPieces(join(dir, 'missing')), { code: 'ENOENT' });
    await mkdir(join(dir, 'folder'));
    assert.throws(() => readFileInPieces(join(dir, 'folder')), { code: 'EISDIR' });
  });
});
