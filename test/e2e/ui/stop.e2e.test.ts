/**
 * Stop in the middle of an answer: what streamed so far stays on screen, marked as stopped, and the next message
 * gets its answer as usual.
 */
import * as assert from 'node:assert/strict';
import { ui } from './fixture';
import { completedReply, freshChat, messages, send } from './helpers';

const SLOW = 'Write me a very long essay about batons in relay races';
const PARTIAL = 'Relay batons were first made of wood; the partial half';
const NEXT = 'Never mind, just say hi';
const NEXT_REPLY = 'Hi! Ready for the next one.';

describe('Stop', function () {
  this.timeout(90_000);

  afterEach(() => ui().server.releaseHeld());

  it('keeps the partial answer, marked stopped, and the next message works', async () => {
    const { page, view } = await freshChat();
    const { server } = ui();
    // The Chat view's title offers Stop only while there is something to stop (the `baton.answering` context key).
    const titleStop = page.locator('.part.sidebar .pane-header[aria-label^="Chat"] .action-label[aria-label^="Stop"]');
    assert.equal(await titleStop.count(), 0, 'no Stop in the title while Baton is idle');
    server.on({ lastUserIncludes: SLOW, name: 'streams then hangs' }, { textThenHang: PARTIAL });
    server.on({ lastUserIncludes: NEXT, name: 'after the stop' }, { text: NEXT_REPLY, chunks: 3 });

    await send(view, SLOW);
    const streaming = messages(view, 'assistant', 'streaming').filter({ hasText: PARTIAL });
    await streaming.waitFor({ timeout: 30_000 });
    const id = await streaming.getAttribute('data-id');

    await titleStop.waitFor({ state: 'attached', timeout: 10_000 });
    const stop = view.locator('[data-testid="stop"]');
    await stop.waitFor({ state: 'visible' });
    await stop.click();

    const stopped = view.locator(`[data-testid="message"][data-id="${id}"]`);
    await view
      .locator(`[data-testid="message"][data-id="${id}"][data-status="cancelled"]`)
      .waitFor({ timeout: 15_000 })
      .catch(async (err: Error) => {
        const status = await stopped.getAttribute('data-status').catch(() => '(gone)');
        throw new Error(`the stopped answer never became data-status="cancelled": it is "${status}" (${err.message.split('\n')[0]})`);
      });
    assert.match(await stopped.locator('.message-body').innerText(), new RegExp(PARTIAL));
    assert.equal(await stopped.locator('[data-testid="message-status"]').innerText(), 'Stopped');
    // Not busy any more: the Stop button goes away.
    await view.locator('body[data-busy="false"]').waitFor({ timeout: 10_000 });
    await stop.waitFor({ state: 'hidden', timeout: 5_000 });
    await titleStop.waitFor({ state: 'detached', timeout: 5_000 });

    await send(view, NEXT);
    await completedReply(view, NEXT_REPLY);
    // The stopped answer is still there, above the new exchange.
    assert.match(await stopped.locator('.message-body').innerText(), new RegExp(PARTIAL));
    assert.equal(await stopped.getAttribute('data-status'), 'cancelled');
    assert.equal(await messages(view, 'assistant').count(), 2);
    assert.equal(await messages(view, 'error').count(), 0, 'no error message after a stop');
  });
});
