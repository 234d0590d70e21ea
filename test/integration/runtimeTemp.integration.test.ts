// A sandboxed worker's temp is the runtime's own folder, not the machine's: with the TMPDIR VS Code has (or none, so
// /tmp), the runtime's sandbox would show a worker the whole of it, and every unix socket in it (an ssh-agent's, the X
// server's) would be a way out of the sandbox. Against the REAL runtime and Bubblewrap: a worker's $TMPDIR is a
// folder of the runtime's own (0700), the machine's temp and a socket in it are out of its reach, the folder goes when
// the runtime stops, and one that a dead window left behind goes at the next start.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import * as net from 'node:net';
import { join } from 'node:path';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { afterEachCore } from '../support/afterEachCore';
import { makeRepo, testGit } from '../support/gitFixture';
import { waitFor } from '../support/waitFor';

describe("the runtime's own temp folder (real runtime, Bubblewrap, scripted model)", function () {
  this.timeout(120_000);
  let core: CoreFixture;
  let socket: net.Server | undefined;

  beforeEach(async () => {
    core = await startCore();
  });
  afterEachCore(() => core, { afterDispose: () => new Promise<void>((resolve) => (socket ? socket.close(() => resolve()) : resolve())) });

  it("is a sandboxed worker's temp: the machine's temp and a socket there are out of reach; it goes with the runtime, and a dead window's at the next start", async () => {
    const machineTemp = core.env.TMPDIR!;
    // What a window that died left: a folder named after its (now gone) extension host.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    const leftover = join(machineTemp, `baton-runtime-${dead}-abc123`);
    await mkdir(join(leftover, 'npm-cache'), { recursive: true });
    // A socket like an ssh-agent's, in the machine's temp.
    const heard: string[] = [];
    const agent = join(machineTemp, 'ssh-probe', 'agent.1');
    await mkdir(join(machineTemp, 'ssh-probe'), { recursive: true });
    socket = net.createServer((c) => c.on('data', (d) => heard.push(String(d))));
    await new Promise<void>((resolve) => socket!.listen(agent, resolve));

    const repo = await makeRepo(testGit(), join(core.home, 'dev', 'app'), { 'README.md': '# app\n' });
    const command = [
      'echo "TMPDIR=$TMPDIR"',
      'touch "$TMPDIR/scratch" && echo "temp writable"',
      `ls ${machineTemp}/ssh-probe >/dev/null 2>&1 && echo "machine temp visible" || echo "machine temp hidden"`,
      `perl -MIO::Socket::UNIX -e '$s=IO::Socket::UNIX->new(Peer=>"${agent}") or die "socket refused\\n"; print $s "hello"; print "socket reached\\n"' 2>&1`,
    ].join('\n');
    const mine = (r: { systemText: string }) => r.systemText.includes("You are 'temp'");
    core.server.on(
      { predicate: (r) => mine(r) && !r.messages.some((m) => m.role === 'tool'), name: 'temp runs' },
      { toolCalls: [{ id: 'temp-1', name: 'bash', arguments: { command, description: 'look around' } }] },
    );
    core.server.on({ predicate: (r) => mine(r) && r.messages.some((m) => m.role === 'tool'), name: 'temp reports' }, { text: 'looked' });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'temp'", name: 'result of temp' }, { text: 'noted' });
    core.workerSettings.trustWorkingDir = true;
    await core.pool.create({ name: 'temp', workingDir: repo, prompt: 'TASK-temp' });
    await waitFor('the worker to finish', () => core.pool.list().find((w) => w.name === 'temp' && w.state === 'done'), 60_000);
    await waitFor(
      'its result to be answered',
      () => core.conversations.all().every((c) => c.idle) && core.server.chatRequests().some((r) => r.lastUserText?.includes("Worker 'temp'")),
    );

    assert.equal(core.pool.list().find((w) => w.name === 'temp')!.sandbox?.state, 'engaged');
    const out = core.server
      .chatRequests()
      .filter(mine)
      .at(-1)!
      .messages.filter((m) => m.role === 'tool')
      .map((m) => String(m.content))
      .join('\n');
    const temp = /^TMPDIR=(.*)$/m.exec(out)?.[1] ?? '';
    assert.ok(temp.startsWith(join(machineTemp, `baton-runtime-${process.pid}-`)), out);
    assert.equal(statSync(temp).mode & 0o777, 0o700);
    assert.match(out, /^temp writable$/m);
    assert.match(out, /^machine temp hidden$/m);
    assert.match(out, /^socket refused$/m);
    assert.deepEqual(heard, []);
    assert.equal(existsSync(leftover), false, "the dead window's folder was removed at the runtime's start");

    await core.sessions.reset('the test restarts the runtime');
    assert.equal(existsSync(temp), false, 'the folder goes with its runtime');
  });
});
