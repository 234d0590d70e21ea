// A repository can hold an executable named like a program Baton or the Copilot runtime runs by name (git, rg, bwrap).
// With an empty or relative entry in PATH (`export PATH=$UNSET:$PATH` leaves `:/usr/bin…`), a program run by name in
// that folder is the repository's own file, and it would run outside any sandbox. Against the REAL runtime and real
// git, with such a PATH: a worker started in that repository, its review and Apply run nothing of it.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmod, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { afterEachCore } from '../support/afterEachCore';
import { makeRepo, testGit } from '../support/gitFixture';
import { waitFor } from '../support/waitFor';

describe('programs a repository plants under common names (real runtime, real git, scripted model)', function () {
  this.timeout(120_000);
  let core: CoreFixture;
  let savedPath: string | undefined;

  beforeEach(async () => {
    // VS Code's environment (Baton's own process and what the runtime's is built from) with a PATH that starts empty.
    savedPath = process.env.PATH;
    process.env.PATH = `:${savedPath}`;
    core = await startCore({ env: { PATH: `:${savedPath}` } });
  });
  afterEachCore(() => core, { afterDispose: async () => void (process.env.PATH = savedPath) });

  it("never run, though PATH has an empty entry: not by the runtime at a worker's start, not by Baton's review and Apply", async () => {
    const repo = await makeRepo(testGit(), join(core.home, 'dev', 'app'), { 'README.md': '# app\n' });
    // Committed, so a worker's worktree holds them too.
    for (const program of ['git', 'rg', 'bwrap', 'slirp4netns', 'sh', 'bash']) {
      const file = join(repo, program);
      await writeFile(file, `#!/bin/sh\ntouch ${join(core.root, `RAN-${program}`)}\nexit 1\n`);
      await chmod(file, 0o755);
    }
    const setup = { cwd: repo, env: { ...process.env, PATH: savedPath } };
    execFileSync('git', ['add', '-A'], setup);
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'tools'], setup);
    const mine = (r: { systemText: string }) => r.systemText.includes("You are 'planted'");
    core.server.on(
      { predicate: (r) => mine(r) && !r.messages.some((m) => m.role === 'tool'), name: 'planted edits' },
      { toolCalls: [{ id: 'p-1', name: 'bash', arguments: { command: 'echo notes > NOTES.md && git status --short', description: 'write notes' } }] },
    );
    core.server.on({ predicate: (r) => mine(r) && r.messages.some((m) => m.role === 'tool'), name: 'planted reports' }, { text: 'wrote notes' });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'planted'", name: 'result of planted' }, { text: 'noted' });
    core.workerSettings.trustWorkingDir = true;
    await core.pool.create({ name: 'planted', workingDir: repo, prompt: 'TASK-planted' });
    await waitFor('the worker to finish', () => core.pool.list().find((w) => w.name === 'planted' && w.state === 'done'), 60_000);
    await waitFor(
      'its result to be answered',
      () => core.conversations.all().every((c) => c.idle) && core.server.chatRequests().some((r) => r.lastUserText?.includes("Worker 'planted'")),
    );
    const review = await core.pool.changes!.review('planted');
    assert.match(JSON.stringify(review), /NOTES\.md/);
    assert.match(await core.pool.changes!.apply('planted', { dirtyBuffers: [] }), /^Applied/);
    assert.deepEqual(
      (await readdir(core.root)).filter((f) => f.startsWith('RAN-')),
      [],
    );
  });
});
