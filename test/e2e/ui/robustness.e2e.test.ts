/**
 * The panel survives garbage arriving as host messages (posted from inside its own frame, where the host's messages
 * arrive): unknown types, non-objects, bad sequence numbers. A sequence gap makes it ask the host for a snapshot and
 * rebuild the whole conversation from it; a normal message afterwards still streams its reply.
 */
import * as assert from 'node:assert/strict';
import { ui } from './fixture';
import { completedReply, freshChat, MESSAGE, messages, send } from './helpers';

const FIRST = 'A first message before the garbage arrives';
const FIRST_REPLY = 'First reply, from before the garbage.';
const AFTER = 'And a normal message after all that';
const AFTER_REPLY = 'Still streaming normally after the garbage.';
const GHOST = 'GHOST message that arrived after a sequence gap';

describe('Robustness', function () {
  this.timeout(90_000);

  it('ignores garbage, recovers from a sequence gap with a snapshot, and still streams replies', async () => {
    const { view } = await freshChat();
    const { server } = ui();
    server.on({ lastUserIncludes: FIRST, name: 'before' }, { text: FIRST_REPLY });
    server.on({ lastUserIncludes: AFTER, name: 'after' }, { text: AFTER_REPLY, chunks: 6, chunkDelayMs: 80 });

    await send(view, FIRST);
    await completedReply(view, FIRST_REPLY);
    await view.locator('body[data-busy="false"]').waitFor();

    // Mark the messages on screen: a snapshot rebuilds the log, so new elements without the mark replace them.
    const body = view.locator('body');
    await body.evaluate(() => document.querySelectorAll('[data-testid="message"]').forEach((el) => el.setAttribute('data-e2e-old', '')));

    await body.evaluate((_body, ghost) => {
      const errors: string[] = [];
      (window as unknown as { e2eErrors: string[] }).e2eErrors = errors;
      window.addEventListener('error', (e) => errors.push(String(e.message)));
      const junk: unknown[] = [
        { type: 'nonsense' },
        { type: 'nonsense', seq: 1 },
        null,
        undefined,
        42,
        'message/append',
        [1, 2, 3],
        true,
        {},
        { type: 'message/delta' },
        { type: 'message/delta', seq: 'x', id: 'nope', delta: 'no' },
        { type: 'message/delta', seq: Number.NaN, id: 'nope', delta: 'no' },
        { type: 'state', seq: Infinity, state: null },
        { type: '__proto__', seq: 1 },
        // Old news: a number at or below the last one applied is dropped without a word.
        { type: 'message/append', seq: -5, message: { id: 'old', role: 'assistant', content: ghost, status: 'complete', ts: 0 } },
      ];
      for (const data of junk) window.postMessage(data, '*');
      // A gap: far ahead of the host's count. Dropped, and the panel asks the host for a snapshot.
      window.postMessage(
        { type: 'message/append', seq: 1e9, message: { id: 'ghost', role: 'assistant', content: ghost, status: 'complete', ts: Date.now() } },
        '*',
      );
    }, GHOST);

    // The snapshot came: every message was rebuilt (no marked element is left) and the whole history is there.
    await view.locator(`${MESSAGE}[data-e2e-old]`).first().waitFor({ state: 'detached', timeout: 15_000 });
    assert.deepEqual(await view.locator(MESSAGE).evaluateAll((els) => els.map((e) => e.getAttribute('data-role'))), ['user', 'assistant']);
    await messages(view, 'user').filter({ hasText: FIRST }).waitFor();
    await messages(view, 'assistant', 'complete').filter({ hasText: FIRST_REPLY }).waitFor();
    assert.equal(await view.getByText(GHOST).count(), 0, 'nothing posted with a bad sequence number is shown');

    // The panel still works: a normal message streams its reply.
    await send(view, AFTER);
    await messages(view, 'assistant', 'streaming').first().waitFor({ timeout: 30_000 });
    await completedReply(view, AFTER_REPLY);
    assert.equal(await view.getByText(GHOST).count(), 0);
    const errors = await body.evaluate(() => (window as unknown as { e2eErrors: string[] }).e2eErrors);
    assert.deepEqual(errors, [], 'the garbage threw no errors in the panel');
    assert.equal(await messages(view, 'error').count(), 0);
  });
});
