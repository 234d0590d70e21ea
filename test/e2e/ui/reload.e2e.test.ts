/**
 * Reloading the window (a new workbench, a new extension host, a new webview) keeps the conversation: Baton reads it
 * back from its sql.js store, and the conversation goes on.
 */
import * as assert from 'node:assert/strict';
import { cspViolations, ui } from './fixture';
import { completedReply, freshChat, messages, openBaton, send } from './helpers';

const PROMPT = 'Remember this exchange across a reload, please';
const REPLY = 'Noted: this exchange should survive the reload.';
const AFTER = 'Are you still there after the reload?';
const AFTER_REPLY = 'Still here, same conversation.';

describe('Reload', function () {
  this.timeout(120_000);

  it('keeps the history: the earlier message and reply are shown again, and the chat goes on', async () => {
    const { page, view } = await freshChat();
    const { server } = ui();
    server.on({ lastUserIncludes: PROMPT, name: 'before the reload' }, { text: REPLY });
    server.on({ lastUserIncludes: AFTER, name: 'after the reload' }, { text: AFTER_REPLY });

    await send(view, PROMPT);
    await completedReply(view, REPLY);

    await page.reload({ waitUntil: 'domcontentloaded' });
    await page.locator('.monaco-workbench .activitybar').first().waitFor({ state: 'visible', timeout: 60_000 });
    const reloaded = await openBaton(page);

    const user = messages(reloaded, 'user').filter({ hasText: PROMPT });
    const reply = messages(reloaded, 'assistant', 'complete').filter({ hasText: REPLY });
    await user.waitFor({ timeout: 30_000 });
    await reply.waitFor({ timeout: 10_000 });
    assert.equal(await messages(reloaded, 'user').count(), 1);
    assert.equal(await messages(reloaded, 'assistant').count(), 1);
    // The user's message came before the reply, as it did before the reload.
    const order = await reloaded.locator('[data-testid="message"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-role')));
    assert.deepEqual(order, ['user', 'assistant']);

    await send(reloaded, AFTER);
    await completedReply(reloaded, AFTER_REPLY);
    assert.equal(await messages(reloaded, 'error').count(), 0);
    // The model got the earlier exchange too (a resumed session, or a recovery context): the same conversation.
    const followUp = server.chatRequests().find((r) => r.lastUserText?.includes(AFTER));
    assert.ok(followUp, 'the follow-up reached the model');
    assert.ok(followUp.rawBody.includes(PROMPT), 'the follow-up carries the earlier exchange');
    // The reloaded panel's page (its first page of messages, script and stylesheet in the HTML) broke no CSP rule.
    assert.deepEqual(cspViolations(), []);
  });
});
