import * as assert from 'node:assert/strict';
import { inConversationOrder } from '../../src/core/store/conversationOrder';

type Row = { id: number; role: string; meta: string | null; text: string };

const user = (id: number, text: string): Row => ({ id, role: 'user', meta: null, text });
const reply = (id: number, text: string, answers?: number, meta: Record<string, unknown> = {}): Row => ({
  id,
  role: 'assistant',
  meta: answers === undefined ? JSON.stringify(meta) : JSON.stringify({ ...meta, for: answers }),
  text,
});
const texts = (rows: Row[]) => inConversationOrder(rows).map((r) => r.text);

describe('inConversationOrder', () => {
  it('puts each reply right after the message it answers: messages queued behind an answer were written before it', () => {
    // C answered while A and B were sent; then A's reply, then B's.
    assert.deepEqual(texts([user(1, 'C'), user(2, 'A'), user(3, 'B'), reply(4, 'reply C', 1), reply(5, 'reply A', 2), reply(6, 'reply B', 3)]), [
      'C',
      'reply C',
      'A',
      'reply A',
      'B',
      'reply B',
    ]);
  });

  it('keeps the order of writing where nothing is out of place, and for rows that name no message (written by earlier versions)', () => {
    const rows = [user(1, 'A'), reply(2, 'reply A', 1), user(3, 'B'), reply(4, 'reply B')];
    assert.deepEqual(texts(rows), ['A', 'reply A', 'B', 'reply B']);
    assert.deepEqual(texts([user(1, 'A'), user(2, 'B'), reply(3, 'old reply'), reply(4, 'older reply')]), ['A', 'B', 'old reply', 'older reply']);
  });

  it('a reply whose message fell out of the rows read stays where it was written; a worker result is a message of its own', () => {
    const result: Row = { id: 5, role: 'system', meta: JSON.stringify({ workerResult: { worker: 'w' } }), text: 'result' };
    assert.deepEqual(texts([reply(2, 'reply to an older one', 1), user(3, 'A'), result, reply(6, 'reply A', 3), reply(7, 'on the result', 5)]), [
      'reply to an older one',
      'A',
      'reply A',
      'result',
      'on the result',
    ]);
  });

  it('several rows answering one message stay together in their order; bad or foreign meta counts as naming none', () => {
    const rows = [
      user(1, 'A'),
      user(2, 'B'),
      reply(3, 'partial A', 1, { status: 'partial' }),
      reply(4, 'note on A', 1),
      { id: 5, role: 'assistant', meta: '{"for": "1"}', text: 'string for' },
      { id: 6, role: 'assistant', meta: 'not json "for"', text: 'broken' },
      { id: 7, role: 'assistant', meta: JSON.stringify({ error: { message: 'a reply that says "for":1, quoted' } }), text: 'quoted in a value' },
      { id: 8, role: 'user', meta: JSON.stringify({ for: 1 }), text: 'a user row never answers' },
    ];
    assert.deepEqual(texts(rows), ['A', 'partial A', 'note on A', 'B', 'string for', 'broken', 'quoted in a value', 'a user row never answers']);
  });
});
