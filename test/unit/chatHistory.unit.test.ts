// Which of your Chat-view messages a chat's history no longer has (an edited or retried request dropped it and the
// later ones): the message the conversation is taken back to, or none.
import * as assert from 'node:assert/strict';
import { conversationOfPrompts, firstDroppedChatMessage } from '../../src/core/api/chatHistory';
import type { LogEntry } from '../../src/core/store/types';

let id = 0;
function row(role: LogEntry['role'], content: string, source = 'chat'): LogEntry {
  return { id: ++id, role, content, source, status: 'complete', meta: null, ts: new Date().toISOString() } as LogEntry;
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
    assert.equal(dropped([], chatLog('a')), undefined);
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
});
