/**
 * The Squads and Wiki views show what the orchestrator's tools created: a scripted turn creates a squad, adds an
 * agent and writes a wiki page; the Squads tree lists the squad and its agent, the Wiki tree lists the page, and
 * clicking the page opens its markdown file in the normal editor. A squad's tooltip (its usage) is filled in on hover.
 */
import * as assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { ui } from './fixture';
import { completedReply, editorText, freshChat, send } from './helpers';
import { runCommand } from './workbench';

/** A view of Baton's side bar container, expanded (Squads and Wiki start collapsed). */
async function expandedView(page: Page, name: string): Promise<Locator> {
  const header = page.locator(`.part.sidebar .pane-header[aria-label^="${name}"]`).first();
  await header.waitFor({ timeout: 20_000 });
  if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
  return page.locator(`.part.sidebar .pane:has(.pane-header[aria-label^="${name}"])`).first();
}

function row(pane: Locator, text: string): Locator {
  return pane.locator('.monaco-list-row').filter({ hasText: text }).first();
}

describe('Squads and Wiki views', function () {
  this.timeout(120_000);

  it('show the squad, its agent and the wiki page the tools created; a page opens in the editor', async () => {
    const { page, view } = await freshChat();
    const { server, workspace } = ui();
    const PROMPT = 'Set up a squad for this workspace and note it in the wiki';
    server.on(
      { lastUserIncludes: `[via panel] ${PROMPT}`, afterToolResult: false, name: 'create the squad' },
      { toolCalls: [{ name: 'squad_create', arguments: { name: 'e2e-squad', project_dir: workspace, universe: 'goonies' } }] },
    );
    server.on(
      { lastUserIncludes: `[via panel] ${PROMPT}`, afterToolResult: true, name: 'add an agent and a page, then reply' },
      {
        toolCalls: [
          { name: 'squad_add_agent', arguments: { squad: 'e2e-squad', role_title: 'Release Captain', charter: 'Owns releases.', model_tier: 'medium' } },
          { name: 'wiki_write', arguments: { page: 'e2e-setup', content: '# E2E setup notes\n\nThe squad e2e-squad owns releases.' } },
        ],
      },
      { text: 'Squad e2e-squad is ready and the wiki has the notes.' },
    );
    await send(view, PROMPT);
    await completedReply(view, 'Squad e2e-squad is ready');

    const squads = await expandedView(page, 'Squads');
    await row(squads, 'e2e-squad').waitFor({ timeout: 15_000 });
    // Its folder as the workspace names it (the workspace folder itself: its name), not the whole path.
    assert.equal(await row(squads, 'e2e-squad').locator('.label-description').innerText(), 'workspace');
    const agent = row(squads, 'Mikey');
    await agent.waitFor({ timeout: 10_000 });
    assert.match(await agent.innerText(), /Release Captain/);
    await row(squads, 'Decisions').waitFor({ timeout: 5_000 });
    // The squad's tooltip, usage included, is read when it is hovered (not kept in the row, which usage would refresh).
    await row(squads, 'e2e-squad').hover();
    const tip = page.locator('.monaco-hover, .workbench-hover').filter({ hasText: "Squad 'e2e-squad'" }).first();
    await tip.waitFor({ timeout: 10_000 });
    assert.equal((await tip.innerText()).trim(), `Squad 'e2e-squad' in ${workspace}\nUniverse: goonies\nNo usage today`);
    await page.mouse.move(0, 0);

    const wiki = await expandedView(page, 'Wiki');
    const pageRow = row(wiki, 'E2E setup notes');
    await pageRow.waitFor({ timeout: 15_000 });
    await pageRow.click();
    await page.locator('.tabs-container .tab').filter({ hasText: 'e2e-setup.md' }).first().waitFor({ timeout: 15_000 });

    // New Wiki Page: a name the wiki refuses is said while it is typed; one already taken opens that page as it is
    // (it was replaced by a bare heading).
    await runCommand(page, 'Baton: New Wiki Page');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    await input.fill('C++ tips');
    await page.locator('.quick-input-widget .quick-input-message').filter({ hasText: "Invalid page name 'C++ tips'" }).first().waitFor({ timeout: 10_000 });
    await input.fill('e2e-setup');
    await input.press('Enter');
    await page
      .locator('.notifications-toasts .notification-toast', { hasText: "the wiki already has a page 'e2e-setup'; it is open as it was" })
      .first()
      .waitFor({ timeout: 15_000 });
    assert.match(await editorText(page), /# E2E setup notes\s+The squad e2e-squad owns releases\./);
  });
});
