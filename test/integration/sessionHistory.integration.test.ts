// A conversation's Copilot session over a month of use: the runtime appends every event of it to its history and never
// shortens that, and a resume reads it all. Past its bound the conversation moves to a new session that starts from
// its summary, and the old one is deleted; and a conversation compacted (by the command, the policy or the bound)
// starts its next session from the summary even when the window was reloaded in between.
import * as assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SESSION_HISTORY_BYTES } from '../../src/core/store/bounds';
import { afterEachCore } from '../support/afterEachCore';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { waitFor } from '../support/waitFor';

describe("A conversation's session history (real runtime, scripted model)", function () {
  this.timeout(180_000);
  let core: CoreFixture;
  const sessionFolder = (id: string): string => join(core.storageDir, 'copilot-sessions', 'session-state', id);
  const history = (id: string): number => statSync(join(sessionFolder(id), 'events.jsonl')).size;
  // The history is looked at once a turn's end is announced, before the next turn: the queue is idle again after it.
  const settled = () => waitFor('the check after the turn', () => !core.orchestrator.busy);
  // Said when the history is found past the bound; the move itself runs after, in the background.
  const movedOn = (): boolean => core.logger.lines.some((l) => /The session's history is 4\.\d MB, past its bound of 4 MB/.test(l));
  const summaries = (): number => core.server.chatRequests().filter((r) => (r.lastUserText ?? '').includes('Summarize this conversation so far')).length;

  // The runtime's own compaction runs in the background: the request a message made is found by its text.
  const requestFor = (text: string) => {
    const found = core.server.chatRequests().filter((r) => (r.lastUserText ?? '').includes(text));
    assert.equal(found.length, 1, text);
    return found[0]!;
  };

  beforeEach(async () => {
    core = await startCore();
  });
  afterEachCore(() => core);

  it('a compacted conversation starts its next session from the summary, even after a reload; the old session is deleted', async () => {
    for (const n of ['one', 'two', 'three', 'four']) core.server.on({ lastUserIncludes: `[via panel] count ${n}` }, { text: `Counted ${n}.` });
    core.server.on({ lastUserIncludes: 'Summarize this conversation so far' }, { text: 'The user is counting: one, two so far.' });
    core.server.on({ lastUserIncludes: '[via panel] where were we?' }, { text: 'At four.' });
    for (const n of ['one', 'two', 'three', 'four']) await core.orchestrator.enqueue(`count ${n}`, { channel: 'panel' }).done;
    const old = core.orchestrator.currentSessionId!;
    const compaction = await core.orchestrator.summarizeNow(4);
    assert.equal(compaction?.summary, 'The user is counting: one, two so far.');
    assert.ok(!existsSync(sessionFolder(old)), 'the replaced session is deleted at once, not left for the sweep at the next start');

    await core.restart();
    await core.orchestrator.enqueue('where were we?', { channel: 'panel' }).done;
    const last = core.server.chatRequests().at(-1)!;
    assert.notEqual(last.sessionId, old);
    assert.match(
      last.lastUserText ?? '',
      /\[System: conversation compacted\][^]*The user is counting: one, two so far\.[^]*User: count three\nAssistant: Counted three\.\nUser: count four\nAssistant: Counted four\.[^]*\[via panel\] where were we\?$/,
      'the next session knows the conversation: its summary and the turns kept',
    );
    core.assertScriptDone();
  });

  it('an edit in a compacted conversation: the new session starts from the summary; an edit of a message it folded in drops it', async () => {
    const userRow = (text: string): number => core.store.recentLog(50).find((e) => e.role === 'user' && e.content === text)!.id;
    const completed = (): number => core.events.filter((e) => e.type === 'turn.completed').length;
    const edit = async (from: string, to: string): Promise<string> => {
      await settled();
      const before = completed();
      core.chat.receive({ type: 'chat/edit', id: `log-${userRow(from)}`, text: to });
      await waitFor(`the edited message answered`, () => completed() > before);
      return requestFor(`[via panel] ${to}`).lastUserText ?? '';
    };
    for (const n of ['one', 'two', 'three', 'four', 'five', 'six', 'seven'])
      core.server.on({ lastUserIncludes: `[via panel] count ${n}` }, { text: `Counted ${n}.` });
    core.server.on({ lastUserIncludes: 'Summarize this conversation so far' }, { text: 'The user is counting: one, two so far.' });
    for (const n of ['one', 'two', 'three', 'four']) await core.orchestrator.enqueue(`count ${n}`, { channel: 'panel' }).done;
    await core.orchestrator.summarizeNow(4);
    await core.orchestrator.enqueue('count five', { channel: 'panel' }).done;

    // "count five" rode on the summary into its session: that session cannot be cut there, a new one starts.
    const afterSummary = await edit('count five', 'count six');
    assert.match(
      afterSummary,
      /\[System: Session recovered\][^]*summarized:\nThe user is counting: one, two so far\.[^]*\[panel\] User: count four\n\[panel\] Baton: Counted four\.[^]*\[via panel\] count six$/,
      'the conversation compacted before the edit is not forgotten',
    );
    assert.doesNotMatch(afterSummary, /count five/);

    // "count two" is one of the messages the summary tells of: taken back, the summary would tell of what is gone.
    const beforeSummary = await edit('count two', 'count seven');
    assert.match(beforeSummary, /\[System: Session recovered\][^]*\[panel\] User: count one\n\[panel\] Baton: Counted one\.[^]*\[via panel\] count seven$/);
    assert.doesNotMatch(beforeSummary, /summarized|counting: one, two|count two|count six/);
    assert.deepEqual(
      core.chat.snapshot().messages.map((m) => m.content),
      ['count one', 'Counted one.', 'count seven', 'Counted seven.'],
    );
    core.assertScriptDone();
  });

  it(`moves a conversation whose session history passed ${SESSION_HISTORY_BYTES / 2 ** 20} MB to a new session from its summary, and deletes the old one`, async () => {
    // Replies of 190 KB (a reply is cut at 200,000 characters): the history passes the bound in some 23 turns, each
    // scripted as it is sent.
    const long = (i: number): string => `Part ${i}. ${'All of it, at length. '.repeat(8600)}`;
    const turns = Math.ceil(SESSION_HISTORY_BYTES / long(0).length) + 1;
    // The runtime compacts what the model sees on its own as the context fills: that does not shorten its history.
    const runtimeCompacts = (r: { lastUserText?: string }): boolean =>
      (r.lastUserText ?? '').includes('Please create a detailed summary of the conversation so far');
    // Each with what it used: the runtime reports its own compaction's call only in its compaction_complete.
    core.server.on(
      { name: "the runtime's own compaction", predicate: runtimeCompacts },
      { text: '<overview>Parts of a long text.</overview>', usage: { prompt_tokens: 123_456, completion_tokens: 789 } },
    );
    core.server.on(
      { lastUserIncludes: 'Summarize this conversation so far' },
      { text: 'The user read a long text in parts.', usage: { prompt_tokens: 2_000, completion_tokens: 20 } },
    );
    core.server.on({ lastUserIncludes: '[via panel] and now?' }, { text: 'Now the end.' });

    let first = '';
    let moved = -1;
    for (let i = 0; i < turns && moved < 0; i++) {
      core.server.on({ lastUserIncludes: `[via panel] part ${i}?` }, { text: long(i) });
      await core.orchestrator.enqueue(`part ${i}?`, { channel: 'panel' }).done;
      await settled();
      first ||= core.orchestrator.currentSessionId!;
      if (movedOn()) moved = i;
      else assert.ok(history(first) <= SESSION_HISTORY_BYTES, 'the session is kept until its history passes the bound');
    }
    assert.ok(moved > 0, 'the conversation moved once its history passed the bound');
    await waitFor('the old session deleted', () => !existsSync(sessionFolder(first)));
    assert.equal(summaries(), 1);
    assert.equal(core.server.chatRequests().filter(runtimeCompacts).length, 1);
    // What the conversation used: its turns, Baton's summary and the runtime's own compaction, counted once each.
    const turnsUsed = core.events.flatMap((e) => (e.type === 'turn.completed' ? [e.result.usage] : []));
    const sum = (k: 'inputTokens' | 'outputTokens') => turnsUsed.reduce((n, u) => n + (u?.[k] ?? 0), 0);
    const used = core.usage.total('orchestrator');
    assert.deepEqual(
      [used.inputTokens, used.outputTokens, used.requests],
      [sum('inputTokens') + 2_000 + 123_456, sum('outputTokens') + 20 + 789, turnsUsed.length],
    );

    // The next message goes to a new session that starts from the summary and the newest turns.
    await core.orchestrator.enqueue('and now?', { channel: 'panel' }).done;
    const last = requestFor('[via panel] and now?');
    assert.notEqual(last.sessionId, first);
    assert.match(last.lastUserText ?? '', /\[System: conversation compacted\][^]*The user read a long text in parts\.[^]*\[via panel\] and now\?$/);
    assert.ok(history(last.sessionId!) < 2 ** 20, `the new session's history is ${history(last.sessionId!)} bytes`);
    // Nothing the user reads is lost: the panel shows the whole conversation.
    const shown = core.chat
      .snapshot()
      .messages.filter((m) => m.role === 'user')
      .map((m) => m.content);
    assert.equal(shown.length, moved + 2);
    assert.equal(shown.at(-1), 'and now?');
    core.assertScriptDone();
  });

  it('when the summary fails, the conversation still moves, starting from its recent turns', async () => {
    const long = (i: number): string => `Part ${i}. ${'All of it, at length. '.repeat(8600)}`;
    const turns = Math.ceil(SESSION_HISTORY_BYTES / long(0).length) + 1;
    const runtimeCompacts = (r: { lastUserText?: string }): boolean =>
      (r.lastUserText ?? '').includes('Please create a detailed summary of the conversation so far');
    core.server.on({ name: "the runtime's own compaction", predicate: runtimeCompacts }, { text: '<overview>Parts of a long text.</overview>' });
    core.server.on({ lastUserIncludes: 'Summarize this conversation so far' }, { error: 400, body: { error: { message: 'no summaries today' } } });
    core.server.on({ lastUserIncludes: '[via panel] and now?' }, { text: 'Now the end.' });
    let first = '';
    for (let i = 0; i < turns && !movedOn(); i++) {
      core.server.on({ lastUserIncludes: `[via panel] part ${i}?` }, { text: long(i) });
      await core.orchestrator.enqueue(`part ${i}?`, { channel: 'panel' }).done;
      await settled();
      first ||= core.orchestrator.currentSessionId!;
    }
    await waitFor('the old session deleted', () => !existsSync(sessionFolder(first)));
    await core.orchestrator.enqueue('and now?', { channel: 'panel' }).done;
    const last = requestFor('[via panel] and now?');
    assert.notEqual(last.sessionId, first);
    assert.match(
      last.lastUserText ?? '',
      /\[System: Session recovered\] Your previous session was lost \(its history reached Baton's bound, and summarizing it failed\)[^]*\[via panel\] and now\?$/,
    );
    core.assertScriptDone();
  });
});
