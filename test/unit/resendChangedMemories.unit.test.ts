// A Resend after a reload asks the session whether it already has the message before sending anything. What the turn
// adds to the message (memories matched again, references read again) may differ from the first send, so the session
// is asked about the message itself, as the runtime records it (CopilotAgentSession.inspect, `carries`).
import * as assert from 'node:assert/strict';
import type { CopilotSession, SessionEvent } from '@github/copilot-sdk';
import { carries, CopilotAgentSession, type SessionHost } from '../../src/core/copilot/copilotAgentSession';
import { hangAfter, reply, sequence, tool } from '../support/inMemoryAgentSessions';
import { eachUnitCore, nextEvent, type UnitCore } from '../support/inMemoryCore';

const TEXT = 'how do I deploy the billing service to staging?';
const NUDGE = /^\[System: your previous reply was interrupted by a connection failure\./;

describe('Resend when the memories changed (in-memory runtime)', () => {
  let f: UnitCore;
  eachUnitCore((core) => (f = core));

  it('the session that has the message is nudged, not sent it a second time', async () => {
    // As the runtime answers: a recorded prompt that holds the message, with no reply yet, is "delivered".
    f.sessions.inspectOverride = (asked, state) => (state.prompts.some((p) => carries(p, asked)) ? { kind: 'delivered' } : { kind: 'absent' });
    f.sessions.script(
      'orchestrator',
      sequence(tool('remember', { category: 'project', content: 'Deploy billing to staging with make deploy-staging' }), hangAfter('Let me')),
    );
    f.core.orchestrator.enqueue(TEXT, { channel: 'panel' });
    await nextEvent(f.core, 'turn.delta');
    await f.restart(); // the window reloads mid-turn: the message is offered for resending
    f.sessions.script('orchestrator', reply('done'));
    const result = await f.core.orchestrator.enqueue(TEXT, { channel: 'panel' }, { resend: true }).done;
    assert.equal(result.content, 'done');
    assert.deepEqual(
      f.sessions.inspected.map((i) => i.prompt),
      [`[via panel] ${TEXT}`],
      'asked about the message, not the memories added to it',
    );
    const [first, second, ...rest] = f.sessions.orchestratorPrompts;
    assert.equal(first, `[via panel] ${TEXT}`);
    assert.match(second ?? '', NUDGE, 'the message went to the session twice');
    assert.deepEqual(rest, []);
  });
});

describe('CopilotAgentSession.inspect: finding the message in the runtime record', () => {
  let n = 0;
  const event = (type: string, data: Record<string, unknown>): SessionEvent => ({ id: `e${++n}`, type, data }) as unknown as SessionEvent;
  const inspect = (events: SessionEvent[], message: string) => {
    const fake = { on: () => () => undefined, getEvents: async () => events } as unknown as CopilotSession;
    const host = { whileAlive: <T>(work: Promise<T>) => work } as unknown as SessionHost;
    return new CopilotAgentSession(fake, host).inspect(message);
  };

  it('finds the message between the recovery context and the memories added to it', async () => {
    const sent = `[System: Session recovered] recent turns\n\n[via panel] ${TEXT}\n\nRelevant memories:\n- Deploy with make`;
    assert.deepEqual(await inspect([event('user.message', { content: sent })], `[via panel] ${TEXT}`), { kind: 'delivered' });
    const answered = [event('user.message', { content: sent }), event('assistant.message', { content: 'Run make.' }), event('assistant.turn_end', {})];
    assert.deepEqual(await inspect(answered, `[via panel] ${TEXT}`), { kind: 'answered', content: 'Run make.' });
  });

  it('a message is not found inside a longer one that starts with it', async () => {
    const events = [event('user.message', { content: '[via panel] continue with the tests' }), event('assistant.turn_end', {})];
    assert.deepEqual(await inspect(events, '[via panel] continue'), { kind: 'absent' });
    assert.equal(carries('[via panel] continue\n\nAttached file a.ts', '[via panel] continue'), true);
    assert.equal(carries('x[via panel] continue', '[via panel] continue'), false);
  });

  it('a long message is found by its last 200 characters', () => {
    const long = `[via panel] ${'word '.repeat(100)}end`;
    assert.equal(carries(`context\n\n${long}\n\nmemories`, long), true);
    assert.equal(carries(`${long} and more`, long), false);
  });
});
