// What a worker may touch, against the REAL Copilot runtime and a scripted model server, built as the extension
// builds it: bad tool arguments, protected and traversing directories, Baton's own installation and storage, and the
// permission requests of a worker's shell and edits.
import * as assert from 'node:assert/strict';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ToolResultObject } from '../../src/core/copilot/sdkTypes';
import { createWorkerTools } from '../../src/core/workers/workerTools';
import { waitFor } from '../support/waitFor';
import { callTool, toolMessages, useWorkerCore } from '../support/workerCore';

describe("workers' guards (real runtime, scripted model, production wiring)", function () {
  this.timeout(60_000);
  const fx = useWorkerCore({ inPlace: true });

  it('gives the model a clear error for bad arguments instead of crashing the turn', async () => {
    const tools = createWorkerTools(fx.core.pool);
    const bad = (await callTool(tools, 'create_worker_session', { name: 'no spaces allowed', working_dir: 42 })) as ToolResultObject;
    assert.equal(bad.resultType, 'failure');
    assert.match(bad.textResultForLlm, /^Invalid arguments for create_worker_session: working_dir: .*expected string/);
    const badName = (await callTool(tools, 'create_worker_session', { name: 'no spaces', working_dir: fx.project })) as ToolResultObject;
    assert.match(badName.textResultForLlm, /Invalid worker name 'no spaces'/);
    const limit = (await callTool(tools, 'list_machine_sessions', { limit: 500 })) as ToolResultObject;
    assert.match(limit.textResultForLlm, /limit: .*100/);
    const unknown = (await callTool(tools, 'send_to_worker', { name: 'ghost', prompt: 'hi' })) as ToolResultObject;
    assert.match(unknown.textResultForLlm, /No worker named 'ghost'/);
    // Writing in the folder itself is the user's setting, not the model's choice: it may ask to read only there.
    const inPlace = (await callTool(tools, 'create_worker_session', { name: 'placed', working_dir: fx.project, isolation: 'none' })) as ToolResultObject;
    assert.match(inPlace.textResultForLlm, /^Invalid arguments for create_worker_session: isolation: .*"worktree"\|"read-only"/);
    const reader = (await callTool(tools, 'create_worker_session', { name: 'reader', working_dir: fx.project, isolation: 'read-only' })) as string;
    assert.match(reader, /Worker 'reader' created in .* \(idle\)\. It works in .* itself, to read only: it cannot change a file there\./);
    assert.deepEqual(fx.core.pool.list().find((w) => w.name === 'reader')?.isolation, { kind: 'in-place', readOnly: true });

    // Through the orchestrator: the runtime hands the failure back to the model and the turn goes on.
    fx.core.server.on(
      { lastUserIncludes: '[via panel] kill nobody', afterToolResult: false },
      { toolCalls: [{ name: 'kill_session', arguments: { name: 'nobody' } }] },
    );
    fx.core.server.on({ lastUserIncludes: '[via panel] kill nobody', afterToolResult: true }, { text: 'That worker does not exist.' });
    const turn = await fx.core.orchestrator.enqueue('kill nobody', { channel: 'panel' }).done;
    assert.equal(turn.content, 'That worker does not exist.');
    assert.match(toolMessages(fx.core.server.chatRequests().at(-1)!)[0]!, /No worker named 'nobody'/);
  });

  it("refuses protected, traversing, symlinked and missing directories, Baton's storage and its own installation", async () => {
    await symlink(join(fx.home, '.ssh'), join(fx.home, 'dev', 'keys'));
    const tools = createWorkerTools(fx.core.pool);
    for (const dir of ['~/.ssh', '~/dev/../.ssh', join(fx.home, 'dev', 'keys'), fx.core.storageDir, fx.core.installPath, join(fx.core.installPath, 'dist')]) {
      if (dir.endsWith('dist')) await mkdir(dir, { recursive: true });
      const r = (await callTool(tools, 'create_worker_session', { name: 'w', working_dir: dir, initial_prompt: 'x' })) as ToolResultObject;
      assert.equal(r.resultType, 'failure', dir);
      assert.match(r.textResultForLlm, /^Refused: .*protected path/, dir);
    }
    const missing = (await callTool(tools, 'create_worker_session', { name: 'w', working_dir: '~/dev/nope' })) as ToolResultObject;
    assert.match(missing.textResultForLlm, /^Directory not found: '~\/dev\/nope'/);
    assert.equal(fx.core.pool.list().length, 0);
    assert.equal(fx.core.server.chatRequests().length, 0);
  });

  it('self-edit protection: the orchestrator is told not to touch its installation, and a worker asked to work there is refused', async () => {
    fx.core.server.on(
      { lastUserIncludes: '[via panel] improve baton itself', afterToolResult: false },
      {
        toolCalls: [
          { name: 'create_worker_session', arguments: { name: 'self', working_dir: fx.core.installPath, initial_prompt: 'TASK-self edit your own code' } },
        ],
      },
    );
    fx.core.server.on({ lastUserIncludes: '[via panel] improve baton itself', afterToolResult: true }, { text: 'I may not edit my own installation.' });
    const turn = await fx.core.orchestrator.enqueue('improve baton itself', { channel: 'panel' }).done;
    assert.equal(turn.content, 'I may not edit my own installation.');
    const [first, followUp] = fx.core.server.chatRequests();
    assert.ok(first && followUp);
    assert.ok(
      first.systemText.includes(`Never edit, delete or run commands against Baton's own installation (${fx.core.installPath})`),
      'the system message names the installation',
    );
    assert.match(toolMessages(followUp)[0]!, /^Refused: .*protected path/);
    assert.equal(fx.core.pool.list().length, 0, 'no worker was started');
    assert.ok(!fx.core.server.chatRequests().some((r) => (r.lastUserText ?? '').includes('TASK-self')), 'no worker session ever ran');
  });

  it('with baton.allowSelfEdit a worker may work in the installation, while Baton\u2019s storage stays refused', async () => {
    fx.core.settings.selfEdit = true;
    const w = await fx.core.pool.create({ name: 'self-ok', workingDir: fx.core.installPath });
    assert.equal(w.workingDir, fx.core.installPath);
    await assert.rejects(fx.core.pool.create({ name: 'storage', workingDir: fx.core.storageDir }), /protected path/);
    await fx.core.pool.kill('self-ok');
  });

  it('surfaces a shell permission request to the broker and respects the denial; a follow-up continues the finished worker in a new session', async () => {
    // First task: plain text, to learn the shell tool's name from the tools the runtime offers.
    fx.core.server.on({ lastUserIncludes: 'TASK-probe' }, { text: 'Ready.' });
    fx.answerResults('builder', 'The builder is ready.', 'The clean was denied.');
    await fx.core.pool.create({ name: 'builder', workingDir: fx.project, prompt: 'TASK-probe' });
    await waitFor('the probe', () => fx.delivered().length === 1);
    const offered = fx.core.server.chatRequests().find((r) => (r.lastUserText ?? '').includes('TASK-probe'))!.tools;
    const shellTool = ['bash', 'shell', 'powershell'].find((t) => offered.includes(t));
    assert.ok(shellTool, `a shell tool among ${offered.join(', ')}`);

    fx.core.server.on(
      { lastUserIncludes: 'TASK-clean', afterToolResult: false },
      { toolCalls: [{ name: shellTool, arguments: { command: 'rm -rf build', description: 'Clean the build' } }] },
    );
    fx.core.server.on({ lastUserIncludes: 'TASK-clean', afterToolResult: true }, { text: 'I could not clean: the command was denied.' });
    fx.core.broker.answer = 'deny';
    // The worker finished its first task; the follow-up resumes its session.
    await fx.core.pool.send('builder', 'TASK-clean the build folder');
    await waitFor('the second result', () => fx.delivered().length === 2);

    assert.equal(fx.core.broker.asked.length, 1);
    assert.deepEqual({ ...fx.core.broker.asked[0], id: 'x' }, { id: 'x', worker: 'builder', kind: 'shell', detail: 'rm -rf build', kept: 'asker' });
    const followUp = fx.core.server
      .chatRequests()
      .filter((r) => (r.lastUserText ?? '').includes('TASK-clean'))
      .at(-1)!;
    assert.match(toolMessages(followUp).join('\n'), /denied|rejected/i);
    assert.match(fx.delivered()[1]!.text, /Worker 'builder' finished:[\s\S]*could not clean/);
    assert.ok(fx.core.logger.lines.some((l) => /Worker 'builder': denied rm -rf build \(shell command\) — by the user/.test(l)));
    const transcript = fx.core.pool.transcript('builder');
    assert.match(transcript, new RegExp(`→ ${shellTool} \\{"command":"rm -rf build"`));
    assert.match(transcript, /permission denied: rm -rf build/);
    assert.equal(fx.core.pool.status('builder').tasks, 2);
    // Its first session was deleted when its task ended (no changes): the follow-up ran in a new one, told what it did.
    const probe = fx.core.server.chatRequests().find((r) => (r.lastUserText ?? '').includes('TASK-probe'))!;
    assert.notEqual(followUp.sessionId, probe.sessionId);
    assert.match(
      followUp.lastUserText ?? '',
      /\[Context: you are continuing earlier work in a new session\. Your report at the end of your last task was:\]\nReady\.[\s\S]*TASK-clean/,
    );
  });

  it('approves edits inside the tree, runs an approved command, and denies a protected path', async () => {
    fx.core.workerSettings.trustWorkingDir = true;
    fx.core.server.on(
      { lastUserIncludes: 'TASK-edit' },
      { toolCalls: [{ name: 'create', arguments: { path: join(fx.project, 'notes.md'), file_text: 'hello' } }] },
      { toolCalls: [{ name: 'bash', arguments: { command: 'echo built > out.txt', description: 'Build' } }] },
      { toolCalls: [{ name: 'view', arguments: { path: join(fx.home, '.ssh', 'id_rsa') } }] },
      { text: 'Done, except the key.' },
    );
    fx.answerResults('editor', 'The editor is done.');
    await fx.core.pool.create({ name: 'editor', workingDir: fx.project, prompt: 'TASK-edit' });
    await waitFor('the result', () => fx.delivered().length === 1);
    assert.equal(await readFile(join(fx.project, 'notes.md'), 'utf8'), 'hello');
    assert.equal((await readFile(join(fx.project, 'out.txt'), 'utf8')).trim(), 'built');
    assert.equal(fx.core.broker.asked.length, 0, 'nothing needed the user: edits in the tree, trusted shell, protected read denied');
    const last = fx.core.server
      .chatRequests()
      .filter((r) => (r.lastUserText ?? '').includes('TASK-edit'))
      .at(-1)!;
    assert.match(toolMessages(last).at(-1)!, /denied|rejected/i);
    assert.ok(fx.core.logger.lines.some((l) => /denied .*id_rsa \(protected path ~\/\.ssh\)/.test(l)));
  });

  it("a worker in the home folder never reads the credential files beside ~/.ssh: git's and curl's passwords, a database's, a shell's history", async () => {
    const MARKER = 'MARKER-credentials-61c2';
    const files = ['.netrc', '.pgpass', join('.config', 'git', 'credentials'), '.bash_history'];
    await mkdir(join(fx.home, '.config', 'git'), { recursive: true });
    for (const f of files) await writeFile(join(fx.home, f), `secret ${MARKER}\n`);
    fx.core.server.on({ lastUserIncludes: 'TASK-home' }, ...files.map((f) => ({ toolCalls: [{ name: 'view', arguments: { path: join(fx.home, f) } }] })), {
      text: 'Nothing readable.',
    });
    fx.answerResults('homer', 'Noted.');
    await fx.core.pool.create({ name: 'homer', workingDir: fx.home, prompt: 'TASK-home' });
    await waitFor('the result', () => fx.delivered().length === 1);
    for (const req of fx.core.server.requests) assert.ok(!JSON.stringify(req).includes(MARKER), `a credential reached the model in ${req.method} ${req.path}`);
    assert.equal(fx.core.broker.asked.length, 0, 'denied outright, nobody asked');
    for (const label of ['~/.netrc', '~/.pgpass', '~/.config/git/credentials', '~/.bash_history']) {
      assert.ok(
        fx.core.logger.lines.some((l) => l.includes(`(protected path ${label})`)),
        `denied as the protected path ${label}`,
      );
    }
  });
});
