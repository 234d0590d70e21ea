// Baton's public API, its lifecycle events and its language-model tools' logic, against the REAL
// Copilot runtime and a scripted model, built as the extension builds Baton (createBatonCore).
// What another extension, the Chat view (@baton) and Copilot's agent mode get is what these check.
import * as assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { BatonApi, BatonError, BatonEvent, BatonEventV2 } from '../../api/baton';
import { createBatonApi } from '../../src/core/api/batonApi';
import { prepareTool, runTool } from '../../src/core/api/languageModelTools';
import type { OrchestratorEvent } from '../../src/core/orchestrator/events';
import type { PermissionPrompt } from '../../src/shared/protocol';
import { makeRepo, testGit } from '../support/gitFixture';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { waitFor } from '../support/waitFor';
import { afterEachCore } from '../support/afterEachCore';

/** The event sequence as compact strings, e.g. "turn.streaming:Hel". */
function shape(events: BatonEvent[]): string[] {
  return events.map((e) => {
    switch (e.type) {
      case 'turn.streaming':
        return `${e.type}:${e.delta}`;
      case 'worker.started':
      case 'worker.finished':
        return `${e.type}:${e.worker}`;
      default:
        return e.type;
    }
  });
}

describe('public API and language-model tools (real runtime, scripted model, production wiring)', function () {
  this.timeout(60_000);
  let core: CoreFixture;
  let api: BatonApi & { dispose(): void };
  let project: string;

  const backgroundTurns = () =>
    core.events.filter((e): e is Extract<OrchestratorEvent, { type: 'turn.queued' }> => e.type === 'turn.queued' && e.origin.channel === 'background');
  const backgroundDone = () =>
    core.events.filter((e) => (e.type === 'turn.completed' || e.type === 'turn.failed') && 'origin' in e && e.origin.channel === 'background').length;

  beforeEach(async () => {
    core = await startCore();
    // In place: this suite is about the API; where a worker works is the isolation suites' (workerIsolation, folderCopy).
    core.workerSettings.isolation = 'none';
    api = createBatonApi(() => Promise.resolve(core.access));
    project = join(core.home, 'dev', 'app');
    await mkdir(project, { recursive: true });
  });

  afterEachCore(() => core, {
    settle: () => waitFor('the background turns', () => backgroundDone() >= backgroundTurns().length),
    beforeDispose: () => api.dispose(),
  });

  it('ask: one turn of the shared session, tagged "[via api]", with per-call events in order, each exactly once', async () => {
    core.server.on({ lastUserIncludes: '[via api] what is 2+2' }, { text: 'It is four.', chunks: 3 });
    const instance: BatonEvent[] = [];
    const perCall: BatonEvent[] = [];
    const order: string[] = [];
    const sub = api.on('*', (e) => {
      instance.push(e);
      order.push(`instance ${e.type}`);
    });
    const completed: BatonEvent[] = [];
    api.on('turn.completed', (e) => completed.push(e));

    const reply = await api.ask('what is 2+2', {
      on: (e) => {
        perCall.push(e);
        order.push(`call ${e.type}`);
      },
    });
    assert.equal(reply.text, 'It is four.');
    assert.equal(reply.status, 'complete');
    assert.equal(reply.model, 'claude-sonnet-4.5');

    const s = shape(perCall);
    assert.equal(s[0], 'turn.starting');
    assert.equal(s[1], 'turn.routed');
    assert.equal(s.at(-1), 'turn.completed');
    const deltas = perCall.filter((e): e is Extract<BatonEvent, { type: 'turn.streaming' }> => e.type === 'turn.streaming');
    assert.ok(deltas.length >= 1);
    assert.equal(deltas.map((d) => d.delta).join(''), 'It is four.', 'every delta once, in order');
    assert.equal(deltas.at(-1)!.text, 'It is four.', 'text is the reply so far');
    assert.equal(s.length, 3 + deltas.length, 'nothing else, nothing twice');
    const starting = perCall[0] as Extract<BatonEvent, { type: 'turn.starting' }>;
    assert.deepEqual(starting.origin, { channel: 'api' });
    assert.equal(starting.prompt, 'what is 2+2');
    assert.ok(perCall.every((e) => 'turnId' in e && e.turnId === reply.turnId));

    // The instance subscription saw the same events, each before the per-call handler did.
    assert.deepEqual(shape(instance), s);
    for (let i = 0; i < perCall.length; i++) assert.ok(order.indexOf(`instance ${perCall[i]!.type}`) <= order.lastIndexOf(`call ${perCall[i]!.type}`));
    assert.equal(completed.length, 1);
    sub.dispose();

    // One conversation: the panel's log holds the message and the reply, tagged with their channel.
    const log = core.store.recentLog(2);
    assert.deepEqual(
      log.map((e) => [e.role, e.source, e.content]),
      [
        ['user', 'api', 'what is 2+2'],
        ['assistant', 'api', 'It is four.'],
      ],
    );
    const req = core.server.chatRequests().at(-1)!;
    assert.equal(req.sessionId, core.store.getState('orchestrator_session_id'), 'the orchestrator\u2019s own session');
  });

  it('ask: a stop through the signal keeps what streamed and gives exactly one turn.cancelled', async () => {
    core.server.on({ lastUserIncludes: '[via api] stream forever' }, { textThenHang: 'Partial answer' });
    const events: BatonEvent[] = [];
    const abort = new AbortController();
    const pending = api.ask('stream forever', { signal: abort.signal, on: (e) => events.push(e) });
    await waitFor('the first delta', () => events.some((e) => e.type === 'turn.streaming'));
    abort.abort();
    const reply = await pending;
    assert.equal(reply.status, 'cancelled');
    assert.equal(reply.text, 'Partial answer');
    assert.deepEqual(shape(events), ['turn.starting', 'turn.routed', 'turn.streaming:Partial answer', 'turn.cancelled']);
    assert.equal(core.store.recentLog(1)[0]!.content, 'Partial answer');
    core.server.releaseHeld();
  });

  it('ask: a caller that cancels while its turn is queued withdraws it: no session, no classifier, no row; the turn ahead is untouched', async () => {
    // Auto routing on: a message that ran would be classified first. Only the first one is scripted.
    core.settings.routing.auto = true;
    core.server.on(
      { systemIncludes: 'You label messages for model routing', lastUserIncludes: 'first: how do I list', name: 'classify first' },
      { text: 'standard' },
    );
    core.server.on(
      { lastUserIncludes: '[via panel] first: how do I list', systemIncludes: 'You are Baton', name: 'first' },
      { text: 'First answer.', delayMs: 300 },
    );
    const first = core.orchestrator.enqueue('first: how do I list the files of this folder?', { channel: 'panel' });
    const abort = new AbortController();
    const events: BatonEvent[] = [];
    const second = api.ask('second: how do I count the lines of a file?', { signal: abort.signal, on: (e) => events.push(e) });
    await waitFor('the ask to be queued behind it', () => core.events.some((e) => e.type === 'turn.queued' && e.origin.channel === 'api'));
    assert.equal(core.access.events.currentTurn?.turnId, first.turnId);
    abort.abort();
    assert.equal((await first.done).content, 'First answer.');
    const reply = await second;
    assert.equal(reply.status, 'cancelled');
    assert.equal(events.at(-1)!.type, 'turn.cancelled');
    assert.equal(events.filter((e) => e.type === 'turn.cancelled').length, 1);
    assert.ok(!core.server.chatRequests().some((r) => JSON.stringify(r.messages).includes('second')), 'the cancelled message never reached the model');
    await first.done;
    // No row of it in the log, neither the question nor an empty answer; the panel shows none either.
    assert.deepEqual(
      core.store.recentLog(10).map((e) => `${e.role}:${e.source}:${e.content}`),
      ['user:panel:first: how do I list the files of this folder?', 'assistant:panel:First answer.'],
    );
    assert.ok(!core.chat.snapshot().messages.some((m) => m.content.includes('second')));
    assert.ok(!core.events.some((e) => e.type === 'turn.started' && e.origin.channel === 'api'), 'it never started');
  });

  it('ask: an already aborted signal rejects at once with kind "cancelled"; nothing is queued', async () => {
    const abort = new AbortController();
    abort.abort();
    await assert.rejects(api.ask('never sent', { signal: abort.signal }), (err: BatonError) => err.name === 'BatonError' && err.kind === 'cancelled');
    assert.equal(core.store.recentLog(5).length, 0);
  });

  it('ask: bad input and a failing turn reject with a BatonError whose kind says what to do', async () => {
    await assert.rejects(api.ask('   '), (err: BatonError) => {
      assert.equal(err.name, 'BatonError');
      assert.equal(err.kind, 'invalid-input');
      assert.equal(err.message, 'Invalid input for ask: question: must not be empty.');
      return true;
    });
    core.server.on({ lastUserIncludes: '[via api] break' }, { error: 400, body: { error: { message: 'bad request from the model' } } });
    const events: BatonEvent[] = [];
    await assert.rejects(api.ask('break', { on: (e) => events.push(e) }), (err: BatonError) => {
      assert.equal(err.name, 'BatonError');
      assert.notEqual(err.kind, 'invalid-input');
      assert.ok(err.message.length > 0);
      return true;
    });
    assert.equal(events.at(-1)!.type, 'turn.failed');
    assert.equal(events.filter((e) => e.type.startsWith('turn.failed')).length, 1);
  });

  it('delegate: a fresh worker per call; the name at once, then started → progress → finished once each, and the result goes back to the caller and to the orchestrator', async () => {
    core.server.on({ lastUserIncludes: 'TASK-api add a test' }, { text: 'Added test/utils.test.ts.\nAll 3 tests pass.', delayMs: 300, chunks: 2 });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'utils-test'" }, { text: 'The utils test is in place.' });
    const events: BatonEvent[] = [];
    const job = await api.delegate('TASK-api add a test for utils', { folder: '~/dev/app', name: 'utils-test', on: (e) => events.push(e) });
    assert.equal(job.worker, 'utils-test');
    assert.equal(job.workingDir, project);
    const result = await job.result;
    assert.equal(result.state, 'done');
    // The worker's report alone: no wrapper written for the model.
    assert.equal(result.text, 'Added test/utils.test.ts.\nAll 3 tests pass.');
    const finishedEvent = events.find((e): e is Extract<BatonEvent, { type: 'worker.finished' }> => e.type === 'worker.finished');
    assert.equal(finishedEvent?.result, 'Added test/utils.test.ts.\nAll 3 tests pass.');

    const s = shape(events);
    assert.equal(s[0], 'worker.started:utils-test');
    assert.equal(s.at(-1), 'worker.finished:utils-test');
    assert.ok(
      s.slice(1, -1).every((x) => x === 'worker.progress'),
      s.join(),
    );
    assert.deepEqual(events[0], { type: 'worker.started', worker: 'utils-test', workingDir: project, replyTo: 'api' }, 'no turn started it');

    // The orchestrator hears of it too (one conversation), as a result to be answered on the api channel.
    const bg = await waitFor('the background turn', () => backgroundTurns()[0]);
    assert.deepEqual(bg.origin, { channel: 'background', worker: 'utils-test', replyTo: 'api', conversation: 'main' });
    // The model still gets the wrapper: the report as data.
    const toModel = (
      await waitFor('the result reaching the model', () => core.server.chatRequests().find((r) => r.lastUserText?.includes("Worker 'utils-test'")))
    ).lastUserText!;
    assert.match(
      toModel,
      /\[Background task completed\] Worker 'utils-test' finished:\n\n<worker-output>\nAdded test\/utils\.test\.ts\.\nAll 3 tests pass\.\n<\/worker-output>/,
    );

    // A second call is a second, fresh worker session.
    core.server.on({ lastUserIncludes: 'TASK-api again' }, { text: 'Done again.' });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'task-api-again'" }, { text: 'Again done.' });
    const again = await api.delegate('TASK-api again', { folder: project });
    assert.equal(again.worker, 'task-api-again', 'named from the task');
    assert.equal((await again.result).state, 'done');
    // Its own session: nothing of the first worker's conversation reaches the model (both sessions are deleted by now,
    // their work settled, so their ids cannot be compared here).
    const againAsked = core.server.chatRequests().find((r) => r.lastUserText?.includes('TASK-api again'))!;
    assert.ok(!againAsked.messages.some((m) => String(m.content).includes('TASK-api add a test')), 'a fresh session');
  });

  it('delegate: bad input and refusals are BatonErrors with readable messages; nothing starts', async () => {
    await assert.rejects(api.delegate('do it', { folder: '' }), /Invalid input for delegate: folder: must not be empty\./);
    await assert.rejects(api.delegate('do it', { folder: project, name: 'no spaces' }), /Invalid input for delegate: name: use 1-48 letters/);
    await mkdir(join(core.home, '.ssh'), { recursive: true });
    await assert.rejects(api.delegate('read the keys', { folder: '~/.ssh' }), (err: BatonError) => {
      assert.equal(err.kind, 'worker');
      assert.match(err.message, /^Refused: .*protected path/);
      return true;
    });
    assert.equal(core.pool.list().length, 0);
    assert.equal(core.server.chatRequests().length, 0);
  });

  it('baton_delegate cancelled while Baton asks whether the worker may change the folder itself: the question goes, nothing starts', async () => {
    // Isolated as by default, in a folder of a repository git does not track: the worker would work in it, so it asks.
    core.workerSettings.isolation = 'worktree';
    const repo = await makeRepo(testGit(), join(core.home, 'dev', 'mono'), { 'README.md': '# mono\n' });
    const scratch = join(repo, 'scratch');
    await mkdir(scratch);
    let asked: AbortSignal | undefined;
    core.broker.ask = (_prompt: PermissionPrompt, signal?: AbortSignal) => {
      asked = signal;
      return new Promise((_, reject) => signal?.addEventListener('abort', () => reject(new Error('withdrawn'))));
    };
    const call = new AbortController();
    const run = runTool(core.access, 'baton_delegate', { task: 'TASK-tidy', folder: scratch, name: 'tidy' }, call.signal);
    await waitFor('the question', () => asked);
    call.abort();
    await assert.rejects(run, (err: BatonError) => err.message === "Worker 'tidy' was not started: the request for it was stopped before the user answered.");
    assert.equal(asked!.aborted, true, 'the question withdrawn');
    assert.equal(core.pool.list().length, 0);
    assert.equal(core.server.chatRequests().length, 0);
  });

  it('a worker the orchestrator starts during an ask is that call\u2019s event, and its result replies to the asking channel', async () => {
    core.server.on(
      { lastUserIncludes: '[via chat] fix the jwt bug', afterToolResult: false },
      { toolCalls: [{ name: 'create_worker_session', arguments: { name: 'auth-fix', working_dir: '~/dev/app', initial_prompt: 'TASK-auth fix it' } }] },
    );
    core.server.on({ lastUserIncludes: '[via chat] fix the jwt bug', afterToolResult: true }, { text: 'On it.' });
    core.server.on({ lastUserIncludes: 'TASK-auth' }, { text: 'Fixed.', delayMs: 300 });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'auth-fix'" }, { text: 'The JWT bug is fixed.' });
    const perCall: BatonEventV2[] = [];
    const all: BatonEvent[] = [];
    api.on('*', (e) => all.push(e));
    const reply = await core.access.ask('fix the jwt bug', 'chat', { on: (e) => perCall.push(e) });
    assert.equal(reply.text, 'On it.');
    const started = perCall.find((e): e is Extract<BatonEventV2, { type: 'worker.started' }> => e.type === 'worker.started');
    assert.deepEqual(started, { type: 'worker.started', worker: 'auth-fix', conversation: 'main', workingDir: project, replyTo: 'chat', turnId: reply.turnId });
    assert.equal(perCall.at(-1)!.type, 'turn.completed', 'the terminal event comes last');
    assert.ok(!perCall.some((e) => e.type === 'worker.finished'), 'after the call ended, the worker\u2019s events are instance-level only');

    const answered = await waitFor('the answer to the result', () =>
      all.find((e): e is Extract<BatonEvent, { type: 'turn.completed' }> => e.type === 'turn.completed' && e.origin.channel === 'background'),
    );
    // Version 1's events keep their shape: no conversation on the origin (version 2's carry it).
    assert.deepEqual(answered.origin, { channel: 'background', worker: 'auth-fix', replyTo: 'chat' });
    assert.equal(answered.text, 'The JWT bug is fixed.');
    const finished = all.filter((e) => e.type === 'worker.finished');
    assert.equal(finished.length, 1);
    assert.ok(all.indexOf(finished[0]!) < all.indexOf(answered), 'finished comes before the orchestrator\u2019s answer');
    assert.ok(
      core.store.recentLog(10).some((e) => e.source === 'chat' && e.role === 'assistant'),
      'the chat reply is in the one log',
    );
  });

  it('tools: baton_ask answers from the shared session; baton_delegate waits for its report; baton_workers and baton_recall read state; bad input is readable', async () => {
    core.server.on({ lastUserIncludes: '[via tool] summarise the day' }, { text: 'A quiet day.' });
    assert.equal(await runTool(core.access, 'baton_ask', { question: 'summarise the day' }), 'A quiet day.');
    assert.equal(core.server.chatRequests().at(-1)!.sessionId, core.store.getState('orchestrator_session_id'));

    const prep = prepareTool('baton_delegate', { task: 'TASK-tool lint', folder: project, wait: true });
    assert.equal(prep.confirmation?.title, 'Start a Baton worker?');
    assert.match(prep.confirmation!.message, /TASK-tool lint/);
    assert.equal(prepareTool('baton_ask', { question: 'hi' }).confirmation, undefined, 'a question needs no confirmation');
    assert.throws(() => prepareTool('baton_delegate', { task: 'x' }), /Invalid input for baton_delegate: folder: is required\./);
    assert.throws(() => prepareTool('baton_delegate', { task: 'x', folder: project, extra: 1 }), /unknown field "extra"/);
    // A folder the worker could not start in is refused before the user is asked to confirm it; a link is named as
    // the folder it leads to.
    assert.throws(() => prepareTool('baton_delegate', { task: 'x', folder: 'src/app' }, core.access), {
      name: 'BatonError',
      kind: 'worker',
      message: "folder must be an absolute path (or start with ~): 'src/app'.",
    });
    assert.throws(() => prepareTool('baton_delegate', { task: 'x', folder: join(project, 'missing') }, core.access), /^BatonError: Directory not found/);
    assert.throws(() => prepareTool('baton_delegate', { task: 'x', folder: core.storageDir }, core.access), /inside the protected path/);
    const link = join(core.workspace, 'project-link');
    await symlink(project, link);
    const confirmed = prepareTool('baton_delegate', { task: 'x', folder: link }, core.access).confirmation!.message;
    assert.ok(confirmed.includes(`**${realpathSync(project)}**`), confirmed);
    await assert.rejects(runTool(core.access, 'baton_recall', { limit: 500 }), /Invalid input for baton_recall: limit: must be at most 100\./);

    core.server.on({ lastUserIncludes: 'TASK-tool lint' }, { text: 'No lint errors.' });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'linter'" }, { text: 'Lint is clean.' });
    const report = await runTool(core.access, 'baton_delegate', { task: 'TASK-tool lint', folder: project, name: 'linter', wait: true });
    assert.equal(report, "Baton worker 'linter' finished. Its report:\n\nNo lint errors.");
    assert.match(await runTool(core.access, 'baton_workers', {}), /Recently finished:\n- linter: done in /);
    assert.match(await runTool(core.access, 'baton_workers', { name: 'linter' }), /^Worker 'linter': done in [\s\S]*No lint errors\./);
    await assert.rejects(runTool(core.access, 'baton_workers', { name: 'ghost' }), /No worker named 'ghost'/);

    core.store.addMemory('preference', 'Prefers tabs over spaces', 'user');
    assert.equal(await runTool(core.access, 'baton_recall', { keyword: 'tabs' }), '1 memory:\n- [#1] (preference) Prefers tabs over spaces');
    assert.deepEqual(await api.recall({ keyword: 'tabs' }), [{ id: 1, category: 'preference', content: 'Prefers tabs over spaces' }]);
  });
});
