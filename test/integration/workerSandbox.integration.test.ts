// The worker sandbox against the REAL runtime and Bubblewrap: with the shell approved (the working
// directory trusted), a protected file is tried by many spellings and never reaches the model; a
// worker's environment holds no credential; a request to leave the sandbox goes to the user.
import * as assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OrchestratorEvent } from '../../src/core/orchestrator/events';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { waitFor } from '../support/waitFor';
import { afterEachCore } from '../support/afterEachCore';

const MARKER = 'MARKER-id-rsa-7f3a9c';
const TOKEN = 'ghu_BatonSecretToken4242';
/** What a real user's environment holds: none of it may reach a worker's shell. */
const SECRETS = {
  ACME_API_KEY: 'acme-key-5d1e',
  AWS_SECRET_ACCESS_KEY: 'aws-secret-9b7c',
  NPM_TOKEN: 'npm-token-3a2f',
  DATABASE_URL: 'postgres://u:p@h/db',
  SSH_AUTH_SOCK: '/tmp/ssh-agent-baton.sock',
};

describe('worker sandbox (real runtime, Bubblewrap, scripted model)', function () {
  this.timeout(120_000);
  let core: CoreFixture;
  let project: string;

  const backgroundDone = (): number => core.events.filter((e) => e.type === 'turn.completed' && e.origin.channel === 'background').length;

  /** Scripts one worker task: each command in turn through the bash tool, then a final report. */
  const scriptShell = (worker: string, task: string, commands: string[]): void => {
    const forWorker = (r: { systemText: string }) => r.systemText.includes(`You are '${worker}'`);
    commands.forEach((command, i) => {
      core.server.on(
        { predicate: (r) => forWorker(r) && r.messages.filter((m) => m.role === 'tool').length === i, name: `${worker} command ${i}` },
        { toolCalls: [{ id: `${worker}-c${i}`, name: 'bash', arguments: { command, description: `step ${i}` } }] },
      );
    });
    core.server.on(
      { predicate: (r) => forWorker(r) && r.messages.filter((m) => m.role === 'tool').length === commands.length, name: `${worker} report` },
      { text: `${task}: done` },
    );
    core.server.on({ lastUserIncludes: `[Background task completed] Worker '${worker}'`, name: `result of ${worker}` }, { text: `noted ${worker}` });
  };

  const toolOutputs = (worker: string): string[] =>
    core.server
      .chatRequests()
      .filter((r) => r.systemText.includes(`You are '${worker}'`))
      .at(-1)!
      .messages.filter((m) => m.role === 'tool')
      .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));

  beforeEach(async () => {
    core = await startCore({ gitHubToken: TOKEN, env: { ...SECRETS, BATON_PASSED_THROUGH: 'passed-4e1d' } });
    core.workerSettings.trustWorkingDir = true;
    project = join(core.home, 'dev', 'app');
    await mkdir(project, { recursive: true });
    await mkdir(join(core.home, '.ssh'), { recursive: true });
    await writeFile(join(core.home, '.ssh', 'id_rsa'), `-----BEGIN KEY-----\n${MARKER}\n-----END KEY-----\n`);
    // A symlink the user (or an earlier step) left inside the working directory, pointing at the keys.
    await symlink(join(core.home, '.ssh'), join(project, 'keys'));
  });

  afterEachCore(() => core);

  it('never lets a protected file reach the model, whatever the spelling, with the shell approved', async () => {
    const escapes = [
      `cat ~/.s"s"h/id_rsa`,
      'cat $(echo ~)/.ssh/id_rsa',
      `sh -c 'cat "$HOME"/.s''sh/id_rsa'`,
      `/usr/bin/python3 -c "import os; print(open(os.path.expanduser('~/.s' + 'sh/id_rsa')).read())"`,
      'cat keys/id_rsa',
      `cat ../../.ssh/id_rsa`,
      'cd ~ && cat .ssh/id_rsa',
      `cat ${join(core.home, '.ssh', 'id_rsa').replace('.ssh', '.s*h')}`,
      'echo sandbox-still-runs-commands',
    ];
    scriptShell('prober', 'TASK-probe', escapes);
    await core.pool.create({ name: 'prober', workingDir: project, prompt: 'TASK-probe: read the keys' });
    await waitFor('the worker to finish', () => core.pool.list().find((w) => w.name === 'prober' && w.state === 'done'));
    await waitFor('the result turn', () => backgroundDone() >= 1);

    const outputs = toolOutputs('prober');
    assert.equal(outputs.length, escapes.length, 'every command produced a result the model saw');
    assert.match(outputs.at(-1)!, /sandbox-still-runs-commands/, 'the sandbox runs ordinary commands');
    for (const req of core.server.requests) {
      assert.ok(!JSON.stringify(req).includes(MARKER), `the key reached the model server in ${req.method} ${req.path}`);
    }
    assert.equal(core.broker.asked.length, 0, 'the trusted shell was not asked about (the sandbox is the boundary)');
    const card = core.pool.list().find((w) => w.name === 'prober')!;
    assert.ok(card.sandbox && ['applied', 'engaged'].includes(card.sandbox.state), `sandbox: ${JSON.stringify(card.sandbox)}`);
    const report: string[] = escapes.map((cmd, i) => `${cmd} → ${outputs[i]!.split('\n')[0]!.slice(0, 80)}`);
    console.log(`      escapes tried:\n        ${report.join('\n        ')}`);
  });

  it('without the sandbox, trust does not approve shells: the same escape is asked about, and denied', async () => {
    core.workerSettings.sandbox = 'off';
    core.broker.answer = 'deny';
    scriptShell('bare', 'TASK-bare', [`cat ~/.s"s"h/id_rsa`]);
    await core.pool.create({ name: 'bare', workingDir: project, prompt: 'TASK-bare: read the keys' });
    await waitFor('the worker to finish', () => core.pool.list().find((w) => w.name === 'bare' && w.state === 'done'));
    await waitFor('the result turn', () => backgroundDone() >= 1);
    assert.deepEqual(
      core.broker.asked.map((p) => [p.kind, p.detail]),
      [['shell', `cat ~/.s"s"h/id_rsa`]],
    );
    assert.equal(core.pool.list().find((w) => w.name === 'bare')!.sandbox?.state, 'off');
    for (const req of core.server.requests) assert.ok(!JSON.stringify(req).includes(MARKER));
  });

  for (const sandbox of ['auto', 'off'] as const) {
    it(`gives a worker's shell only the allowlisted environment and what the user names (sandbox ${sandbox})`, async () => {
      core.workerSettings.sandbox = sandbox;
      core.workerSettings.environment = { BATON_PASSED_THROUGH: true, BATON_SET: 'set-by-setting' };
      // Without the sandbox every shell command asks; the user allows this one.
      core.broker.answer = 'once';
      scriptShell('envy', 'TASK-env', ['env']);
      await core.pool.create({ name: 'envy', workingDir: project, prompt: 'TASK-env: print the environment' });
      await waitFor('the worker to finish', () => core.pool.list().find((w) => w.name === 'envy' && w.state === 'done'));
      await waitFor('the result turn', () => backgroundDone() >= 1);
      const [env] = toolOutputs('envy');
      assert.match(env!, /^PATH=/m, 'the environment was printed');
      assert.equal(core.pool.list().find((w) => w.name === 'envy')!.sandbox?.state === 'off', sandbox === 'off');
      for (const [name, value] of Object.entries(SECRETS)) {
        assert.doesNotMatch(env!, new RegExp(`^${name}=`, 'm'), `${name} reached the worker`);
        for (const req of core.server.requests) assert.ok(!JSON.stringify(req).includes(value), `${name}'s value reached the model`);
      }
      assert.ok(!env!.includes(TOKEN), 'the GitHub token is readable by a worker');
      assert.doesNotMatch(env!, /COPILOT_SDK_AUTH_TOKEN|GH_TOKEN=\S|GITHUB_TOKEN=\S|API_KEY=\S/);
      assert.match(env!, /^BATON_PASSED_THROUGH=passed-4e1d$/m, 'a name passed through reaches the worker');
      assert.match(env!, /^BATON_SET=set-by-setting$/m, 'a value set in the setting reaches the worker');
      assert.deepEqual(
        core.broker.asked.map((p) => p.detail),
        sandbox === 'off' ? ['env'] : [],
      );
      // The token still authenticates every model request, carried by the session instead.
      assert.ok(core.server.chatRequests().every((r) => r.headers.authorization === `Bearer ${TOKEN}`));
      const report = core.sessions.environmentReport();
      for (const name of Object.keys(SECRETS)) assert.ok(report.withheld.includes(name), `Doctor names ${name} as withheld`);
      assert.ok(!report.withheld.includes('BATON_PASSED_THROUGH'));
    });
  }

  it('refuses a bypass of the sandbox to a protected file without asking anyone', async () => {
    core.broker.answer = 'once';
    // The view tool on a sandbox-denied path asks to run outside the sandbox; a protected path is refused before anyone is asked.
    const forWorker = (r: { systemText: string }) => r.systemText.includes("You are 'viewer'");
    core.server.on(
      { predicate: (r) => forWorker(r) && !r.messages.some((m) => m.role === 'tool'), name: 'viewer view' },
      { toolCalls: [{ id: 'v1', name: 'view', arguments: { path: join(core.home, '.ssh', 'id_rsa') } }] },
    );
    core.server.on({ predicate: (r) => forWorker(r) && r.messages.some((m) => m.role === 'tool'), name: 'viewer report' }, { text: 'could not read it' });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'viewer'", name: 'result of viewer' }, { text: 'noted viewer' });
    await core.pool.create({ name: 'viewer', workingDir: project, prompt: 'TASK-view: show the key' });
    await waitFor('the worker to finish', () => core.pool.list().find((w) => w.name === 'viewer' && w.state === 'done'));
    await waitFor('the result turn', () => backgroundDone() >= 1);
    for (const req of core.server.requests) assert.ok(!JSON.stringify(req).includes(MARKER));
    assert.equal(core.broker.asked.length, 0, 'nobody was asked: a protected path is never offered');
    assert.match(core.pool.transcript('viewer'), /permission denied: .*\.ssh.*protected path ~\/\.ssh/);
    const finished = core.events.filter((e): e is Extract<OrchestratorEvent, { type: 'turn.completed' }> => e.type === 'turn.completed');
    assert.ok(finished.length >= 1);
  });

  it("runs the runtime's own grep and glob tools in the sandbox (its bundled ripgrep is readable there)", async () => {
    // In place, so the scripted calls can name the folder (in a copy the worker would search its worktree).
    core.workerSettings.isolation = 'none';
    await writeFile(join(project, 'main.ts'), 'export const NEEDLE_8812 = 1;\n');
    const forWorker = (r: { systemText: string }) => r.systemText.includes("You are 'seeker'");
    core.server.on(
      { predicate: (r) => forWorker(r) && !r.messages.some((m) => m.role === 'tool'), name: 'seeker searches' },
      {
        toolCalls: [
          { id: 'seeker-grep', name: 'grep', arguments: { pattern: 'NEEDLE_\\d+', path: project, output_mode: 'content' } },
          { id: 'seeker-glob', name: 'glob', arguments: { pattern: '**/*.ts', path: project } },
        ],
      },
    );
    core.server.on({ predicate: (r) => forWorker(r) && r.messages.some((m) => m.role === 'tool'), name: 'seeker reports' }, { text: 'found it' });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'seeker'", name: 'result of seeker' }, { text: 'noted seeker' });
    await core.pool.create({ name: 'seeker', workingDir: project, prompt: 'find the needle' });
    await waitFor('seeker to finish', () => core.pool.list().find((w) => w.name === 'seeker' && w.state === 'done'), 60_000);
    await waitFor('its result to be answered', () => backgroundDone() >= 1);
    assert.equal(core.pool.list().find((w) => w.name === 'seeker')?.sandbox?.state, 'engaged');
    const outputs = toolOutputs('seeker').join('\n');
    assert.match(outputs, /main\.ts.*NEEDLE_8812|NEEDLE_8812 = 1/, outputs);
    assert.match(outputs, /main\.ts/);
    assert.doesNotMatch(outputs, /rg: not found|sandbox is active/);
  });
});
