/**
 * One VS Code for the "VS Code's own AI" suite (test/e2e/ai): Baton under development plus the test-only helper
 * extension test/e2e/fixtures/baton-test-host, packaged as a .vsix and installed (only the last
 * extensionDevelopmentPath loads, so a second extension must be installed). The helper provides the default chat
 * participant and a fake model, without which code-server shows no Chat view (see /work/shared/VSCODE-AI-APIS.md),
 * and plays "another extension": it picks up a request file, performs it, and writes what it saw.
 *
 * Its own code-server, apart from the UI suite's: the Chat view and a default participant change the workbench those
 * tests (and their screenshots) rely on. Load with mocha `--require` (runE2e.mjs --only ai does).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Context } from 'mocha';
import type { Page } from 'playwright-core';
import { hermeticEnv } from '../../support/copilotHarness';
import { ScriptedModelServer } from '../../support/scriptedModelServer';
import { CodeServer, type Workbench } from '../codeServer';
import { abandonStart, suiteHooks } from '../suiteHooks';
import { setColorTheme, THEMES } from '../ui/workbench';

export const repoRoot = resolve(__dirname, '..', '..', '..');
export const resultsDir = join(repoRoot, 'test-results');
const HELPER = join(repoRoot, 'test', 'e2e', 'fixtures', 'baton-test-host');

export interface AiFixture {
  readonly server: ScriptedModelServer;
  readonly vscode: CodeServer;
  readonly workbench: Workbench;
  readonly page: Page;
  readonly workspace: string;
  /** Where the helper extension reads requests and writes results. */
  readonly hostDir: string;
}

let current: AiFixture | undefined;
let root: string | undefined;
let requests = 0;

export function ai(): AiFixture {
  if (!current) throw new Error('The AI fixture is not running: load test/e2e/ai/fixture.ts with mocha --require');
  return current;
}

/** Packages the helper extension with vsce (a few seconds). */
async function packageHelper(out: string): Promise<string> {
  const vsix = join(out, 'baton-test-host.vsix');
  await new Promise<void>((ok, fail) => {
    const child = spawn(
      process.execPath,
      [join(repoRoot, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--allow-missing-repository', '--skip-license', '--out', vsix],
      { cwd: HELPER, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('error', fail);
    child.once('exit', (code) => (code === 0 ? ok() : fail(new Error(`vsce package failed (${code}): ${err}`))));
  });
  return vsix;
}

/**
 * Has the helper extension (another extension, in the same extension host as Baton) perform `action` and returns what
 * it wrote. While it runs, `during` may act on the workbench (e.g. answer a confirmation dialog).
 */
export async function hostRequest<T>(
  action: string,
  args: Record<string, unknown> = {},
  during?: (page: Page) => Promise<void>,
  timeoutMs = 60_000,
): Promise<{ ok: true; value: T } | { ok: false; error: string; name?: string; kind?: string }> {
  const { page, hostDir } = ai();
  const id = `r${++requests}`;
  const file = join(hostDir, `${id}.json`);
  // Written whole, then renamed: the helper polls for request.json and must never read half of it.
  await writeFile(join(hostDir, 'request.tmp'), JSON.stringify({ id, action, args }));
  await rename(join(hostDir, 'request.tmp'), join(hostDir, 'request.json'));
  await during?.(page);
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`the helper extension wrote no result for ${action} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const result = JSON.parse(await readFile(file, 'utf8')) as { ok: true; value: T } | { ok: false; error: string };
  await unlink(file);
  return result;
}

export const mochaHooks = {
  async beforeAll(this: Context): Promise<void> {
    this.timeout(240_000);
    const { provisionVscode } = await import('../../../scripts/provisionVscode.mjs');
    const { codeServerEntry, chromium } = await provisionVscode();
    root = await mkdtemp(join(tmpdir(), 'baton-ai-'));
    const workspace = join(root, 'workspace');
    const hostDir = join(root, 'host');
    await Promise.all([mkdir(workspace, { recursive: true }), mkdir(hostDir, { recursive: true })]);
    await writeFile(join(workspace, 'README.md'), '# A scratch project for the Baton AI tests\n');
    const vsix = await packageHelper(root);

    const server = await ScriptedModelServer.start();
    const env = { ...hermeticEnv(server.url, join(root, 'copilot')), COPILOT_GITHUB_TOKEN: '', GH_TOKEN: 'fake', BATON_TEST_HOST_DIR: hostDir };
    let vscode: CodeServer | undefined;
    try {
      vscode = await CodeServer.start({ codeServerEntry, env, installExtensions: [vsix], verbose: Boolean(process.env.BATON_E2E_VERBOSE) });
      const workbench = await vscode.open({
        executablePath: chromium,
        folder: workspace,
        extensionDevelopmentPath: repoRoot,
        viewport: { width: 1400, height: 900 },
        onConsole: (msg) => {
          if (process.env.BATON_E2E_VERBOSE) process.stderr.write(`    [page ${msg.type()}] ${msg.text()}\n`);
        },
      });
      // The README's screenshot wears the same theme as the panel's; best effort.
      await setColorTheme(workbench.page, THEMES.dark).catch(() => undefined);
      current = { server, vscode, workbench, page: workbench.page, workspace, hostDir };
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
    screenshotPrefix: 'failed-ai-',
  }),
};
