// The VS Code-free steps of an @baton request (src/core/api/chatRequest.ts) against a real core over the in-memory
// runtime: Stop before Baton sends sends nothing and writes nothing; two chats that began alike keep their own
// conversations; an edit of the first message after /new is taken back. chatParticipant.ts maps VS Code's types onto
// these; the Chat view itself is tested in test/e2e/ai.
import * as assert from 'node:assert/strict';
import { askedIn, type ChatTurn } from '../../src/core/api/chatHistory';
import { askInChat, sendFromChat, stoppedConversation, whileWanted, type Attached, type ChatStream } from '../../src/core/api/chatRequest';
import { ChatRelay } from '../../src/core/api/chatRelay';
import { Conversations } from '../../src/core/conversations/conversations';
import { eachUnitCore, until, type UnitCore } from '../support/inMemoryCore';
import { hangAfter, reply } from '../support/turnScripts';

/** A cancellation token as VS Code's: a listener added once it is cancelled is called only a tick later. */
class FakeToken {
  private cancelled = false;
  private listeners: Array<() => void> = [];
  get isCancellationRequested(): boolean {
    return this.cancelled;
  }
  onCancellationRequested(listener: () => void): { dispose(): void } {
    if (this.cancelled) {
      const timer = setTimeout(listener, 0);
      return { dispose: () => clearTimeout(timer) };
    }
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  }
  cancel(): void {
    this.cancelled = true;
    for (const l of this.listeners.splice(0)) l();
  }
}

class FakeStream implements ChatStream {
  readonly parts: string[] = [];
  markdown(text: string): void {
    this.parts.push(text);
  }
  progress(text: string): void {
    this.parts.push(`progress: ${text}`);
  }
  button(command: { title: string }): void {
    this.parts.push(`button: ${command.title}`);
  }
}

const req = (prompt: string, command?: string): ChatTurn => ({ kind: 'request', prompt, ...(command ? { command } : {}) });
const res = (conversation?: string, command?: string): ChatTurn => ({ kind: 'response', conversation, ...(command ? { command } : {}) });

describe('@baton request steps (chatRequest)', () => {
  let f: UnitCore;
  let relay: ChatRelay;
  eachUnitCore((core) => {
    f = core;
    relay = new ChatRelay(core.core.access.events, core.core.conversations);
  });
  afterEach(() => relay.dispose());

  const userRows = (conversation: string) =>
    f.core.store
      .recentLog(100, conversation)
      .filter((e) => e.role === 'user')
      .map((e) => e.content);
  const nothingAttached = (): Promise<Attached> => Promise.resolve({ ok: true, context: undefined });
  /** One @baton message as chatParticipant sends it: what the chat dropped taken back, then the ask. */
  const send = async (
    prompt: string,
    conversation: string,
    turns: ChatTurn[],
    token = new FakeToken(),
    stream = new FakeStream(),
    attach = nothingAttached,
  ) => {
    const answer = await sendFromChat(f.core, relay, prompt, conversation, askedIn(turns, conversation), whileWanted(stream, token), token, attach);
    return { parts: stream.parts, answer };
  };

  it('Stop before Baton sends: nothing reaches the model or the log, nothing is written', async () => {
    const conversation = Conversations.newId('chat');
    const token = new FakeToken();
    token.cancel();
    const stream = new FakeStream();
    const answer = await askInChat(f.core, relay, 'do not send me', conversation, whileWanted(stream, token), token);
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(f.sessions.orchestratorPrompts, []);
    assert.deepEqual(userRows(conversation), []);
    assert.deepEqual(stream.parts, []);
    assert.equal(answer.errorDetails, undefined);
  });

  it('Stop while a retry waits for the running answer: the retry is not sent, nothing more is written', async () => {
    f.sessions.script('orchestrator', reply('a1'), hangAfter('b partial'));
    const conversation = Conversations.newId('chat');
    await send('a', conversation, []);
    const bToken = new FakeToken();
    const b = send('b', conversation, [req('a'), res(conversation)], bToken);
    await until(() => f.sessions.orchestratorPrompts.length === 2, 'b started');
    const token = new FakeToken();
    const stream = new FakeStream();
    const retry = send('b again', conversation, [req('a'), res(conversation)], token, stream);
    await until(() => stream.parts.some((p) => p.includes('Waiting for the answer')), 'the retry waits');
    token.cancel();
    await retry;
    bToken.cancel();
    await b;
    assert.equal(f.sessions.orchestratorPrompts.length, 2, 'the retry never went out');
    assert.deepEqual(stream.parts, ['progress: Waiting for the answer running in this conversation to end…']);
    assert.deepEqual(userRows(conversation), ['a', 'b']);
  });

  it('Stop while the references are read: the message is not sent', async () => {
    const conversation = Conversations.newId('chat');
    const token = new FakeToken();
    const { parts, answer } = await send('with a file', conversation, [], token, new FakeStream(), () => {
      token.cancel();
      return nothingAttached();
    });
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(f.sessions.orchestratorPrompts, []);
    assert.deepEqual(userRows(conversation), []);
    assert.deepEqual(parts, []);
    assert.deepEqual(answer, {});
  });

  it('whileWanted drops what is written after Stop', () => {
    const token = new FakeToken();
    const stream = new FakeStream();
    const out = whileWanted(stream, token);
    out.markdown('before');
    token.cancel();
    out.markdown('after');
    out.progress('after');
    out.button({ command: 'x', title: 'after' });
    assert.deepEqual(stream.parts, ['before']);
  });

  it('chat A "hi" answered, chat B "hi" stopped, A goes on: B\u2019s next message stays in B\u2019s conversation, A keeps its own', async () => {
    f.sessions.script('orchestrator', reply('hello A'), hangAfter('hello B partial'), reply('A second'), reply('B more'));
    const a = Conversations.newId('chat');
    await send('hi', a, []);
    const named = new Set([a]);
    const b = Conversations.newId('chat');
    const bToken = new FakeToken();
    const stopped = send('hi', b, [], bToken);
    await until(() => f.sessions.orchestratorPrompts.length === 2, 'B started');
    bToken.cancel();
    await stopped;
    await send('second from A', a, [req('hi'), res(a)]);
    const bTurns = [req('hi'), res()];
    const found = stoppedConversation(f.core, ['hi'], named);
    assert.equal(found, b);
    // After a reload nothing is known to name A's conversation: its log still tells it is not B's.
    assert.equal(stoppedConversation(f.core, ['hi'], new Set()), b);
    const { parts } = await send('and more from B', found!, bTurns);
    assert.ok(!parts.some((p) => p.includes('Taken back')), parts.join(''));
    assert.deepEqual(userRows(a), ['hi', 'second from A']);
    assert.deepEqual(userRows(b), ['hi', 'and more from B']);
  });

  it('after /new, an edit of the new conversation\u2019s first message takes it back', async () => {
    f.sessions.script('orchestrator', reply('a1'), reply('c1'), reply('c2'));
    const x = Conversations.newId('chat');
    await send('a', x, []);
    const y = Conversations.newId('chat');
    const turns = [req('a'), res(x), req('', 'new'), res(y, 'new')];
    await send('c', y, turns);
    const { parts } = await send('c, edited', y, turns);
    assert.match(parts.join(''), /Taken back 2 earlier messages/);
    assert.deepEqual(userRows(y), ['c, edited']);
    assert.deepEqual(userRows(x), ['a']);
  });

  it('a trailing space in the chat\u2019s prompt: an edit of the next message is still taken back', async () => {
    f.sessions.script('orchestrator', reply('a1'), reply('a2'), reply('a3'));
    const x = Conversations.newId('chat');
    await send('first ', x, []);
    await send('second', x, [req('first '), res(x)]);
    const { parts } = await send('second, edited', x, [req('first '), res(x)]);
    assert.match(parts.join(''), /Taken back 2 earlier messages/);
    assert.deepEqual(userRows(x), ['first', 'second, edited']);
  });
});
