// Opening the panel prepares the conversation's session before the first message (openAhead.ts, the warm-up): on the
// real Copilot runtime and a scripted model server, built as the extension builds Baton. Nothing of it may show: no
// model request, the same system message, history and tools as a session created at its first message.
import * as assert from 'node:assert/strict';
import { panelOpened } from '../../src/core/chat/panelOpened';
import type { OrchestratorOptions } from '../../src/core/orchestrator/orchestrator';
import { afterEachCore } from '../support/afterEachCore';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { mcpMethods, ofType, timesSent } from '../support/orchestratorEvents';
import type { HostMessage } from '../../src/shared/protocol';
import type { RecordedRequest } from '../support/scriptedModelServer';
import { waitFor } from '../support/waitFor';

describe('Opening the panel (real runtime, scripted model)', function () {
  this.timeout(60_000);
  let core: CoreFixture;

  beforeEach(async () => {
    core = await startCore();
  });
  // Strict: no request the test did not script, nothing scripted left unused, no internet.
  afterEachCore(() => core);

  it('opening the panel prepares a new session with no model request; the first message then gets its one reply', async () => {
    await panelOpened(core, core.logger);
    assert.equal(ofType(core.events, 'session.ready').at(-1)?.how, 'created');
    assert.deepEqual(core.server.chatRequests(), [], 'preparing the session asked the model nothing');
    core.server.on({ lastUserIncludes: '[via panel] first after opening' }, { text: 'ready when you are' });
    const result = await core.orchestrator.enqueue('first after opening', { channel: 'panel' }).done;
    assert.equal(result.content, 'ready when you are');
    const [only, ...more] = core.server.chatRequests();
    assert.equal(more.length, 0);
    assert.equal(only?.messages.filter((m) => m.role === 'user').length, 1, 'the session had nothing in it before the message');
  });

  it("opening the panel on a new conversation connects the runtime's GitHub MCP server there: the first message connects nothing more and offers its tools with Baton's", async () => {
    // The runtime makes a new session's MCP host at its first send; opening the panel opens the new session ahead, as
    // a resumed one is opened (docs/performance.md ³), so its tool list is built and the server connected before the first message.
    // The built-in GitHub server's tools reach the orchestrator's model; they are read tools only: the runtime
    // connects to the server's read-only endpoint, and the orchestrator may use them as it answers.
    core.server.setMcpTools([{ name: 'get_issue', description: 'Gets an issue', inputSchema: { type: 'object', properties: { number: { type: 'number' } } } }]);
    await panelOpened(core, core.logger);
    assert.equal(ofType(core.events, 'session.ready').at(-1)?.how, 'created', 'a new session, not one resumed from the store');
    assert.ok(mcpMethods(core.server).includes('tools/list'), `opening the panel listed the server's tools: ${mcpMethods(core.server).join(', ')}`);
    assert.deepEqual(core.server.chatRequests(), [], 'opening the panel asked the model nothing');
    const endpoints = new Set(core.server.requests.filter((r) => r.path.startsWith('/mcp')).map((r) => r.path));
    assert.deepEqual([...endpoints], ['/mcp/readonly'], "the server's read-only endpoint, never the read-write one");
    const opened = mcpMethods(core.server).length;
    core.server.on({ lastUserIncludes: '[via panel] first message' }, { text: 'one' });
    core.server.on({ lastUserIncludes: '[via panel] second message' }, { text: 'two' });
    assert.equal((await core.orchestrator.enqueue('first message', { channel: 'panel' }).done).content, 'one');
    assert.deepEqual(mcpMethods(core.server).slice(opened), [], 'the first message found the server connected');
    await core.orchestrator.enqueue('second message', { channel: 'panel' }).done;
    assert.deepEqual(mcpMethods(core.server).slice(opened), [], 'and so did the second');
    const [first, second, ...more] = core.server.chatRequests();
    assert.equal(more.length, 0);
    assert.deepEqual(
      first!.messages.map((m) => m.role),
      ['system', 'user'],
      'the session had nothing in it before the first message',
    );
    const wired = (core.orchestrator as unknown as { opts: OrchestratorOptions }).opts.tools().map((t) => t.name);
    for (const request of [first!, second!]) assert.deepEqual([...request.tools].sort(), [...wired, 'github-mcp-server-get_issue'].sort());
  });

  it('a new conversation opened ahead is told, offered and listed exactly as one whose session is created at its first message', async () => {
    // The session opened ahead is suspended while empty and resumed (openAhead.ts): nothing of that may show. Compared
    // with a second conversation of the same core whose session is created by its first message (no panel opening).
    await panelOpened(core, core.logger);
    core.server.on({ lastUserIncludes: '[via panel] hello from the opened panel' }, { text: 'hi, opened' });
    core.server.on({ lastUserIncludes: '[via panel] hello without opening' }, { text: 'hi, plain' });
    await core.conversations.active.enqueue('hello from the opened panel', { channel: 'panel' }).done;
    const ahead = core.conversations.active.currentSessionId!;
    core.conversations.create();
    const connected = mcpMethods(core.server).length;
    await core.conversations.active.enqueue('hello without opening', { channel: 'panel' }).done;
    const plain = core.conversations.active.currentSessionId!;
    assert.ok(mcpMethods(core.server).slice(connected).includes('tools/list'), 'the plain session connected the server at its first message');
    assert.notEqual(ahead, plain);
    const [a, p, ...more] = core.server.chatRequests();
    assert.equal(more.length, 0);
    const asSent = (r: RecordedRequest, id: string) => ({
      // The session's own folder and the time are in the system message; nothing else may differ.
      system: r.systemText
        .replaceAll(id, '<session>')
        .replace(/\d{4}-\d\d-\d\dT[\d:.+-]+/g, '<time>')
        .replace(/^Current date: .*$/m, '<date>'),
      roles: r.messages.map((m) => m.role),
      tools: [...r.tools].sort(),
    });
    assert.deepEqual(asSent(a!, ahead), asSent(p!, plain), 'the same system message, history and tools');
    const ready = ofType(core.events, 'session.ready').map((e) => e.how);
    assert.deepEqual(ready, ['created', 'created'], 'both are new sessions');
    // The Copilot Sessions view and list_machine_sessions list the user's sessions, never Baton's own.
    const listed = (await core.pool.machine.list({ limit: 100 })).map((m) => m.sessionId);
    assert.deepEqual(
      [ahead, plain].filter((id) => listed.includes(id)),
      [],
      'neither is in the Copilot Sessions list',
    );
    const own = (await core.sessions.ownSessions()).map((s) => s.id);
    assert.deepEqual([own.includes(ahead), own.includes(plain)], [true, true], "both kept in Baton's own session folder");
  });

  it('a new conversation opened ahead and left without a message gets its first reply after a reload, with nothing before it', async () => {
    // As with a session created plainly and never written to: the runtime does not resume an empty session after it
    // stopped ("Session not found"), so the reload opens another; opening ahead leaves nothing more behind.
    await panelOpened(core, core.logger);
    const opened = ofType(core.events, 'session.ready').at(-1)!.sessionId;
    await core.restart();
    core.server.on({ lastUserIncludes: '[via panel] first after the reload' }, { text: 'here' });
    assert.equal((await core.orchestrator.enqueue('first after the reload', { channel: 'panel' }).done).content, 'here');
    assert.notEqual(ofType(core.events, 'session.ready').at(-1)!.sessionId, opened);
    const [only, ...more] = core.server.chatRequests();
    assert.equal(more.length, 0);
    assert.deepEqual(
      only!.messages.map((m) => m.role),
      ['system', 'user'],
      'nothing in the conversation before the message',
    );
  });

  it('opening the panel on a resumed conversation connects its GitHub MCP server there, so the first message finds it connected and offers its tools', async () => {
    // A resumed session has its MCP host from the resume, so building its tool list on opening connects the server
    // (docs/performance.md ³); a new session's first send still does it (the test above).
    core.server.setMcpTools([{ name: 'get_issue', description: 'Gets an issue', inputSchema: { type: 'object', properties: { number: { type: 'number' } } } }]);
    core.server.on({ lastUserIncludes: '[via panel] remember the colour teal' }, { text: 'ok' });
    await core.orchestrator.enqueue('remember the colour teal', { channel: 'panel' }).done;
    await core.restart();
    const before = mcpMethods(core.server).length;
    await panelOpened(core, core.logger);
    const onOpening = mcpMethods(core.server).slice(before);
    assert.ok(onOpening.includes('tools/list'), `opening the panel listed the server's tools: ${onOpening.join(', ')}`);
    assert.equal(core.server.chatRequests().length, 1, 'opening the panel asked the model nothing');
    const opened = mcpMethods(core.server).length;
    core.server.on({ lastUserIncludes: '[via panel] which colour?' }, { text: 'teal' });
    const reply = await core.orchestrator.enqueue('which colour?', { channel: 'panel' }).done;
    assert.equal(reply.content, 'teal');
    assert.deepEqual(mcpMethods(core.server).slice(opened), [], 'the first message after opening found the server connected');
    const wired = (core.orchestrator as unknown as { opts: OrchestratorOptions }).opts.tools().map((t) => t.name);
    assert.deepEqual(
      [...core.server.chatRequests().at(-1)!.tools].sort(),
      [...wired, 'github-mcp-server-get_issue'].sort(),
      "the same tools as ever: Baton's and the server's",
    );
  });

  it('opening the panel on a resumed conversation leaves it whole (never compacted to prepare it)', async () => {
    core.server.on({ lastUserIncludes: '[via panel] remember the colour teal' }, { text: 'ok' });
    await core.orchestrator.enqueue('remember the colour teal', { channel: 'panel' }).done;
    await core.restart();
    await panelOpened(core, core.logger);
    assert.equal(ofType(core.events, 'session.ready').at(-1)?.how, 'resumed');
    assert.equal(core.server.chatRequests().length, 1, 'preparing the resumed session asked the model nothing (no summary)');
    core.server.on({ lastUserIncludes: '[via panel] which colour?' }, { text: 'teal' });
    await core.orchestrator.enqueue('which colour?', { channel: 'panel' }).done;
    assert.equal(timesSent([core.server.chatRequests().at(-1)!], 'remember the colour teal'), 1, 'the earlier turn is still in the conversation');
  });

  it('the panel does not say Baton is answering while it opens the session: no Stop, no "thinking" until a message is sent', async () => {
    const shown: boolean[] = [];
    core.chat.onDidPost((m) => {
      if (m.type === 'state') shown.push(m.state.busy);
    });
    const queueBusy = () => ofType(core.events, 'busy').filter((e) => e.busy).length;
    await panelOpened(core, core.logger);
    assert.ok(queueBusy() > 0, 'the session was opened as work in the queue');
    assert.ok(shown.length > 0 && shown.every((busy) => !busy), `states shown while opening: ${shown.join(', ')}`);
    assert.equal(core.chat.state().busy, false);
    assert.equal(core.conversations.list().find((c) => c.active)?.busy, false, 'the conversation list does not call it answering either');

    // New chat while the empty conversation's session is being opened keeps that conversation (nothing is in it).
    await core.restart();
    const reopening = panelOpened(core, core.logger);
    await waitFor('the session to be opened', () => core.orchestrator.busy);
    const emptyOne = core.conversations.activeId;
    assert.equal(core.conversations.create(), emptyOne, 'New chat reused the empty conversation');
    await reopening;

    // A message sent while the session is still being opened shows as answering at once, and until its reply ends.
    shown.length = 0;
    await core.restart();
    core.chat.onDidPost((m) => {
      if (m.type === 'state') shown.push(m.state.busy);
    });
    core.server.on({ lastUserIncludes: '[via panel] sent while opening' }, { text: 'answered' });
    const opening = panelOpened(core, core.logger);
    const turn = core.orchestrator.enqueue('sent while opening', { channel: 'panel' });
    assert.equal(core.chat.state().busy, true, 'answering as soon as it is sent');
    assert.equal((await turn.done).content, 'answered');
    await opening;
    assert.equal(shown.at(-1), false, 'not answering once the reply ended');
    assert.ok(shown.includes(true));
  });

  it('Stop pressed while a message waits for the session being opened takes the message back to the composer: nothing is sent', async () => {
    const posted: HostMessage[] = [];
    core.chat.onDidPost((m) => posted.push(m));
    const opening = panelOpened(core, core.logger);
    await waitFor('the session to be opened', () => core.orchestrator.busy);
    core.chat.receive({ type: 'chat/send', text: 'hello there' });
    await waitFor('it waits', () => core.orchestrator.waitingMessages.size === 1);
    assert.equal(core.chat.state().busy, true, 'the panel offers Stop');
    core.chat.receive({ type: 'chat/stop' });
    await opening;
    const back = posted.find((m) => m.type === 'chat/withdrawn');
    assert.ok(back && back.type === 'chat/withdrawn' && back.text === 'hello there', JSON.stringify(posted.map((m) => m.type)));
    await waitFor('not answering', () => !core.orchestrator.answering);
    assert.deepEqual(core.server.chatRequests(), [], 'the model was asked nothing');
    assert.deepEqual(core.chat.snapshot().messages, []);
  });
});
