// Version 2 of the public API (Warlock's orchestrator surface) against the REAL Copilot runtime and a scripted model,
// built as the extension builds Baton (createBatonCore): the fourteen lifecycle events at three tiers, drift at
// every turn, the summarize policy and its lock, and checkpoints.
import * as assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { BatonApi, BatonApiV2, BatonError, BatonEventV2 } from '../../api/baton';
import { createBatonApi } from '../../src/core/api/batonApi';
import type { HostMessage, PermissionDecision, PermissionPrompt } from '../../src/shared/protocol';
import { defineTool, runTurn, startHarness } from '../support/copilotHarness';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { waitFor } from '../support/waitFor';
import { afterEachCore } from '../support/afterEachCore';

type Tier = 'instance' | 'conversation' | 'call';

/** The turn's lifecycle as types, streaming pieces folded into one. */
function lifecycle(events: BatonEventV2[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    if (e.type.startsWith('worker.')) continue;
    if (e.type === 'turn.streaming' && out.at(-1) === 'turn.streaming') continue;
    out.push(e.type);
  }
  return out;
}

const SUMMARIZER = 'You summarize the earlier part of a conversation';

describe('public API version 2 (real runtime, scripted model, production wiring)', function () {
  this.timeout(120_000);
  let core: CoreFixture;
  let api: BatonApi & { dispose(): void };
  let v2: BatonApiV2;

  beforeEach(async () => {
    core = await startCore();
    api = createBatonApi(() => Promise.resolve(core.access));
    v2 = api.getApi(2);
  });

  afterEachCore(() => core, { beforeDispose: () => api.dispose() });

  it('version 1 stays what activate() gives; getApi(2) is version 2; an unknown version throws', () => {
    assert.equal(api.apiVersion, 1);
    assert.equal(api.getApi(1), api);
    assert.equal(v2.apiVersion, 2);
    assert.throws(() => (api.getApi as (v: number) => unknown)(3), RangeError);
  });

  it('fires the fourteen lifecycle events in order, each at most once a turn, at three tiers (instance → conversation → call); the summarize policy keeps `keep` verbatim', async () => {
    const seq: Array<[Tier, BatonEventV2]> = [];
    v2.on('*', (e) => seq.push(['instance', e]));
    const conv = v2.conversation('main');
    conv.on('*', (e) => seq.push(['conversation', e]));
    assert.deepEqual(await conv.summarize({ afterTurns: 1, keep: 2 }), { afterTurns: 1, keep: 2 });
    const ask = async (text: string, extra: Parameters<BatonApiV2['ask']>[1] = {}) => {
      const call: BatonEventV2[] = [];
      const reply = await v2.ask(text, { ...extra, on: (e) => (call.push(e), seq.push(['call', e])) });
      return { reply, call };
    };
    /** Every event of a call reached the three tiers, in tier order, one after the other. */
    const tiersInOrder = (call: BatonEventV2[]) => {
      for (const e of call) {
        const at = seq.flatMap(([tier, x], i) => (x === e ? [[tier, i] as const] : []));
        assert.deepEqual(
          at.map(([t]) => t),
          ['instance', 'conversation', 'call'],
          e.type,
        );
        assert.equal(at[2]![1] - at[0]![1], 2, `${e.type}: nothing in between`);
      }
    };
    const head = ['turn.starting', 'session.loaded', 'drift.checked', 'history.windowed', 'turn.routed', 'turn.streaming', 'checkpoint.persisted'];

    // 1: a plain turn in a new session.
    core.server.on({ lastUserIncludes: '[via api] first question' }, { text: 'First answer.', chunks: 2 });
    const one = await ask('first question');
    assert.equal(one.reply.status, 'complete');
    assert.equal(one.reply.conversation, 'main');
    assert.deepEqual(lifecycle(one.call), [...head, 'turn.completed']);
    tiersInOrder(one.call);
    const loaded = one.call.find((e) => e.type === 'session.loaded') as Extract<BatonEventV2, { type: 'session.loaded' }>;
    assert.equal(loaded.how, 'created');
    assert.equal(loaded.sessionId, core.store.getState('orchestrator_session_id'));
    const drift = one.call.find((e) => e.type === 'drift.checked') as Extract<BatonEventV2, { type: 'drift.checked' }>;
    assert.deepEqual([drift.drifted, drift.action, drift.signature.length], [false, 'none', 64]);
    const routed = one.call.find((e) => e.type === 'turn.routed') as Extract<BatonEventV2, { type: 'turn.routed' }>;
    assert.deepEqual([routed.source, routed.raw], ['fixed', { reason: 'disabled', tier: 'fixed' }]);
    assert.deepEqual(
      one.call.find((e) => e.type === 'checkpoint.persisted'),
      { type: 'checkpoint.persisted', turnId: one.reply.turnId, conversation: 'main', turnIndex: 1 },
    );

    // 2: past afterTurns once it settles: the older messages are summarized before the turn ends.
    core.server.on({ lastUserIncludes: '[via api] second question' }, { text: 'Second answer.' });
    core.server.on({ systemIncludes: SUMMARIZER, lastUserIncludes: 'User: first question', name: 'summary one' }, { text: 'SUMMARY-ONE of the start.' });
    const two = await ask('second question');
    assert.deepEqual(lifecycle(two.call), [...head, 'compaction.suggested', 'compaction.applied', 'turn.completed']);
    tiersInOrder(two.call);
    const applied = two.call.find((e) => e.type === 'compaction.applied') as Extract<BatonEventV2, { type: 'compaction.applied' }>;
    assert.deepEqual(
      { ...applied, tokensFreed: applied.tokensFreed > 0 },
      {
        type: 'compaction.applied',
        turnId: two.reply.turnId,
        conversation: 'main',
        summary: 'SUMMARY-ONE of the start.',
        replacesFromIndex: 0,
        replacesToIndex: 1,
        kept: 2,
        tokensFreed: true,
        how: 'baton',
      },
    );
    const summaryAsk = core.server.chatRequests().find((r) => r.ruleName === 'summary one')!;
    assert.doesNotMatch(summaryAsk.lastUserText!, /second question/, 'the kept messages are not summarized');

    // 3: the next request starts from the summary and the two kept messages, verbatim; the first ones are gone.
    core.server.on({ lastUserIncludes: '[via api] third question' }, { text: 'Third answer.' });
    const three = await ask('third question');
    assert.deepEqual(lifecycle(three.call), [...head, 'turn.completed']);
    const sent = core.server
      .chatRequests()
      .filter((r) => r.lastUserText?.includes('third question'))
      .at(-1)!;
    assert.match(sent.lastUserText!, /SUMMARY-ONE of the start\.[\s\S]*User: second question\nAssistant: Second answer\.[\s\S]*\[via api\] third question/);
    assert.ok(!sent.messages.some((m) => JSON.stringify(m.content ?? '').includes('first question')), 'the summarized messages are not sent');
    assert.notEqual(sent.sessionId, core.server.chatRequests().find((r) => r.lastUserText?.includes('first question'))!.sessionId, 'a new session');
    const windowed = three.call.find((e) => e.type === 'history.windowed') as Extract<BatonEventV2, { type: 'history.windowed' }>;
    assert.equal(windowed.context, 'summary');

    // 4: a compaction holds the conversation; a turn arriving meanwhile waits and says so.
    core.server.on(
      { systemIncludes: SUMMARIZER, lastUserIncludes: 'User: second question', name: 'summary two' },
      { text: 'SUMMARY-TWO so far.', delayMs: 800 },
    );
    core.server.on({ lastUserIncludes: '[via api] fourth question' }, { text: 'Fourth answer.' });
    const compacting = conv.compact(2);
    const four = await ask('fourth question');
    assert.deepEqual(lifecycle(four.call), ['turn.starting', 'session.loaded', 'drift.checked', 'lock.waiting', ...head.slice(3), 'turn.completed']);
    tiersInOrder(four.call);
    const manual = await compacting;
    assert.equal(manual?.summary, 'SUMMARY-TWO so far.');
    assert.deepEqual([manual?.replacesFromIndex, manual?.replacesToIndex, manual?.kept], [2, 3, 2]);
    assert.match(
      core.server.chatRequests().find((r) => r.ruleName === 'summary two')!.lastUserText!,
      /SUMMARY-ONE of the start\./,
      'the earlier summary is folded in',
    );
    assert.match(
      core.server
        .chatRequests()
        .filter((r) => r.lastUserText?.includes('fourth question'))
        .at(-1)!.lastUserText!,
      /SUMMARY-TWO so far\./,
    );

    // Back to the setting's policy (off): the remaining turns never compact.
    assert.deepEqual(await conv.summarize(undefined), { afterTurns: 0, keep: 8 });

    // 5: a failing turn.
    core.server.on({ lastUserIncludes: '[via api] break now' }, { error: 400, body: { error: { message: 'bad request from the model' } } });
    const failed: BatonEventV2[] = [];
    await assert.rejects(v2.ask('break now', { on: (e) => (failed.push(e), seq.push(['call', e])) }), (err: BatonError) => err.name === 'BatonError');
    assert.deepEqual(lifecycle(failed), [...head.filter((t) => t !== 'turn.streaming'), 'turn.failed']);
    tiersInOrder(failed);

    // 6: a stopped turn.
    core.server.on({ lastUserIncludes: '[via api] stream on' }, { textThenHang: 'Partial' });
    const abort = new AbortController();
    const cancelledCall: BatonEventV2[] = [];
    const pending = v2.ask('stream on', { signal: abort.signal, on: (e) => (cancelledCall.push(e), seq.push(['call', e])) });
    await waitFor('the first piece', () => cancelledCall.some((e) => e.type === 'turn.streaming'));
    abort.abort();
    assert.equal((await pending).status, 'cancelled');
    core.server.releaseHeld();
    assert.deepEqual(lifecycle(cancelledCall), [...head, 'turn.cancelled']);
    tiersInOrder(cancelledCall);

    // 7: the reply ends while a question to the user (a worker's permission) is still open.
    const project = join(core.home, 'dev', 'app');
    await mkdir(project, { recursive: true });
    const answers: Array<(d: PermissionDecision) => void> = [];
    core.broker.ask = (prompt: PermissionPrompt) => {
      core.broker.asked.push(prompt);
      return new Promise<PermissionDecision>((resolve) => answers.push(resolve));
    };
    core.server.on(
      { lastUserIncludes: '[via api] build it', afterToolResult: false },
      { toolCalls: [{ name: 'create_worker_session', arguments: { name: 'builder', working_dir: project, initial_prompt: 'TASK-build run make' } }] },
    );
    // Long enough for the worker to ask before the reply ends.
    core.server.on({ lastUserIncludes: '[via api] build it', afterToolResult: true }, { text: 'The builder started.', delayMs: 2500 });
    core.server.on(
      { lastUserIncludes: 'TASK-build', afterToolResult: false },
      { toolCalls: [{ name: 'bash', arguments: { command: 'make', description: 'Build' } }] },
    );
    core.server.on({ lastUserIncludes: 'TASK-build', afterToolResult: true }, { text: 'The build was not allowed.' });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'builder'" }, { text: 'The builder could not build.' });
    const waiting = await ask('build it');
    assert.equal(core.broker.asked.length, 1, 'the worker asked before the reply ended');
    assert.equal(waiting.reply.status, 'awaiting-input');
    assert.deepEqual(lifecycle(waiting.call), [...head, 'turn.awaiting-input']);
    tiersInOrder(waiting.call);
    const awaiting = waiting.call.at(-1) as Extract<BatonEventV2, { type: 'turn.awaiting-input' }>;
    assert.deepEqual([awaiting.text, awaiting.waitingOn], ['The builder started.', 1]);
    // Version 1 callers see a completed turn.
    assert.ok(!seq.some(([, e]) => e.type === 'turn.completed' && e.turnId === waiting.reply.turnId));
    answers[0]!('deny');
    await waitFor('the answer to the worker\u2019s result', () =>
      seq.some(([tier, e]) => tier === 'instance' && e.type === 'turn.completed' && e.origin.channel === 'background'),
    );

    // Every one of the fourteen was seen.
    const seen = new Set(seq.map(([, e]) => e.type));
    for (const type of [
      'turn.starting',
      'session.loaded',
      'drift.checked',
      'lock.waiting',
      'history.windowed',
      'turn.routed',
      'turn.streaming',
      'checkpoint.persisted',
      'compaction.suggested',
      'compaction.applied',
      'turn.completed',
      'turn.failed',
      'turn.cancelled',
      'turn.awaiting-input',
    ])
      assert.ok(seen.has(type as BatonEventV2['type']), type);

    // One checkpoint per settled turn, in order, with the route and the signature in force.
    const rows = await v2.checkpoints('main');
    assert.deepEqual(
      rows.slice(0, 7).map((r) => [r.turnIndex, r.status]),
      [
        [1, 'complete'],
        [2, 'complete'],
        [3, 'complete'],
        [4, 'complete'],
        [5, 'failed'],
        [6, 'cancelled'],
        [7, 'complete'],
      ],
    );
    assert.deepEqual(rows[0]!.route, { tier: 'fixed', model: 'claude-sonnet-4.5', reason: 'disabled' });
    assert.equal(rows[0]!.signature, drift.signature);
    assert.deepEqual(await conv.checkpoints(2), rows.slice(-2));
  });

  it('drift is checked at every turn: onDrift "error" rejects before anything reaches the model; force runs it on the same session', async () => {
    core.server.on({ lastUserIncludes: '[via api] hello there' }, { text: 'Hello.' });
    await v2.ask('hello there');
    const session = core.store.getState('orchestrator_session_id');
    // Baton is updated under the conversation.
    api.dispose();
    await core.restart({ version: '0.0.1-test' });
    api = createBatonApi(() => Promise.resolve(core.access));
    v2 = api.getApi(2);
    const before = core.server.chatRequests().length;
    const events: BatonEventV2[] = [];
    await assert.rejects(v2.ask('after the update', { onDrift: 'error', on: (e) => events.push(e) }), (err: BatonError) => {
      assert.equal(err.name, 'BatonError');
      assert.equal(err.kind, 'drift');
      assert.match(err.message, /force: true/);
      return true;
    });
    assert.equal(core.server.chatRequests().length, before, 'nothing reached the model');
    assert.deepEqual(lifecycle(events), ['turn.starting', 'drift.checked', 'turn.failed']);
    const checked = events[1] as Extract<BatonEventV2, { type: 'drift.checked' }>;
    assert.deepEqual([checked.drifted, checked.action], [true, 'refused']);
    assert.ok(!core.store.recentLog(10).some((e) => e.content === 'after the update'), 'a refused message leaves no row');

    core.server.on({ lastUserIncludes: '[via api] after the update' }, { text: 'Still here.' });
    const forced: BatonEventV2[] = [];
    const reply = await v2.ask('after the update', { onDrift: 'error', force: true, on: (e) => forced.push(e) });
    assert.equal(reply.text, 'Still here.');
    const forcedCheck = forced.find((e) => e.type === 'drift.checked') as Extract<BatonEventV2, { type: 'drift.checked' }>;
    assert.deepEqual([forcedCheck.drifted, forcedCheck.action], [true, 'forced']);
    assert.equal(core.server.chatRequests().at(-1)!.sessionId, session, 'the same session, resumed');
    // Accepted: the next turn has no drift.
    core.server.on({ lastUserIncludes: '[via api] and again' }, { text: 'Again.' });
    const again: BatonEventV2[] = [];
    await v2.ask('and again', { onDrift: 'error', on: (e) => again.push(e) });
    assert.equal((again.find((e) => e.type === 'drift.checked') as Extract<BatonEventV2, { type: 'drift.checked' }>).drifted, false);
  });

  it('asTool plugs into the Copilot SDK as defineTool(tool.name, tool): an agent calling it twice "fresh" makes two conversations, twice "shared" one', async () => {
    // Another agent: its own client and session on the same scripted model server.
    const agent = await startHarness({ server: core.server });
    try {
      const fresh = v2.asTool({ name: 'ask_baton', description: 'Ask Baton, the workspace orchestrator' });
      const shared = v2.asTool({ name: 'ask_baton_shared', description: 'Ask Baton in this session\u2019s conversation', sessionScope: 'shared' });
      assert.deepEqual(fresh.parameters.required, ['message']);
      const session = await agent.client.createSession(agent.sessionConfig({ tools: [defineTool(fresh.name, fresh), defineTool(shared.name, shared)] }));
      const before = new Set((await v2.conversations()).map((c) => c.id));

      core.server.on(
        { lastUserIncludes: 'AGENT-fresh', afterToolResult: false },
        { toolCalls: [{ name: 'ask_baton', arguments: { message: 'FRESH-ONE what is up' } }] },
      );
      core.server.on(
        { lastUserIncludes: 'AGENT-fresh', afterToolResult: true },
        { toolCalls: [{ name: 'ask_baton', arguments: { message: 'FRESH-TWO and now' } }] },
        { text: 'Both asked.' },
      );
      core.server.on({ lastUserIncludes: '[via tool] FRESH-ONE what is up' }, { text: 'Reply one.' });
      core.server.on({ lastUserIncludes: '[via tool] FRESH-TWO and now' }, { text: 'Reply two.' });
      const first = await runTurn(session, 'AGENT-fresh plan', 60_000);
      assert.equal(first.content, 'Both asked.');
      const batonOf = (marker: string) => core.server.chatRequests().find((r) => r.lastUserText?.includes(`[via tool] ${marker}`))!;
      assert.notEqual(batonOf('FRESH-ONE').sessionId, batonOf('FRESH-TWO').sessionId, 'a new Baton session per call');
      const afterFresh = (await v2.conversations()).filter((c) => !before.has(c.id));
      assert.equal(afterFresh.length, 2, 'two conversations');
      for (const c of afterFresh)
        assert.deepEqual(
          (await v2.checkpoints(c.id)).map((r) => r.turnIndex),
          [1],
        );
      // The agent's model got Baton's replies as the tool's results.
      const agentLast = core.server
        .chatRequests()
        .filter((r) => r.lastUserText?.includes('AGENT-fresh'))
        .at(-1)!;
      const results = agentLast.messages.filter((m) => m.role === 'tool').map((m) => JSON.stringify(m.content));
      assert.ok(results.some((r) => r.includes('Reply one.')) && results.some((r) => r.includes('Reply two.')), results.join(' | '));

      core.server.on(
        { lastUserIncludes: 'AGENT-shared', afterToolResult: false },
        { toolCalls: [{ name: 'ask_baton_shared', arguments: { message: 'SHARED-ONE remember the number 7' } }] },
      );
      core.server.on(
        { lastUserIncludes: 'AGENT-shared', afterToolResult: true },
        { toolCalls: [{ name: 'ask_baton_shared', arguments: { message: 'SHARED-TWO which number' } }] },
        { text: 'It was 7.' },
      );
      core.server.on({ lastUserIncludes: '[via tool] SHARED-ONE' }, { text: 'Noted: 7.' });
      core.server.on({ lastUserIncludes: '[via tool] SHARED-TWO' }, { text: 'The number is 7.' });
      const second = await runTurn(session, 'AGENT-shared go', 60_000);
      assert.equal(second.content, 'It was 7.');
      assert.equal(batonOf('SHARED-ONE').sessionId, batonOf('SHARED-TWO').sessionId, 'one Baton session for both calls');
      const afterShared = (await v2.conversations()).filter((c) => !before.has(c.id) && !afterFresh.some((f) => f.id === c.id));
      assert.equal(afterShared.length, 1, 'one conversation');
      assert.equal(afterShared[0]!.id, `tool-copilot-${session.sessionId}`, 'the calling session\u2019s conversation, kept apart from the user\u2019s');
      assert.deepEqual(
        (await v2.checkpoints(afterShared[0]!.id)).map((r) => r.turnIndex),
        [1, 2],
      );
      await session.disconnect();
    } finally {
      await agent.dispose();
    }
  });

  it('asTool: bad input is a BatonError naming the field; nothing is asked', async () => {
    const tool = v2.asTool({ sessionScope: 'fresh' });
    assert.equal(tool.name, 'baton_orchestrator');
    const before = core.server.chatRequests().length;
    await assert.rejects(tool.invoke({ message: '  ' }), (err: BatonError) => err.kind === 'invalid-input' && /message: must not be empty/.test(err.message));
    await assert.rejects(
      tool.invoke({ message: 'x', extra: 1 } as never),
      (err: BatonError) => err.kind === 'invalid-input' && /unknown field "extra"/.test(err.message),
    );
    assert.throws(
      () => v2.asTool({ name: 'bad name!' }),
      (err: BatonError) => err.kind === 'invalid-input' && /name:/.test(err.message),
    );
    assert.equal(core.server.chatRequests().length, before);
  });

  it('cancel: an abort stops its own turn when another conversation started one after it; an abort at turn.starting of an idle conversation asks the model nothing; a signal that is not one is refused first', async () => {
    core.server.on({ lastUserIncludes: '[via api] ALPHA go', name: 'alpha streams, then waits' }, { textThenHang: 'alpha part' });
    core.server.on({ lastUserIncludes: '[via api] BETA go', name: 'beta answers later' }, { text: 'beta done.', delayMs: 1500 });
    const seenA: BatonEventV2[] = [];
    const abortA = new AbortController();
    const a = v2.ask('ALPHA go', { conversation: 'conv-a', signal: abortA.signal, on: (e) => seenA.push(e) });
    await waitFor('alpha streaming', () => seenA.some((e) => e.type === 'turn.streaming'));
    const seenB: BatonEventV2[] = [];
    const b = v2.ask('BETA go', { conversation: 'conv-b', on: (e) => seenB.push(e) });
    await waitFor('beta started after it', () => seenB.some((e) => e.type === 'turn.starting'));
    abortA.abort();
    const cancelled = await a;
    assert.deepEqual([cancelled.status, cancelled.text], ['cancelled', 'alpha part'], 'A stops, with what it streamed');
    assert.equal((await b).text, 'beta done.', 'B runs on');

    // A handler that cancels as the turn starts: in an idle conversation the turn starts inside the call.
    const abortS = new AbortController();
    const early = await v2.ask('STARTING go', { conversation: 'conv-s', signal: abortS.signal, on: (e) => e.type === 'turn.starting' && abortS.abort() });
    assert.equal(early.status, 'cancelled');
    assert.equal(core.server.chatRequests().filter((r) => r.lastUserText?.includes('STARTING go')).length, 0, 'the model was asked nothing');

    const before = core.server.chatRequests().length;
    await assert.rejects(
      v2.ask('SIGNAL go', { conversation: 'conv-s', signal: {} as AbortSignal }),
      (err: BatonError) => err.kind === 'invalid-input' && /signal/.test(err.message),
    );
    assert.deepEqual(
      (await v2.conversation('conv-s').messages()).map((m) => m.text).filter((t) => t.includes('SIGNAL')),
      [],
      'nothing was queued',
    );
    assert.equal(core.server.chatRequests().length, before);
  });

  it('while a summary is being made: rewind is refused (transient), and delete waits for it, leaving nothing of the conversation for a new one of the same id', async () => {
    const conv = v2.conversation('folded');
    for (const n of ['ONE', 'TWO', 'THREE', 'FOUR']) {
      core.server.on({ lastUserIncludes: `[via api] ${n} question`, name: `answer ${n}` }, { text: `Answer ${n}.` });
      await conv.ask(`${n} question`);
    }
    const three = (await conv.messages()).find((m) => m.text === 'THREE question')!;
    core.server.on({ systemIncludes: SUMMARIZER, name: 'the slow summary' }, { text: 'SUMMARY of ONE and TWO.', delayMs: 1500 });
    const compacting = conv.compact(2);
    await waitFor('the summary asked for', () => core.server.chatRequests().some((r) => r.systemText.includes(SUMMARIZER)));
    await assert.rejects(conv.rewind(three.id), (err: BatonError) => err.kind === 'transient' && /summar/i.test(err.message));
    await conv.delete();
    assert.ok(await compacting, 'the summary ended before the delete did');
    assert.ok(!(await v2.conversations()).some((c) => c.id === 'folded'));

    core.server.on({ lastUserIncludes: '[via api] FRESH question', name: 'a new conversation of the same id' }, { text: 'Fresh.' });
    await v2.conversation('folded').ask('FRESH question');
    const sent = JSON.stringify(core.server.chatRequests().at(-1)!.messages);
    for (const gone of ['SUMMARY of ONE', 'THREE question', 'Answer FOUR']) assert.ok(!sent.includes(gone), `the deleted conversation's ${gone} came back`);
    assert.deepEqual(
      (await v2.conversation('folded').messages()).map((m) => m.text),
      ['FRESH question', 'Fresh.'],
    );
  });

  it('conversations by id: an unknown id creates one, caller history seeds it, delete removes it with its checkpoints; the panel\u2019s cannot be deleted here', async () => {
    core.server.on({ lastUserIncludes: '[via api] HIST what did I say' }, { text: 'You said blue.' });
    const events: BatonEventV2[] = [];
    const reply = await v2.ask('HIST what did I say', {
      conversation: 'side-notes',
      history: [
        { role: 'user', content: 'My favourite colour is blue.' },
        { role: 'assistant', content: 'Noted.' },
      ],
      on: (e) => events.push(e),
    });
    assert.equal(reply.conversation, 'side-notes');
    const sent = core.server.chatRequests().at(-1)!.lastUserText!;
    assert.match(sent, /\[via api\] HIST what did I say\n\n\[Earlier conversation[^\n]*\]\nUser: My favourite colour is blue\.\nAssistant: Noted\./);
    assert.equal((events.find((e) => e.type === 'history.windowed') as Extract<BatonEventV2, { type: 'history.windowed' }>).history, 2);
    assert.notEqual(core.server.chatRequests().at(-1)!.sessionId, core.store.getState('orchestrator_session_id'), 'its own session');
    assert.ok((await v2.conversations()).some((c) => c.id === 'side-notes' && c.messages === 2));
    assert.equal((await v2.checkpoints('side-notes')).length, 1);

    await assert.rejects(v2.ask('x', { conversation: 'bad id!' }), (err: BatonError) => err.kind === 'invalid-input' && /conversation:/.test(err.message));
    await assert.rejects(
      v2.ask('x', { conversaton: 'side-notes' } as never),
      (err: BatonError) => err.kind === 'invalid-input' && /unknown field "conversaton"/.test(err.message),
      'a misspelt option is not ignored (the message would go to the panel\u2019s conversation)',
    );
    await assert.rejects(v2.conversation('main').delete(), (err: BatonError) => err.kind === 'invalid-input');
    await v2.conversation('side-notes').delete();
    assert.ok(!(await v2.conversations()).some((c) => c.id === 'side-notes'));
    assert.deepEqual(await v2.checkpoints('side-notes'), [], 'its checkpoints went with it');
  });
  it('messages() reads a conversation as people read it (a worker\u2019s report, not its wrapper); rewind() takes it back to a message, the panel showing it too; bad ids and a busy conversation are refused by kind', async () => {
    const project = join(core.home, 'dev', 'app');
    await mkdir(project, { recursive: true });
    core.server.on({ lastUserIncludes: '[via api] name a fruit' }, { text: 'Apple.' });
    core.server.on({ lastUserIncludes: 'TASK-notes write notes' }, { text: 'Wrote **NOTES.md**.' });
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'notes'" }, { text: 'The notes are written.' });
    core.server.on({ lastUserIncludes: '[via api] pick a number' }, { text: 'Four.' }, { text: 'Nine.' });
    // The panel's conversation: the panel shows what the API takes back.
    const conv = v2.conversation(core.chat.snapshot().conversation!);
    await conv.ask('name a fruit');
    const job = await v2.delegate('TASK-notes write notes', { folder: project, name: 'notes' });
    assert.equal((await job.result).state, 'done');
    await waitFor('the worker\u2019s result answered', () =>
      core.access.messages(conv.id).some((m) => m.text === 'The notes are written.' && m.status === 'complete'),
    );
    await conv.ask('pick a number');

    const messages = await conv.messages();
    assert.deepEqual(
      messages.map((m) => [m.role, m.channel, m.text, m.status]),
      [
        ['user', 'api', 'name a fruit', 'complete'],
        ['assistant', 'api', 'Apple.', 'complete'],
        ['worker', 'background', 'Wrote **NOTES.md**.', 'complete'],
        ['assistant', 'background', 'The notes are written.', 'complete'],
        ['user', 'api', 'pick a number', 'complete'],
        ['assistant', 'api', 'Four.', 'complete'],
      ],
    );
    assert.deepEqual({ ...messages[2]!.worker, durationMs: 0 }, { name: 'notes', state: 'done', durationMs: 0 });
    assert.ok(messages.every((m) => !Number.isNaN(Date.parse(m.at)) && m.at.endsWith('Z')));
    assert.ok(!JSON.stringify(messages).includes('worker-output'), 'never the wrapper the model was given');
    assert.deepEqual(
      (await conv.messages(2)).map((m) => m.text),
      ['pick a number', 'Four.'],
    );

    const posted: HostMessage[] = [];
    core.chat.onDidPost((m) => posted.push(m));
    const rewound: Array<[string, BatonEventV2]> = [];
    const offConversation = conv.on('conversation.rewound', (e) => rewound.push(['conversation', e]));
    const offInstance = v2.on('*', (e) => e.type === 'conversation.rewound' && rewound.push(['instance', e]));
    await conv.rewind(messages[4]!.id);
    offConversation.dispose();
    offInstance.dispose();
    const told = { type: 'conversation.rewound', conversation: conv.id, messageId: messages[4]!.id, how: 'truncated' };
    assert.deepEqual(
      rewound,
      [
        ['instance', told],
        ['conversation', told],
      ],
      'told once at each tier, in tier order',
    );
    assert.deepEqual(
      (await conv.messages()).map((m) => m.text),
      messages.slice(0, 4).map((m) => m.text),
    );
    const shown = posted.filter((m) => m.type === 'snapshot').at(-1);
    assert.ok(shown?.type === 'snapshot', 'the panel got a snapshot');
    assert.equal(shown.snapshot.messages.at(-1)!.content, 'The notes are written.', 'the panel shows it taken back');
    assert.equal((await conv.ask('pick a number')).text, 'Nine.');
    const last = core.server.chatRequests().at(-1)!;
    assert.equal(JSON.stringify(last.messages).split('pick a number').length - 1, 1, 'the message once');
    assert.ok(!JSON.stringify(last.messages).includes('Four.'), 'not the answer taken back');

    const invalid = (err: BatonError) => err.name === 'BatonError' && err.kind === 'invalid-input';
    await assert.rejects(conv.rewind('log-1; DROP TABLE log'), invalid);
    await assert.rejects(conv.rewind(messages[1]!.id), invalid, 'an answer, not one of the user\u2019s messages');
    await assert.rejects(v2.conversation('nothing-here').rewind(messages[0]!.id), invalid);
    assert.ok(!(await v2.conversations()).some((c) => c.id === 'nothing-here'), 'no conversation created by it');
    await assert.rejects(conv.messages(0), invalid);
    await assert.rejects(conv.messages(201), invalid);
    assert.deepEqual(await v2.conversation('nothing-here').messages(), []);

    core.server.on({ lastUserIncludes: '[via api] a long one' }, { textThenHang: 'Streaming…' });
    const abort = new AbortController();
    const pending = conv.ask('a long one', { signal: abort.signal });
    await waitFor('the reply streaming', () => core.access.messages(conv.id).at(-1)?.text === 'Streaming…');
    assert.equal((await conv.messages()).at(-1)!.status, 'streaming', 'a reply still arriving is the last message, as far as it came');
    // Asked meanwhile: queued behind it, below it; cancelled while queued, it is gone (it never reached the session).
    const queuedAbort = new AbortController();
    const queued = conv.ask('one more', { signal: queuedAbort.signal });
    await waitFor('the message queued', () => core.access.messages(conv.id).at(-1)?.text === 'one more');
    assert.deepEqual(
      (await conv.messages(2)).map((m) => `${m.text} (${m.status})`),
      ['Streaming… (streaming)', 'one more (queued)'],
    );
    queuedAbort.abort();
    assert.equal((await queued).status, 'cancelled');
    assert.equal((await conv.messages()).at(-1)!.text, 'Streaming…');
    await assert.rejects(conv.rewind(messages[0]!.id), (err: BatonError) => err.kind === 'transient' && /Stop the answer first/.test(err.message));
    abort.abort();
    assert.equal((await pending).status, 'cancelled');
    core.server.releaseHeld();
    assert.equal((await conv.messages()).length, 8, 'nothing was taken back');
  });
});
