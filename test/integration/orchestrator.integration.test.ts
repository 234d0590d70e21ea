// The orchestrator against the real Copilot runtime and a scripted model server.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { RUNTIME_BUILTIN_TOOLS } from '../../src/core/copilot/sessionConfig';
import { TurnError, type OrchestratorOptions } from '../../src/core/orchestrator/orchestrator';
import type { HostMessage } from '../../src/shared/protocol';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { afterEachCore } from '../support/afterEachCore';
import { ofType, timesSent } from '../support/orchestratorEvents';

/** Tools the production wiring must give the orchestrator: memory and workers. */
const BATON_TOOLS = [
  'remember',
  'recall',
  'forget',
  'create_worker_session',
  'send_to_worker',
  'list_sessions',
  'check_session_status',
  'kill_session',
  'list_machine_sessions',
  'attach_machine_session',
];

describe('Orchestrator (real runtime, scripted model)', function () {
  this.timeout(60_000);
  let core: CoreFixture;

  beforeEach(async () => {
    core = await startCore();
  });
  // Strict: no request the test did not script, nothing scripted left unused, no internet.
  afterEachCore(() => core);

  it('streams a reply as deltas, tags the channel, logs both sides and writes a checkpoint', async () => {
    core.server.on({ lastUserIncludes: 'hello baton' }, { text: 'Hi! How can I help today?', chunks: 5 });
    const handle = core.orchestrator.enqueue('hello baton', { channel: 'panel' });
    const result = await handle.done;
    assert.equal(result.status, 'complete');
    assert.equal(result.content, 'Hi! How can I help today?');
    const deltas = ofType(core.events, 'turn.delta').map((e) => e.delta);
    assert.ok(deltas.length >= 3, `expected several deltas, got ${deltas.length}`);
    assert.equal(deltas.join(''), 'Hi! How can I help today?');
    const chat = core.server.chatRequests();
    assert.match(chat.at(-1)!.lastUserText ?? '', /\[via panel\] hello baton/);
    const log = core.store.recentLog(10);
    assert.deepEqual(
      log.map((e) => [e.role, e.status]),
      [
        ['user', 'complete'],
        ['assistant', 'complete'],
      ],
    );
    assert.equal(log[1].content, 'Hi! How can I help today?');
    // The checkpoint is written just after the reply is handed over.
    await new Promise((resolve) => setImmediate(resolve));
    const checkpoints = core.store.recentCheckpoints('main', 5);
    assert.equal(checkpoints.length, 1);
    assert.equal(checkpoints[0].status, 'complete');
    assert.equal(checkpoints[0].fingerprint.length, 64);
  });

  it('answers three messages sent at once in order, one at a time', async () => {
    core.server.on({ lastUserIncludes: 'first' }, { text: 'one', delayMs: 150 });
    core.server.on({ lastUserIncludes: 'second' }, { text: 'two' });
    core.server.on({ lastUserIncludes: 'third' }, { text: 'three' });
    const handles = ['first', 'second', 'third'].map((t) => core.orchestrator.enqueue(t, { channel: 'command' }));
    const results = await Promise.all(handles.map((h) => h.done));
    assert.deepEqual(
      results.map((r) => r.content),
      ['one', 'two', 'three'],
    );
    const order = core.server.chatRequests().map((r) => /\[via command\] (\w+)/.exec(r.lastUserText ?? '')?.[1]);
    assert.deepEqual(order, ['first', 'second', 'third']);
    const completed = ofType(core.events, 'turn.completed').map((e) => e.turnId);
    assert.deepEqual(
      completed,
      handles.map((h) => h.turnId),
    );
  });

  it('messages queued behind an answer read in the conversation\u2019s order (each reply after its message): in the panel while it runs, after a reload, in a recovery\u2019s context', async () => {
    core.server.on({ lastUserIncludes: '[via panel] CCC' }, { text: 'reply C', delayMs: 500 });
    core.server.on({ lastUserIncludes: '[via panel] AAA' }, { text: 'reply A', delayMs: 500 });
    core.server.on({ lastUserIncludes: '[via panel] BBB' }, { text: 'reply B' });
    core.server.on({ lastUserIncludes: /\[via panel\] DDD$/ }, { text: 'reply D' });
    const shown = () => core.chat.snapshot().messages.map((m) => `${m.role}: ${m.content} (${m.status})`);
    const c = core.orchestrator.enqueue('CCC', { channel: 'panel' });
    await c.started;
    const a = core.orchestrator.enqueue('AAA', { channel: 'panel' });
    const b = core.orchestrator.enqueue('BBB', { channel: 'panel' });
    // Waiting behind the answer: queued in every snapshot too (the log alone cannot tell them from CCC, being answered).
    assert.deepEqual(shown(), ['user: CCC (complete)', 'assistant:  (streaming)', 'user: AAA (pending)', 'user: BBB (pending)']);
    const posted: HostMessage[] = [];
    core.chat.onDidPost((m) => posted.push(m));
    await a.started;
    // The panel shows BBB below AAA already: the reply starting goes between them, in a snapshot.
    const started = posted.filter((m) => m.type === 'snapshot').at(-1);
    assert.ok(started?.type === 'snapshot', 'a snapshot when a reply starts above a queued message');
    assert.deepEqual(
      started.snapshot.messages.map((m) => `${m.content} (${m.status})`),
      ['CCC (complete)', 'reply C (complete)', 'AAA (complete)', ' (streaming)', 'BBB (pending)'],
    );
    assert.deepEqual(shown(), [
      'user: CCC (complete)',
      'assistant: reply C (complete)',
      'user: AAA (complete)',
      'assistant:  (streaming)',
      'user: BBB (pending)',
    ]);
    await b.done;
    const settled = [
      'user: CCC (complete)',
      'assistant: reply C (complete)',
      'user: AAA (complete)',
      'assistant: reply A (complete)',
      'user: BBB (complete)',
      'assistant: reply B (complete)',
    ];
    assert.deepEqual(shown(), settled);
    await core.restart();
    assert.deepEqual(shown(), settled, 'the same after a reload');
    core.store.setState('orchestrator_session_id', '00000000-0000-4000-8000-000000000000');
    await core.orchestrator.enqueue('DDD', { channel: 'panel' }).done;
    assert.equal(ofType(core.events, 'session.ready').at(-1)!.how, 'recovered');
    assert.match(core.server.chatRequests().at(-1)!.lastUserText ?? '', /CCC[^]*reply C[^]*AAA[^]*reply A[^]*BBB[^]*reply B[^]*DDD$/);
  });

  it('Remove on a queued message takes it out before it is sent: gone from the panel and the log, never seen by the model', async () => {
    core.server.on({ lastUserIncludes: '[via panel] long question' }, { text: 'long answer', delayMs: 600 });
    core.server.on({ lastUserIncludes: '[via panel] kept question' }, { text: 'kept answer' });
    const posted: HostMessage[] = [];
    core.chat.onDidPost((m) => posted.push(m));
    const running = core.orchestrator.enqueue('long question', { channel: 'panel' });
    await running.started;
    const reference = { ref: { kind: 'file' as const, path: join(core.workspace, 'notes.md') }, label: 'notes.md', path: 'notes.md' };
    const removed = core.orchestrator.enqueue('removed question', { channel: 'panel' }, { meta: { references: [reference] } });
    const kept = core.orchestrator.enqueue('kept question', { channel: 'panel' });
    const queuedAppend = posted.find((m) => m.type === 'message/append' && m.message.id === `log-${removed.logId}`);
    assert.equal(queuedAppend?.type === 'message/append' && queuedAppend.message.status, 'pending', 'shown as queued as it is sent');
    // The panel's state counts them: Stop says they are sent after the answer it stops.
    const queuedNow = (): number | undefined => posted.filter((m) => m.type === 'state').at(-1)?.state.queued;
    assert.equal(queuedNow(), 2);
    // A bad id and the message being answered are refused; the panel goes on as it was.
    core.chat.receive({ type: 'chat/withdraw', id: 'log-x' });
    core.chat.receive({ type: 'chat/withdraw', id: `log-${running.logId}` });
    assert.ok(core.logger.lines.some((l) => /Ignored a bad message from the chat panel/.test(l)));
    assert.ok(core.logger.lines.some((l) => new RegExp(`Remove of log-${running.logId}: it no longer waits`).test(l)));
    core.chat.receive({ type: 'chat/withdraw', id: `log-${removed.logId}` });
    await assert.rejects(removed.done, (err: unknown) => err instanceof TurnError && err.readable.kind === 'cancelled');
    assert.equal(queuedNow(), 1);
    // Its text and references go back to the panel, to be sent again or changed.
    assert.deepEqual(
      posted.filter((m) => m.type === 'chat/withdrawn').map(({ seq: _seq, ...m }) => m),
      [
        {
          type: 'chat/withdrawn',
          id: `log-${removed.logId}`,
          text: 'removed question',
          chips: [{ key: `file:${reference.ref.path}`, ref: reference.ref, label: 'notes.md', detail: 'notes.md' }],
        },
      ],
    );
    const snapshot = posted.filter((m) => m.type === 'snapshot').at(-1);
    assert.ok(snapshot?.type === 'snapshot', 'the panel gets a snapshot without it');
    assert.deepEqual(
      snapshot.snapshot.messages.map((m) => `${m.content} (${m.status})`),
      ['long question (complete)', ' (streaming)', 'kept question (pending)'],
    );
    // Pressed twice (the click landed as it left): nothing more happens.
    core.chat.receive({ type: 'chat/withdraw', id: `log-${removed.logId}` });
    assert.equal(posted.filter((m) => m.type === 'chat/withdrawn').length, 1);
    await running.done;
    await kept.done;
    assert.equal(queuedNow(), undefined, 'none left');
    assert.deepEqual(
      core.chat.snapshot().messages.map((m) => `${m.content} (${m.status})`),
      ['long question (complete)', 'long answer (complete)', 'kept question (complete)', 'kept answer (complete)'],
    );
    assert.equal(core.store.recentLog(20).filter((row) => row.content === 'removed question').length, 0, 'its row is gone');
    assert.equal(timesSent(core.server.chatRequests(), 'removed question'), 0, 'the model never saw it');
    assert.equal(ofType(core.events, 'turn.withdrawn').length, 1);
  });

  // Stop too: before the answer has started it takes the message back, as Remove does (the README's promise).
  for (const how of ['Remove', 'Stop'] as const)
    it(`${how} on a message waiting behind a summary takes it back before it is sent; the summary is still made and used`, async () => {
      const SUMMARIZER = 'You summarize the earlier part of a conversation';
      for (const n of ['one', 'two', 'three']) {
        core.server.on({ lastUserIncludes: `[via panel] question ${n}` }, { text: `Answer ${n}.` });
        await core.orchestrator.enqueue(`question ${n}`, { channel: 'panel' }).done;
      }
      await waitFor(() => !core.orchestrator.answering && !core.orchestrator.busy);
      const posted: HostMessage[] = [];
      core.chat.onDidPost((m) => posted.push(m));
      core.server.on({ systemIncludes: SUMMARIZER, name: 'the slow summary' }, { text: 'SUMMARY of one and two.', delayMs: 1500 });
      // The compact command: the summary holds the conversation; a message sent meanwhile waits for it.
      const compacting = core.orchestrator.summarizeNow(2);
      await waitFor(() => core.server.chatRequests().some((r) => r.ruleName === 'the slow summary'));
      const held = core.orchestrator.enqueue('held question', { channel: 'panel' });
      const heldDone = held.done.catch((err: unknown) => err);
      await waitFor(() => ofType(core.events, 'lock.waiting').some((e) => e.turnId === held.turnId));
      const shownAs = () => core.chat.snapshot().messages.find((m) => m.id === `log-${held.logId}`)?.status;
      assert.equal(shownAs(), 'pending', 'the panel shows it Queued (with Remove): it has not been sent');
      const lastPatch = posted.filter((m) => m.type === 'message/update' && m.id === `log-${held.logId}`).at(-1);
      assert.equal(lastPatch?.type === 'message/update' && lastPatch.patch.status, 'pending', 'the open panel is told so too');

      core.chat.receive(how === 'Remove' ? { type: 'chat/withdraw', id: `log-${held.logId}` } : { type: 'chat/stop' });
      const back = posted.find((m) => m.type === 'chat/withdrawn');
      assert.ok(back?.type === 'chat/withdrawn' && back.text === 'held question' && back.id === `log-${held.logId}`, 'its text goes back to the composer');
      const err = await heldDone;
      assert.ok(err instanceof TurnError && err.readable.kind === 'cancelled', String(err));
      assert.deepEqual(
        ofType(core.events, 'turn.withdrawn').map((e) => e.logId),
        [held.logId],
      );
      assert.equal(ofType(core.events, 'turn.cancelled').length + ofType(core.events, 'turn.failed').length, 0, 'no reply ended for it');

      // The summary is not lost: it is made, and the next message starts from it.
      const compaction = await compacting;
      assert.equal(compaction?.summary, 'SUMMARY of one and two.');
      await waitFor(() => !core.orchestrator.answering && !core.orchestrator.busy);
      const rows = core.store.recentLog(20).map((e) => `${e.role}: ${e.content}`);
      assert.ok(!rows.some((r) => r.includes('held question')), `its row is gone:\n${rows.join('\n')}`);
      assert.equal(core.store.recentLog(20).filter((e) => e.role === 'assistant').length, 3, 'no reply row was written for it');
      assert.ok(
        !core.chat.snapshot().messages.some((m) => m.content === 'held question' || m.status === 'streaming'),
        'the panel shows neither it nor a reply',
      );

      core.server.on({ lastUserIncludes: '[via panel] question four' }, { text: 'Answer four.' });
      await core.orchestrator.enqueue('question four', { channel: 'panel' }).done;
      const last = core.server.chatRequests().at(-1)!;
      assert.match(last.lastUserText!, /SUMMARY of one and two\.[\s\S]*\[via panel\] question four/);
      assert.equal(timesSent(core.server.chatRequests(), 'held question'), 0, 'the model never got it');
      assert.equal(JSON.stringify(core.server.chatRequests()).includes('held question'), false);
      assert.deepEqual(
        core.chat.snapshot().messages.map((m) => `${m.content} (${m.status})`),
        [
          'question one (complete)',
          'Answer one. (complete)',
          'question two (complete)',
          'Answer two. (complete)',
          'question three (complete)',
          'Answer three. (complete)',
          'question four (complete)',
          'Answer four. (complete)',
        ],
      );
      core.assertScriptDone();
    });

  it('resumes the same session after a restart', async () => {
    core.server.on({ lastUserIncludes: '[via panel] remember the number 42' }, { text: 'ok' });
    core.server.on({ lastUserIncludes: '[via panel] what number?' }, { text: '42' });
    await core.orchestrator.enqueue('remember the number 42', { channel: 'panel' }).done;
    const firstSession = core.server.chatRequests()[0].sessionId;
    await core.restart();
    await core.orchestrator.enqueue('what number?', { channel: 'panel' }).done;
    const ready = ofType(core.events, 'session.ready');
    assert.equal(ready.at(-1)!.how, 'resumed');
    const last = core.server.chatRequests().at(-1)!;
    assert.equal(last.sessionId, firstSession);
    assert.equal(timesSent([last], 'remember the number 42'), 1, 'the resumed session carries the earlier turn');
  });

  it('starts a fresh session with recovery context when Baton was updated (the fingerprint drifted)', async () => {
    core.server.on({ lastUserIncludes: '[via panel] my project is called zebra' }, { text: 'noted' });
    core.server.on({ lastUserIncludes: '[via panel] and its language?' }, { text: 'TypeScript' });
    await core.orchestrator.enqueue('my project is called zebra', { channel: 'panel' }).done;
    const before = core.store.getState('orchestrator_fingerprint');
    await core.restart({ version: '0.0.1-test' });
    await core.orchestrator.enqueue('and its language?', { channel: 'panel' }).done;
    assert.equal(ofType(core.events, 'session.ready').at(-1)!.how, 'drifted');
    const last = core.server.chatRequests().at(-1)!;
    assert.match(last.lastUserText ?? '', /\[System: Session recovered\]/);
    assert.match(last.lastUserText ?? '', /my project is called zebra/);
    assert.match(last.lastUserText ?? '', /do NOT respond to these messages/);
    assert.match(last.lastUserText ?? '', /\[via panel\] and its language\?$/);
    assert.ok(
      core.logger.lines.some((l) => /drifted/.test(l)),
      'the drift is logged',
    );
    assert.notEqual(core.store.getState('orchestrator_fingerprint'), before);
    assert.equal(timesSent([last], 'my project is called zebra'), 1, 'the earlier turn rides on the prompt once, as context');
  });

  it('recovers from an expired session id with the last 10 turns', async () => {
    core.server.on({ lastUserIncludes: /\[via panel\] message number \d$/ }, ...Array.from({ length: 6 }, () => ({ text: 'fine' })));
    core.server.on({ lastUserIncludes: /\[via panel\] still there\?$/ }, { text: 'yes' });
    for (let i = 1; i <= 6; i++) await core.orchestrator.enqueue(`message number ${i}`, { channel: 'panel' }).done;
    await core.restart();
    core.store.setState('orchestrator_session_id', '00000000-0000-4000-8000-000000000000');
    await core.orchestrator.enqueue('still there?', { channel: 'panel' }).done;
    assert.equal(ofType(core.events, 'session.ready').at(-1)!.how, 'recovered');
    const text = core.server.chatRequests().at(-1)!.lastUserText ?? '';
    assert.match(text, /\[System: Session recovered\]/);
    // 12 settled entries exist (6 user + 6 assistant); the recovery carries the last 10.
    assert.doesNotMatch(text, /message number 1\b/);
    assert.match(text, /message number 2\b/);
    assert.match(text, /message number 6\b/);
    assert.notEqual(core.store.getState('orchestrator_session_id'), '00000000-0000-4000-8000-000000000000');
  });

  it('survives the runtime being killed mid-turn: retried, answered once; the retry sends the nudge unless the runtime lost the prompt', async () => {
    const nudge = '[System: your previous reply was interrupted';
    let killed = false;
    core.server.on({ lastUserIncludes: 'long task please', predicate: () => !killed }, { textThenHang: 'Working on' });
    core.server.on(
      { name: 'the retry', predicate: (r) => killed && /\[System: your previous reply was interrupted|long task please/.test(r.lastUserText ?? '') },
      { text: 'Done: the long task is finished.' },
    );
    const handle = core.orchestrator.enqueue('long task please', { channel: 'panel' });
    await waitFor(() => ofType(core.events, 'turn.delta').length > 0);
    const pid = core.sessions.runtimePid();
    assert.ok(pid, 'the runtime has a pid');
    killed = true;
    process.kill(pid, 'SIGKILL');
    const result = await handle.done;
    core.server.releaseHeld();
    assert.equal(result.status, 'complete');
    assert.equal(result.content, 'Done: the long task is finished.');
    assert.ok(ofType(core.events, 'turn.retrying').length >= 1, 'a retry happened');
    const chats = core.server.chatRequests();
    const retry = chats.at(-1)!;
    const sends = chats.filter((r) => r.messages.at(-1)?.role === 'user' && (r.lastUserText ?? '').includes('long task please')).length;
    if (core.logger.lines.some((l) => /the runtime has the prompt; asking it to finish/.test(l))) {
      assert.ok((retry.lastUserText ?? '').includes(nudge), 'the runtime had the prompt: the retry is the nudge');
      assert.equal(sends, 1, 'the prompt was sent once');
    } else {
      assert.ok(
        core.logger.lines.some((l) => /the runtime has no record of the prompt; sending it again/.test(l)),
        'a resend is logged',
      );
      assert.ok(!(retry.lastUserText ?? '').includes(nudge));
      assert.equal(sends, 2);
    }
    assert.equal(timesSent([retry], 'long task please'), 1, 'the prompt appears once in the history the model sees');
    assert.equal(ofType(core.events, 'turn.completed').length, 1);
    assert.deepEqual(
      core.store.recentLog(2).map((e) => [e.role, e.status]),
      [
        ['user', 'complete'],
        ['assistant', 'complete'],
      ],
    );
  });

  it('fails at once with a readable message on an auth error', async () => {
    core.server.on({ lastUserIncludes: '[via panel] hi' }, { error: 403, body: { error: { message: 'Forbidden: no Copilot access' } } });
    const started = Date.now();
    const error = await core.orchestrator.enqueue('hi', { channel: 'panel' }).done.then(
      () => assert.fail('should fail'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof TurnError);
    assert.match(error.message, /^Sorry, I hit an error: /);
    assert.doesNotMatch(error.message, /\n\s+at /, 'no stack trace');
    assert.equal(ofType(core.events, 'turn.retrying').length, 0, 'not retried');
    assert.ok(Date.now() - started < 10_000);
    const log = core.store.recentLog(2);
    assert.equal(log[1].status, 'failed');
  });

  it('a model answer the runtime cannot read (HTTP 200, not JSON) ends as an error, never as a complete empty reply', async () => {
    // The runtime tries six times itself; then its error and its idle arrive, and the idle ended the turn "complete"
    // with no text while the error was still being classified (an auth check).
    const unreadable = { error: 200, body: 'this is not json at all' };
    core.server.on({ lastUserIncludes: '[via panel] unreadable', name: 'six unreadable answers' }, ...Array.from({ length: 6 }, () => unreadable));
    const error = await core.orchestrator.enqueue('unreadable', { channel: 'panel' }).done.then(
      (r) => assert.fail(`it ended ${r.status}: '${r.content}'`),
      (e: unknown) => e,
    );
    assert.ok(error instanceof TurnError);
    assert.match(error.message, /^Sorry, I hit an error: .*Failed to get response from the AI model/);
    assert.deepEqual(
      core.store.recentLog(2).map((e) => [e.role, e.status]),
      [
        ['user', 'failed'],
        ['assistant', 'failed'],
      ],
    );
    core.assertScriptDone();
  });

  it('keeps the partial reply on timeout', async () => {
    // The runtime's start and the session's creation stay out of the 1.5 s the turn under test gets.
    core.server.on({ lastUserIncludes: '[via panel] warm up' }, { text: 'ready' });
    await core.orchestrator.enqueue('warm up', { channel: 'panel' }).done;
    core.settings.turnTimeoutMs = 1500;
    core.server.on({ lastUserIncludes: 'slow one' }, { textThenHang: 'Here is the first half', chunks: 2 });
    const result = await core.orchestrator.enqueue('slow one', { channel: 'panel' }).done;
    assert.equal(result.status, 'partial');
    assert.equal(result.content, 'Here is the first half');
    assert.match(result.note ?? '', /Timed out after 2s|Timed out after 1s/);
    const assistant = core.store.recentLog(1)[0];
    assert.equal(assistant.status, 'partial');
    assert.match(assistant.content, /^Here is the first half/);
    core.server.releaseHeld();
  });

  it('stop keeps the partial reply', async () => {
    core.server.on({ lastUserIncludes: 'stream forever' }, { textThenHang: 'Partial answer so far' });
    const handle = core.orchestrator.enqueue('stream forever', { channel: 'panel' });
    await waitFor(() => ofType(core.events, 'turn.delta').length > 0);
    assert.equal(core.orchestrator.stop(), true);
    const result = await handle.done;
    assert.equal(result.status, 'cancelled');
    assert.equal(result.content, 'Partial answer so far');
    assert.equal(core.store.recentLog(1)[0].content, 'Partial answer so far');
    core.server.releaseHeld();
    // The session still works after the abort.
    core.server.on({ lastUserIncludes: 'after stop' }, { text: 'still here' });
    assert.equal((await core.orchestrator.enqueue('after stop', { channel: 'panel' }).done).content, 'still here');
  });

  it('the health check restarts a dead runtime, and the next message works', async () => {
    core.server.on({ lastUserIncludes: /\[via panel\] ping( again)?$/ }, { text: 'pong' }, { text: 'pong' });
    await core.orchestrator.enqueue('ping', { channel: 'panel' }).done;
    await waitFor(() => core.orchestrator.idle);
    assert.equal(await core.health.check(), 'ok');
    process.kill(core.sessions.runtimePid()!, 'SIGKILL');
    await waitFor(() => !core.sessions.isConnected());
    assert.equal(await core.health.check(), 'restarted');
    const result = await core.orchestrator.enqueue('ping again', { channel: 'panel' }).done;
    assert.equal(result.content, 'pong');
    assert.equal(ofType(core.events, 'session.ready').at(-1)!.how, 'resumed');
  });

  it('never writes into a session another window holds: starts its own with the shared history', async () => {
    core.server.on({ lastUserIncludes: /\[via panel\] window one was here$/ }, { text: 'ok' });
    core.server.on({ lastUserIncludes: /\[via panel\] window two speaking$/ }, { text: 'ok' });
    await core.orchestrator.enqueue('window one was here', { channel: 'panel' }).done;
    const firstSession = core.store.getState('orchestrator_session_id')!;
    await core.restart();
    // Another live process (standing in for a second VS Code window) claims the saved session.
    const other = spawn('sleep', ['30']);
    try {
      writeFileSync(join(core.root, 'globalStorage', 'claims', `${firstSession}.claim`), JSON.stringify({ pid: other.pid, host: hostname() }));
      await core.orchestrator.enqueue('window two speaking', { channel: 'panel' }).done;
      const ready = ofType(core.events, 'session.ready').at(-1)!;
      assert.equal(ready.how, 'recovered');
      assert.match(ready.reason ?? '', /another VS Code window/);
      const last = core.server.chatRequests().at(-1)!;
      assert.notEqual(last.sessionId, firstSession);
      assert.match(last.lastUserText ?? '', /window one was here/);
    } finally {
      other.kill();
    }
  });

  it('a worker result still queued when Baton closes is not counted as delivered, and is not shown twice', async () => {
    core.server.on({ lastUserIncludes: 'busy now' }, { textThenHang: 'thinking' });
    const busy = core.orchestrator.enqueue('busy now', { channel: 'panel' });
    await waitFor(() => ofType(core.events, 'turn.delta').length > 0);
    const result = core.orchestrator.enqueue("[Background task completed] Worker 'w' finished:\n\ndone", { channel: 'background', worker: 'w' });
    await core.restart();
    core.server.releaseHeld();
    await assert.rejects(result.started, /closed before this message was sent/);
    const row = core.store.recentLog(10).find((e) => e.id === result.logId);
    assert.equal(row?.status, 'cancelled', 'set aside for the inbox to deliver again');
    // Closing is not the user's stop: the message in flight is offered for resending, its partial kept.
    assert.equal(core.store.recentLog(10).find((e) => e.id === busy.logId)?.status, 'interrupted');
    await assert.rejects(busy.done, /closed while answering/);
    assert.ok(core.store.recentLog(10).some((e) => e.role === 'assistant' && e.status === 'partial' && e.content.startsWith('thinking')));
  });

  it("offers the model only Baton's tools: the orchestrator delegates files and shells", async () => {
    core.server.on({ lastUserIncludes: 'hi' }, { text: 'ok' });
    await core.orchestrator.enqueue('hi', { channel: 'panel' }).done;
    const offered = [...core.server.chatRequests().at(-1)!.tools].sort();
    // Exactly the tools the production wiring gives the orchestrator (memory, workers and whatever else it grows) ...
    const wired = (core.orchestrator as unknown as { opts: OrchestratorOptions }).opts.tools().map((t) => t.name);
    assert.deepEqual(offered, [...wired].sort());
    for (const name of BATON_TOOLS) assert.ok(offered.includes(name), `${name} is offered`);
    // ... and none of the runtime's own: files and shells are workers' work.
    assert.deepEqual(
      offered.filter((t) => (RUNTIME_BUILTIN_TOOLS as readonly string[]).includes(t)),
      [],
    );
  });

  it('compacts on request and reports what it freed, also as compaction.applied (how: runtime)', async () => {
    core.server.on(
      { lastUserIncludes: /\[via panel\] turn \d with some content$/ },
      ...Array.from({ length: 3 }, () => ({ text: 'a reply long enough to be worth summarising later on' })),
    );
    core.server.on({ lastUserIncludes: '[via panel] after compaction' }, { text: 'still going' });
    for (let i = 0; i < 3; i++) await core.orchestrator.enqueue(`turn ${i} with some content`, { channel: 'panel' }).done;
    core.server.on(
      { predicate: (r) => /summar/i.test(JSON.stringify(r.messages.at(-1)?.content ?? '')) || /summar/i.test(r.systemText) },
      { text: '<overview>The user sent three numbered turns.</overview>' },
    );
    const freed = await core.orchestrator.compact();
    assert.ok(freed.messagesRemoved > 0, `messages removed: ${freed.messagesRemoved}`);
    assert.ok(freed.tokensRemoved > 0, `tokens removed: ${freed.tokensRemoved}`);
    // Callers hear of it as of Baton's own summarize step, told apart by `how`: the runtime's summary, what it removed
    // of the three turns' six messages and what it kept.
    const applied = ofType(core.events, 'compaction.applied');
    assert.equal(applied.length, 1);
    assert.deepEqual(
      { ...applied[0]!.compaction, summary: applied[0]!.compaction.summary.includes('The user sent three numbered turns.') },
      {
        summary: true,
        replacesFromIndex: 0,
        replacesToIndex: freed.messagesRemoved - 1,
        kept: 6 - freed.messagesRemoved,
        tokensFreed: freed.tokensRemoved,
        how: 'runtime',
      },
    );
    // The conversation goes on after compaction.
    assert.equal((await core.orchestrator.enqueue('after compaction', { channel: 'panel' }).done).status, 'complete');
  });
});

describe('Orchestrator, not signed in (real runtime, no token)', function () {
  this.timeout(60_000);

  it('answers the first message with the sign-in message and action, with no retry', async () => {
    const core = await startCore({ gitHubToken: null });
    try {
      const posted: Array<{ type: string; action?: { command: string } }> = [];
      core.chat.onDidPost((m) => {
        if (m.type === 'message/update') posted.push({ type: m.type, action: m.patch.action });
      });
      const error = await core.orchestrator.enqueue('hello there', { channel: 'panel' }).done.then(
        () => assert.fail('should fail'),
        (e: unknown) => e,
      );
      assert.ok(error instanceof TurnError);
      assert.equal(error.readable.kind, 'auth');
      assert.equal(error.readable.action?.command, 'baton.signIn');
      assert.doesNotMatch(error.message, /session was lost|Send your message again/);
      assert.equal(ofType(core.events, 'turn.retrying').length, 0, 'not retried');
      const failed = ofType(core.events, 'turn.failed');
      assert.equal(failed.length, 1);
      assert.equal(failed[0]!.error.action?.command, 'baton.signIn');
      assert.ok(
        posted.some((p) => p.action?.command === 'baton.signIn'),
        'the panel shows the sign-in action',
      );
      // At most one attempt reached the model service, and nothing the script did not expect.
      assert.ok(core.server.chatRequests().length <= 1, `${core.server.chatRequests().length} model requests`);
      assert.deepEqual(
        core.store.recentLog(2).map((e) => [e.role, e.status]),
        [
          ['user', 'failed'],
          ['assistant', 'failed'],
        ],
      );
      core.assertScriptDone();
    } finally {
      await core.dispose();
    }
  });
});

async function waitFor(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > timeoutMs) throw new Error('waitFor timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
