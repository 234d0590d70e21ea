/**
 * Driving the workbench itself (no Baton in here, so the fixture can use it too): palette commands, modal dialogs and
 * the colour theme.
 */
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';

/** Answers VS Code's modal dialog with the button labelled exactly `button`, once it says `says` (when given). */
export async function answerDialog(page: Page, button: string, says?: RegExp): Promise<void> {
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 15_000 });
  if (says) assert.match(await dialog.innerText(), says);
  await dialog
    .locator('.monaco-button', { hasText: new RegExp(`^${button}$`) })
    .first()
    .click();
  await dialog.waitFor({ state: 'detached', timeout: 10_000 });
}

/** Runs a command from the palette by its exact title (clicks its row: Enter could pick a fuzzier match). */
export async function runCommand(page: Page, title: string): Promise<void> {
  const widget = page.locator('.quick-input-widget');
  const input = widget.locator('input');
  // Right after the workbench appears its keybindings may not be live yet, and an editor that has just opened can
  // take the focus and close the palette again: open it again until the row is clicked (a command whose row was
  // never clicked did not run, so starting over cannot run it twice).
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('F1');
    try {
      await input.waitFor({ state: 'visible', timeout: 3_000 });
      await input.fill(`>${title}`, { timeout: 3_000 });
      await widget.locator(`.monaco-list-row[aria-label^="${title}"]`).first().click({ timeout: 5_000 });
      return;
    } catch (err) {
      if (attempt >= 5) throw err;
    }
  }
}

export interface Theme {
  /** The theme's id: the value of workbench.colorTheme. */
  label: string;
  /** Its name in the theme picker. */
  pick: string;
  /** The workbench's class for the theme's kind, and the webview body's. */
  workbench: string;
  webview: string;
}

export const THEMES = {
  dark: { label: 'Default Dark Modern', pick: 'Dark Modern', workbench: 'vs-dark', webview: 'vscode-dark' },
  light: { label: 'Default Light Modern', pick: 'Light Modern', workbench: 'vs', webview: 'vscode-light' },
  hc: { label: 'Default High Contrast', pick: 'Dark High Contrast', workbench: 'hc-black', webview: 'vscode-high-contrast' },
  hcLight: { label: 'Default High Contrast Light', pick: 'Light High Contrast', workbench: 'hc-light', webview: 'vscode-high-contrast-light' },
} as const satisfies Record<string, Theme>;

/**
 * Switches the colour theme the way a user does (Preferences: Color Theme, then the theme's row), and waits until the
 * workbench wears it. Settings do not do it here: with code-server 4.100.3 the workbench starts on Light+ whatever
 * workbench.colorTheme says, and edits of settings.json on disk were not picked up by the open window (measured).
 */
export async function setColorTheme(page: Page, theme: Theme): Promise<void> {
  const wearing = page.locator(`.monaco-workbench.${theme.workbench}.${themeClass(theme.label)}`).first();
  const widget = page.locator('.quick-input-widget');
  // In a window that has just opened, the picker can close again or its row never come (CI: a 30 s wait for the row,
  // three windows of one run left on Light+): pick again rather than wait out one attempt.
  for (let attempt = 1; ; attempt++) {
    if (await wearing.count()) return;
    try {
      await runCommand(page, 'Preferences: Color Theme');
      await widget.locator('input').fill(theme.pick);
      await widget.locator(`.monaco-list-row[aria-label^="${theme.pick}"]`).first().click({ timeout: 10_000 });
      await wearing.waitFor({ timeout: 15_000 });
      await widget.waitFor({ state: 'hidden' });
      return;
    } catch (err) {
      if (attempt >= 3) throw err;
      await page.keyboard.press('Escape');
    }
  }
}

/** The class VS Code puts on the workbench for a built-in theme, e.g. vscode-theme-defaults-themes-dark_modern-json. */
function themeClass(label: string): string {
  const file: Record<string, string> = {
    'Default Dark Modern': 'dark_modern',
    'Default Light Modern': 'light_modern',
    'Default High Contrast': 'hc_black',
    'Default High Contrast Light': 'hc_light',
  };
  return `vscode-theme-defaults-themes-${file[label] ?? label}-json`;
}
