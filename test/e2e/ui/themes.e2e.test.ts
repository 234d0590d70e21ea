/**
 * The panel follows VS Code's colour theme: switched the way a user does (Preferences: Color Theme), the webview gets
 * the theme's kind and variables, and its colours change with them. Saves test-results/panel-{dark,light,hc,hcLight}.png.
 */
import * as assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { cspViolations, DEFAULT_THEME, resultsDir, ui, widenSideBar } from './fixture';
import { completedReply, freshChat, send, setColorTheme, THEMES } from './helpers';

const PROMPT = 'Give me a themed sample with some code';
const REPLY = ['### Themes', '', 'The panel uses the **editor theme** colours:', '', '```ts', 'const theme: string = "dark"; // or light', '```'].join('\n');

interface Look {
  bodyClass: string;
  bodyBackground: string;
  bodyColor: string;
  /** The theme variable VS Code hands the webview for the side bar it sits in. */
  sideBarVar: string;
  composerBackground: string;
  keywordColor: string;
  /** What the workbench itself paints behind the view. */
  workbenchSideBar: string;
}

async function look(page: Page, view: FrameLocator): Promise<Look> {
  const inView = await view.locator('body').evaluate((body) => {
    const style = getComputedStyle(body);
    const composer = document.querySelector('[data-testid="composer"]')!;
    const keyword = document.querySelector('.code-block .tok-keyword');
    return {
      bodyClass: body.className,
      bodyBackground: style.backgroundColor,
      bodyColor: style.color,
      sideBarVar: getComputedStyle(document.documentElement).getPropertyValue('--vscode-sideBar-background').trim(),
      composerBackground: getComputedStyle(composer).backgroundColor,
      keywordColor: keyword ? getComputedStyle(keyword).color : '',
    };
  });
  const workbenchSideBar = await page
    .locator('.part.sidebar')
    .first()
    .evaluate((el) => getComputedStyle(el).backgroundColor);
  return { ...inView, workbenchSideBar };
}

/** #rrggbb or #rrggbbaa (a theme variable) to the rgb()/rgba() form getComputedStyle uses. */
function cssRgb(hex: string): string {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})?$/i.exec(hex);
  if (!m) return hex;
  const [r, g, b] = [m[1], m[2], m[3]].map((x) => parseInt(x!, 16));
  return m[4] && m[4].toLowerCase() !== 'ff' ? `rgba(${r}, ${g}, ${b}, ${Number((parseInt(m[4], 16) / 255).toFixed(3))})` : `rgb(${r}, ${g}, ${b})`;
}

describe('Themes', function () {
  this.timeout(120_000);

  after(async () => {
    // Leave the window on the theme the other tests expect.
    const page = ui().page;
    await setColorTheme(page, DEFAULT_THEME).catch(() => undefined);
  });

  it('follows the colour theme: dark, light, high contrast and high contrast light (screenshots in test-results/)', async () => {
    const { page, view } = await freshChat();
    ui().server.on({ lastUserIncludes: PROMPT, name: 'themed sample' }, { text: REPLY });
    await send(view, PROMPT);
    await completedReply(view, 'The panel uses the editor theme colours');
    // The page carries its script and stylesheet by nonce: nothing in it was refused by its CSP.
    assert.deepEqual(cspViolations(), []);
    await widenSideBar(page);
    await mkdir(resultsDir, { recursive: true });

    const looks: Partial<Record<keyof typeof THEMES, Look>> = {};
    for (const [kind, theme] of Object.entries(THEMES) as Array<[keyof typeof THEMES, (typeof THEMES)[keyof typeof THEMES]]>) {
      await setColorTheme(page, theme);
      // The webview is told the theme's kind on its body, with the theme's variables.
      await view.locator(`body.${theme.webview}`).waitFor({ timeout: 15_000 });
      await view.locator('body').evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const l = await look(page, view);
      looks[kind] = l;
      assert.ok(l.sideBarVar, `${kind}: the webview has the theme's --vscode-sideBar-background`);
      assert.equal(cssRgb(l.sideBarVar), l.workbenchSideBar, `${kind}: the webview's side bar colour is the one the workbench paints`);
      // The page itself is transparent: the side bar it sits in shows through (so it always matches).
      assert.equal(l.bodyBackground, 'rgba(0, 0, 0, 0)', `${kind}: body background`);
      await page.screenshot({ path: join(resultsDir, `panel-${kind}.png`) });
    }

    const { dark, light, hc, hcLight } = looks as Record<keyof typeof THEMES, Look>;
    assert.notEqual(dark.workbenchSideBar, light.workbenchSideBar, 'the background behind the panel differs between dark and light');
    assert.notEqual(dark.sideBarVar, light.sideBarVar);
    assert.notEqual(dark.bodyColor, light.bodyColor, 'text colour differs between dark and light');
    assert.notEqual(dark.composerBackground, light.composerBackground, 'the composer follows the theme');
    assert.ok(dark.keywordColor && light.keywordColor && dark.keywordColor !== light.keywordColor, 'syntax colours follow the theme');
    assert.notEqual(hc.sideBarVar, light.sideBarVar);
    assert.match(hc.bodyClass, /vscode-high-contrast/);
    assert.match(hcLight.bodyClass, /vscode-high-contrast-light/);
    assert.notEqual(hcLight.sideBarVar, hc.sideBarVar);
    assert.notEqual(hcLight.bodyColor, hc.bodyColor, 'text colour differs between the two high contrast themes');
    // Nor when VS Code restyled the page for each theme.
    assert.deepEqual(cspViolations(), []);
  });
});
