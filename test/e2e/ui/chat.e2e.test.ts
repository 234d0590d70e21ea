/**
 * Clicks the real Baton webview in a real VS Code: open the view, type, see the scripted reply stream in.
 * The VS Code and the scripted model server come from ./fixture.ts (mocha root hooks).
 */
import * as assert from 'node:assert/strict';
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { batonView, repoRoot, resultsDir, testsRepoExtension, ui, widenSideBar } from './fixture';
import { completedReply, freshChat, messages, send } from './helpers';

const PROMPT = 'Hello Baton, this is the e2e test speaking';
// Two chunks a long pause apart: the first must be on screen, alone, while the reply is still streaming.
const FIRST_CHUNK = 'Hello from the scripted model! ';
const REPLY = `${FIRST_CHUNK}The panel streamed this reply in two chunks, the second 2.5 s later.`;

describe('Baton chat panel', function () {
  this.timeout(90_000);

  it('opens from the activity bar, sends a message and streams the reply in', async () => {
    const { page, server } = ui();
    // splitText cuts the reply into equal halves; the first half is FIRST_CHUNK plus the start of the rest.
    const firstHalf = REPLY.slice(0, Math.ceil(REPLY.length / 2));
    assert.ok(firstHalf.startsWith(FIRST_CHUNK));
    server.on({ lastUserIncludes: PROMPT, name: 'e2e greeting' }, { text: REPLY, chunks: 2, chunkDelayMs: 2500 });

    await page.locator('.activitybar [aria-label^="Baton"]').first().click();
    const view = batonView(page);
    const composer = view.locator('[data-testid="composer"]');
    await composer.waitFor({ state: 'visible', timeout: 45_000 });
    await composer.click();
    await composer.fill(PROMPT);
    await composer.press('Enter');

    // The user's message shows at once; the reply first streams, then completes with the whole text.
    await view.locator('[data-testid="message"][data-role="user"]').filter({ hasText: PROMPT }).waitFor({ timeout: 10_000 });
    const assistant = '[data-testid="message"][data-role="assistant"]';
    // Streaming is proven by what the user sees: the first chunk alone, while the message is still streaming.
    const streaming = view.locator(`${assistant}[data-status="streaming"]`).filter({ hasText: FIRST_CHUNK.trim() }).first();
    await streaming.waitFor({ timeout: 30_000 });
    const partial = (await streaming.locator('.message-body').innerText()).trim();
    assert.ok(partial.startsWith(FIRST_CHUNK.trim()), `the streaming message shows: ${partial}`);
    assert.ok(!partial.includes('2.5 s later'), `the whole reply was on screen before its last chunk was sent: ${partial}`);
    await view.locator(`${assistant}[data-status="complete"]`).filter({ hasText: REPLY }).first().waitFor({ timeout: 30_000 });

    const chats = server.chatRequests();
    assert.ok(
      chats.some((r) => r.lastUserText?.includes(PROMPT)),
      `the model server never received the prompt; it got: ${JSON.stringify(chats.map((r) => r.lastUserText))}`,
    );
    assert.deepEqual(
      server.strayRequests.map((r) => r.path),
      [],
      'something in VS Code or the runtime tried to reach the internet',
    );

    await widenSideBar(page);
    await mkdir(resultsDir, { recursive: true });
    const shot = join(resultsDir, 'panel.png');
    await page.screenshot({ path: shot });
    // The README shows this one; a run against a stand-in extension (BATON_E2E_EXTENSION_PATH) must not replace it.
    if (testsRepoExtension()) await copyFile(shot, join(repoRoot, 'media', 'screenshot.png'));
  });

  it('Edit on a sent message: the new text replaces it and what came after, in the panel and in what the model sees', async () => {
    const { view } = await freshChat();
    const { server } = ui();
    server.on({ lastUserIncludes: '[via panel] e2e edit: name a fruit', name: 'fruit' }, { text: 'Apple.' });
    server.on({ lastUserIncludes: '[via panel] e2e edit: name a colour', name: 'colour' }, { text: 'Blue.' });
    server.on({ lastUserIncludes: '[via panel] e2e edit: name a vegetable', name: 'vegetable' }, { text: 'Carrot.' });
    await send(view, 'e2e edit: name a fruit');
    await completedReply(view, 'Apple.');
    await send(view, 'e2e edit: name a colour');
    await completedReply(view, 'Blue.');
    await view.locator('body[data-busy="false"]').waitFor({ state: 'attached', timeout: 15_000 });

    const colour = messages(view, 'user').filter({ hasText: 'e2e edit: name a colour' });
    await colour.hover();
    await colour.locator('[data-testid="message-edit"]').click();
    const composer = view.locator('[data-testid="composer"]');
    assert.equal(await composer.inputValue(), 'e2e edit: name a colour');
    await view.locator('[data-testid="edit-bar"]').waitFor({ state: 'visible' });
    await composer.fill('e2e edit: name a vegetable');
    await composer.press('Enter');
    await completedReply(view, 'Carrot.');

    const shown = await view.locator('[data-testid="message"] .message-body').allInnerTexts();
    assert.deepEqual(
      shown.map((t) => t.trim()),
      ['e2e edit: name a fruit', 'Apple.', 'e2e edit: name a vegetable', 'Carrot.'],
    );
    const last = server.chatRequests().at(-1)!;
    const said = JSON.stringify(last.messages);
    assert.ok(said.includes('e2e edit: name a fruit') && !said.includes('e2e edit: name a colour') && !said.includes('Blue.'), said);
  });

  it('a message sent while Baton answers says Queued; Remove takes it out before the model sees it', async () => {
    const { page, view } = await freshChat();
    const { server } = ui();
    server.on(
      { lastUserIncludes: '[via panel] e2e queue: the long one', name: 'long' },
      { text: 'A slow answer, in two parts.', chunks: 2, chunkDelayMs: 3000 },
    );
    server.on({ lastUserIncludes: '[via panel] e2e queue: kept', name: 'kept' }, { text: 'Kept and answered.', delayMs: 2500 });
    await send(view, 'e2e queue: the long one');
    await messages(view, 'assistant', 'streaming').waitFor({ timeout: 15_000 });
    await send(view, 'e2e queue: removed');
    await send(view, 'e2e queue: kept');
    const removed = messages(view, 'user', 'pending').filter({ hasText: 'e2e queue: removed' });
    assert.equal((await removed.locator('[data-testid="message-status"]').innerText()).trim(), 'Queued');
    // The status bar counts them too.
    const status = page.locator('.statusbar-item').filter({ hasText: 'Baton: thinking' });
    await status.filter({ hasText: '2 queued' }).waitFor({ timeout: 10_000 });
    // So does Stop: the messages it does not stop.
    const stop = view.locator('[data-testid="stop"]');
    assert.equal(await stop.getAttribute('aria-label'), 'Stop the answer (the 2 queued messages are sent next)');
    await removed.locator('[data-testid="message-withdraw"]').click();
    await removed.waitFor({ state: 'detached', timeout: 10_000 });
    await status.filter({ hasText: '1 queued' }).waitFor({ timeout: 10_000 });
    // Its text is back in the message box, to send again or change.
    const composer = view.locator('[data-testid="composer"]');
    assert.equal(await composer.inputValue(), 'e2e queue: removed');
    await composer.fill('');
    // While the last one is answered nothing waits: neither the status bar nor Stop counts it any more.
    await server.waitForRequests(1, 30_000, (r) => (r.lastUserText ?? '').includes('e2e queue: kept'));
    await page.locator('.statusbar-item').filter({ hasText: 'Baton: thinking' }).filter({ hasNotText: 'queued' }).waitFor({ timeout: 10_000 });
    assert.equal(await stop.getAttribute('aria-label'), 'Stop the answer');
    await completedReply(view, 'Kept and answered.');
    const shown = await view.locator('[data-testid="message"] .message-body').allInnerTexts();
    assert.deepEqual(
      shown.map((t) => t.trim()),
      ['e2e queue: the long one', 'A slow answer, in two parts.', 'e2e queue: kept', 'Kept and answered.'],
    );
    const asked = server.chatRequests().map((r) => r.lastUserText ?? '');
    assert.equal(asked.length, 2, JSON.stringify(asked));
    assert.ok(!JSON.stringify(server.chatRequests().map((r) => r.messages)).includes('e2e queue: removed'), 'the model never saw it');
  });
});
