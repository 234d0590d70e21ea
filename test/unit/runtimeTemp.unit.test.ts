import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntimeTemp, sweepRuntimeTemps } from '../../src/core/copilot/runtimeTemp';

describe("the runtime's temp folders", () => {
  let base: string;
  beforeEach(() => (base = mkdtempSync(join(tmpdir(), 'baton-runtimetemp-'))));
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it("sweeps only the folders of windows that are gone: never this window's, a live one's or anything else in the temp", async () => {
    const mine = await createRuntimeTemp(base);
    for (const name of ['baton-runtime-111-a', 'baton-runtime-222-b', 'baton-runtime-x-c', 'other-111-d', 'baton-runtime-111']) mkdirSync(join(base, name));
    const removed = await sweepRuntimeTemps(base, (pid) => pid === 222);
    assert.equal(removed, 1);
    assert.equal(existsSync(join(base, 'baton-runtime-111-a')), false);
    for (const kept of [mine, join(base, 'baton-runtime-222-b'), join(base, 'baton-runtime-x-c'), join(base, 'other-111-d'), join(base, 'baton-runtime-111')])
      assert.ok(existsSync(kept), kept);
  });

  it('finds nothing to sweep in a temp folder that does not exist', async () => {
    assert.equal(await sweepRuntimeTemps(join(base, 'none')), 0);
  });
});
