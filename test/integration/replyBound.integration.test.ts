// An enormous reply from the model (a provider gone wrong, or a hostile one): what people read of it, in the panel, the
// log and the API's result, stops at MAX_REPLY_CHARS with a line saying so; the store does not grow with it, and the
// conversation goes on.
import * as assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { REPLY_CUT_NOTE } from '../../src/core/orchestrator/replyBound';
import { MAX_REPLY_CHARS } from '../../src/core/store/bounds';
import type { HostMessage } from '../../src/shared/protocol';
import { afterEachCore } from '../support/afterEachCore';
import { ofType } from '../support/orchestratorEvents';
import { waitFor } from '../support/waitFor';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';

describe('An enormous reply (real runtime, scripted model)', function () {
  this.timeout(120_000);
  let core: CoreFixture;

  beforeEach(async () => {
    core = await startCore();
  });
  afterEachCore(() => core);

  it('is kept and shown up to 200,000 characters, a code block open at the cut closed, with a line saying it was cut', async () => {
    // 2 MB: prose up to just before the bound, then a code block that never ends.
    const prose = 'The answer, at great length. '.repeat(Math.ceil((MAX_REPLY_CHARS - 1000) / 29)).slice(0, MAX_REPLY_CHARS - 1000);
    const reply = `${prose}\n\n\`\`\`ts\n${'const x = 1;\n'.repeat(Math.ceil((2_000_000 - prose.length) / 13))}`;
    core.server.on({ lastUserIncludes: '[via panel] tell me everything' }, { text: reply, chunks: 40 });
    core.server.on({ lastUserIncludes: '[via panel] and in short?' }, { text: 'In short: yes.' });
    // The runtime's session holds the whole reply (about 500,000 tokens): it compacts its history on its own, once.
    const summarises = (r: { lastUserText?: string }) => (r.lastUserText ?? '').includes('Please create a detailed summary of the conversation so far');
    core.server.on({ name: "the runtime's own compaction", predicate: summarises }, { text: '<overview>The user asked for everything.</overview>' });
    const posted: HostMessage[] = [];
    core.chat.onDidPost((m) => posted.push(m));

    const result = await core.orchestrator.enqueue('tell me everything', { channel: 'panel' }).done;
    const expected = `${reply.slice(0, MAX_REPLY_CHARS)}\n\`\`\`\n\n${REPLY_CUT_NOTE}`;
    assert.equal(result.status, 'complete');
    assert.equal(result.content.length, expected.length, 'the API caller gets the bounded reply');
    assert.ok(result.content === expected, 'the start of the reply, the code block closed, then the note');
    assert.equal(
      ofType(core.events, 'turn.delta')
        .map((e) => e.delta)
        .join(''),
      expected,
      'nothing past the bound streamed',
    );
    assert.equal(core.store.recentLog(1)[0]!.content, expected, 'the log keeps the same');
    // The panel got the same: what streamed, and the reply it settled on.
    const streamed = posted
      .filter((m) => m.type === 'message/delta')
      .map((m) => (m.type === 'message/delta' ? m.delta : ''))
      .join('');
    assert.equal(streamed, expected);
    assert.equal(core.chat.snapshot().messages.at(-1)!.content, expected);
    assert.match(REPLY_CUT_NOTE, /went on past 200,000 characters/);
    assert.ok(core.logger.lines.some((l) => /the reply passed 200000 characters; the rest is not kept/.test(l)));

    // The store holds the bounded reply only.
    await core.store.flush();
    const size = (await stat(join(core.storageDir, 'baton.sqlite'))).size;
    assert.ok(size < 1_000_000, `the store file is ${size} bytes`);
    // The conversation goes on.
    assert.equal((await core.orchestrator.enqueue('and in short?', { channel: 'panel' }).done).content, 'In short: yes.');
    await waitFor('the runtime compacting its history', () => core.server.chatRequests().some(summarises));
  });
});
