/**
 * The conversation list in the real panel (code-server, Chromium): New Chat keeps the conversation it leaves; the list
 * under the header opens one again with its history; Rename asks in VS Code's input box; Delete asks in a modal
 * dialog (Cancel keeps it); a reload keeps them all, and shows the one that was open. axe finds nothing serious or
 * critical with the list open.
 */
import * as assert from 'node:assert/strict';
import type { FrameLocator } from 'playwright-core';
import { describeFindings, eventually, seriousAxeFindings } from './a11y';
import { DEFAULT_THEME, ui } from './fixture';
import { answerDialog, completedReply, editorText, freshChat, messages, openBaton, runCommand, send, setColorTheme, THEMES } from './helpers';

const FIRST = 'Plan the zebra migration, conversation one';
const SECOND = 'Draft the okapi release notes, conversation two';
const RENAMED = 'Zebra migration';

/** The list's row for a conversation, by the title it shows. */
function row(view: FrameLocator, title: string) {
  return view.locator('[data-testid="conversation"]').filter({ has: view.locator('.conversation-name', { hasText: title }) });
}

async function openList(view: FrameLocator): Promise<void> {
  const details = view.locator('[data-testid="conversations"]');
  if ((await details.getAttribute('open')) === null) await view.locator('[data-testid="conversations-toggle"]').click();
  await view.locator('[data-testid="conversation-list"]').waitFor({ state: 'visible', timeout: 10_000 });
}

const DELETE_QUESTION = /Delete the conversation “Draft the okapi release notes, conversation two”\?/;

describe('Conversations', function () {
  this.timeout(180_000);

  // axe's contrast findings depend on the theme: as in the accessibility suite, the fixture's best-effort switch at
  // start-up is made to hold (Light+'s own description colour is under AA, a property of that theme).
  before(async function () {
    this.timeout(120_000);
    const { page } = ui();
    await setColorTheme(page, THEMES.light);
    await setColorTheme(page, DEFAULT_THEME);
  });

  it('create, switch, rename, delete (asked first), and a reload keeps them all', async () => {
    const { page, view } = await freshChat();
    const { server } = ui();
    server.on({ lastUserIncludes: `[via panel] ${FIRST}`, name: 'first conversation' }, { text: 'Zebra plan: three steps.' });
    server.on({ lastUserIncludes: `[via panel] ${SECOND}`, name: 'second conversation' }, { text: 'Okapi notes drafted.' });
    server.on({ lastUserIncludes: '[via panel] And the fourth step?', name: 'first again' }, { text: 'Step four: zebra rollout.' });

    await send(view, FIRST);
    await completedReply(view, 'Zebra plan: three steps.');
    await view.locator('[data-testid="conversations-current"]', { hasText: FIRST }).waitFor({ timeout: 10_000 });

    // New Chat: an empty panel, and the first conversation is still in the list.
    await view.locator('[data-testid="new-chat"]').click();
    await view.locator('[data-testid="empty-state"]').waitFor({ state: 'visible', timeout: 15_000 });
    await send(view, SECOND);
    await completedReply(view, 'Okapi notes drafted.');
    await openList(view);
    await row(view, FIRST).waitFor({ timeout: 10_000 });
    assert.match(await row(view, FIRST).innerText(), /2 messages/);
    assert.equal(await row(view, SECOND).locator('[aria-current="true"]').count(), 1, 'the shown conversation is marked current');

    // The list open passes axe.
    const findings = await seriousAxeFindings(view);
    assert.deepEqual(findings, [], `axe, conversation list open:\n${describeFindings(findings)}`);

    // Search Conversations…, from the second conversation: a word of the first one's reply finds it, and picking it
    // shows the first conversation with that reply in view and focused.
    // (From the list's own "Search conversations…"; the palette runs the same command.)
    await openList(view);
    await view.locator('[data-testid="conversations-search"]').click();
    const search = page.locator('.quick-input-widget input');
    await search.fill('three STEPS');
    const hit = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Zebra plan: three steps.' });
    await hit.waitFor({ timeout: 10_000 });
    assert.match(await hit.innerText(), new RegExp(`${FIRST}.*Baton`, 's'), 'the hit names its conversation and who said it');
    await hit.click();
    await view.locator('[data-testid="conversations-current"]', { hasText: FIRST }).waitFor({ timeout: 15_000 });
    const revealed = messages(view, 'assistant', 'complete').filter({ hasText: 'Zebra plan: three steps.' });
    await eventually('the reply found has the focus', async () =>
      (await revealed.evaluate((el) => el === document.activeElement).catch(() => false)) ? true : undefined,
    );

    // Switch back: the first conversation's history, and it goes on.
    await openList(view);
    await row(view, FIRST).locator('[data-testid="conversation-open"]').click();
    await messages(view, 'user').filter({ hasText: FIRST }).waitFor({ timeout: 15_000 });
    assert.equal(await messages(view, 'user').filter({ hasText: SECOND }).count(), 0, "none of the second conversation's messages");
    await send(view, 'And the fourth step?');
    await completedReply(view, 'Step four: zebra rollout.');

    // Open Conversation as Markdown, from the Chat view's … menu: the shown conversation in an untitled editor, as
    // people read it.
    const chatHeader = page.locator('.part.sidebar .pane-header[aria-label^="Chat"]').first();
    await chatHeader.hover();
    await chatHeader.locator('.action-label.codicon-toolbar-more').click();
    // The menu highlights its row on hover and runs it on Enter (a click as it opens can land before it listens).
    await page.locator('.monaco-menu .action-label', { hasText: 'Open Conversation as Markdown' }).hover();
    await page.keyboard.press('Enter');
    const editor = page.locator('.editor-instance .monaco-editor').first();
    await editor.locator('.view-lines', { hasText: 'Step four: zebra rollout.' }).waitFor({ timeout: 15_000 });
    const exported = await editorText(page);
    assert.match(exported, new RegExp(`^# ${FIRST}\n`));
    assert.match(exported, /A Baton conversation, 4 messages\./);
    const order = ['### You', FIRST, '### Baton', 'Zebra plan: three steps.', '### You', 'And the fourth step?', '### Baton', 'Step four: zebra rollout.'];
    let at = 0;
    for (const part of order) {
      const found = exported.indexOf(part, at);
      assert.ok(found >= at, `"${part}" in its place:\n${exported}`);
      at = found + part.length;
    }
    assert.doesNotMatch(exported, /okapi/i, "none of the other conversation's messages");
    await runCommand(page, 'View: Revert and Close Editor');
    await editor.waitFor({ state: 'detached', timeout: 10_000 });

    // Rename, in VS Code's input box.
    await openList(view);
    await row(view, FIRST).locator('[data-testid="conversation-rename"]').click();
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 15_000 });
    await input.fill(RENAMED);
    await input.press('Enter');
    await row(view, RENAMED).waitFor({ timeout: 10_000 });
    await view.locator('[data-testid="conversations-current"]', { hasText: RENAMED }).waitFor({ timeout: 10_000 });

    // Delete asks first: Cancel keeps it, Delete removes it.
    await openList(view);
    await row(view, SECOND).locator('[data-testid="conversation-delete"]').click();
    await answerDialog(page, 'Cancel', DELETE_QUESTION);
    await openList(view);
    assert.equal(await row(view, SECOND).count(), 1, 'Cancel kept it');
    await row(view, SECOND).locator('[data-testid="conversation-delete"]').click();
    await answerDialog(page, 'Delete', DELETE_QUESTION);
    await row(view, SECOND).waitFor({ state: 'detached', timeout: 15_000 });

    // A reload keeps the list, the name and the conversation shown.
    await page.reload({ waitUntil: 'domcontentloaded' });
    await page.locator('.monaco-workbench .activitybar').first().waitFor({ state: 'visible', timeout: 60_000 });
    const reloaded = await openBaton(page);
    await reloaded.locator('[data-testid="conversations-current"]', { hasText: RENAMED }).waitFor({ timeout: 30_000 });
    await messages(reloaded, 'assistant', 'complete').filter({ hasText: 'Step four: zebra rollout.' }).waitFor({ timeout: 15_000 });
    await openList(reloaded);
    await row(reloaded, RENAMED).waitFor({ timeout: 10_000 });
    assert.equal(await row(reloaded, SECOND).count(), 0, 'the deleted conversation stays deleted');
  });
});
