// The orchestrator's queue, stop, timeout and retry policy, on the production wiring
// (createBatonCore, a real SqlJsStore in a temp folder) with the runtime in memory. Each test
// scripts every run the runtime receives and asserts exactly what was sent.
import * as assert from 'node:assert/strict';
import type { Origin, TurnResult } from '../../src/core/orchestrator/events';
import { TurnError, type TurnHandle } from '../../src/core/orchestrator/orchestrator';
import { Gate, fail, hangAfter, reply, sequence, tool, type TurnScript } from '../support/inMemoryAgentSessions';
import { nextEvent, startUnitCore, until, type UnitCore } from '../support/inMemoryCore';
import type { BatonCoreDeps } from '../../src/core/batonCore';
import { SqlJsStore } from '../../src/core/store/sqlJsStore';

const NUDGE = /^\[System: your previous reply was interrupted by a connection failure\./;

describe('Orchestrator (in-memory runtime)', () => {
  let f: UnitCore | undefined;

  async function start(overrides: Partial<BatonCoreDeps> = {}): Promise<UnitCore> {
    f = await startUnitCore({ overrides });
    return f;
  }

  function send(text: string, origin: Origin = { channel: 'panel' }): TurnHandle {
    return f!.core.orchestrator.enqueue(text, origin);
  }

  /** The conversation log as [role, content, status], oldest first. */
  function log(): Array<[string, string, string | null]> {
    return f!.core.store.recentLog(100).map((e) => [e.role, e.content, e.status]);
  }

  async function failure(handle: TurnHandle): Promise<TurnError> {
    const err = await handle.done.then(
      (r: TurnResult) => assert.fail(`expected the turn to fail, it settled ${r.status}: ${r.content}`),
      (e: unknown) => e,
    );
    assert.ok(err instanceof TurnError, String(err));
    return err;
  }

  afterEach(async () => {
    if (!f) return;
    const { sessions } = f;
    await f.dispose();
    f = undefined;
    sessions.assertScriptDone();
    assert.equal(sessions.inFlight, 0, 'no run is left in flight');
  });

  describe('the queue', () => {
    it('sends panel and command messages tagged with their channel, worker results as they are, in FIFO order', async () => {
      const { sessions, core } = await start();
      sessions.script('orchestrator', reply('one'), reply('two'), reply('three'));
      const a = send('first', { channel: 'panel' });
      const b = send('second', { channel: 'command' });
      const c = send("[Background task completed] Worker 'w' finished", { channel: 'background', worker: 'w', replyTo: 'panel' });
      const results = await Promise.all([a.done, b.done, c.done]);
      assert.deepEqual(sessions.orchestratorPrompts, ['[via panel] first', '[via command] second', "[Background task completed] Worker 'w' finished"]);
      assert.deepEqual(
        results.map((r) => [r.status, r.content]),
        [
          ['complete', 'one'],
          ['complete', 'two'],
          ['complete', 'three'],
        ],
      );
      // The log keeps what the user typed (untagged), each question before its answer.
      assert.deepEqual(log(), [
        ['user', 'first', 'complete'],
        ['user', 'second', 'complete'],
        ['system', "[Background task completed] Worker 'w' finished", 'complete'],
        ['assistant', 'one', 'complete'],
        ['assistant', 'two', 'complete'],
        ['assistant', 'three', 'complete'],
      ]);
      await until(() => !core.orchestrator.busy, 'the queue to go idle');
    });

    it('answers three messages in order, one at a time: the next is not sent before the previous settled', async () => {
      const { sessions, core } = await start();
      const gates = [new Gate(), new Gate(), new Gate()];
      const answer =
        (i: number): TurnScript =>
        async (ctx) => {
          ctx.delta(`answer ${i}`);
          await ctx.wait(gates[i]!.promise);
        };
      sessions.script('orchestrator', answer(0), answer(1), answer(2));
      const handles = ['q0', 'q1', 'q2'].map((q) => send(q));
      const settled: string[] = [];
      for (const h of handles) void h.done.then((r) => settled.push(r.content));
      for (let i = 0; i < 3; i++) {
        await until(() => sessions.runs.length === i + 1, `run ${i}`);
        // While turn i runs, nothing else reached the runtime and the rest wait in the queue.
        await new Promise((r) => setTimeout(r, 5));
        assert.equal(sessions.runs.length, i + 1);
        assert.equal(sessions.inFlight, 1);
        assert.equal(core.orchestrator.queuedCount, 2 - i);
        assert.deepEqual(settled, ['answer 0', 'answer 1', 'answer 2'].slice(0, i));
        gates[i]!.open();
        await handles[i]!.done;
      }
      assert.deepEqual(sessions.orchestratorPrompts, ['[via panel] q0', '[via panel] q1', '[via panel] q2']);
      assert.deepEqual(settled, ['answer 0', 'answer 1', 'answer 2']);
    });
  });

  describe('stop and timeout', () => {
    it('stop during a streaming turn keeps the partial, and the next queued message is still answered', async () => {
      const { sessions } = await start();
      sessions.script('orchestrator', hangAfter('Hello ', 'wor'), reply('next answer'));
      const first = send('say hello');
      const second = send('and then?');
      await nextEvent(f!.core, 'turn.delta', (e) => e.delta === 'wor');
      assert.equal(f!.core.orchestrator.stop(), true);
      const stopped = await first.done;
      assert.deepEqual([stopped.status, stopped.content], ['cancelled', 'Hello wor']);
      assert.deepEqual((await second.done).content, 'next answer');
      assert.deepEqual(log(), [
        ['user', 'say hello', 'cancelled'],
        ['user', 'and then?', 'complete'],
        ['assistant', 'Hello wor', 'cancelled'],
        ['assistant', 'next answer', 'complete'],
      ]);
      assert.deepEqual(sessions.orchestratorPrompts, ['[via panel] say hello', '[via panel] and then?']);
    });

    it('stop during a retry delay makes no further attempt and settles cancelled at once', async () => {
      // A 10 s delay: were stop not to cut it short, the test would time out.
      const { sessions, core } = await start({ retryDelaysMs: [10_000] });
      sessions.script('orchestrator', fail('connection', { delivered: false, partial: ['half an ans'] }), reply('after the stop'));
      const turn = send('question');
      const retrying = await nextEvent(core, 'turn.retrying');
      assert.equal(retrying.delayMs, 10_000);
      assert.equal(core.orchestrator.stop(), true);
      const result = await turn.done;
      // The failed attempt's text was discarded when the retry was announced; nothing is re-sent.
      assert.deepEqual([result.status, result.content], ['cancelled', '']);
      assert.equal(sessions.runs.length, 1);
      await until(() => !core.orchestrator.busy, 'the queue to go idle');
      // The orchestrator is free: the next message gets the next scripted run, and it is the new prompt.
      assert.equal((await send('new question').done).content, 'after the stop');
      assert.deepEqual(sessions.orchestratorPrompts, ['[via panel] question', '[via panel] new question']);
      assert.deepEqual(log()[0], ['user', 'question', 'cancelled']);
    });

    it('a timeout keeps the partial reply with a note naming the setting', async () => {
      const { sessions, core } = await start();
      f!.settings.turnTimeoutMs = 30;
      sessions.script('orchestrator', hangAfter('The first half'));
      const result = await send('long question').done;
      assert.equal(result.status, 'partial');
      assert.equal(result.content, 'The first half');
      assert.match(result.note ?? '', /^Timed out after \d+s \(limit: baton\.turnTimeoutMs\)\.$/);
      const [, answer] = core.store.recentLog(2);
      assert.equal(answer?.status, 'partial');
      assert.equal(answer?.content, `The first half\n\n_${result.note}_`);
      assert.equal(sessions.runs.length, 1, 'a timed-out turn is not retried');
    });
  });

  describe('more races', () => {
    it('a timeout during a retry delay ends the turn with the note, without another attempt', async () => {
      const { sessions } = await start({ retryDelaysMs: [10_000] });
      f!.settings.turnTimeoutMs = 30;
      sessions.script('orchestrator', fail('transient', { delivered: false, partial: ['lost text'] }));
      const result = await send('question').done;
      assert.equal(result.status, 'partial');
      assert.equal(result.content, '', "the failed attempt's text was discarded when the retry was announced");
      assert.match(result.note ?? '', /baton\.turnTimeoutMs/);
      assert.equal(sessions.runs.length, 1);
    });

    it('stop while one of Baton’s tools is in flight: the turn settles cancelled at once, the tool’s effect still happens once', async () => {
      const { sessions, core, workDir } = await start();
      const create = { name: 'w', working_dir: workDir, initial_prompt: 'do it' };
      const opening = new Gate();
      const open = new Gate();
      sessions.beforeCreate = (spec) => {
        if (spec.role !== 'worker') return;
        opening.open();
        return open.promise;
      };
      sessions.script(
        'orchestrator',
        sequence(tool('create_worker_session', create, 'call-1'), reply('started')),
        sequence(tool('create_worker_session', create, 'call-1'), reply('hm')),
      );
      sessions.script('worker', hangAfter('working'));
      const turn = send('start a worker');
      await opening.promise;
      assert.equal(core.orchestrator.stop(), true);
      const result = await turn.done;
      assert.deepEqual([result.status, result.content], ['cancelled', '']);
      // The worker session the tool was opening still opens: one worker, one task.
      open.open();
      await until(() => sessions.runs.some((r) => r.role === 'worker'), 'the worker to start');
      assert.deepEqual(
        core.pool.listActive().map((w) => [w.name, w.state]),
        [['w', 'running']],
      );
      // Same call id in a new turn is not a replay (the journal is per turn): the pool refuses a second 'w'.
      await send('start it again').done;
      assert.match(sessions.toolResults.at(-1)?.result ?? '', /^A worker named 'w' already exists \(running in /);
      assert.equal(sessions.created.filter((s) => s.role === 'worker').length, 1);
      assert.equal(core.toolJournal.replays, 0);
    });

    it('stop with nothing running returns false and leaves the queue alone', async () => {
      const { sessions, core } = await start();
      assert.equal(core.orchestrator.stop(), false);
      sessions.script('orchestrator', reply('fine'));
      assert.equal((await send('hello').done).status, 'complete');
    });

    it('the health check never interrupts a running turn', async () => {
      const { sessions, core } = await start();
      const gate = new Gate();
      sessions.script('orchestrator', async (ctx) => {
        ctx.delta('working');
        await ctx.wait(gate.promise);
      });
      const turn = send('question');
      await nextEvent(core, 'turn.delta');
      assert.equal(await core.orchestrator.healthCheck(), 'busy');
      gate.open();
      assert.equal((await turn.done).status, 'complete');
      assert.equal(await core.orchestrator.healthCheck(), 'ok');
      assert.deepEqual(sessions.resets, []);
    });

    it('New Chat asked during a turn waits for it, then starts a fresh session with an empty log', async () => {
      const { sessions, core } = await start();
      const gate = new Gate();
      sessions.script(
        'orchestrator',
        async (ctx) => {
          ctx.delta('old answer');
          await ctx.wait(gate.promise);
        },
        reply('fresh answer'),
      );
      const old = send('old question');
      await nextEvent(core, 'turn.delta');
      const cleared = core.orchestrator.newChat();
      const next = send('new question');
      gate.open();
      assert.equal((await old.done).content, 'old answer', 'the running turn was not cut short');
      await cleared;
      await next.done;
      const [a, b] = sessions.runs;
      assert.notEqual(b?.sessionId, a?.sessionId);
      assert.equal(b?.prompt, '[via panel] new question', 'no recovery context after New Chat');
    });
  });

  describe('retries', () => {
    for (const kind of ['connection', 'session', 'transient'] as const) {
      it(`retries a ${kind} failure that did not reach the runtime with the same prompt, after retryDelaysMs`, async () => {
        const { sessions, core, events } = await start();
        sessions.script('orchestrator', fail(kind, { delivered: false }), fail(kind, { delivered: false }), fail(kind, { delivered: false }), reply('finally'));
        const result = await send('hi').done;
        assert.deepEqual([result.status, result.content], ['complete', 'finally']);
        assert.deepEqual(sessions.orchestratorPrompts, Array(4).fill('[via panel] hi'));
        assert.deepEqual(
          events.filter((e) => e.type === 'turn.retrying').map((e) => (e.type === 'turn.retrying' ? [e.attempt, e.delayMs] : [])),
          [
            [1, 5],
            [2, 10],
            [3, 20],
          ],
        );
        // How each kind recovers: a connection resets the runtime, a session is resumed, a transient one just waits.
        assert.equal(sessions.resets.length, kind === 'connection' ? 3 : 0);
        assert.equal(sessions.resumed.length, kind === 'transient' ? 0 : 3);
        assert.equal(new Set(sessions.runs.map((r) => r.sessionId)).size, 1, 'the same conversation throughout');
        assert.deepEqual(log(), [
          ['user', 'hi', 'complete'],
          ['assistant', 'finally', 'complete'],
        ]);
        await until(() => !core.orchestrator.busy, 'the queue to go idle');
      });
    }

    it('gives up after the last delay with the readable error of the kind', async () => {
      const { sessions } = await start();
      sessions.script('orchestrator', ...Array.from({ length: 4 }, () => fail('transient', { delivered: false, message: 'rate limited', statusCode: 429 })));
      const err = await failure(send('hi'));
      assert.equal(err.readable.kind, 'transient');
      assert.match(err.readable.message, /busy or slow \(rate limited\)/);
      assert.equal(sessions.runs.length, 4, 'the first try and three retries');
      assert.deepEqual(log().at(-1), ['assistant', err.readable.message, 'failed']);
    });

    it('does not retry a missing sign-in: one run, and the sign-in action', async () => {
      const { sessions, events } = await start();
      sessions.script('orchestrator', fail('auth', { delivered: true, message: 'Not authorized', statusCode: 401 }));
      const err = await failure(send('hi'));
      assert.equal(sessions.runs.length, 1);
      assert.equal(sessions.inspected.length, 0, 'nothing to inspect: no retry');
      assert.equal(err.readable.kind, 'auth');
      assert.deepEqual(err.readable.action, { label: 'Sign in', command: 'baton.signIn' });
      assert.match(err.readable.message, /Copilot needs you to sign in \(Not authorized\)\. Run Baton: Sign In to GitHub Copilot/);
      assert.equal(events.filter((e) => e.type === 'turn.retrying').length, 0);
      const failed = f!.core.store.recentLog(1)[0];
      assert.equal(failed?.status, 'failed');
      assert.deepEqual((JSON.parse(failed?.meta ?? '{}') as { error?: unknown }).error, err.readable);
      assert.deepEqual(log()[0], ['user', 'hi', 'failed']);
    });

    it('a rejected API key of a BYOK provider points at the key, not at sign-in', async () => {
      const { sessions } = await start();
      sessions.updateProvider({ type: 'openai', baseUrl: 'http://127.0.0.1:9/v1' });
      sessions.script('orchestrator', fail('auth', { delivered: false, statusCode: 401 }));
      const err = await failure(send('hi'));
      assert.deepEqual(err.readable.action, { label: 'Set API key', command: 'baton.setProviderKey' });
      assert.equal(sessions.runs.length, 1);
    });

    it('does not retry a fatal failure: one run, and the show-log action', async () => {
      const { sessions } = await start();
      sessions.script('orchestrator', fail('fatal', { delivered: true, partial: ['Some text '], message: 'model refused the request' }));
      const err = await failure(send('hi'));
      assert.equal(sessions.runs.length, 1);
      assert.deepEqual(err.readable.action, { label: 'Show log', command: 'baton.showLog' });
      assert.equal(err.partial, 'Some text ');
      assert.deepEqual(log().at(-1), ['assistant', `Some text \n\n${err.readable.message}`, 'failed']);
    });
  });

  describe('a failure after the prompt was delivered', () => {
    it("'answered': takes the runtime's settled reply and sends nothing again", async () => {
      const { sessions, logger } = await start();
      sessions.script(
        'orchestrator',
        fail('connection', { delivered: true, partial: ['The ans'], record: { kind: 'answered', content: 'The answer is 42.' } }),
      );
      const result = await send('what is the answer?').done;
      assert.deepEqual([result.status, result.content], ['complete', 'The answer is 42.']);
      assert.deepEqual(sessions.orchestratorPrompts, ['[via panel] what is the answer?']);
      assert.deepEqual(
        sessions.inspected.map((i) => i.prompt),
        ['[via panel] what is the answer?'],
      );
      assert.ok(logger.lines.some((l) => l.includes('the runtime had already answered')));
      assert.deepEqual(log(), [
        ['user', 'what is the answer?', 'complete'],
        ['assistant', 'The answer is 42.', 'complete'],
      ]);
    });

    it("'delivered': sends the nudge to finish, never the prompt again", async () => {
      const { sessions, logger } = await start();
      sessions.script('orchestrator', fail('session', { delivered: true, partial: ['Work'] }), reply('Working on it: done.'));
      const result = await send('do the thing').done;
      assert.deepEqual([result.status, result.content], ['complete', 'Working on it: done.']);
      const [first, second, ...rest] = sessions.orchestratorPrompts;
      assert.equal(first, '[via panel] do the thing');
      assert.match(second ?? '', NUDGE);
      assert.deepEqual(rest, []);
      assert.ok(logger.lines.some((l) => l.includes('asking it to finish instead of sending it again')));
      assert.equal(log().filter(([role]) => role === 'user').length, 1);
    });

    it("'absent': sends the prompt again, and the log says the runtime had no record of it", async () => {
      const { sessions, logger } = await start();
      sessions.script('orchestrator', fail('transient', { delivered: true, record: { kind: 'absent' } }), reply('here it is'));
      const result = await send('question').done;
      assert.equal(result.content, 'here it is');
      assert.deepEqual(sessions.orchestratorPrompts, ['[via panel] question', '[via panel] question']);
      assert.ok(
        logger.lines.some((l) => /^warn Turn .*: the runtime has no record of the prompt; sending it again$/.test(l)),
        logger.lines.join('\n'),
      );
    });

    it('a failure before delivery is not inspected: the prompt simply goes again', async () => {
      const { sessions, logger } = await start();
      sessions.script('orchestrator', fail('connection', { delivered: false }), reply('ok'));
      await send('question').done;
      assert.deepEqual(sessions.inspected, []);
      assert.deepEqual(sessions.orchestratorPrompts, ['[via panel] question', '[via panel] question']);
      assert.ok(!logger.lines.some((l) => l.includes('has no record')));
    });
  });

  describe('closing', () => {
    it('refuses a message after close with the closed error, not an error of the closed database', async () => {
      const { core } = await start();
      await core.dispose();
      assert.throws(
        () => core.orchestrator.enqueue('too late', { channel: 'background', worker: 'w' }),
        (err: unknown) =>
          err instanceof TurnError && err.readable.kind === 'cancelled' && err.readable.message === 'Baton was closed before this message was sent.',
      );
    });

    it('keeps the partial of the running turn and leaves queued user messages offered for resending', async () => {
      const { sessions, core, storageDir } = await start();
      sessions.script('orchestrator', hangAfter('partial '));
      const running = send('running');
      const queued = send('queued');
      await nextEvent(core, 'turn.delta');
      let atClose: Array<[string, string, string | null]> = [];
      await f!.restart({}, async () => {
        const store = await SqlJsStore.open({ dir: storageDir, pollIntervalMs: 0 });
        atClose = store.recentLog(10).map((e) => [e.role, e.content, e.status]);
        await store.close();
      });
      // On disk after the close: the queued message is still pending (never sent), the running one interrupted.
      assert.deepEqual(atClose, [
        ['user', 'running', 'interrupted'],
        ['user', 'queued', 'pending'],
        ['assistant', 'partial \n\n_Interrupted when Baton closed._', 'partial'],
      ]);
      // The running turn was cut by the close, not by the user; the queued one never left the queue.
      assert.equal((await failure(running)).readable.kind, 'cancelled');
      assert.equal((await failure(queued)).readable.message, 'Baton was closed before this message was sent.');
      await assert.rejects(queued.started);
      assert.deepEqual(
        f!.core.interrupted.map((e) => [e.content, e.status]),
        [['queued', 'interrupted']],
      );
      assert.deepEqual(log(), [
        ['user', 'running', 'interrupted'],
        ['user', 'queued', 'interrupted'],
        ['assistant', 'partial \n\n_Interrupted when Baton closed._', 'partial'],
      ]);
      assert.deepEqual(sessions.orchestratorPrompts, ['[via panel] running']);
    });
  });
});
