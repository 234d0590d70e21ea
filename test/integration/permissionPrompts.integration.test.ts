// Questions to the user as the panel asks them (the real ChatController, no fake broker), against the REAL runtime:
// a conversation's own MCP tools (the user's MCP server, a real stdio process) run when they only read and ask before
// anything else; a question nobody waits for any more (its worker stopped, its turn ended) leaves the panel, so Baton
// is idle again.
import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PermissionDecision, PermissionPrompt } from '../../src/shared/protocol';
import { WORK_IN_PLACE } from '../../src/shared/permissionAsk';
import { makeRepo, testGit } from '../support/gitFixture';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { scriptWorkerRound } from '../support/scriptedWorker';
import { waitFor } from '../support/waitFor';
import { afterEachCore } from '../support/afterEachCore';

const NOTES_SERVER = join(__dirname, '..', 'support', 'notesMcpServer.mjs');

describe('permission prompts in the panel (real runtime, real MCP server, scripted model)', function () {
  this.timeout(120_000);
  let core: CoreFixture;
  let notes: string;

  const open = (): PermissionPrompt[] => core.chat.snapshot().permissions;
  const answer = (decision: PermissionDecision): void => core.chat.receive({ type: 'permission/answer', id: open()[0]!.id, decision });
  /**
   * The results the model got back, in the order it made the calls (by call id): the runtime lists them as they end, and
   * a read can end after the user's answer to a write asked beside it (seen in CI).
   */
  const toolResults = (prompt: string): string[] =>
    core.server
      .chatRequests()
      .filter((r) => r.lastUserText?.includes(`[via panel] ${prompt}`))
      .at(-1)!
      .messages.filter((m) => m.role === 'tool')
      .sort((a, b) => (a.tool_call_id ?? '').localeCompare(b.tool_call_id ?? ''))
      .map((m) => String(m.content));
  /** The orchestrator calls the notes server's tools, then answers. */
  const scriptCalls = (prompt: string, calls: Array<[string, Record<string, unknown>]>, reply: string): void => {
    core.server.on(
      { lastUserIncludes: `[via panel] ${prompt}`, afterToolResult: false, name: `${prompt}: calls` },
      { toolCalls: calls.map(([name, args], i) => ({ id: `${prompt.replace(/\W/g, '')}-${i}`, name: `notes-${name}`, arguments: args })) },
    );
    core.server.on({ lastUserIncludes: `[via panel] ${prompt}`, afterToolResult: true, name: `${prompt}: reply` }, { text: reply });
  };

  let notesDir: string;

  beforeEach(async () => {
    notesDir = await mkdtemp(join(tmpdir(), 'baton-notes-'));
    notes = join(notesDir, 'notes.txt');
    await writeFile(notes, 'first note\n');
    core = await startCore({
      overrides: {
        // The panel asks (the fixture's broker would answer by itself).
        broker: undefined,
        userConfig: {
          mcpServers: { notes: { type: 'local', command: process.execPath, args: [NOTES_SERVER], env: { NOTES_FILE: notes }, tools: ['*'] } },
          skillDirectories: [],
        },
      },
    });
  });

  afterEachCore(() => core);
  afterEach(() => rm(notesDir, { recursive: true, force: true }));

  it("the user's MCP server: a read-only tool runs, a write asks first; Deny, Allow once and Allow in this conversation do what they say", async () => {
    // A read runs unasked; a write is asked about in the panel, as Baton, and denied: nothing is written.
    scriptCalls(
      'note it',
      [
        ['read_notes', {}],
        ['write_note', { text: 'second' }],
      ],
      'Denied, fine.',
    );
    const first = core.orchestrator.enqueue('note it', { channel: 'panel' });
    await waitFor('the question', () => open().length === 1);
    assert.deepEqual(
      open().map((p) => [p.worker, p.kind, p.detail, p.kept]),
      [['Baton', 'mcp', 'notes/write_note {"text":"second"}', 'conversation']],
    );
    answer('deny');
    assert.equal((await first.done).content, 'Denied, fine.');
    assert.deepEqual(toolResults('note it'), [
      'first note\n',
      'The user rejected this tool call. User feedback: The user denied this tool. Do not retry it; continue without it or ask them.',
    ]);
    assert.equal(await readFile(notes, 'utf8'), 'first note\n');

    // Allowed once: written once; the next call asks again, and "Allow in this conversation" lets the later ones run unasked.
    scriptCalls('write two', [['write_note', { text: 'two' }]], 'Written.');
    const second = core.orchestrator.enqueue('write two', { channel: 'panel' });
    await waitFor('the question', () => open().length === 1);
    answer('once');
    assert.equal((await second.done).content, 'Written.');
    scriptCalls('write three', [['write_note', { text: 'three' }]], 'Written again.');
    const third = core.orchestrator.enqueue('write three', { channel: 'panel' });
    await waitFor('the question', () => open().length === 1);
    answer('worker');
    assert.equal((await third.done).content, 'Written again.');
    scriptCalls('write four', [['write_note', { text: 'four' }]], 'And again.');
    assert.equal((await core.orchestrator.enqueue('write four', { channel: 'panel' }).done).content, 'And again.');
    assert.deepEqual(open(), []);
    assert.equal(await readFile(notes, 'utf8'), 'first note\ntwo\nthree\nfour\n');
    core.assertScriptDone();
  });

  it("a read-only MCP tool never reads a protected path: the user's key stays off the model, unasked; another file is read as before", async () => {
    const key = join(core.home, '.ssh', 'id_test');
    await mkdir(join(core.home, '.ssh'), { recursive: true });
    await writeFile(key, 'PRIVATE-KEY-MATERIAL\n');
    const readme = join(notesDir, 'readme.txt');
    await writeFile(readme, 'public words\n');
    scriptCalls(
      'read them',
      [
        ['read_file', { path: key }],
        ['read_file', { path: readme }],
      ],
      'Read what I may.',
    );
    assert.equal((await core.orchestrator.enqueue('read them', { channel: 'panel' }).done).content, 'Read what I may.');
    assert.deepEqual(toolResults('read them'), [
      `Denied by preToolUse hook: ${key} is inside the protected path ~/.ssh; Baton never lets a tool reach it. Do not try another way.`,
      'public words\n',
    ]);
    assert.deepEqual(open(), [], 'nothing asked');
    assert.ok(core.server.chatRequests().at(-1)!.tools.includes('notes-read_file'), "the tool is the real server's");
    // The server was called for the other file only; the key reached no model request.
    assert.equal(await readFile(`${notes}.calls`, 'utf8'), `${readme}\n`);
    assert.ok(!core.server.requests.some((r) => JSON.stringify(r).includes('PRIVATE-KEY-MATERIAL')));
    core.assertScriptDone();
  });

  it('a read-only MCP call whose arguments are too deep to search whole for protected paths is asked about, as Baton', async () => {
    let deep: Record<string, unknown> = { leaf: '~/.ssh/id_test' };
    for (let i = 0; i < 40; i++) deep = { next: deep };
    scriptCalls('read long', [['read_file', { path: notes, deep }]], 'Read it.');
    const turn = core.orchestrator.enqueue('read long', { channel: 'panel' });
    await waitFor('the question', () => open().length === 1);
    assert.deepEqual(
      open().map((p) => [p.worker, p.kind]),
      [['Baton', 'mcp']],
    );
    assert.ok(open()[0]!.detail.startsWith(`notes-read_file {"path":"${notes}","deep":{"next":`), open()[0]!.detail);
    answer('once');
    assert.equal((await turn.done).content, 'Read it.');
    assert.deepEqual(toolResults('read long'), ['first note\n']);
    core.assertScriptDone();
  });

  it('a question nobody waits for leaves the panel: a stopped turn, a killed worker; then Baton is idle again', async () => {
    core.server.on(
      { lastUserIncludes: '[via panel] write late', afterToolResult: false, name: 'write late: calls' },
      { toolCalls: [{ id: 'late-1', name: 'notes-write_note', arguments: { text: 'late' } }] },
    );
    const turn = core.orchestrator.enqueue('write late', { channel: 'panel' });
    await waitFor('the question', () => open().length === 1);
    assert.equal(core.recycler.idle(), false);
    assert.equal(core.orchestrator.stop(), true);
    assert.equal((await turn.done).status, 'cancelled');
    await waitFor('the question to go', () => open().length === 0);
    assert.equal(await readFile(notes, 'utf8'), 'first note\n');

    // A worker outside the sandbox asks before its shell command; killed meanwhile, its question goes with it.
    core.workerSettings.sandbox = 'off';
    const project = join(core.home, 'dev', 'app');
    await mkdir(project, { recursive: true });
    core.server.on(
      { systemIncludes: "You are 'asker'", afterToolResult: false, name: 'asker acts' },
      { toolCalls: [{ id: 'asker-1', name: 'bash', arguments: { command: 'echo hi', description: 'greet' } }] },
    );
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'asker'", name: 'result of asker' }, { text: 'noted' });
    await core.pool.create({ name: 'asker', workingDir: project, prompt: 'TASK-asker' });
    await waitFor('its question', () => open().length === 1);
    assert.deepEqual(
      open().map((p) => [p.worker, p.kind, p.detail]),
      [['asker', 'shell', 'echo hi']],
    );
    await core.pool.kill('asker');
    await waitFor('its question to go', () => open().length === 0);
    await waitFor('its result to be answered', () => core.conversations.all().every((c) => c.idle));
    assert.equal(core.recycler.idle(), true, 'no question counted open: the idle restart and the health check may run');
    core.server.releaseHeld();
  });

  it('a worker Baton cannot isolate (create_worker_session, squad_delegate): its question goes when the turn that asked for it stops, and nothing starts', async () => {
    // A folder of a repository that git does not track: no worktree would hold it, so the worker would work in it.
    const repo = await makeRepo(testGit(), join(core.home, 'dev', 'mono'), { 'README.md': '# mono\n' });
    const scratch = join(repo, 'scratch');
    await mkdir(scratch);
    core.server.on(
      { lastUserIncludes: '[via panel] tidy scratch', afterToolResult: false, name: 'tidy scratch: delegates' },
      { toolCalls: [{ id: 'tidy-1', name: 'create_worker_session', arguments: { name: 'tidy', working_dir: scratch, initial_prompt: 'TASK-tidy' } }] },
    );
    const turn = core.orchestrator.enqueue('tidy scratch', { channel: 'panel' });
    await waitFor('the question', () => open().length === 1);
    assert.deepEqual(
      open().map((p) => [p.worker, p.kind, p.detail.split('. ')[0]]),
      [['tidy', WORK_IN_PLACE, `${scratch}\nNo isolation here: git does not track it, so a worktree would not hold it`]],
    );
    assert.equal(core.orchestrator.stop(), true);
    assert.equal((await turn.done).status, 'cancelled');
    await waitFor('the question to go', () => open().length === 0);
    assert.deepEqual(core.pool.list(), [], 'no worker listed');

    // The same for a squad's member, started by squad_delegate.
    await core.squads.create({ name: 'mono', projectDir: scratch });
    core.server.on(
      { lastUserIncludes: '[via panel] squad tidy', afterToolResult: false, name: 'squad tidy: delegates' },
      { toolCalls: [{ id: 'squad-1', name: 'squad_delegate', arguments: { squad: 'mono', task: 'TASK-squad-tidy' } }] },
    );
    const squadTurn = core.orchestrator.enqueue('squad tidy', { channel: 'panel' });
    await waitFor("the squad member's question", () => open().length === 1);
    assert.equal(open()[0].kind, WORK_IN_PLACE);
    assert.equal(core.orchestrator.stop(), true);
    assert.equal((await squadTurn.done).status, 'cancelled');
    await waitFor('its question to go', () => open().length === 0);
    assert.deepEqual(core.pool.list(), [], 'no worker listed');
    assert.deepEqual(
      core.server.chatRequests().filter((r) => /You are '/.test(r.systemText ?? '')),
      [],
      'no worker reached the model',
    );
    assert.equal(core.recycler.idle(), true, 'no question counted open');
  });

  it('workers started together where Baton cannot isolate them: one question at a time; "Allow in this folder" covers those waiting', async () => {
    const repo = await makeRepo(testGit(), join(core.home, 'dev', 'mono'), { 'README.md': '# mono\n' });
    const scratch = join(repo, 'scratch');
    await mkdir(scratch);
    // Their commands run in the sandbox unasked: the only questions are the ones about the folder.
    core.workerSettings.trustWorkingDir = true;
    const names = ['one', 'two', 'three'];
    for (const name of names) scriptWorkerRound(core.server, { worker: name, does: { command: `printf '${name}\\n' > ${name}.txt` }, report: `${name}: done` });
    const asked: string[] = [];
    const nextQuestion = async (): Promise<PermissionPrompt> => {
      await waitFor('a question', () => open().length === 1 && !asked.includes(open()[0]!.id));
      asked.push(open()[0]!.id);
      return open()[0]!;
    };
    const started = names.map((name) => core.pool.create({ name, workingDir: scratch, prompt: `TASK-${name}` }));
    const first = await nextQuestion();
    assert.equal(first.kind, WORK_IN_PLACE);
    assert.equal(first.kept, 'folder');
    // Allowed once: that worker only; the next waiting one asks (never two questions open at once).
    answer('once');
    const second = await nextQuestion();
    assert.notEqual(second.worker, first.worker);
    answer('worker');
    const workers = await Promise.all(started);
    assert.deepEqual(
      workers.map((w) => w.isolation?.kind),
      ['in-place', 'in-place', 'in-place'],
    );
    assert.deepEqual(open(), [], 'the third was not asked');
    assert.equal(asked.length, 2);
    for (const name of names) await waitFor(`${name} to finish`, () => core.pool.list().find((w) => w.name === name && w.state === 'done'), 90_000);
    await waitFor('their results answered', () =>
      names.every((n) => core.server.chatRequests().some((r) => r.lastUserText?.includes(`Worker '${n}' finished`))),
    );
    for (const name of names) assert.equal(await readFile(join(scratch, `${name}.txt`), 'utf8'), `${name}\n`);
    // Kept for this window (Doctor lists it) until taken back (Baton: Ask Again Before Workers Change a Folder Itself).
    assert.deepEqual(core.pool.setup.approvedFolders(), [scratch]);
    assert.equal(core.pool.setup.forgetApprovedFolders(), 1);
    const again = core.pool.create({ name: 'four', workingDir: scratch, prompt: 'TASK-four' });
    assert.equal((await nextQuestion()).worker, 'four', 'asked again');
    answer('deny');
    await assert.rejects(again, /the user did not let it change/);
    assert.deepEqual(core.pool.setup.approvedFolders(), []);
  });

  it("a question counts for its own conversation: another conversation's turn that ends meanwhile is complete, not awaiting input", async () => {
    const project = join(core.home, 'dev', 'app');
    await mkdir(project, { recursive: true });
    const a = core.conversations.activeId;
    core.server.on(
      { lastUserIncludes: '[via panel] start the asker', afterToolResult: false, name: 'A starts a worker' },
      { toolCalls: [{ id: 'start-1', name: 'create_worker_session', arguments: { name: 'asker', working_dir: project, initial_prompt: 'TASK-asker' } }] },
    );
    core.server.on({ lastUserIncludes: '[via panel] start the asker', afterToolResult: true, name: 'A: started' }, { text: 'Started.' });
    core.server.on(
      { systemIncludes: "You are 'asker'", afterToolResult: false, name: 'asker acts' },
      { toolCalls: [{ id: 'asker-1', name: 'bash', arguments: { command: 'echo hi', description: 'greet' } }] },
    );
    core.server.on({ systemIncludes: "You are 'asker'", afterToolResult: true, name: 'asker reports' }, { text: 'Not allowed.' });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'asker'", name: 'A: the result' }, { text: 'It was not allowed.' });
    await core.orchestrator.enqueue('start the asker', { channel: 'panel' }).done;
    await waitFor('its question', () => open().length === 1);
    assert.equal(open()[0]!.conversation, a, 'asked for the conversation that started it');

    const b = core.conversations.get(core.conversations.create());
    core.server.on({ lastUserIncludes: '[via panel] hello from b', name: 'B answers' }, { text: 'Hi.' });
    const other = await b.enqueue('hello from b', { channel: 'panel' }).done;
    assert.deepEqual([other.content, other.awaitingInput], ['Hi.', undefined], "B's reply does not wait on A's question");
    core.server.on({ lastUserIncludes: '[via panel] how is it going', name: 'A answers' }, { text: 'Waiting on you.' });
    const own = await core.orchestrator.enqueue('how is it going', { channel: 'panel' }).done;
    assert.deepEqual([own.content, own.awaitingInput], ['Waiting on you.', 1], "A's does");
    answer('deny');
    await waitFor('the result to be answered', () => core.events.some((e) => e.type === 'turn.completed' && e.origin.channel === 'background'));
    core.assertScriptDone();
  });
});
