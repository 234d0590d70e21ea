import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { newInstance, retireInstance } from '../../src/core/orchestrator/conversationClaims';
import { otherLiveOwner, ownerJson, workerElsewhere, type WorkerOwner } from '../../src/core/workers/workerOwner';
import { WorkerRegistry } from '../../src/core/workers/workerRegistry';

describe("the window that runs a worker (several windows share the workers' rows)", () => {
  const stamp = (instance: string, pid = process.pid): WorkerOwner => ({ pid, host: hostname(), instance, label: 'app' });
  const self = stamp(newInstance());
  const other = stamp(newInstance());
  const retired = stamp(newInstance());
  retireInstance(retired.instance);
  const deadPid = stamp('gone', spawnSync(process.execPath, ['-e', '0']).pid!);

  it("names another live window's worker; not this window's, a closed window's, a dead process's, or a row without a sound owner", () => {
    assert.deepEqual(otherLiveOwner({ owner: ownerJson(other) }, self), other);
    for (const owner of [ownerJson(self), ownerJson(retired), ownerJson(deadPid), null, '{not json', '{"pid":"1"}'])
      assert.equal(otherLiveOwner({ owner }, self), undefined, String(owner));
  });

  it('says whether that window runs its task now, from the row', () => {
    const rows = [
      { name: 'busy', status: 'running', owner: ownerJson(other) },
      { name: 'waiting', status: 'idle', owner: ownerJson(other) },
      { name: 'left', status: 'running', owner: ownerJson(retired) },
    ];
    const store = { listWorkers: () => rows } as unknown as Parameters<typeof workerElsewhere>[0];
    assert.deepEqual(workerElsewhere(store, 'busy', self), { label: 'app', running: true });
    assert.deepEqual(workerElsewhere(store, 'waiting', self), { label: 'app', running: false });
    assert.equal(workerElsewhere(store, 'left', self), undefined);
    assert.equal(workerElsewhere(store, 'none', self), undefined);
  });

  it("refuses a new worker under the name of another window's", () => {
    const reg = new WorkerRegistry({ settings: () => ({}) as never, now: Date.now, elsewhere: (n) => (n === 'busy' ? { label: 'app' } : undefined) });
    assert.throws(() => reg.checkNewName('busy'), /A worker named 'busy' runs in another VS Code window \(app\)\. Pick another name\./);
    assert.equal(reg.checkNewName('free'), 'free');
  });
});
