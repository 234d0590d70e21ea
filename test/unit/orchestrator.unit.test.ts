// The orchestrator's queue, stop, timeout and closing (its retries: orchestratorRetries.unit.test.ts), on the production wiring
// (createBatonCore, a real SqlJsStore in a temp folder) with the runtime in memory. Each test
// scripts every run the runtime receives and asserts exactly what was sent.
import * as assert from 'node:assert/strict';
import { TurnError } from '../../src/core/orchestrator/orchestrator';
import { Gate, fail, hangAfter, reply, sequence, tool, type TurnScript } from '../support/inMemoryAgentSessions';
import { nextEvent, until } from '../support/inMemoryCore';
import { SqlJsStore } from '../../src/core/store/sqlJsStore';
import { unitOrchestrator } from '../support/unitOrchestrator';

describe('Orchestrator (in-memory runtime)', () => {
  const fixture = unitOrchestrator();
  const { start, send, log, failure } = fixture;

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
      // The log keeps what the user typed (untagged), each answer right after its question (read in the
      // conversation's order: the messages were written before the answers, as they were queued).
      assert.deepEqual(log(), [
        ['user', 'first', 'complete'],
        ['assistant', 'one', 'complete'],
        ['user', 'second', 'complete'],
        ['assistant', 'two', 'complete'],
        ['system', "[Background task completed] Worker 'w' finished", 'complete'],
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
      await nextEvent(fixture.core.core, 'turn.delta', (e) => e.delta === 'wor');
      assert.equal(fixture.core.core.orchestrator.stop(), true);
      const stopped = await first.done;
      assert.deepEqual([stopped.status, stopped.content], ['cancelled', 'Hello wor']);
      assert.deepEqual((await second.done).content, 'next answer');
      assert.deepEqual(log(), [
        ['user', 'say hello', 'cancelled'],
        ['assistant', 'Hello wor', 'cancelled'],
        ['user', 'and then?', 'complete'],
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
      fixture.core.settings.turnTimeoutMs = 30;
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
      fixture.core.settings.turnTimeoutMs = 30;
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
      assert.equal(await core.health.check(), 'busy');
      gate.open();
      assert.equal((await turn.done).status, 'complete');
      await until(() => core.orchestrator.idle, 'the queue to settle');
      assert.equal(await core.health.check(), 'ok');
      assert.deepEqual(sessions.resets, []);
    });

    it('one health check for the runtime: a failed ping resets it only when no conversation answers and no worker runs', async () => {
      const { sessions, core, workDir } = await start();
      const gate = new Gate();
      sessions.script(
        'orchestrator',
        async (ctx) => {
          ctx.delta('working');
          await ctx.wait(gate.promise);
          await ctx.say(' done');
        },
        sequence(tool('create_worker_session', { name: 'w', working_dir: workDir, initial_prompt: 'do it' }), reply('started')),
        reply('w did it'),
      );
      const working = new Gate();
      sessions.script('worker', async (ctx) => {
        await ctx.wait(working.promise);
        await ctx.say('did it');
      });
      // A runtime busy with another conversation's answer may answer a ping late: that is no reason to reset it.
      const other = core.conversations.get(core.conversations.create());
      const turn = other.enqueue('question', { channel: 'panel' });
      await nextEvent(core, 'turn.delta');
      sessions.ping = async () => false;
      assert.equal(await core.health.check(), 'busy');
      gate.open();
      assert.equal((await turn.done).status, 'complete');
      // Nor with a worker's task running on it (its session would be lost with the runtime).
      sessions.ping = async () => true;
      await send('start a worker').done;
      await until(() => sessions.runs.some((r) => r.role === 'worker'), 'the worker to start');
      sessions.ping = async () => false;
      assert.equal(await core.health.check(), 'busy');
      assert.deepEqual(sessions.resets, []);
      working.open();
      await until(() => core.pool.listActive().every((w) => w.state !== 'running'), 'the worker to finish');
      await until(() => core.conversations.all().every((c) => c.idle), 'its result to be answered');
      assert.equal(await core.health.check(), 'restarted', 'idle, a runtime that does not answer is restarted');
      assert.equal(sessions.resets.length, 1);
    });
  });

  describe('routing', () => {
    it("each conversation keeps its own router: another conversation's cooldown does not hold its first message", async () => {
      const { sessions, core, settings } = await start();
      settings.routing.auto = true;
      sessions.script('classifier', reply('premium'), reply('fast'));
      sessions.script('orchestrator', reply('a long proof'), reply('hi'));
      const a = await send('prove that the scheduler never starves a task').done;
      assert.deepEqual([a.route.tier, a.route.reason], ['premium', 'classifier']);
      // A conversation opened after it routes its first message on its own (it used to load the other's cooldown).
      const other = core.conversations.get(core.conversations.create());
      const b = await other.enqueue('what is the capital of france', { channel: 'panel' }).done;
      assert.deepEqual([b.route.tier, b.route.reason], ['fast', 'classifier']);
    });
  });

  describe('changes asked from the chat', () => {
    it("a restart asked in one conversation waits for another conversation's running answer, then comes before the next message", async () => {
      const { sessions, core } = await start();
      const gate = new Gate();
      sessions.scriptWhen(
        'orchestrator',
        (p) => p.includes('write the long report'),
        async (ctx) => {
          await ctx.wait(gate.promise);
          await ctx.say('the long report');
        },
      );
      sessions.scriptWhen('orchestrator', (p) => p.includes('restart please'), sequence(tool('restart', {}, 'call-r'), reply('Restarting.')));
      sessions.scriptWhen('orchestrator', (p) => p.includes('and now?'), reply('fresh'));
      const long = send('write the long report');
      while (sessions.inFlight < 1) await new Promise((r) => setTimeout(r, 5));
      const other = core.conversations.get(core.conversations.create());
      assert.equal((await other.enqueue('restart please', { channel: 'panel' }).done).content, 'Restarting.');
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(sessions.resets, [], 'not while the other conversation answers');
      gate.open();
      assert.equal((await long.done).content, 'the long report', 'its answer was not cut short');
      // The restart runs once that answer ended, before the next message of either conversation.
      const next = await other.enqueue('and now?', { channel: 'panel' }).done;
      assert.equal(next.content, 'fresh');
      assert.equal(sessions.resets.length, 1);
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
      await fixture.core.restart({}, async () => {
        const store = await SqlJsStore.open({ dir: storageDir, pollIntervalMs: 0 });
        atClose = store.recentLog(10).map((e) => [e.role, e.content, e.status]);
        await store.close();
      });
      // On disk after the close: the queued message is still pending (never sent), the running one interrupted.
      assert.deepEqual(atClose, [
        ['user', 'running', 'interrupted'],
        ['assistant', 'partial \n\n_Interrupted when Baton closed._', 'partial'],
        ['user', 'queued', 'pending'],
      ]);
      // The running turn was cut by the close, not by the user; the queued one never left the queue.
      assert.equal((await failure(running)).readable.kind, 'cancelled');
      assert.equal((await failure(queued)).readable.message, 'Baton was closed before this message was sent.');
      await assert.rejects(queued.started);
      assert.deepEqual(
        fixture.core.core.interrupted.map((e) => [e.content, e.status]),
        [['queued', 'interrupted']],
      );
      assert.deepEqual(log(), [
        ['user', 'running', 'interrupted'],
        ['assistant', 'partial \n\n_Interrupted when Baton closed._', 'partial'],
        ['user', 'queued', 'interrupted'],
      ]);
      assert.deepEqual(sessions.orchestratorPrompts, ['[via panel] running']);
    });
  });
});
