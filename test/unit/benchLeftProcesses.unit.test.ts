// The bench's check that a section leaves nothing running (bench/leftProcesses.ts): a process a section started and
// did not end is seen, one that ended is not, even before its parent reaps it.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { leftRunning, runningDescendants } from '../../bench/leftProcesses';
import { descendants } from '../support/leaks';

describe('bench: processes a section leaves running', () => {
  it('sees a child still running and forgets it once it has exited', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await new Promise((r) => child.once('spawn', r));
      assert.ok(
        runningDescendants().some((p) => p.pid === child.pid && p.cmd === 'sleep 30'),
        'a running child is listed',
      );
      const left = await leftRunning(300);
      assert.ok(
        left.some((p) => p.pid === child.pid),
        'still running after the grace period: reported',
      );
    } finally {
      child.kill('SIGKILL');
    }
    await new Promise((r) => child.once('exit', r));
    assert.deepEqual(
      (await leftRunning(1_000)).filter((p) => p.pid === child.pid),
      [],
    );
  });

  it('does not count a zombie (exited, not reaped yet) as running', async () => {
    // The shell's child exits at once; the shell does not wait for it, so it stays a zombie until the shell ends.
    const shell = spawn('sh', ['-c', 'sleep 0 & exec sleep 30'], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 500));
      const zombie = descendants().find((p) => p.pid !== shell.pid && p.cmd === '');
      assert.ok(zombie, 'the exited child is still in the process table (a zombie has no command line)');
      const under = runningDescendants().filter((p) => p.cmd !== 'sleep 30');
      assert.deepEqual(under, [], 'only the running sleep is listed');
    } finally {
      shell.kill('SIGKILL');
    }
    await new Promise((r) => shell.once('exit', r));
  });
});
