// Search Conversations… on a real sql.js store: which messages it finds and the line it shows of each.
import * as assert from 'node:assert/strict';
import { SEARCH_HITS, searchConversations, snippetAround } from '../../src/core/chat/conversationSearch';
import { eachStoreFolder } from '../support/storeFolder';

describe('conversation search', () => {
  const { openStore } = eachStoreFolder();

  it('finds your messages and replies in the kept conversations, newest first; a deleted conversation and a notice are not listed', async () => {
    const store = await openStore();
    store.createConversation('a');
    store.createConversation('b');
    store.appendLog({ role: 'user', content: 'Plan the zebra migration', conversation: 'a' });
    store.appendLog({ role: 'assistant', content: 'Zebra plan: three steps.', conversation: 'a' });
    store.appendLog({ role: 'system', content: 'zebra notice', conversation: 'a' });
    store.appendLog({ role: 'user', content: 'Zebra again', conversation: 'gone' });
    store.appendLog({ role: 'user', content: 'Okapi notes', conversation: 'b' });
    const hits = searchConversations(store, '  zebra ', new Set(['a', 'b']));
    assert.deepEqual(
      hits.map((h) => [h.conversation, h.role, h.snippet]),
      [
        ['a', 'assistant', 'Zebra plan: three steps.'],
        ['a', 'user', 'Plan the zebra migration'],
      ],
    );
    assert.ok(hits.every((h) => Number.isSafeInteger(h.logId) && /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(h.ts)));
    assert.deepEqual(searchConversations(store, 'z', new Set(['a'])), [], 'one character searches nothing');
    assert.deepEqual(searchConversations(store, 'giraffe', new Set(['a', 'b'])), []);
  });

  it(`lists at most ${SEARCH_HITS}, the newest`, async () => {
    const store = await openStore();
    store.createConversation('a');
    for (let i = 0; i < SEARCH_HITS + 10; i++) store.appendLog({ role: 'user', content: `needle ${i}`, conversation: 'a' });
    const hits = searchConversations(store, 'needle', new Set(['a']));
    assert.equal(hits.length, SEARCH_HITS);
    assert.equal(hits[0]!.snippet, `needle ${SEARCH_HITS + 9}`);
  });

  it('shows one line around the match, cut with an ellipsis where the message goes on', () => {
    const long = `${'intro words '.repeat(20)}the NEEDLE is here\n\nand ${'more text '.repeat(20)}`;
    const line = snippetAround(long, 'needle', 60);
    assert.ok(line.startsWith('…') && line.endsWith('…'), line);
    assert.ok(line.length <= 62, line);
    assert.match(line, /the NEEDLE is here/);
    assert.doesNotMatch(line, /\n/);
    assert.equal(snippetAround('Short\n\nreply', 'reply'), 'Short reply');
    assert.equal(snippetAround(`needle ${'x'.repeat(100)}`, 'needle', 20), `needle ${'x'.repeat(13)}…`);
  });
});
