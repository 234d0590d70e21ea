import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sweepFolderLock, withFolderLock } from '../../src/core/util/folderLock';

const pause = (ms: number): Promise<void> => new Promise((res) => setTimeout(res, ms));

/** The pid of a process that has ended (nothing else reuses it within the test). */
function deadPid(): number {
  const done = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(done.stdout);
}

describe('withFolderLock (a lock every window of the machine sees)', () => {
  let dir: string;
  let lock: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'baton-lock-'));
    lock = join(dir, 'locks', 'user-files');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('lets one hold run at a time, and leaves nothing once the last is over (a failure too)', async () => {
    const log: string[] = [];
    const hold = (tag: string, ms: number) => async () => {
      log.push(`start ${tag}`);
      await pause(ms);
      log.push(`end ${tag}`);
      if (tag === 'b') throw new Error('b failed');
      return tag;
    };
    const results = await Promise.allSettled([
      withFolderLock(lock, 60_000, hold('a', 60)),
      withFolderLock(lock, 60_000, hold('b', 10)),
      withFolderLock(lock, 60_000, hold('c', 10)),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    for (let i = 0; i < log.length; i += 2) assert.equal(log[i]!.replace('start', 'end'), log[i + 1], `no two holds overlap: ${log.join(', ')}`);
    assert.deepEqual(await readdir(join(dir, 'locks')), []);
  });

  it('waits for another process that holds it, and runs once it let go', async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import(${JSON.stringify(require.resolve('../../src/core/util/folderLock'))}).then((m) =>
          (m.withFolderLock ?? m.default.withFolderLock)(${JSON.stringify(lock)}, 60000, async () => { console.log('held'); await new Promise((r) => setTimeout(r, 700)); console.log('letting go'); }))`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    let exited = false;
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exit = new Promise((res) => child.once('exit', (code) => ((exited = true), res(code))));
    while (!out.includes('held')) {
      assert.equal(exited, false, 'the other process holds the lock');
      await pause(10);
    }
    let ran = '';
    await withFolderLock(lock, 60_000, async () => {
      ran = out;
    });
    assert.match(ran, /held\nletting go\n/, 'this hold began after the other process let go');
    assert.equal(await exit, 0);
  });

  it('takes over at once a hold whose process is gone (a window killed mid-Apply), whatever its age', async () => {
    await mkdir(lock, { recursive: true });
    await writeFile(join(lock, 'owner'), `${deadPid()} ${hostname()} 0000`);
    const began = Date.now();
    assert.equal(await withFolderLock(lock, 60_000, async () => 'mine'), 'mine');
    assert.ok(Date.now() - began < 5_000);
    assert.deepEqual(await readdir(join(dir, 'locks')), []);
  });

  it('never takes a live process\u2019s hold while it lasts, however long (the holder refreshes it), but one not refreshed past the stale time', async () => {
    const staleMs = 300;
    let order = '';
    const long = withFolderLock(lock, staleMs, async () => {
      order += 'long ';
      await pause(staleMs * 3);
      order += 'long-end ';
    });
    await pause(20);
    await withFolderLock(lock, staleMs, async () => {
      order += 'next';
    });
    await long;
    assert.equal(order, 'long long-end next');

    // A live process (this one is alive, but not this hold's: another host's stands for one that cannot be asked).
    await mkdir(lock, { recursive: true });
    await writeFile(join(lock, 'owner'), `${process.pid} another-host 0000`);
    const old = (Date.now() - staleMs - 1_000) / 1000;
    await utimes(lock, old, old);
    assert.equal(await withFolderLock(lock, staleMs, async () => 'taken'), 'taken');
  });

  it('a start sweeps a dead process\u2019s hold and leaves a live one', async () => {
    await mkdir(lock, { recursive: true });
    await writeFile(join(lock, 'owner'), `${deadPid()} ${hostname()} 0000`);
    assert.equal(await sweepFolderLock(lock, 60_000), true);
    assert.equal(existsSync(lock), false);
    await mkdir(lock, { recursive: true });
    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      await writeFile(join(lock, 'owner'), `${live.pid} ${hostname()} 0000`);
      assert.equal(await sweepFolderLock(lock, 60_000), false);
      assert.equal(existsSync(join(lock, 'owner')), true);
    } finally {
      live.kill();
    }
  });
});
