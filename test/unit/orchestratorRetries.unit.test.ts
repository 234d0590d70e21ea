// The orchestrator's retry policy, on the production wiring (createBatonCore, a real SqlJsStore in a temp folder) with
// the runtime in memory: which failures are retried and how, and, once a prompt may have reached the runtime, that it
// is never sent again. Each test scripts every run the runtime receives and asserts exactly what was sent.
import * as assert from 'node:assert/strict';
import { fail, reply } from '../support/inMemoryAgentSessions';
import { until } from '../support/inMemoryCore';
import { unitOrchestrator } from '../support/unitOrchestrator';

const NUDGE = /^\[System: your previous reply was interrupted by a connection failure\./;

describe('Orchestrator retries (in-memory runtime)', () => {
  const fixture = unitOrchestrator();
  const { start, send, log, failure } = fixture;

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
      const failed = fixture.core.core.store.recentLog(1)[0];
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
});
