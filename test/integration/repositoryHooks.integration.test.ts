// A cloned repository's `.github/hooks/*.json` are shell commands the Copilot runtime would run by itself at a
// session's start, at each prompt and before each tool, outside any sandbox and without asking. Against the REAL
// runtime: with such files in the workspace and in a worker's folder, a conversation and a worker's task run as usual
// and none of their commands runs. Nor does anything else a repository can name to be run: its MCP configuration's
// servers, its project settings' hooks, its extensions and plugins (the runtime 1.0.85 loads none of these for an SDK
// session; the test holds a newer runtime to it), and its language servers: the runtime's `lsp` tool, offered once a
// repository names one, starts it at its first call, without asking (measured: unsandboxed in the orchestrator's
// workspace), so neither the orchestrator nor an unsandboxed worker is offered `lsp`.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { afterEachCore } from '../support/afterEachCore';
import { waitFor } from '../support/waitFor';

/** A hooks file whose every hook leaves a file named after it beside `marker`. */
const hooksFile = (marker: string): string =>
  JSON.stringify({
    version: 1,
    hooks: Object.fromEntries(
      ['sessionStart', 'userPromptSubmitted', 'preToolUse', 'postToolUse', 'sessionEnd'].map((event) => [
        event,
        [{ type: 'command', bash: `touch ${marker}-${event}` }],
      ]),
    ),
  });

describe("a repository's hooks files (real runtime, real git, scripted model)", function () {
  this.timeout(120_000);
  let core: CoreFixture;

  beforeEach(async () => {
    core = await startCore({});
  });
  afterEachCore(() => core);

  it("never run: not in the workspace at the orchestrator's turns, not in a worker's folder at its start or its tools; nor its servers, extensions or plugins", async () => {
    const project = join(core.home, 'dev', 'cloned');
    for (const [dir, tag] of [
      [core.workspace, 'workspace'],
      [project, 'worker'],
    ] as const) {
      await mkdir(join(dir, '.github', 'hooks'), { recursive: true });
      await writeFile(join(dir, '.github', 'hooks', 'setup.json'), hooksFile(join(core.root, `RAN-${tag}`)));
      // A repository's MCP configuration, in each place a tool reads one from: a server started would leave its file.
      const server = (where: string) => ({ type: 'local', command: 'touch', args: [join(core.root, `RAN-${tag}-mcp-${where}`)], tools: ['*'] });
      // Its language servers, project settings (with hooks of their own), extensions and plugins: each the same.
      const ran = (what: string) => join(core.root, `RAN-${tag}-${what}`);
      const lsp = (where: string) => ({ command: 'touch', args: [ran(`lsp-${where}`)], fileExtensions: { '.ts': 'typescript' } });
      for (const [file, body] of [
        ['.github/mcp.json', { mcpServers: { a: server('github') } }],
        ['.mcp.json', { mcpServers: { b: server('dot') } }],
        ['.vscode/mcp.json', { servers: { c: server('vscode') } }],
        ['.copilot/mcp-config.json', { mcpServers: { d: server('copilot') } }],
        ['lsp.json', { lspServers: { ts: lsp('root') } }],
        ['.github/lsp.json', { lspServers: { ts: lsp('github') } }],
        [
          '.github/copilot/settings.json',
          { lspServers: { ts: lsp('settings') }, hooks: { sessionStart: [{ type: 'command', bash: `touch ${ran('settings-hook')}` }] } },
        ],
        ['.github/plugin/plugin.json', { name: 'setup', hooks: { sessionStart: [{ type: 'command', bash: `touch ${ran('plugin-hook')}` }] } }],
      ] as const) {
        await mkdir(join(dir, file, '..'), { recursive: true });
        await writeFile(join(dir, file), JSON.stringify(body));
      }
      await mkdir(join(dir, '.github', 'extensions', 'setup'), { recursive: true });
      await writeFile(
        join(dir, '.github', 'extensions', 'setup', 'extension.mjs'),
        `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(ran('extension'))}, '');\n`,
      );
      await mkdir(join(dir, 'src'), { recursive: true });
      await writeFile(join(dir, 'src', 'a.ts'), 'export const a = 1;\n');
      execFileSync('git', ['init', '-q', dir]);
    }
    // A model that calls `lsp` all the same (it was offered before: the repository's .github/lsp.json made it so).
    const lspCall = (id: string, dir: string) => ({ id, name: 'lsp', arguments: { operation: 'documentSymbol', file: join(dir, 'src', 'a.ts') } });
    core.server.on(
      { lastUserIncludes: '[via panel] hello', afterToolResult: false, name: 'hello' },
      { toolCalls: [lspCall('orchestrator-lsp', core.workspace)] },
    );
    core.server.on({ lastUserIncludes: '[via panel] hello', afterToolResult: true, name: 'hello answered' }, { text: 'Hi.' });
    assert.equal((await core.orchestrator.enqueue('hello', { channel: 'panel' }).done).content, 'Hi.');
    const offered = core.server.chatRequests().find((r) => r.lastUserText?.includes('[via panel] hello'))!.tools;
    assert.ok(offered.includes('create_worker_session') && !offered.includes('lsp'), offered.join(', '));

    core.server.on(
      { systemIncludes: "You are 'cloner'", afterToolResult: false, name: 'cloner runs' },
      {
        toolCalls: [
          { id: 'cloner-1', name: 'bash', arguments: { command: 'echo built', description: 'build' } },
          { id: 'cloner-2', name: 'view', arguments: { path: join(project, 'src', 'a.ts') } },
          lspCall('cloner-3', project),
        ],
      },
    );
    core.server.on({ systemIncludes: "You are 'cloner'", afterToolResult: true, name: 'cloner reports' }, { text: 'built it' });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'cloner'", name: 'result of cloner' }, { text: 'Done.' });
    core.workerSettings.sandbox = 'off';
    core.broker.answer = 'once';
    await core.pool.create({ name: 'cloner', workingDir: project, prompt: 'TASK-cloner' });
    await waitFor('its result to be answered', () =>
      core.server.chatRequests().some((r) => r.lastUserText?.includes("[Background task completed] Worker 'cloner'")),
    );
    await waitFor('Baton idle', () => core.conversations.all().every((c) => c.idle));
    const tool = core.server
      .chatRequests()
      .filter((r) => r.systemText?.includes("You are 'cloner'"))
      .flatMap((r) => r.messages.filter((m) => m.role === 'tool').map((m) => String(m.content)));
    assert.match(tool.join('\n'), /built/, 'the worker ran its command');
    const workerTools = core.server.chatRequests().find((r) => r.systemText?.includes("You are 'cloner'"))!.tools;
    assert.ok(workerTools.includes('bash') && !workerTools.includes('lsp'), workerTools.join(', '));
    assert.deepEqual(
      (await readdir(core.root)).filter((f) => f.startsWith('RAN-')),
      [],
    );
    core.assertScriptDone();
  });
});
