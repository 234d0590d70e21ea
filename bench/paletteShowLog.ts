// Activates Baton in a test VS Code through a command that needs no model (the runtime must stay stopped): "Baton: Show
// Log" from the command palette. Shared by the activation bench and its profile (bench/profileActivation.ts).
import type { Page } from 'playwright-core';

export async function runShowLogFromPalette(page: Page): Promise<void> {
  // The workbench may still be restoring when it first shows: a palette opened too early misses the keystroke or the
  // command list, so it is opened again until the row is there.
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Baton: Show Log' }).first();
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('Escape');
    await page.keyboard.press('F1');
    const ok = await page
      .locator('.quick-input-widget input')
      .fill('>Baton: Show Log', { timeout: 10_000 })
      .then(() => row.waitFor({ timeout: 10_000 }))
      .then(
        () => true,
        () => false,
      );
    if (ok) break;
    if (attempt === 4) throw new Error('the command palette never listed "Baton: Show Log"');
  }
  await row.click({ timeout: 30_000 });
}
