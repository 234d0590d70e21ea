// The @baton response's wait for a worker's answer always ends, and says how: answered, failed, stopped, or no answer
// coming (the orchestrator stopped the worker itself). Fed events in the order BatonEvents and the orchestrators give them.
import * as assert from 'node:assert/strict';
import type { BatonErrorInfo } from '../../api/baton';
import type { BatonEvent } from '../../src/core/api/batonEvents';
import { answerEndNote, ChatRelay, type AnswerEnd } from '../../src/core/api/chatRelay';
import type { OrchestratorEvent, Origin } from '../../src/core/orchestrator/events';
import { Emitter } from '../../src/core/util/emitter';

const answerOf = (worker: string): Origin => ({ channel: 'background', worker, replyTo: 'chat' });

describe('@baton waiting for a worker\u2019s answer (ChatRelay)', () => {
  let orchestrators: Emitter<OrchestratorEvent>;
  let events: Emitter<BatonEvent>;
  let relay: ChatRelay;
  let said: string[];
  let ends: Array<[string, AnswerEnd]>;

  beforeEach(() => {
    orchestrators = new Emitter<OrchestratorEvent>();
    events = new Emitter<BatonEvent>();
    // BatonEvents listens to the orchestrators first (it is built with the core): a report handed over fires its
    // worker.finished from inside the orchestrator's turn.queued, before any later listener hears of that turn.
    orchestrators.event((e) => {
      if (e.type === 'turn.queued' && e.origin.worker)
        events.fire({ type: 'worker.finished', worker: e.origin.worker, conversation: 'chat-1', state: 'done', result: 'report' });
    });
    relay = new ChatRelay({ onEvent: events.event }, { onEvent: orchestrators.event });
    said = [];
    ends = [];
  });

  afterEach(() => relay.dispose());

  /** What one response following `worker` shows, as chatParticipant.ts writes it. */
  const follow = (worker: string) =>
    relay.claim([worker], {
      on: (e, w) => {
        if (e.type === 'turn.starting') said.push(`Worker '${w}' finished.`);
        else if (e.type === 'turn.streaming') said.push(e.delta);
      },
      ended: (w, end) => {
        ends.push([w, end]);
        const note = answerEndNote(w, end);
        if (note) said.push(note.trim());
      },
    });
  const queued = (turnId: string, worker: string, elsewhere = false) =>
    orchestrators.fire({
      type: 'turn.queued',
      conversation: 'chat-1',
      turnId,
      prompt: 'p',
      origin: answerOf(worker),
      logId: 1,
      ...(elsewhere ? { elsewhere: true as const } : {}),
    });
  const starts = (turnId: string, worker: string) => {
    events.fire({ type: 'turn.starting', turnId, conversation: 'chat-1', origin: answerOf(worker), prompt: 'p' });
    events.fire({ type: 'turn.streaming', turnId, conversation: 'chat-1', delta: 'Looking at it', text: 'Looking at it' });
  };
  const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

  it('an answer that fails ends the wait with its error, and the action it offers', async () => {
    follow('w1');
    queued('t1', 'w1');
    starts('t1', 'w1');
    await tick();
    assert.deepEqual(ends, [], 'the report was handed over: its answer is waited for');
    const error: BatonErrorInfo = { kind: 'auth', message: 'Sign in to GitHub to use Copilot.', action: { label: 'Sign In', command: 'baton.signIn' } };
    events.fire({ type: 'turn.failed', turnId: 't1', conversation: 'chat-1', origin: answerOf('w1'), error, partial: 'Looking at it' });
    assert.deepEqual(ends, [['w1', { kind: 'failed', error }]]);
    assert.deepEqual(said, [
      "Worker 'w1' finished.",
      'Looking at it',
      "**Baton could not answer worker 'w1'\u2019s result:** Sign in to GitHub to use Copilot.",
    ]);
  });

  it('a worker the orchestrator stopped itself (no report, no answer coming) ends the wait, saying so', async () => {
    follow('w2');
    events.fire({ type: 'worker.finished', worker: 'w2', conversation: 'chat-1', state: 'killed', result: "Worker 'w2' was stopped before it finished." });
    await tick();
    assert.deepEqual(ends, [['w2', { kind: 'unanswered', state: 'killed' }]]);
    assert.deepEqual(said, ["---\n\n**Worker 'w2' was stopped by Baton** before it finished; no answer follows. Its transcript keeps what it did."]);
  });

  it('an answer completed, one awaiting the user, one stopped, one withdrawn from the queue, one given in another window: each ends once', async () => {
    for (const w of ['a', 'b', 'c', 'd', 'e']) follow(w);
    queued('ta', 'a');
    starts('ta', 'a');
    events.fire({ type: 'turn.completed', turnId: 'ta', conversation: 'chat-1', origin: answerOf('a'), text: 'A', status: 'complete', model: 'm' });
    queued('tb', 'b');
    starts('tb', 'b');
    events.fire({ type: 'turn.awaiting-input', turnId: 'tb', conversation: 'chat-1', origin: answerOf('b'), text: 'B', model: 'm', waitingOn: 1 });
    queued('tc', 'c');
    starts('tc', 'c');
    events.fire({ type: 'turn.cancelled', turnId: 'tc', conversation: 'chat-1', origin: answerOf('c'), partial: '' });
    queued('td', 'd');
    orchestrators.fire({ type: 'turn.withdrawn', conversation: 'chat-1', turnId: 'td', origin: answerOf('d'), logId: 2 });
    queued('te', 'e', true);
    await tick();
    assert.deepEqual(
      ends.map(([w, end]) => `${w} ${end.kind}`),
      ['a answered', 'b awaiting-input', 'c stopped', 'd stopped', 'e elsewhere'],
    );
    assert.deepEqual(said, [
      "Worker 'a' finished.",
      'Looking at it',
      "Worker 'b' finished.",
      'Looking at it',
      '_Baton is waiting for your answer to a question in its panel._',
      "Worker 'c' finished.",
      'Looking at it',
      "_Baton\u2019s answer to worker 'c' was stopped._",
      "_Baton\u2019s answer to worker 'd' was stopped._",
      "---\n\n_Worker 'e' finished; its result is answered in the window that runs this conversation._",
    ]);
  });

  it('an answer awaiting the user with no response open is kept for the next @baton message', () => {
    queued('tk', 'k');
    starts('tk', 'k');
    events.fire({ type: 'turn.awaiting-input', turnId: 'tk', conversation: 'chat-1', origin: answerOf('k'), text: 'K needs a yes', model: 'm', waitingOn: 1 });
    assert.deepEqual(relay.takePending('chat-1'), [{ worker: 'k', text: 'K needs a yes' }]);
  });
});
