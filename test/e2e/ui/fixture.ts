/**
 * One VS Code (code-server + headless Chromium) for the whole Playwright UI suite, started by mocha root hooks: load
 * this file with `--require` (runE2e.mjs does). Tests reach it through ui().
 *
 * The extension host, and so the Copilot runtime Baton spawns, gets an environment pointing every Copilot endpoint
 * and proxy at a ScriptedModelServer in this process, with a fake token (GH_TOKEN=fake authenticates the runtime
 * against it; see test/integration/harness.integration.test.ts). BATON_E2E_PROVIDER=byok uses Baton's OpenAI
 * provider settings against the same server instead.
 *
 * Env (all optional): BATON_E2E_VSIX (test the installed .vsix instead of the dev folder), BATON_E2E_EXTENSION_PATH
 * (the dev folder, default the repo), BATON_E2E_PROVIDER (copilot | byok), BATON_E2E_VERBOSE.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Context } from 'mocha';
import type { FrameLocator, Page } from 'playwright-core';
import { hermeticEnv } from '../../support/copilotHarness';
import { ScriptedModelServer } from '../../support/scriptedModelServer';
import { CodeServer, type Workbench } from '../codeServer';
import { abandonStart, suiteHooks } from '../suiteHooks';
import { setColorTheme, THEMES } from './workbench';

export const repoRoot = resolve(__dirname, '..', '..', '..');
export const resultsDir = join(repoRoot, 'test-results');
export const EXTENSION_ID = 'baton-dev.baton';
/** The colour theme the window wears (screenshots, the README's included) unless a test switches it. */
export const DEFAULT_THEME = THEMES.dark;

export interface UiFixture {
  readonly server: ScriptedModelServer;
  readonly vscode: CodeServer;
  readonly workbench: Workbench;
  readonly page: Page;
  /** The folder open in the window. */
  readonly workspace: string;
}

let current: UiFixture | undefined;
const consoleErrors: string[] = [];
const cspReports: string[] = [];

/**
 * What Chromium logged about a Content Security Policy since the window opened (the webview's frames log into the
 * workbench page's console): a panel that needs anything its CSP refuses shows up here.
 */
export function cspViolations(): string[] {
  return [...cspReports];
}
let root: string | undefined;

/** The running VS Code and scripted model server; only valid inside tests. */
export function ui(): UiFixture {
  if (!current) throw new Error('The UI fixture is not running: load test/e2e/ui/fixture.ts with mocha --require');
  return current;
}

/** The Baton chat webview's content frame (the extensionId filter matters: other webviews exist). */
export function batonView(page: Page): FrameLocator {
  return page.frameLocator(`iframe.webview.ready[src*="extensionId=${EXTENSION_ID}"]`).frameLocator('#active-frame');
}

/** True when the window runs this repo's Baton (its dev folder or a .vsix), not a stand-in. */
export function testsRepoExtension(): boolean {
  const override = process.env.BATON_E2E_EXTENSION_PATH;
  return process.env.BATON_E2E_VSIX !== undefined || override === undefined || resolve(override) === repoRoot;
}

/** Drags the sash right of the side bar so the panel shows at a readable width (for screenshots); best effort. */
export async function widenSideBar(page: Page, width = 520): Promise<void> {
  const box = await page.locator('.part.sidebar').first().boundingBox();
  if (!box || box.width >= width) return;
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width, y);
  await page.mouse.down();
  await page.mouse.move(box.x + width, y, { steps: 8 });
  await page.mouse.up();
  // Off the sash, or it stays highlighted in the picture.
  await page.mouse.move(box.x + width + 400, y);
  await page.waitForTimeout(300);
}

/** Settings that make Baton talk to the scripted server in BYOK mode (no GitHub identity at all). */
function byokSettings(serverUrl: string): Record<string, unknown> {
  return { 'baton.provider.type': 'openai', 'baton.provider.baseUrl': `${serverUrl}/v1` };
}

export const mochaHooks = {
  async beforeAll(this: Context): Promise<void> {
    this.timeout(180_000);
    const { provisionVscode } = await import('../../../scripts/provisionVscode.mjs');
    const { codeServerEntry, chromium } = await provisionVscode();
    root = await mkdtemp(join(tmpdir(), 'baton-ui-'));
    const workspace = join(root, 'workspace');
    await mkdir(workspace, { recursive: true });
    await writeFile(join(workspace, 'README.md'), '# A scratch project for the Baton UI tests\n');

    const server = await ScriptedModelServer.start();
    const byok = process.env.BATON_E2E_PROVIDER === 'byok';
    const env = { ...hermeticEnv(server.url, join(root, 'copilot')), COPILOT_GITHUB_TOKEN: '', ...(byok ? {} : { GH_TOKEN: 'fake' }) };
    const vsix = process.env.BATON_E2E_VSIX;
    let vscode: CodeServer | undefined;
    try {
      vscode = await CodeServer.start({
        codeServerEntry,
        env,
        settings: { 'workbench.colorTheme': DEFAULT_THEME.label, ...(byok ? byokSettings(server.url) : {}) },
        installExtensions: vsix ? [vsix] : [],
        verbose: Boolean(process.env.BATON_E2E_VERBOSE),
      });
      const workbench = await vscode.open({
        executablePath: chromium,
        folder: workspace,
        extensionDevelopmentPath: vsix ? undefined : resolve(process.env.BATON_E2E_EXTENSION_PATH ?? repoRoot),
        onConsole: (msg) => {
          if (/Content Security Policy/i.test(msg.text())) cspReports.push(msg.text());
          if (process.env.BATON_E2E_VERBOSE) process.stderr.write(`    [page ${msg.type()}] ${msg.text()}\n`);
          else if (msg.type() === 'error') {
            // Shown when a test fails: the workbench logs extension and webview errors here.
            consoleErrors.push(msg.text().replace(/%c/g, ''));
            if (consoleErrors.length > 30) consoleErrors.shift();
          }
        },
      });
      // code-server's workbench starts on Light+ whatever workbench.colorTheme says: pick the theme as a user would.
      // Best effort: a window on the wrong theme is still a window to test.
      await setColorTheme(workbench.page, DEFAULT_THEME).catch((err: unknown) =>
        process.stderr.write(`    [fixture] could not switch to ${DEFAULT_THEME.label}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}\n`),
      );
      current = { server, vscode, workbench, page: workbench.page, workspace };
    } catch (err) {
      await abandonStart(server, vscode);
      throw err;
    }
  },

  ...suiteHooks({
    window: () => current,
    forget: () => (current = undefined),
    root: () => root,
    resultsDir,
    screenshotPrefix: 'failed-',
    onFailed() {
      if (!consoleErrors.length) return;
      process.stderr.write(`    errors in the workbench console:\n${consoleErrors.map((e) => `      ${e}`).join('\n')}\n`);
      consoleErrors.length = 0;
    },
  }),
};
