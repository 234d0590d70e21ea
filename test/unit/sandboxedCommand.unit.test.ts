// The keep-alive a verify command runs beside (sandboxedCommand.ts), with real bash: the command's own status and
// output come back whatever it ends with, and the keep-alive writes while the command is silent.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { withKeepAlive } from '../../src/core/copilot/sandboxedCommand';

/** Runs `command` as the runtime does (`bash -c`), wrapped; its status and stdout. */
function runWrapped(command: string): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--norc', '--noprofile', '-c', withKeepAlive(command)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout }));
  });
}

describe('withKeepAlive (real bash)', () => {
  it("exits with the command's own status: a failure, an exit in the middle, a command ending in a comment", async () => {
    assert.deepEqual(await runWrapped("printf 'a\\nb\\n'"), { status: 0, stdout: 'a\nb\n' });
    assert.equal((await runWrapped('false')).status, 1);
    assert.deepEqual(await runWrapped('echo x; exit 5; echo y'), { status: 5, stdout: 'x\n' });
    assert.deepEqual(await runWrapped('echo z # the last word is a comment'), { status: 0, stdout: 'z\n' });
    assert.deepEqual(await runWrapped('cat <<EOF\nheredoc\nEOF'), { status: 0, stdout: 'heredoc\n' });
  });

  it('writes a lone carriage return while the command is silent, and nothing else', async () => {
    const { status, stdout } = await runWrapped('sleep 3.5; echo done');
    assert.equal(status, 0);
    assert.equal(stdout, '\rdone\n');
  });
});
