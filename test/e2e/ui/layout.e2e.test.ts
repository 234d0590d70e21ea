/**
 * Room for the conversation at 1400×900: Baton's trees start collapsed, so the chat keeps most of the side bar's
 * height; with Workers and Copilot Sessions expanded (the old default and a common state) it was a slit. The figures
 * are printed: they are how the layout was chosen (collapsed trees that open when they have something new, rather
 * than a view container of their own, which gives the chat the whole side bar but hides the trees behind a second
 * activity bar icon).
 */
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { completedReply, openBaton, send } from './helpers';
import { EXTENSION_ID, ui } from './fixture';
import { runCommand } from './workbench';

const TREES = ['Workers', 'Copilot Sessions', 'Memories', 'Squads', 'Wiki', 'Skills'];

function header(page: Page, name: string) {
  return page.locator(`.part.sidebar .pane-header[aria-label^="${name}"]`).first();
}

async function heights(page: Page): Promise<{ sideBar: number; chat: number }> {
  const sideBar = await page.locator('.part.sidebar').first().boundingBox();
  const chat = await page.locator('.part.sidebar .pane:has(.pane-header[aria-label^="Chat"]) .pane-body').first().boundingBox();
  assert.ok(sideBar && chat, 'the side bar and the chat pane are shown');
  return { sideBar: sideBar.height, chat: chat.height };
}

async function setExpanded(page: Page, name: string, expanded: boolean): Promise<void> {
  const h = header(page, name);
  await h.waitFor({ timeout: 20_000 });
  if (((await h.getAttribute('aria-expanded')) === 'true') !== expanded) await h.click();
  await page.waitForFunction(
    ([label, want]) => document.querySelector(`.part.sidebar .pane-header[aria-label^="${label}"]`)?.getAttribute('aria-expanded') === String(want),
    [name, expanded] as const,
  );
}

describe('Room for the conversation', function () {
  this.timeout(120_000);

  it('at 1400×900 the trees start collapsed and the chat keeps most of the side bar', async () => {
    const { page } = ui();
    await openBaton(page);
    assert.deepEqual(page.viewportSize(), { width: 1400, height: 900 });
    const expanded: string[] = [];
    for (const name of TREES) if ((await header(page, name).getAttribute('aria-expanded')) === 'true') expanded.push(name);
    assert.deepEqual(expanded, [], 'no Baton tree is expanded before it has something new');
    const collapsed = await heights(page);
    console.log(`      chat ${collapsed.chat} px of a ${collapsed.sideBar} px side bar with the trees collapsed`);
    assert.ok(collapsed.chat >= 0.75 * collapsed.sideBar, `the chat has ${collapsed.chat} of ${collapsed.sideBar} px`);

    // Workers and Copilot Sessions expanded, as they were: measured for the record, then put back.
    await setExpanded(page, 'Workers', true);
    await setExpanded(page, 'Copilot Sessions', true);
    const open = await heights(page);
    console.log(`      chat ${open.chat} px with Workers and Copilot Sessions expanded`);
    assert.ok(open.chat < collapsed.chat);
    await setExpanded(page, 'Copilot Sessions', false);
    await setExpanded(page, 'Workers', false);
    // (VS Code gives the space back to the chat as its split view relays out; not asserted here.)

    // Baton: Show Workers (also the strip's "N earlier workers" link) opens the collapsed Workers view.
    await runCommand(page, 'Baton: Show Workers');
    await page.waitForFunction(() => document.querySelector('.part.sidebar .pane-header[aria-label^="Workers"]')?.getAttribute('aria-expanded') === 'true');
    await setExpanded(page, 'Workers', false);
  });

  it('Baton: Show Usage opens a page with the 30-day chart and the totals, this turn counted', async () => {
    const { page, server } = ui();
    const view = await openBaton(page);
    server.on(
      { lastUserIncludes: '[via panel] count this turn', name: 'a counted turn' },
      { text: 'Counted.', usage: { prompt_tokens: 1234, completion_tokens: 56 } },
    );
    await send(view, 'count this turn');
    await completedReply(view, 'Counted.');
    await runCommand(page, 'Baton: Show Usage');
    // Webview frames of views and editors sit side by side in the workbench: the usage page is the one with its heading.
    const frames = page.locator(`iframe.webview.ready[src*="extensionId=${EXTENSION_ID}"]`);
    const heading = (i: number) => frames.nth(i).contentFrame().locator('#active-frame').contentFrame().locator('h1', { hasText: 'Baton usage' });
    let index = -1;
    for (const deadline = Date.now() + 30_000; index < 0 && Date.now() < deadline;) {
      const count = await frames.count();
      for (let i = 0; i < count && index < 0; i++) if (await heading(i).count()) index = i;
      if (index < 0) await page.waitForTimeout(250);
    }
    assert.ok(index >= 0, 'the Baton Usage page is shown');
    const usage = frames.nth(index).contentFrame().locator('#active-frame').contentFrame();
    assert.equal(await usage.locator('[data-testid="usage-chart"] rect.bar').count(), 30);
    assert.match(
      await usage.locator('[data-testid="usage-total"]').innerText(),
      /^Last 30 days: [1-9]\d* requests?, [\d.]+ premium requests?, [\d.]+k? input \/ [\d.]+k? output tokens\.$/,
    );
    // Today's row, and this conversation's, with at least this turn's tokens.
    const today = usage.locator('[data-testid="usage-days"] tbody tr').first();
    assert.match(await today.innerText(), /\d/);
    assert.ok((await usage.locator('[data-testid="usage-conversations"] tbody tr').count()) >= 1);
    await runCommand(page, 'View: Close Editor');
  });
});
