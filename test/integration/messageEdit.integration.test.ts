// Editing a sent message from the panel (chat/edit), against the real runtime and a scripted model: the conversation
// is taken back to just before the message (the session forgets it and what came after, the log drops them) and the
// new text goes in its place, once.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { HostMessage } from '../../src/shared/protocol';
import type { RecordedRequest } from '../support/recordedRequest';
import { afterEachCore } from '../support/afterEachCore';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { ofType, timesSent } from '../support/orchestratorEvents';
import { waitFor } from '../support/waitFor';

describe('Editing a sent message (real runtime, scripted model)', function () {
  this.timeout(90_000);
  let core: CoreFixture;
  let posted: HostMessage[];

  beforeEach(async () => {
    core = await startCore();
    posted = [];
    core.chat.onDidPost((m) => posted.push(m));
  });
  afterEachCore(() => core);

  /** How many messages of a request, of any role, carry `needle` (timesSent counts the user's only). */
  function anywhere(request: RecordedRequest, needle: string): number {
    return request.messages.filter((m) => JSON.stringify(m.content).includes(needle)).length;
  }

  /** The panel's messages: who said what, in order. */
  function shown(): string[] {
    return core.chat.snapshot().messages.map((m) => `${m.role}: ${m.content}`);
  }

  function userRow(text: string): number {
    const row = core.store.recentLog(50).find((e) => e.role === 'user' && e.content === text);
    assert.ok(row, `a log row for ${text}`);
    return row.id;
  }

  /** The turn's reply is handed over a moment before its queue is idle: a person's click comes later than that. */
  async function idle(): Promise<void> {
    while (core.orchestrator.answering) await new Promise((r) => setTimeout(r, 5));
  }

  /** Waits for one more turn to complete than had when `before` was read. */
  async function oneMore(before: number): Promise<void> {
    const count = before + 1;
    const deadline = Date.now() + 30_000;
    while (ofType(core.events, 'turn.completed').length < count) {
      if (Date.now() > deadline)
        throw new Error(`${core.logger.lines.slice(-8).join('\n')}\nonly ${ofType(core.events, 'turn.completed').length} of ${count} turns completed`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('cuts the session at the edited message: the model then sees the turns before it and the new text, nothing after', async () => {
    core.server.on({ lastUserIncludes: '[via panel] name a fruit' }, { text: 'Apple.' });
    core.server.on({ lastUserIncludes: '[via panel] name a colour' }, { text: 'Blue.' });
    core.server.on({ lastUserIncludes: '[via panel] and a number' }, { text: 'Seven.' });
    core.server.on({ lastUserIncludes: '[via panel] name a vegetable' }, { text: 'Carrot.' });
    for (const text of ['name a fruit', 'name a colour', 'and a number']) await core.orchestrator.enqueue(text, { channel: 'panel' }).done;
    const session = core.orchestrator.currentSessionId;
    await idle();
    const before = ofType(core.events, 'turn.completed').length;
    core.chat.receive({ type: 'chat/edit', id: `log-${userRow('name a colour')}`, text: 'name a vegetable' });
    await oneMore(before);

    assert.deepEqual(shown(), ['user: name a fruit', 'assistant: Apple.', 'user: name a vegetable', 'assistant: Carrot.']);
    const last = core.server.chatRequests().at(-1)!;
    assert.equal(last.sessionId, session, 'the same session, cut, not a new one');
    const said = last.messages.filter((m) => m.role !== 'system').map((m) => `${m.role}: ${JSON.stringify(m.content)}`);
    assert.equal(said.length, 3, `the fruit turn and the new message only:\n${said.join('\n')}`);
    assert.equal(timesSent([last], 'name a fruit'), 1);
    assert.equal(timesSent([last], 'name a vegetable'), 1);
    for (const gone of ['name a colour', 'Blue.', 'and a number', 'Seven.']) assert.equal(anywhere(last, gone), 0, `${gone} was taken back`);
    assert.ok(
      posted.some((m) => m.type === 'snapshot' && !m.snapshot.messages.some((x) => x.content === 'name a colour')),
      'the panel was given the conversation without the taken-back messages',
    );
    assert.ok(core.logger.lines.some((l) => /Edit: conversation taken back to before message \d+ \(4 message\(s\); session truncated\)/.test(l)));

    // The cut is the runtime's own record: after a reload the resumed session does not have them either.
    core.server.on({ lastUserIncludes: '[via panel] and a tree' }, { text: 'Oak.' });
    await core.restart();
    await core.orchestrator.enqueue('and a tree', { channel: 'panel' }).done;
    assert.equal(ofType(core.events, 'session.ready').at(-1)!.how, 'resumed');
    const resumed = core.server.chatRequests().at(-1)!;
    assert.equal(resumed.sessionId, session);
    assert.equal(timesSent([resumed], 'name a vegetable'), 1);
    for (const gone of ['name a colour', 'and a number']) assert.equal(timesSent([resumed], gone), 0, `${gone} stays taken back`);
  });

  it('a message the session has only with recovery context on it: a new session from the log before it', async () => {
    core.server.on({ lastUserIncludes: '[via panel] my project is called zebra' }, { text: 'Noted: zebra.' });
    core.server.on({ lastUserIncludes: '[via panel] and its language?' }, { text: 'TypeScript.' });
    core.server.on({ lastUserIncludes: '[via panel] and its licence?' }, { text: 'MIT.' });
    await core.orchestrator.enqueue('my project is called zebra', { channel: 'panel' }).done;
    // Baton was updated: the next message opens a new session and carries the earlier turn as recovery context.
    await core.restart({ version: '0.0.1-test' });
    core.chat.onDidPost((m) => posted.push(m));
    await core.orchestrator.enqueue('and its language?', { channel: 'panel' }).done;
    const recovered = core.orchestrator.currentSessionId;
    assert.match(core.server.chatRequests().at(-1)!.lastUserText ?? '', /\[System: Session recovered\]/);
    await idle();
    const before = ofType(core.events, 'turn.completed').length;
    core.chat.receive({ type: 'chat/edit', id: `log-${userRow('and its language?')}`, text: 'and its licence?' });
    await oneMore(before);

    assert.deepEqual(shown(), ['user: my project is called zebra', 'assistant: Noted: zebra.', 'user: and its licence?', 'assistant: MIT.']);
    const last = core.server.chatRequests().at(-1)!;
    assert.notEqual(last.sessionId, recovered, 'a new session');
    assert.match(last.lastUserText ?? '', /\[System: Session recovered\][\s\S]*my project is called zebra[\s\S]*\[via panel\] and its licence\?$/);
    assert.equal(timesSent([last], 'and its language?'), 0, 'the edited message is gone from what the model sees');
    assert.equal(anywhere(last, 'TypeScript.'), 0);
    assert.ok(core.logger.lines.some((l) => /session replaced\)/.test(l)));
    assert.ok(!existsSync(join(core.storageDir, 'copilot-sessions', 'session-state', recovered!)), 'the replaced session is deleted, not left behind');
  });

  it('a message of a session Baton can no longer resume as it was (updated since): a new session, the old one deleted', async () => {
    core.server.on({ lastUserIncludes: '[via panel] my project is called zebra' }, { text: 'Noted: zebra.' });
    core.server.on({ lastUserIncludes: '[via panel] my project is called yak' }, { text: 'Noted: yak.' });
    await core.orchestrator.enqueue('my project is called zebra', { channel: 'panel' }).done;
    const old = core.orchestrator.currentSessionId!;
    await core.restart({ version: '0.0.1-test' });
    core.chat.onDidPost((m) => posted.push(m));
    const before = ofType(core.events, 'turn.completed').length;
    core.chat.receive({ type: 'chat/edit', id: `log-${userRow('my project is called zebra')}`, text: 'my project is called yak' });
    await oneMore(before);
    assert.deepEqual(shown(), ['user: my project is called yak', 'assistant: Noted: yak.']);
    const last = core.server.chatRequests().at(-1)!;
    assert.notEqual(last.sessionId, old);
    assert.equal(anywhere(last, 'zebra'), 0, 'nothing of the edited message, not even as recovery context');
    assert.ok(!existsSync(join(core.storageDir, 'copilot-sessions', 'session-state', old)), 'the old session is deleted');
    assert.ok(
      core.logger.lines.some((l) => /could not be cut at message \d+ \(the session now open is /.test(l)),
      'the resume opened another session, so it was not cut',
    );
  });

  it('Retry on a reply sends your message again once, its earlier answer taken back', async () => {
    core.server.on({ lastUserIncludes: '[via panel] name a fruit' }, { text: 'Apple.' });
    core.server.on({ lastUserIncludes: '[via panel] pick a number' }, { text: 'Four.' }, { text: 'Nine.' });
    for (const text of ['name a fruit', 'pick a number']) await core.orchestrator.enqueue(text, { channel: 'panel' }).done;
    await idle();
    const before = ofType(core.events, 'turn.completed').length;
    core.chat.receive({ type: 'chat/retry', id: `log-${userRow('pick a number')}` });
    await oneMore(before);
    assert.deepEqual(shown(), ['user: name a fruit', 'assistant: Apple.', 'user: pick a number', 'assistant: Nine.']);
    const last = core.server.chatRequests().at(-1)!;
    assert.equal(timesSent([last], 'pick a number'), 1, 'the message once');
    assert.equal(anywhere(last, 'Four.'), 0, 'not the answer it replaced');
    assert.equal(anywhere(last, 'Apple.'), 1);
  });

  it("a model service's error the runtime already retried (503) fails the message at once, no nudge left behind; Retry sends it once more", async () => {
    core.server.on({ lastUserIncludes: '[via panel] name a fruit' }, { text: 'Apple.' });
    await core.orchestrator.enqueue('name a fruit', { channel: 'panel' }).done;
    // The runtime tries a model call six times before it reports the error; Baton's own retries made that 24 requests.
    const busy = { error: 503, body: { error: { message: 'the service is unavailable' } } };
    core.server.on({ lastUserIncludes: '[via panel] pick a number', name: "the runtime's six tries" }, ...Array.from({ length: 6 }, () => busy));
    const failed = await core.orchestrator.enqueue('pick a number', { channel: 'panel' }).done.then(
      (r) => assert.fail(`it ended ${r.status}: '${r.content}'`),
      (e: unknown) => e as Error,
    );
    assert.match(failed.message, /^Sorry, I hit an error: the model service is busy or slow/);
    assert.deepEqual(ofType(core.events, 'turn.retrying'), []);
    const asked = (r: RecordedRequest): boolean => (r.lastUserText ?? '').includes('[via panel] pick a number');
    assert.equal(core.server.chatRequests().filter(asked).length, 6, "the runtime's own tries, no more");
    core.assertScriptDone();

    await idle();
    core.server.on({ lastUserIncludes: '[via panel] pick a number', name: 'the retry' }, { text: 'Nine.' });
    const before = ofType(core.events, 'turn.completed').length;
    core.chat.receive({ type: 'chat/retry', id: `log-${userRow('pick a number')}` });
    await oneMore(before);
    assert.deepEqual(shown(), ['user: name a fruit', 'assistant: Apple.', 'user: pick a number', 'assistant: Nine.']);
    const last = core.server.chatRequests().at(-1)!;
    assert.equal(timesSent([last], 'pick a number'), 1, 'the message once');
    assert.equal(anywhere(last, 'previous reply was interrupted'), 0, 'no nudge in the session');
    assert.equal(core.server.chatRequests().length, 8);
    core.assertScriptDone();
  });

  it('a message sent while the one before it was answered: editing it takes back it and its reply, never the reply before it', async () => {
    core.server.on({ lastUserIncludes: '[via panel] name a fruit' }, { text: 'Apple.', delayMs: 400 });
    core.server.on({ lastUserIncludes: '[via panel] and a colour' }, { text: 'Blue.' });
    core.server.on({ lastUserIncludes: '[via panel] and a number' }, { text: 'Seven.' });
    const fruit = core.orchestrator.enqueue('name a fruit', { channel: 'panel' });
    await fruit.started;
    // Written to the log before the reply to the fruit is.
    await core.orchestrator.enqueue('and a colour', { channel: 'panel' }).done;
    await idle();
    const before = ofType(core.events, 'turn.completed').length;
    core.chat.receive({ type: 'chat/edit', id: `log-${userRow('and a colour')}`, text: 'and a number' });
    await oneMore(before);
    assert.deepEqual(shown(), ['user: name a fruit', 'assistant: Apple.', 'user: and a number', 'assistant: Seven.']);
    const last = core.server.chatRequests().at(-1)!;
    assert.equal(anywhere(last, 'Apple.'), 1, 'the reply before it stays in the session');
    assert.equal(anywhere(last, 'and a colour'), 0);
  });

  it('refused while Baton answers, with the reason and the text back; nothing is taken back', async () => {
    core.server.on({ lastUserIncludes: '[via panel] first question' }, { text: 'First answer.' });
    core.server.on({ lastUserIncludes: '[via panel] a slow one' }, { text: 'Slow answer.', delayMs: 1500 });
    await core.orchestrator.enqueue('first question', { channel: 'panel' }).done;
    const slow = core.orchestrator.enqueue('a slow one', { channel: 'panel' });
    await slow.started;
    core.chat.receive({ type: 'chat/edit', id: `log-${userRow('first question')}`, text: 'a better question' });
    await slow.done;
    const refused = posted.find((m) => m.type === 'edit/refused');
    assert.ok(refused && refused.type === 'edit/refused');
    assert.equal(refused.text, 'a better question');
    assert.match(refused.message, /^Stop the answer first/);
    assert.deepEqual(shown(), ['user: first question', 'assistant: First answer.', 'user: a slow one', 'assistant: Slow answer.']);
  });

  it('a retry right after Stop (the Chat view\u2019s) waits for the stopped turn to settle, then takes it back', async () => {
    core.server.on({ lastUserIncludes: '[via chat] name a fruit' }, { text: 'Apple.' });
    core.server.on({ lastUserIncludes: '[via chat] write an essay' }, { textThenHang: 'Once upon' }, { text: 'The essay.' });
    await core.orchestrator.enqueue('name a fruit', { channel: 'chat' }).done;
    const essay = core.orchestrator.enqueue('write an essay', { channel: 'chat' });
    await essay.started;
    const deadline = Date.now() + 30_000;
    while (!ofType(core.events, 'turn.delta').some((e) => e.delta === 'Once upon')) {
      assert.ok(Date.now() < deadline, 'the first delta arrives');
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.ok(core.orchestrator.stop(essay.turnId));
    // What a retry pressed at once finds: the stopped turn has not settled (the runtime's abort is under way).
    assert.equal(core.orchestrator.answering, true);
    await assert.rejects(core.orchestrator.rewindTo(userRow('write an essay')), { name: 'RewindError', reason: 'busy' });
    // A caller that gives up waiting (a cancelled request) is told so and takes nothing back.
    const gaveUp = new AbortController();
    const waited = core.orchestrator.whenAnswered(30_000, gaveUp.signal);
    gaveUp.abort();
    assert.equal(await waited, false);
    assert.equal(await core.orchestrator.whenAnswered(30_000), true);
    assert.equal(core.orchestrator.answering, false);
    assert.equal(await core.orchestrator.rewindTo(userRow('write an essay')), 'truncated');
    assert.deepEqual(shown(), ['user: name a fruit', 'assistant: Apple.']);
    await core.orchestrator.enqueue('write an essay', { channel: 'chat' }).done;
    assert.deepEqual(shown(), ['user: name a fruit', 'assistant: Apple.', 'user: write an essay', 'assistant: The essay.']);
    const last = core.server.chatRequests().at(-1)!;
    assert.equal(timesSent([last], 'write an essay'), 1, 'the message once');
    assert.equal(anywhere(last, 'Once upon'), 0, 'not the stopped answer');
    core.server.releaseHeld();
  });

  it('an edit whose attached file cannot be read is refused with the conversation whole: nothing is taken back', async () => {
    core.server.on({ lastUserIncludes: '[via panel] first' }, { text: 'One.' });
    core.server.on({ lastUserIncludes: '[via panel] second' }, { text: 'Two.' });
    await core.orchestrator.enqueue('first', { channel: 'panel' }).done;
    await core.orchestrator.enqueue('second', { channel: 'panel' }).done;
    await idle();
    // This core has no editor: any reference is refused, as a deleted or protected file would be.
    const references = [{ ref: { kind: 'file' as const, path: join(core.workspace, 'gone.ts') } }];
    core.chat.receive({ type: 'chat/edit', id: `log-${userRow('second')}`, text: 'second, edited', references });
    const refused = await waitFor('the refusal', () => posted.find((m) => m.type === 'edit/refused'));
    assert.ok(refused.type === 'edit/refused' && refused.text === 'second, edited' && /not available/.test(refused.message), JSON.stringify(refused));
    assert.deepEqual(shown(), ['user: first', 'assistant: One.', 'user: second', 'assistant: Two.']);
  });

  it('a message sent right after an edit, before the conversation was taken back (its session still opening): kept and answered, none lost', async () => {
    core.server.on({ lastUserIncludes: '[via panel] name a fruit' }, { text: 'Apple.' });
    core.server.on({ lastUserIncludes: '[via panel] name a colour' }, { text: 'Blue.' });
    core.server.on({ lastUserIncludes: '[via panel] name a vegetable' }, { text: 'Carrot.' });
    core.server.on({ lastUserIncludes: '[via panel] and a tree' }, { text: 'Oak.' });
    await core.orchestrator.enqueue('name a fruit', { channel: 'panel' }).done;
    await core.orchestrator.enqueue('name a colour', { channel: 'panel' }).done;
    await idle();
    await core.restart();
    const before = ofType(core.events, 'turn.completed').length;
    // The panel opened after the reload: the session is being opened, and the take-back waits behind that.
    const warming = core.orchestrator.prewarm();
    core.chat.receive({ type: 'chat/edit', id: `log-${userRow('name a colour')}`, text: 'name a vegetable' });
    core.chat.receive({ type: 'chat/send', text: 'and a tree' });
    await warming;
    await oneMore(before + 1);
    await idle();
    const log = core.store.recentLog(50).map((e) => `${e.role}: ${e.content}`);
    for (const line of ['user: and a tree', 'assistant: Oak.', 'user: name a vegetable', 'assistant: Carrot.'])
      assert.ok(log.includes(line), `${line} in ${log.join(' | ')}`);
    assert.ok(!log.includes('user: name a colour'), 'the edited message was taken back');
    assert.deepEqual(shown().sort(), [...log].sort(), 'the panel shows the log');
  });

  it('Resend pressed twice on a message a reload interrupted (a double click, the other panel): sent and answered once', async () => {
    core.server.on({ lastUserIncludes: '[via panel] interrupted question' }, { textThenHang: 'partial...' });
    core.chat.receive({ type: 'chat/send', text: 'interrupted question' });
    await waitFor('the reply streams', () => ofType(core.events, 'turn.delta').length > 0);
    await core.restart();
    core.server.releaseHeld();
    core.chat.onDidPost((m) => posted.push(m));
    // The runtime has the prompt: the resend asks it to finish, once.
    core.server.on({ lastUserIncludes: 'previous reply was interrupted' }, { text: 'The full answer.' });
    const id = `log-${userRow('interrupted question')}`;
    core.chat.receive({ type: 'chat/resend', id });
    core.chat.receive({ type: 'chat/resend', id });
    await waitFor('answered', () => ofType(core.events, 'turn.completed').length >= 1);
    await idle();
    assert.deepEqual(
      shown().filter((l) => l.startsWith('assistant: The full answer.')),
      ['assistant: The full answer.'],
    );
  });

  it('a bad edit from the webview is logged and ignored', async () => {
    core.chat.receive({ type: 'chat/edit', id: 'log-1; DROP TABLE', text: 'x' });
    core.chat.receive({ type: 'chat/edit', id: 'log-99999999', text: '' });
    core.chat.receive({ type: 'chat/edit', id: 'log-424242', text: 'no such message' });
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(core.logger.lines.filter((l) => /Ignored a bad message from the chat panel/.test(l)).length, 2);
    // Each gets its text back with why: a malformed one (the panel never sends it) and one of a message not there.
    const refused = (id: string) => posted.find((m) => m.type === 'edit/refused' && m.id === id);
    const malformed = refused('log-1; DROP TABLE');
    assert.ok(malformed?.type === 'edit/refused' && malformed.text === 'x', JSON.stringify(posted));
    const gone = refused('log-424242');
    assert.ok(gone?.type === 'edit/refused' && /no longer in this conversation/.test(gone.message), JSON.stringify(posted));
    assert.deepEqual(shown(), []);
  });
});
