/**
 * Driving the editor side of editor-context tests: files in the test workspace, opening one, selecting
 * lines, the explorer's context menu, the chips in Baton's composer. Everything waits on what a user sees.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FrameLocator, Locator, Page } from 'playwright-core';
import { runCommand } from './workbench';

/** The function the selection tests select: lines 3-6 of src/math.ts. */
export const MATH_TS = [
  '// Small helpers for the context tests.',
  '',
  'export function addThenDouble(a: number, b: number): number {',
  '  const sum = a + b;',
  '  return sum * 2; // ADD-THEN-DOUBLE-BODY',
  '}',
  '',
  'export const unrelated = 42;',
  '',
].join('\n');

export interface ContextWorkspace {
  /** The extension host's HOME (hermeticEnv: <fixture root>/copilot/home), where ~/.ssh lives. */
  home: string;
  /** Removes everything the tests added, so later test files see the workspace as the fixture made it. */
  cleanUp(): void;
}

/**
 * Fills the workspace: src/math.ts, src/broken.ts (a type error), notes.md, a 5 MB log, a PNG, a symlink
 * `keys` into ~/.ssh, a docs/ folder; with `git`, commits it all (ignored-dir/ is in .gitignore) and then
 * changes src/math.ts.
 */
export function seedWorkspace(workspace: string, opts: { git?: boolean } = {}): ContextWorkspace {
  const home = join(dirname(workspace), 'copilot', 'home');
  const created = ['src', 'docs', 'notes.md', 'big.log', 'logo.png', 'keys', 'ignored-dir', '.git', '.gitignore'];
  mkdirSync(join(workspace, 'src'), { recursive: true });
  mkdirSync(join(workspace, 'docs'), { recursive: true });
  writeFileSync(join(workspace, 'src', 'math.ts'), MATH_TS);
  writeFileSync(join(workspace, 'src', 'broken.ts'), "export const count: number = 'not a number';\n");
  writeFileSync(join(workspace, 'docs', 'guide.md'), '# Guide\n');
  writeFileSync(join(workspace, 'notes.md'), '# Notes\n\nNOTES-MARKER: the release is on Friday.\n');
  writeFileSync(join(workspace, 'big.log'), `${'2026-11-26T05:00:00Z INFO a line of a big log file\n'.repeat(110_000)}`); // 5.5 MB
  writeFileSync(join(workspace, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1]));
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_test'), 'PRIVATE-KEY-MARKER\n');
  symlinkSync(join(home, '.ssh'), join(workspace, 'keys'));
  if (opts.git) {
    const env = {
      ...process.env,
      GIT_AUTHOR_NAME: 'test',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 'test',
      GIT_COMMITTER_EMAIL: 't@example.com',
    };
    const git = (...args: string[]) => execFileSync('git', args, { cwd: workspace, env, stdio: 'pipe' });
    // The #file list must leave out what git ignores.
    writeFileSync(join(workspace, '.gitignore'), 'ignored-dir/\n');
    mkdirSync(join(workspace, 'ignored-dir'), { recursive: true });
    writeFileSync(join(workspace, 'ignored-dir', 'notes-ignored.md'), 'ignored\n');
    git('init', '-q');
    git('add', '.');
    git('commit', '-q', '-m', 'seed');
    writeFileSync(join(workspace, 'src', 'math.ts'), `${MATH_TS}export const changed = 'CHANGED-MARKER';\n`);
  }
  return {
    home,
    cleanUp: () => {
      for (const name of created) rmSync(join(workspace, name), { recursive: true, force: true });
      rmSync(join(home, '.ssh'), { recursive: true, force: true });
    },
  };
}

/** Opens a workspace file in an editor through Go to File. */
export async function openFile(page: Page, name: string): Promise<void> {
  await runCommand(page, 'Go to File...');
  const widget = page.locator('.quick-input-widget');
  await widget.locator('input').fill(name);
  await widget.locator('.monaco-list-row').filter({ hasText: name }).first().click();
  await page.locator(`.tabs-container .tab.active[aria-label^="${name}"]`).first().waitFor({ timeout: 15_000 });
}

/** Selects whole lines `from..to` (1-based) in the active editor, as a user does with Go to Line and Shift+Down. */
export async function selectLines(page: Page, from: number, to: number): Promise<void> {
  await runCommand(page, 'Go to Line/Column...');
  const input = page.locator('.quick-input-widget input');
  await input.fill(`:${from}`);
  await input.press('Enter');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
  await page.keyboard.press('Home');
  await page.keyboard.press('Home');
  for (let line = from; line <= to; line++) await page.keyboard.press('Shift+ArrowDown');
}

/** Right-clicks a row of the explorer (revealing it first) and picks a menu item by its title. */
export async function explorerMenu(page: Page, pathInWorkspace: string, item: string): Promise<void> {
  await runCommand(page, 'View: Show Explorer');
  const parts = pathInWorkspace.split('/');
  let row: Locator | undefined;
  for (const [i, name] of parts.entries()) {
    row = page.locator(`.explorer-folders-view .monaco-list-row[aria-label="${name}"]`).first();
    await row.waitFor({ timeout: 15_000 });
    // Folders on the way are expanded; the last row is the one the menu is for.
    if (i < parts.length - 1 && (await row.getAttribute('aria-expanded')) === 'false') await row.click();
  }
  await row!.click({ button: 'right' });
  const menuItem = page.locator('.context-view .monaco-menu .action-item').filter({ hasText: item }).first();
  await menuItem.waitFor({ timeout: 10_000 });
  // Hover then Enter: a mouse click on a freshly opened workbench menu was not always taken (measured in code-server).
  await menuItem.hover();
  await page.keyboard.press('Enter');
  await page.locator('.context-view .monaco-menu').waitFor({ state: 'hidden', timeout: 5_000 });
}

/** The chips above Baton's composer. */
export function chips(view: FrameLocator): Locator {
  return view.locator('[data-testid="context-bar"] [data-testid="context-chip"]');
}

/** Removes every explicit chip a failed earlier test may have left. */
export async function clearChips(view: FrameLocator): Promise<void> {
  const explicit = view.locator('[data-testid="context-bar"] [data-testid="context-chip"]:not([data-implicit]) [data-testid="context-chip-remove"]');
  while ((await explicit.count()) > 0) await explicit.first().click();
}

/** Types `#<kind>` in the composer and picks it from the list with Enter. */
export async function hashPick(view: FrameLocator, kind: string): Promise<void> {
  const composer = view.locator('[data-testid="composer"]');
  await composer.click();
  await composer.pressSequentially(`#${kind.slice(0, 3)}`);
  await view.locator(`[data-testid="hash-option"][data-kind="${kind}"]`).waitFor({ timeout: 5_000 });
  await composer.press('Enter');
}

/** Picks an entry of a quick pick the host opened (the #file list, the #problems scope). */
export async function quickPick(page: Page, filter: string, rowText: string): Promise<void> {
  const widget = page.locator('.quick-input-widget');
  await widget.locator('input').waitFor({ state: 'visible', timeout: 15_000 });
  if (filter) await widget.locator('input').fill(filter);
  await widget.locator('.monaco-list-row').filter({ hasText: rowText }).first().click();
}
