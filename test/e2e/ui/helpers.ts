/**
 * Small helpers for the UI tests: opening the Baton view without toggling it shut, sending a message the way a user
 * does, locating messages by role and status, running palette commands, switching the colour theme.
 * Everything waits on a condition the user could see, never on a fixed delay.
 */
import type { FrameLocator, Locator, Page } from 'playwright-core';
import type { ChatMessage, RecordedRequest } from '../../support/scriptedModelServer';
import { batonView, ui } from './fixture';

import { runCommand } from './workbench';

export { answerDialog, runCommand, setColorTheme, THEMES } from './workbench';

export const MESSAGE = '[data-testid="message"]';

export type Role = 'user' | 'assistant' | 'background' | 'system' | 'error';

/** The activity bar entry of Baton's view container (an <li role="tab">, aria-selected while it is the open one). */
function batonTab(page: Page): Locator {
  return page.locator('.activitybar li.action-item:has(a[aria-label^="Baton"])').first();
}

/**
 * Shows the Baton chat view and waits until its composer is usable. Clicking the activity bar entry of a container
 * that is already open would close it, so the click happens only when Baton is not already showing.
 */
export async function openBaton(page: Page = ui().page): Promise<FrameLocator> {
  const view = batonView(page);
  const composer = view.locator('[data-testid="composer"]');
  const tab = batonTab(page);
  await tab.waitFor({ state: 'visible', timeout: 60_000 });
  // The tab stays selected while the side bar is hidden (an editor took the window, or a reload
  // restored it hidden): then the click is what shows it again.
  const selected = (await tab.getAttribute('aria-selected')) === 'true';
  const sideBarShown = await page.locator('.part.sidebar').first().isVisible();
  if (!selected || !sideBarShown) await tab.click();
  try {
    await composer.waitFor({ state: 'visible', timeout: 10_000 });
  } catch {
    // Right after a reload the workbench may still be restoring its layout and swallow the click (or
    // toggle the side bar shut again); the command a user would type always shows the chat.
    await runCommand(page, 'Baton: Open Chat');
    await composer.waitFor({ state: 'visible', timeout: 45_000 });
  }
  return view;
}

/** Messages of one role (and status), in order. */
export function messages(view: FrameLocator, role: Role, status?: string): Locator {
  return view.locator(`${MESSAGE}[data-role="${role}"]${status ? `[data-status="${status}"]` : ''}`);
}

/** Types a message into the composer and presses Enter; resolves once the user's message shows in the log. */
export async function send(view: FrameLocator, text: string): Promise<void> {
  const composer = view.locator('[data-testid="composer"]');
  await composer.click();
  await composer.fill(text);
  await composer.press('Enter');
  await messages(view, 'user').filter({ hasText: text }).last().waitFor({ timeout: 15_000 });
}

/** Waits for an assistant reply with this text to be complete, and returns it. */
export async function completedReply(view: FrameLocator, text: string, timeout = 30_000): Promise<Locator> {
  const reply = messages(view, 'assistant', 'complete').filter({ hasText: text }).last();
  await reply.waitFor({ timeout });
  return reply;
}

/**
 * A clean start for one test: the scripted server forgets earlier rules and recordings, Baton's view is open, and
 * "New chat" has emptied the conversation (the panel shows its empty state).
 */
export async function freshChat(): Promise<{ page: Page; view: FrameLocator }> {
  const { page, server } = ui();
  server.reset();
  // No editor left open by an earlier test rides along as the implicit chip (it may be a file that test deleted).
  if ((await page.locator('.tabs-container .tab').count()) > 0) await runCommand(page, 'View: Close All Editors');
  const view = await openBaton(page);
  // Nothing from an earlier test may still be running: New chat waits behind a running turn (or the session's opening,
  // after a reload). Waited for as "not busy", which the body says only once the host's state has arrived: waiting for
  // "busy" to go passed at once on a page that had not got its state yet (seen at load 18, after a reload).
  await view.locator('body[data-busy="false"]').waitFor({ state: 'attached', timeout: 30_000 });
  await view.locator('[data-testid="new-chat"]').click();
  await view.locator('[data-testid="empty-state"]').waitFor({ state: 'visible', timeout: 15_000 });
  await view.locator(MESSAGE).first().waitFor({ state: 'detached', timeout: 5_000 });
  // Nor a chip an earlier test attached and did not send (the host keeps them across snapshots).
  const attached = view.locator('[data-testid="context-bar"] [data-testid="context-chip"]:not([data-implicit]) [data-testid="context-chip-remove"]');
  while ((await attached.count()) > 0) await attached.first().click();
  return { page, view };
}

/** The text of every tool result in a recorded chat request (the follow-up after a tool call). */
export function toolResults(req: RecordedRequest): string[] {
  return req.messages.filter((m: ChatMessage) => m.role === 'tool').map((m) => contentText(m.content));
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p: { text?: unknown }) => (typeof p?.text === 'string' ? p.text : '')).join('\n');
  return JSON.stringify(content ?? '');
}

/** Polls a condition of this process (the scripted server's recordings) until it holds. */
export { waitFor as waitUntil } from '../../support/waitFor';

/** Text of the editor's visible lines as the user sees them (Monaco renders spaces as no-break spaces). */
export async function editorText(page: Page): Promise<string> {
  const text = await page.locator('.editor-instance .monaco-editor .view-lines').first().innerText();
  return text.replace(/\u00a0/g, ' ');
}
