/**
 * The editor as part of the conversation, as a user drives it in a real VS Code: the active selection rides along
 * as a chip (and not once the chip is removed), the # picker attaches a file, the problems of a file and the git
 * changes, big and binary files are bounded or refused, a protected path is refused from the explorer, the
 * keybinding adds a selection, and the references still show on the message after a window reload.
 * What the model received is read from the scripted server's recordings.
 */
import * as assert from 'node:assert/strict';
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { RecordedRequest } from '../../support/scriptedModelServer';
import { chips, clearChips, explorerMenu, hashPick, openFile, quickPick, seedWorkspace, selectLines, type ContextWorkspace } from './contextSupport';
import { repoRoot, resultsDir, testsRepoExtension, ui, widenSideBar } from './fixture';
import { completedReply, freshChat, messages, openBaton, runCommand, send, waitUntil } from './helpers';

/** The request the model got for a message, found by the message's text. */
function requestFor(text: string): Promise<RecordedRequest> {
  return waitUntil(`the model request for "${text}"`, () =>
    ui()
      .server.chatRequests()
      .find((r) => r.lastUserText?.includes(`[via panel] ${text}`)),
  );
}

function answer(prompt: string, reply: string): void {
  ui().server.on({ lastUserIncludes: `[via panel] ${prompt}`, name: prompt }, { text: reply });
}

describe('Editor context', function () {
  this.timeout(180_000);
  let seeded: ContextWorkspace;

  before(() => {
    seeded = seedWorkspace(ui().workspace, { git: true });
  });
  after(async () => {
    await runCommand(ui().page, 'View: Close All Editors').catch(() => undefined);
    seeded.cleanUp();
  });

  it('sends the selected function with its path and line range; with the chip removed, none of it', async () => {
    const { page, view } = await freshChat();
    await clearChips(view);
    await openFile(page, 'math.ts');
    await selectLines(page, 3, 6);
    const implicit = chips(view).filter({ hasText: 'math.ts:3-6' });
    await implicit.waitFor({ timeout: 15_000 });
    assert.equal(await implicit.getAttribute('data-implicit'), 'true');

    answer('explain this', 'It adds the two numbers and doubles the sum.');
    await send(view, 'explain this');
    await completedReply(view, 'doubles the sum');
    const withSelection = (await requestFor('explain this')).lastUserText ?? '';
    assert.match(withSelection, /<reference kind="selection" path="src\/math\.ts" lines="3-6" language="typescript" from="active-editor">/);
    assert.match(
      withSelection,
      /export function addThenDouble\(a: number, b: number\): number \{\n {2}const sum = a \+ b;\n {2}return sum \* 2; \/\/ ADD-THEN-DOUBLE-BODY\n\}/,
    );
    assert.ok(!withSelection.includes('unrelated = 42'), 'only the selected lines go');
    // The message shows what went with it.
    const sent = messages(view, 'user').filter({ hasText: 'explain this' });
    assert.match(await sent.locator('[data-testid="message-reference"]').innerText(), /math\.ts:3-6/);

    // The chip comes back for the next message; removed, nothing of the editor goes.
    await implicit.waitFor({ timeout: 10_000 });
    await implicit.locator('[data-testid="context-chip-remove"]').click();
    await implicit.waitFor({ state: 'detached', timeout: 5_000 });
    answer('explain it without my editor', 'Without context I cannot tell.');
    await send(view, 'explain it without my editor');
    await completedReply(view, 'Without context');
    const without = (await requestFor('explain it without my editor')).lastUserText ?? '';
    assert.ok(!without.includes('<reference'), without);
    assert.ok(!without.includes('ADD-THEN-DOUBLE-BODY'), without);
    assert.equal(await messages(view, 'user').filter({ hasText: 'explain it without my editor' }).locator('[data-testid="message-reference"]').count(), 0);
  });

  it('#file: picks a file by part of its name (git-ignored files are not offered) and sends its content', async () => {
    const { page, view } = await freshChat();
    await clearChips(view);
    await runCommand(page, 'View: Close All Editors');
    await hashPick(view, 'file');
    const widget = page.locator('.quick-input-widget');
    await widget.locator('input').fill('notes');
    await widget.locator('.monaco-list-row').filter({ hasText: 'notes.md' }).first().waitFor({ timeout: 15_000 });
    assert.equal(await widget.locator('.monaco-list-row').filter({ hasText: 'notes-ignored.md' }).count(), 0, '.gitignore is respected');
    await quickPick(page, '', 'notes.md');
    await chips(view).filter({ hasText: 'notes.md' }).waitFor({ timeout: 10_000 });
    // The composer's text has no leftover "#fil".
    assert.equal(await view.locator('[data-testid="composer"]').inputValue(), '');

    answer('when is the release?', 'On Friday.');
    await send(view, 'when is the release?');
    await completedReply(view, 'On Friday.');
    const text = (await requestFor('when is the release?')).lastUserText ?? '';
    assert.match(text, /<reference kind="file" path="notes\.md">\n# Notes\n\nNOTES-MARKER: the release is on Friday\.\n/);
  });

  it('#problems carries the diagnostic of the active file; #changes carries the diff of a modified file', async () => {
    const { page, view } = await freshChat();
    await clearChips(view);
    await openFile(page, 'broken.ts');
    // TypeScript's own diagnostic, as the Problems view shows it.
    await page.locator('.editor-instance .squiggly-error').first().waitFor({ timeout: 90_000 });
    await hashPick(view, 'problems');
    await quickPick(page, '', 'Problems in broken.ts');
    await chips(view).filter({ hasText: 'Problems: broken.ts' }).waitFor({ timeout: 10_000 });
    await hashPick(view, 'changes');
    await chips(view).filter({ hasText: 'Changes' }).waitFor({ timeout: 10_000 });

    answer('why does this not compile?', 'A string is assigned to a number, and math.ts gained an export.');
    await send(view, 'why does this not compile?');
    await completedReply(view, 'A string is assigned');
    const text = (await requestFor('why does this not compile?')).lastUserText ?? '';
    assert.match(
      text,
      /<reference kind="problems" path="src\/broken\.ts">\n1 problem\(s\) in src\/broken\.ts:\nsrc\/broken\.ts:1:14 error: Type 'string' is not assignable to type 'number'\./,
    );
    assert.match(text, /<reference kind="changes">\n[\s\S]*diff --git a\/src\/math\.ts b\/src\/math\.ts[\s\S]*\+export const changed = 'CHANGED-MARKER';/);
  });

  it('a 5 MB file goes as a bounded excerpt with a note; a binary file and a protected path are refused', async () => {
    const { page, view } = await freshChat();
    await clearChips(view);
    await runCommand(page, 'View: Close All Editors');
    await hashPick(view, 'file');
    await quickPick(page, 'big.log', 'big.log');
    const big = chips(view).filter({ hasText: 'big.log' });
    await big.waitFor({ timeout: 10_000 });
    assert.match((await big.locator('.context-chip-label').getAttribute('title')) ?? '', /5\.\d MB: only the first 64\.0 KB go with the message/);

    await hashPick(view, 'file');
    await quickPick(page, 'logo.png', 'logo.png');
    const notice = view.locator('[data-testid="context-notice"]');
    await notice.filter({ hasText: 'logo.png is a binary file' }).waitFor({ timeout: 10_000 });
    assert.match(await notice.innerText(), /Baton attaches text files only/);
    assert.equal(await chips(view).filter({ hasText: 'logo.png' }).count(), 0);

    // keys -> ~/.ssh: the explorer gesture is refused as a worker would be, after realpath.
    await explorerMenu(page, 'keys/id_test', 'Add File to Chat');
    const chat = await openBaton(page);
    await chat.locator('[data-testid="context-notice"]').filter({ hasText: 'protected path ~/.ssh' }).waitFor({ timeout: 15_000 });
    assert.match(
      await chat.locator('[data-testid="context-notice"]').innerText(),
      /Refused: keys\/id_test resolves to .*\/\.ssh\/id_test, which is inside the protected path ~\/\.ssh/,
    );

    answer('what does the log say?', 'The log repeats one INFO line.');
    await send(chat, 'what does the log say?');
    await completedReply(chat, 'repeats one INFO line');
    const text = (await requestFor('what does the log say?')).lastUserText ?? '';
    assert.match(text, /<reference kind="file" path="big\.log" truncated="true">\n2026-11-26T05:00:00Z INFO/);
    assert.match(text, /\[truncated: big\.log is 5\.\d MB; only its first \d+ lines \(6\d\.\d KB\) are attached\]\n<\/reference>/);
    assert.ok(text.length < 80_000, `the request is bounded: ${text.length} characters`);
    assert.ok(!text.includes('PRIVATE-KEY-MARKER'));
  });

  it('the keybinding adds the selection; the chips are pictured; after a window reload the references still show', async () => {
    const { page, view } = await freshChat();
    await clearChips(view);
    await openFile(page, 'math.ts');
    await selectLines(page, 3, 6);
    await chips(view).filter({ hasText: 'math.ts:3-6' }).waitFor({ timeout: 15_000 });
    // Explicitly added (Ctrl+Shift+Alt+B): the chip stays when the selection moves on.
    await page.keyboard.press('Control+Shift+Alt+B');
    const added = chips(view).filter({ hasText: 'math.ts:3-6' }).and(view.locator(':not([data-implicit])'));
    await added.waitFor({ timeout: 10_000 });
    await selectLines(page, 8, 8);
    await chips(view).filter({ hasText: 'math.ts:8' }).waitFor({ timeout: 10_000 });
    await hashPick(view, 'changes');
    await hashPick(view, 'folder');
    await quickPick(page, 'docs', 'docs');
    await chips(view).filter({ hasText: 'docs/' }).waitFor({ timeout: 10_000 });
    await view.locator('[data-testid="composer"]').fill('Review my change to addThenDouble');

    answer('Review my change to addThenDouble', 'The change looks fine: `addThenDouble` still doubles the sum, and the new `changed` export is not used yet.');
    await view.locator('[data-testid="composer"]').press('Enter');
    await completedReply(view, 'The change looks fine');
    const text = (await requestFor('Review my change to addThenDouble')).lastUserText ?? '';
    for (const kind of ['selection', 'changes', 'folder']) assert.match(text, new RegExp(`<reference kind="${kind}"`));
    assert.match(text, /<reference kind="folder" path="docs">\ndocs\/ \(1 file\(s\)\):\n {2}guide\.md/);

    // The README's picture: the sent message with its references, and chips waiting for the next one.
    await chips(view).filter({ hasText: 'math.ts:8' }).waitFor({ timeout: 10_000 });
    await hashPick(view, 'changes');
    await view.locator('[data-testid="composer"]').fill('Now write the commit message');
    await widenSideBar(page);
    await mkdir(resultsDir, { recursive: true });
    const frame = await page.locator(`iframe.webview.ready[src*="extensionId=baton-dev.baton"]`).first().boundingBox();
    const clip = frame ? { clip: { x: frame.x, y: frame.y, width: frame.width, height: frame.height } } : {};
    await page.screenshot({ path: join(resultsDir, 'context-chips.png'), ...clip });
    if (testsRepoExtension()) await copyFile(join(resultsDir, 'context-chips.png'), join(repoRoot, 'media', 'context-chips.png'));

    await page.reload({ waitUntil: 'domcontentloaded' });
    await page.locator('.monaco-workbench .activitybar').first().waitFor({ state: 'visible', timeout: 60_000 });
    const reloaded = await openBaton(page);
    const message = messages(reloaded, 'user').filter({ hasText: 'Review my change to addThenDouble' });
    await message.waitFor({ timeout: 30_000 });
    const shown = await message.locator('[data-testid="message-reference"]').allInnerTexts();
    assert.deepEqual(
      shown.map((s) => s.replace(/\s+/g, ' ').trim()),
      ['Selection math.ts:8', 'Selection math.ts:3-6', 'Changes', 'Folder docs/'],
    );
  });

  it('dropping an editor tab on the panel (with Shift, as VS Code asks for webviews) attaches its file', async () => {
    const { page, view } = await freshChat();
    await clearChips(view);
    await openFile(page, 'notes.md');
    const tab = page.locator('.tabs-container .tab[aria-label^="notes.md"]').first();
    const frame = page.locator('iframe.webview.ready[src*="extensionId=baton-dev.baton"]').first();
    const [tabBox, frameBox] = [await tab.boundingBox(), await frame.boundingBox()];
    assert.ok(tabBox && frameBox);
    await page.mouse.move(tabBox.x + tabBox.width / 2, tabBox.y + tabBox.height / 2);
    await page.mouse.down();
    await page.mouse.move(tabBox.x + tabBox.width / 2 + 30, tabBox.y + 40, { steps: 4 });
    await page.keyboard.down('Shift');
    await page.mouse.move(frameBox.x + frameBox.width / 2, frameBox.y + frameBox.height - 80, { steps: 10 });
    await page.mouse.up();
    await page.keyboard.up('Shift');
    await chips(view).filter({ hasText: 'notes.md' }).and(view.locator(':not([data-implicit])')).waitFor({ timeout: 10_000 });
    // Nothing attached here may ride along with the next test's message.
    await clearChips(view);
  });
});
