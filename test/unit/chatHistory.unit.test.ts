// Which of your Chat-view messages a chat's history no longer has (an edited or retried request dropped it and the
// later ones): the message the conversation is taken back to, or none.
import * as assert from 'node:assert/strict';
import { askedIn, conversationOfPrompts, firstDroppedChatMessage, type ChatTurn } from '../../src/core/api/chatHistory';
import type { LogEntry } from '../../src/core/store/types';

let id = 0;
function row(role: LogEntry['role'], content: string, source = 'chat', status: LogEntry['status'] = 'complete'): LogEntry {
  return { id: ++id, role, content, source, status, meta: null, ts: new Date().toISOString() } as LogEntry;
}

/** A conversation's log: each prompt of yours from the chat, answered. */
function chatLog(...prompts: string[]): LogEntry[] {
  return prompts.flatMap((p) => [row('user', p), row('assistant', `answer to ${p}`)]);
}

const dropped = (history: string[], log: LogEntry[]): string | undefined => firstDroppedChatMessage(history, log)?.content;

describe('firstDroppedChatMessage', () => {
  it('nothing when the history has every message (a follow-up)', () => {
    assert.equal(dropped(['a', 'b', 'c'], chatLog('a', 'b', 'c')), undefined);
  });

  it('the first message the history lost: an edit of the second of three; a retry of the last', () => {
    assert.equal(dropped(['a'], chatLog('a', 'b', 'c')), 'b');
    assert.equal(dropped(['a', 'b'], chatLog('a', 'b', 'c')), 'c');
  });

  it('messages from other channels in between are not the chat’s: they go only when they come after what is taken back', () => {
    const log = [...chatLog('a'), row('user', 'from the panel', 'panel'), row('assistant', 'ok'), ...chatLog('b')];
    assert.equal(dropped(['a', 'b'], log), undefined);
    assert.equal(dropped(['a'], log), 'b');
  });

  it('a log that lost its oldest rows to its bound lines up with the end of the history', () => {
    assert.equal(dropped(['a', 'b', 'c', 'd'], chatLog('c', 'd')), undefined);
    assert.equal(dropped(['a', 'b', 'c'], chatLog('c', 'd', 'e')), 'd');
  });

  it('the same prompt sent twice: the least is taken back', () => {
    const log = chatLog('go on', 'go on', 'go on');
    assert.equal(firstDroppedChatMessage(['go on', 'go on'], log), log[4], 'the third, not the second');
    assert.equal(firstDroppedChatMessage(['go on', 'go on', 'go on'], log), undefined);
  });

  it('nothing when no run lines up: a request the chat has that never reached the log is no reason to take anything back', () => {
    assert.equal(dropped(['a', 'refused before it was sent', 'c'], chatLog('a', 'c')), undefined);
    assert.equal(dropped(['x', 'y'], chatLog('a', 'b')), undefined);
  });

  it('the log holds a message trimmed, the chat as typed: a trailing space or newline still lines up', () => {
    assert.equal(dropped(['first ', 'second\n'], chatLog('first', 'second', 'third')), 'third');
    assert.equal(dropped(['first\n'], chatLog('first', 'second')), 'second');
    assert.equal(dropped(['first '], chatLog('first')), undefined);
  });

  it('a history with nothing of this conversation (its first message after /new edited or retried): the first Chat-view message', () => {
    const log = [row('user', 'from the panel', 'panel'), row('assistant', 'ok', 'panel'), ...chatLog('c', 'd')];
    assert.equal(dropped([], log), 'c');
    assert.equal(dropped([], [row('user', 'from the panel', 'panel')]), undefined, 'nothing of the chat\u2019s');
    assert.equal(dropped([], []), undefined, 'a new conversation');
  });
});

describe('askedIn (the chat\u2019s prompts answered in a conversation)', () => {
  const req = (prompt: string, command?: string): ChatTurn => ({ kind: 'request', prompt, ...(command ? { command } : {}) });
  const res = (conversation?: string, command?: string): ChatTurn => ({ kind: 'response', conversation, ...(command ? { command } : {}) });

  it('after /new: not the turns of the conversation before, nor the command; a stopped turn goes where the chat was then', () => {
    const turns = [req('a'), res('X'), req('stopped in X'), res(), req('', 'new'), res('Y', 'new')];
    assert.deepEqual(askedIn(turns, 'Y'), []);
    assert.deepEqual(askedIn(turns, 'X'), ['a', 'stopped in X']);
    assert.deepEqual(askedIn([...turns, req('c'), res(), req('d'), res('Y')], 'Y'), ['c', 'd']);
  });

  it('stopped turns before any named answer are the first named conversation\u2019s; with none named, the one asked about', () => {
    assert.deepEqual(askedIn([req('a'), res(), req('b'), res('X')], 'X'), ['a', 'b']);
    assert.deepEqual(askedIn([req('a'), res(), req('b'), res()], 'Z'), ['a', 'b']);
  });
});

describe('conversationOfPrompts (a chat whose every @baton answer was stopped names no conversation)', () => {
  it('the conversation whose Chat-view messages begin with the chat\u2019s requests, the most recent first', () => {
    const candidates = [
      { id: 'chat-other', log: chatLog('something else') },
      { id: 'chat-stopped', log: [row('user', 'teal', 'chat'), row('assistant', 'part', 'chat')] },
      { id: 'chat-older', log: chatLog('teal', 'and more') },
    ];
    assert.equal(conversationOfPrompts(['teal'], candidates), 'chat-stopped');
    assert.equal(conversationOfPrompts(['teal', 'and more'], candidates), 'chat-older', 'every request lines up');
  });

  it('none when nothing lines up (a request stopped before it reached the log), or the chat asked nothing', () => {
    assert.equal(conversationOfPrompts(['never logged'], [{ id: 'chat-a', log: chatLog('teal') }]), undefined);
    assert.equal(conversationOfPrompts([], [{ id: 'chat-a', log: chatLog('teal') }]), undefined);
    assert.equal(
      conversationOfPrompts(['teal'], [{ id: 'chat-a', log: [row('user', 'teal', 'panel')] }]),
      undefined,
      'the panel\u2019s message is not the chat\u2019s',
    );
  });

  it('a trailing space or newline in the chat\u2019s prompt still lines up with the trimmed log', () => {
    assert.equal(conversationOfPrompts(['hello\n'], [{ id: 'chat-a', log: [row('user', 'hello', 'chat', 'cancelled')] }]), 'chat-a');
    assert.equal(conversationOfPrompts(['hello ', 'more'], [{ id: 'chat-a', log: chatLog('hello', 'more') }]), 'chat-a');
  });

  // Chat A "hi" answered; chat B "hi" stopped; A sends more; B's next message went to A's conversation and took A's
  // second message back.
  const stoppedB = (): LogEntry[] => [row('user', 'hi', 'chat', 'cancelled'), row('assistant', 'part', 'chat', 'cancelled')];

  it('two chats that began alike: never a conversation another chat names; B\u2019s own is found', () => {
    const candidates = [
      { id: 'chat-A', log: chatLog('hi', 'second from A'), named: true },
      { id: 'chat-B', log: stoppedB() },
    ];
    assert.equal(conversationOfPrompts(['hi'], candidates), 'chat-B');
    assert.equal(conversationOfPrompts(['hi'], [candidates[0]!]), undefined, 'a new conversation rather than A\u2019s');
    assert.equal(conversationOfPrompts(['hi'], [{ ...candidates[0]!, log: chatLog('hi') }]), undefined, 'not even one B matches whole');
  });

  it('after a reload (no chat known to name any): a conversation with an answer a chat kept is taken only with nothing to take back', () => {
    const a = { id: 'chat-A', log: chatLog('hi', 'second from A') };
    assert.equal(conversationOfPrompts(['hi'], [a]), undefined, 'A\u2019s second message is not B\u2019s to take back');
    assert.equal(conversationOfPrompts(['hi'], [a, { id: 'chat-B', log: stoppedB() }]), 'chat-B');
    const answeredThenStopped = { id: 'chat-B', log: chatLog('hi') };
    assert.equal(conversationOfPrompts(['hi', 'more'], [answeredThenStopped]), 'chat-B', 'all it holds is the chat\u2019s');
    assert.equal(
      conversationOfPrompts(
        ['hi'],
        [
          { id: 'chat-A', log: chatLog('hi') },
          { id: 'chat-B', log: stoppedB() },
        ],
      ),
      'chat-B',
      'one with no answer kept comes first',
    );
  });
});
