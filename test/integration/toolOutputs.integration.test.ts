// What the Copilot runtime leaves on disk when a worker's command prints more than a tool result may hold (20 KB): it
// saves the output in its TMPDIR under a name that carries its pid, and the worker is told the path. Baton's sweep
// (src/core/runtime/toolOutputSweep.ts) keeps it while it may be read and deletes it after.
import * as assert from 'node:assert/strict';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { sweepToolOutputs, TOOL_OUTPUT_KEEP_MS } from '../../src/core/runtime/toolOutputSweep';
import { afterEachCore } from '../support/afterEachCore';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { waitFor } from '../support/waitFor';

describe("saved tool results (real runtime, a worker's long output)", function () {
  this.timeout(120_000);
  let core: CoreFixture;

  beforeEach(async () => {
    core = await startCore();
    core.workerSettings.trustWorkingDir = true;
  });
  afterEachCore(() => core);

  it('the runtime saves a long output in its own TMPDIR under its pid; the sweep keeps it an hour, then deletes it', async () => {
    const project = join(core.home, 'dev', 'app');
    await mkdir(project, { recursive: true });
    const forWorker = (r: { systemText: string }) => r.systemText.includes("You are 'printer'");
    const tools = (r: { messages: Array<{ role: string }> }) => r.messages.filter((m) => m.role === 'tool').length;
    core.server.on(
      { predicate: (r) => forWorker(r) && tools(r) === 0, name: 'printer prints' },
      { toolCalls: [{ id: 'p0', name: 'bash', arguments: { command: 'seq 1 20000', description: 'print' } }] },
    );
    core.server.on({ predicate: (r) => forWorker(r) && tools(r) === 1, name: 'printer reports' }, { text: 'printed' });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'printer'", name: 'result of printer' }, { text: 'noted' });
    await core.pool.create({ name: 'printer', workingDir: project, prompt: 'print the numbers' });
    await waitFor('the result', () => core.events.some((e) => e.type === 'turn.completed' && e.origin.channel === 'background'), 60_000);

    const [dir, machine] = core.sessions.toolOutputDirs();
    assert.ok(dir!.startsWith(join(core.env.TMPDIR!, 'baton-runtime-')), `the runtime's own TMPDIR: ${dir}`);
    assert.equal(machine, core.env.TMPDIR, "then the machine's");
    const told = core.server
      .chatRequests()
      .filter(forWorker)
      .at(-1)!
      .messages.find((m) => m.role === 'tool');
    assert.match(String(told?.content), /Output too large to read at once \([\d.]+ KB\)\. Saved to: /);
    const pid = core.sessions.runtimePid();
    const saved = (await readdir(dir)).filter((n) => new RegExp(`^\\d+-copilot-tool-output-${pid}-[\\w-]+\\.txt$`).test(n));
    assert.equal(saved.length, 1, `saved under the runtime's pid: ${JSON.stringify(await readdir(dir))}`);
    assert.ok(String(told?.content).includes(saved[0]!), 'the worker was told that file');

    // Within the hour it may still be read: kept. Past it: deleted.
    assert.equal(await sweepToolOutputs({ dir, own: pid }), 0);
    assert.deepEqual(
      (await readdir(dir)).filter((n) => saved.includes(n)),
      saved,
    );
    assert.equal(await sweepToolOutputs({ dir, own: pid, now: Date.now() + TOOL_OUTPUT_KEEP_MS + 60_000 }), 1);
    assert.deepEqual(
      (await readdir(dir)).filter((n) => saved.includes(n)),
      [],
    );
  });
});
