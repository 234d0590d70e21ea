// Git reads config and hooks from the `.git` of the folder it runs in, and Baton's review and Apply (and the user's own
// git, and VS Code's) run git there outside the worker's sandbox. A worker that can write that `.git` can make them run
// any program: core.fsmonitor names one, run by every `git status`. Against the REAL runtime, Bubblewrap and git, a
// worker tries (src/core/workers/workerSandbox.ts): the folder's .git stays as git made it, and nothing it names runs.
// Hooks too: Baton's git runs none (src/core/git/git.ts), since a hooks folder can be in the work tree itself.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { afterEachCore } from '../support/afterEachCore';
import { CopilotClient, runTurn } from '../support/copilotHarness';
import { makeRepo, testGit } from '../support/gitFixture';
import { waitFor } from '../support/waitFor';
import { WORK_IN_PLACE } from '../../src/shared/permissionAsk';

/** The marker a planted core.fsmonitor writes: outside the sandbox's reach, so only a program run outside it can. */
const hook = (marker: string): string[] => [
  `echo '#!/bin/sh' > "$PWD/fsm.sh"`,
  `echo 'echo "ran in $PWD" >> ${marker}; exit 1' >> "$PWD/fsm.sh"`,
  'chmod +x "$PWD/fsm.sh"',
];

describe("a worker's .git: config planted there never runs outside the sandbox (real runtime, Bubblewrap, real git)", function () {
  this.timeout(180_000);
  let core: CoreFixture;
  beforeEach(async () => {
    core = await startCore();
    core.workerSettings.trustWorkingDir = true;
  });
  afterEachCore(() => core);

  /** Scripts worker `name`: one bash call running `lines`, then a report; its result answered by the orchestrator. */
  function script(name: string, lines: string[]): void {
    const mine = (r: { systemText: string }) => r.systemText.includes(`You are '${name}'`);
    core.server.on(
      { predicate: (r) => mine(r) && !r.messages.some((m) => m.role === 'tool'), name: `${name} runs` },
      { toolCalls: [{ id: `${name}-1`, name: 'bash', arguments: { command: lines.join('\n'), description: 'git folder' } }] },
    );
    core.server.on({ predicate: (r) => mine(r) && r.messages.some((m) => m.role === 'tool'), name: `${name} reports` }, { text: 'done' });
    core.server.on({ lastUserIncludes: `[Background task completed] Worker '${name}'`, name: `result of ${name}` }, { text: 'noted' });
  }

  /** `in place`: the user's setting (baton.workers.isolation "none"); `read-only`: the model's request to read only. */
  async function runWorker(name: string, workingDir: string, where?: 'in place' | 'read-only'): Promise<string> {
    core.workerSettings.isolation = where === 'in place' ? 'none' : 'worktree';
    await core.pool.create({ name, workingDir, prompt: `TASK-${name}`, ...(where === 'read-only' ? { isolation: 'read-only' as const } : {}) });
    await waitFor(`${name} to finish`, () => core.pool.list().find((w) => w.name === name && w.state === 'done'), 90_000);
    await waitFor(
      'its result to be answered',
      () => core.conversations.all().every((c) => c.idle) && core.server.chatRequests().some((r) => r.lastUserText?.includes(`Worker '${name}'`)),
    );
    const tool = core.server
      .chatRequests()
      .flatMap((r) => r.messages)
      .find((m) => m.role === 'tool' && JSON.stringify(m).includes(`${name}-1`));
    return JSON.stringify(tool?.content ?? '');
  }

  it("in a worktree: its .git file cannot be pointed at a git folder of the worker's; review and Apply run nothing of it", async () => {
    const repo = await makeRepo(testGit(), join(core.home, 'dev', 'app'), { 'README.md': '# app\n' });
    const marker = join(core.root, 'RAN-fsmonitor');
    script('redirect', [
      'common=$(git rev-parse --path-format=absolute --git-common-dir)',
      'cp -r "$common" "$PWD/own.git"',
      ...hook(marker),
      'git --git-dir="$PWD/own.git" config core.fsmonitor "$PWD/fsm.sh"',
      'echo "gitdir: $PWD/own.git" > .git || echo WRITE-REFUSED',
      'mv .git moved || echo MOVE-REFUSED',
      'rm -f .git || echo DELETE-REFUSED',
      'echo notes > NOTES.md',
    ]);
    const output = await runWorker('redirect', repo);
    for (const refused of ['WRITE-REFUSED', 'MOVE-REFUSED', 'DELETE-REFUSED']) assert.match(output, new RegExp(refused), output);
    const review = await core.pool.changes!.review('redirect');
    assert.match(JSON.stringify(review), /NOTES\.md/);
    assert.match(await core.pool.changes!.apply('redirect', { dirtyBuffers: [] }), /^Applied/);
    assert.equal(existsSync(marker), false, 'the planted program ran outside the sandbox');
  });

  it("hooks a worker writes in its worktree (a husky-style relative core.hooksPath) are never run by Baton's git", async () => {
    const repo = await makeRepo(testGit(), join(core.home, 'dev', 'husky'), { 'README.md': '# husky\n', '.husky/pre-commit': '#!/bin/sh\nexit 0\n' });
    // As husky sets it: relative, so git looks for hooks in the work tree it runs in, the worker's worktree included.
    await testGit().run(['config', 'core.hooksPath', '.husky'], { cwd: repo });
    const marker = join(core.root, 'RAN-husky-hook');
    const hooks = ['post-index-change', 'reference-transaction', 'post-checkout', 'post-merge', 'post-commit', 'post-rewrite', 'pre-auto-gc'];
    script(
      'planter',
      hooks
        .flatMap((h) => [`printf '#!/bin/sh\\necho "${h} in $PWD" >> ${marker}\\n' > .husky/${h}`, `chmod +x .husky/${h}`])
        .concat('echo planted >> README.md'),
    );
    await runWorker('planter', repo);
    // The change set (a `git add` into a temporary index), the review, and Apply's ref update in the user's repository.
    const review = await core.pool.changes!.review('planter');
    assert.match(JSON.stringify(review), /\.husky\/post-index-change/, 'the planted hooks are in the change set, for the user to see');
    assert.match(await core.pool.changes!.apply('planter', { dirtyBuffers: [] }), /^Applied/);
    assert.equal(existsSync(marker), false, `a planted hook ran outside the sandbox: ${existsSync(marker) ? readFileSync(marker, 'utf8') : ''}`);
  });

  it("in place, in the user's repository: its .git (hooks, config) is read-only to the worker", async () => {
    const repo = await makeRepo(testGit(), join(core.home, 'dev', 'inplace'), { 'README.md': '# in place\n' });
    script('inplace', [
      'echo "[core]" >> .git/config && echo CONFIG-WRITTEN || echo CONFIG-REFUSED',
      "printf '#!/bin/sh\\ntouch /x\\n' > .git/hooks/post-checkout && echo HOOK-WRITTEN || echo HOOK-REFUSED",
      'echo notes > NOTES.md && echo NOTES-WRITTEN',
    ]);
    const output = await runWorker('inplace', repo, 'in place');
    assert.match(output, /CONFIG-REFUSED/, output);
    assert.match(output, /HOOK-REFUSED/, output);
    assert.match(output, /NOTES-WRITTEN/, output);
    assert.equal(existsSync(join(repo, '.git', 'hooks', 'post-checkout')), false);
  });

  /**
   * What a worker tries on the git folders of where it works, found by git itself (so also when they lie outside that
   * folder: a repository that is a linked worktree of another, a folder below the repository's root), from `$PWD`.
   */
  const plant = (marker: string): string[] => [
    ...hook(marker),
    'common=$(git rev-parse --path-format=absolute --git-common-dir) && gitdir=$(git rev-parse --path-format=absolute --git-dir) && echo "IN $common"',
    'git config core.fsmonitor "$PWD/fsm.sh" && echo CONFIG-WRITTEN || echo CONFIG-REFUSED',
    'echo "[core]" >> "$gitdir/config" && echo GITDIR-WRITTEN || echo GITDIR-REFUSED',
    `printf '#!/bin/sh\\necho hook >> ${marker}\\n' > "$common/hooks/post-checkout" && echo HOOK-WRITTEN || echo HOOK-REFUSED`,
    'echo notes > NOTES.md && echo NOTES-WRITTEN',
  ];
  const refusedAll = (output: string): void => {
    assert.match(output, /IN \//, output);
    for (const refused of ['CONFIG-REFUSED', 'GITDIR-REFUSED', 'HOOK-REFUSED']) assert.match(output, new RegExp(refused), output);
  };

  it('a repository that is a linked worktree of another: the git folder they share is read-only to a worker in its own worktree and to one in place', async () => {
    const main = await makeRepo(testGit(), join(core.home, 'dev', 'main'), { 'README.md': '# main\n' });
    const linked = join(core.home, 'dev', 'feature');
    await testGit().run(['worktree', 'add', '-q', '-b', 'feature', linked], { cwd: main });
    const config = readFileSync(join(main, '.git', 'config'), 'utf8');
    const marker = join(core.root, 'RAN-linked');

    script('sharer', plant(marker));
    refusedAll(await runWorker('sharer', linked));
    assert.match(await core.pool.changes!.apply('sharer', { dirtyBuffers: [] }), /^Applied 2 files changed/, 'NOTES.md and its fsm.sh');
    script('placed', plant(marker));
    refusedAll(await runWorker('placed', linked, 'in place'));
    assert.equal(readFileSync(join(main, '.git', 'config'), 'utf8'), config);
    assert.equal(existsSync(join(main, '.git', 'hooks', 'post-checkout')), false);
    await testGit().run(['status', '--short'], { cwd: linked });
    assert.equal(existsSync(marker), false, 'a planted program ran outside the sandbox');
  });

  it('a submodule (its .git a file naming a folder in the superproject\u2019s): that folder is read-only to a worker in its worktree', async () => {
    const lib = await makeRepo(testGit(), join(core.home, 'src', 'lib'), { 'lib.ts': 'export {};\n' });
    const app = await makeRepo(testGit(), join(core.home, 'dev', 'app'), { 'README.md': '# app\n' });
    await testGit().run(['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', lib, 'lib'], { cwd: app });
    const modules = join(app, '.git', 'modules', 'lib');
    const config = readFileSync(join(modules, 'config'), 'utf8');
    const marker = join(core.root, 'RAN-submodule');
    script('subber', plant(marker));
    refusedAll(await runWorker('subber', join(app, 'lib')));
    assert.equal(readFileSync(join(modules, 'config'), 'utf8'), config);
    assert.equal(existsSync(join(modules, 'hooks', 'post-checkout')), false);
    assert.match(await core.pool.changes!.apply('subber', { dirtyBuffers: [] }), /^Applied 2 files changed/, 'NOTES.md and its fsm.sh');
    await testGit().run(['status', '--short'], { cwd: join(app, 'lib') });
    assert.equal(existsSync(marker), false, 'a planted program ran outside the sandbox');
  });

  it("in place in a folder below the repository's root (by the setting, to read, or in a folder git does not track): the repository's .git is read-only to the worker", async () => {
    const repo = await makeRepo(testGit(), join(core.home, 'dev', 'mono'), { 'README.md': '# mono\n', 'packages/web/index.ts': 'export {};\n' });
    const config = readFileSync(join(repo, '.git', 'config'), 'utf8');
    const marker = join(core.root, 'RAN-below');
    script('below', plant(marker));
    refusedAll(await runWorker('below', join(repo, 'packages', 'web'), 'in place'));
    script('looker', plant(marker));
    refusedAll(await runWorker('looker', join(repo, 'packages', 'web'), 'read-only'));
    // A folder git does not track gets no worktree: its worker works there in place, below the same .git.
    mkdirSync(join(repo, 'scratch'));
    script('scratcher', plant(marker));
    // Asked first: Baton cannot isolate it there, and says why.
    core.broker.answer = 'once';
    refusedAll(await runWorker('scratcher', join(repo, 'scratch')));
    assert.deepEqual(
      core.broker.asked.map((p) => [p.worker, p.kind, p.detail.split('. ')[0]]),
      [['scratcher', WORK_IN_PLACE, `${join(repo, 'scratch')}\nNo isolation here: git does not track it, so a worktree would not hold it`]],
    );
    assert.deepEqual(core.pool.list().find((w) => w.name === 'scratcher')?.isolation, { kind: 'in-place' });
    assert.equal(readFileSync(join(repo, '.git', 'config'), 'utf8'), config);
    assert.equal(existsSync(join(repo, '.git', 'hooks', 'post-checkout')), false);
    await testGit().run(['status', '--short'], { cwd: repo });
    assert.equal(existsSync(marker), false, 'a planted program ran outside the sandbox');
  });

  it("a machine session attached in a folder below a repository's root (a Copilot CLI session of the user's): the repository's .git is read-only to it", async () => {
    const repo = await makeRepo(testGit(), join(core.home, 'dev', 'cli'), { 'README.md': '# cli\n', 'web/index.ts': 'export {};\n' });
    const dir = join(repo, 'web');
    const config = readFileSync(join(repo, '.git', 'config'), 'utf8');
    // The user's own Copilot CLI made it, in another process, and is closed now.
    const cli = new CopilotClient({ env: core.env, baseDirectory: core.env.COPILOT_HOME, gitHubToken: 'fake', workingDirectory: dir, logLevel: 'error' });
    let sessionId: string;
    try {
      await cli.start();
      core.server.on({ lastUserIncludes: 'cli work', name: 'the CLI session' }, { text: 'cli reply' });
      const session = await cli.createSession({ workingDirectory: dir, streaming: true, onPermissionRequest: () => ({ kind: 'reject' }) });
      await runTurn(session, 'cli work');
      sessionId = session.sessionId;
      await session.disconnect();
    } finally {
      await cli.stop().catch(() => cli.forceStop());
    }
    await core.pool.machine.attach(sessionId, 'attached');
    const marker = join(core.root, 'RAN-attached');
    const mine = (r: { lastUserText?: string; messages: Array<{ role: string }> }, tools: boolean) =>
      r.lastUserText?.includes('TASK-attached') === true && r.messages.some((m) => m.role === 'tool') === tools;
    core.server.on(
      { predicate: (r) => mine(r, false), name: 'attached runs' },
      { toolCalls: [{ id: 'attached-1', name: 'bash', arguments: { command: plant(marker).join('\n'), description: 'git folder' } }] },
    );
    core.server.on({ predicate: (r) => mine(r, true), name: 'attached reports' }, { text: 'done' });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'attached'", name: 'result of attached' }, { text: 'noted' });
    await core.pool.send('attached', 'TASK-attached');
    await waitFor(
      'its result to be answered',
      () => core.conversations.all().every((c) => c.idle) && core.server.chatRequests().some((r) => r.lastUserText?.includes("Worker 'attached'")),
      90_000,
    );
    const tool = core.server
      .chatRequests()
      .flatMap((r) => r.messages)
      .find((m) => m.role === 'tool' && JSON.stringify(m).includes('attached-1'));
    refusedAll(JSON.stringify(tool?.content ?? ''));
    assert.equal(readFileSync(join(repo, '.git', 'config'), 'utf8'), config);
    await testGit().run(['status', '--short'], { cwd: repo });
    assert.equal(existsSync(marker), false, 'a planted program ran outside the sandbox');
  });

  it('started to read only, in the repository itself: nothing there is writable, a nested .git included; its edit tool is refused', async () => {
    const repo = await makeRepo(testGit(), join(core.home, 'dev', 'reader'), { 'README.md': '# reader\n', 'src/app.ts': 'export {};\n' });
    const marker = join(core.root, 'RAN-nested-fsmonitor');
    const mine = (r: { systemText: string }) => r.systemText.includes("You are 'reader'");
    const tools = (r: { messages: Array<{ role: string }> }) => r.messages.filter((m) => m.role === 'tool').length;
    core.server.on(
      { predicate: (r) => mine(r) && tools(r) === 0, name: 'reader edits' },
      { toolCalls: [{ id: 'reader-0', name: 'create', arguments: { path: join(repo, 'EDITED.md'), file_text: 'edited\n' } }] },
    );
    core.server.on(
      { predicate: (r) => mine(r) && tools(r) === 1, name: 'reader runs' },
      {
        toolCalls: [
          {
            id: 'reader-1',
            name: 'bash',
            arguments: {
              description: 'writes',
              command: [
                ...hook(marker),
                'echo x >> README.md && echo README-WRITTEN || echo README-REFUSED',
                'mkdir -p src/.git && echo NESTED-MADE || echo NESTED-REFUSED',
                'git init -q src/inner && echo INIT-MADE || echo INIT-REFUSED',
                'rm -f src/app.ts && echo DELETED || echo DELETE-REFUSED',
                'cat README.md src/app.ts | wc -l',
              ].join('\n'),
            },
          },
        ],
      },
    );
    core.server.on({ predicate: (r) => mine(r) && tools(r) === 2, name: 'reader reports' }, { text: 'read it' });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'reader'", name: 'result of reader' }, { text: 'noted' });
    const output = await runWorker('reader', repo, 'read-only');
    for (const refused of ['README-REFUSED', 'NESTED-REFUSED', 'INIT-REFUSED', 'DELETE-REFUSED']) assert.match(output, new RegExp(refused), output);
    const denied = core.server
      .chatRequests()
      .flatMap((r) => r.messages)
      .find((m) => m.role === 'tool' && JSON.stringify(m).includes('reader-0'));
    assert.match(JSON.stringify(denied), /read only/);
    assert.equal(existsSync(join(repo, 'EDITED.md')), false);
    assert.equal(existsSync(join(repo, 'src', '.git')), false);
    assert.equal(existsSync(join(repo, 'fsm.sh')), false);
    assert.equal(readFileSync(join(repo, 'README.md'), 'utf8'), '# reader\n');
    assert.equal(readFileSync(join(repo, 'src', 'app.ts'), 'utf8'), 'export {};\n');
    const card = core.pool.list().find((w) => w.name === 'reader');
    assert.deepEqual(card?.isolation, { kind: 'in-place', readOnly: true });
    assert.equal(card?.changes, undefined);
  });

  it('started to read only: what git ignores there (.env and other local files) is hidden from it, but for what the user lets workers have', async () => {
    const repo = await makeRepo(testGit(), join(core.home, 'dev', 'secrets'), {
      'README.md': '# secrets\n',
      '.gitignore': '.env\nnode_modules/\nbuild/\n',
      'src/app.ts': 'export const app = 1;\n',
    });
    // Ignored, so in no commit: written after it.
    writeFileSync(join(repo, '.env'), 'PAYMENTS_API_KEY=S3CRET-ENV-7731\n');
    mkdirSync(join(repo, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(join(repo, 'node_modules', 'dep', 'index.js'), 'module.exports = "DEP-CODE-4410";\n');
    mkdirSync(join(repo, 'build'), { recursive: true });
    writeFileSync(join(repo, 'build', 'out.txt'), 'BUILD-OUTPUT-2208\n');
    // node_modules is what the user lets workers have (baton.workers.worktreeInclude): it stays readable. Entries that
    // reach outside the repository are no part of it, as for a worktree: `..` held the whole folder, .env included.
    core.workerSettings.worktreeInclude = ['node_modules', '..', '/', 'src/../..'];
    const mine = (r: { systemText: string }) => r.systemText.includes("You are 'peeker'");
    const tools = (r: { messages: Array<{ role: string }> }) => r.messages.filter((m) => m.role === 'tool').length;
    core.server.on(
      { predicate: (r) => mine(r) && tools(r) === 0, name: 'peeker views .env' },
      { toolCalls: [{ id: 'peeker-0', name: 'view', arguments: { path: join(repo, '.env') } }] },
    );
    core.server.on(
      { predicate: (r) => mine(r) && tools(r) === 1, name: 'peeker runs' },
      {
        toolCalls: [
          {
            id: 'peeker-1',
            name: 'bash',
            arguments: {
              description: 'reads',
              command: [
                'cat .env || echo ENV-HIDDEN',
                'cat build/out.txt || echo BUILD-HIDDEN',
                'cat node_modules/dep/index.js',
                'cat src/app.ts',
                'grep -r S3CRET . || echo GREP-FOUND-NOTHING',
              ].join('\n'),
            },
          },
        ],
      },
    );
    core.server.on({ predicate: (r) => mine(r) && tools(r) === 2, name: 'peeker reports' }, { text: 'read it' });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'peeker'", name: 'result of peeker' }, { text: 'noted' });
    const output = await runWorker('peeker', repo, 'read-only');
    const everything = JSON.stringify(core.server.requests);
    assert.ok(!everything.includes('S3CRET-ENV-7731'), 'the .env reached the model');
    assert.ok(!everything.includes('BUILD-OUTPUT-2208'), 'an ignored build output reached the model');
    for (const hidden of ['ENV-HIDDEN', 'BUILD-HIDDEN', 'GREP-FOUND-NOTHING']) assert.match(output, new RegExp(hidden), output);
    assert.match(output, /DEP-CODE-4410/, 'what worktreeInclude names stays readable');
    assert.match(output, /export const app = 1/, 'tracked files are read');
    const viewed = core.server
      .chatRequests()
      .flatMap((r) => r.messages)
      .find((m) => m.role === 'tool' && JSON.stringify(m).includes('peeker-0'));
    assert.match(JSON.stringify(viewed), /\.env is ignored by git/);
    // Its instructions say so.
    assert.match(
      core.server.chatRequests().find(mine)!.systemText,
      /What git ignores here \(local env files and other secrets, dependencies, build output\) is hidden from you\./,
    );
  });
});
