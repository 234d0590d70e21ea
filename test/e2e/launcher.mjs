#!/usr/bin/env node
// A stand-in for the `code` executable, for machines without a desktop VS Code: @vscode/test-electron's runTests
// (and @vscode/test-cli's useInstallation.fromPath) start it with VS Code's usual arguments. It starts code-server (VS
// Code's server with the Node extension host), opens the workbench in headless Chromium with the extension under
// development and the tests module, and exits with the exit code the tests report.
//
//   launcher.mjs [folder | file.code-workspace] --extensionDevelopmentPath=DIR... --extensionTestsPath=FILE
//                [--user-data-dir=DIR] [--extensions-dir=DIR]
//   launcher.mjs --install-extension FILE.vsix... --extensions-dir=DIR    (installs and exits, like `code`)
//
// The server's environment is this process's (test-electron adds extensionTestsEnv to it), minus what belongs to the
// caller's own tooling; the extension host inherits it. Settings are read from <user-data-dir>/User/settings.json, as
// a desktop VS Code would. Env: BATON_E2E_TIMEOUT_MS (default 300000) bounds a run; BATON_E2E_VERBOSE=1 shows the
// server's output and every page console line; BATON_E2E_KEEP=1 keeps the scratch folder.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { format } from 'node:util';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const { provisionVscode, findChromium } = await import('../../scripts/provisionVscode.mjs');
/** @type {typeof import('./codeServer.ts')} */
const { CodeServer, installExtensions } = await tsImport('./codeServer.ts', import.meta.url);

const VALUE_FLAGS = new Set([
  'extensionDevelopmentPath',
  'extensionTestsPath',
  'user-data-dir',
  'extensions-dir',
  'install-extension',
  'folder-uri',
  'locale',
  'log',
  'enable-proposed-api',
  'inspect-extensions',
  'inspect-brk-extensions',
]);
// Desktop-only switches test runners pass by habit; meaningless for a server, so dropped without a word.
const IGNORED_SWITCHES = new Set([
  'no-sandbox',
  'disable-gpu-sandbox',
  'disable-gpu',
  'disable-updates',
  'skip-welcome',
  'skip-release-notes',
  'disable-workspace-trust',
  'disable-telemetry',
  'new-window',
  'reuse-window',
  'wait',
  'force',
]);

// The web workbench logs its own progress through codeAutomationLog too; shown only with BATON_E2E_VERBOSE.
const WORKBENCH_CHATTER =
  /^(Creating a socket|Resolving connection token|Resolved connection token|Ignoring fetching additional builtin|Updating additional builtin|\[Service Worker\]|ChatSessionStore:)/;

/**
 * @param {string[]} argv
 * @returns {{ flags: Map<string, string[]>, switches: Set<string>, positional: string[] }}
 */
export function parseArgs(argv) {
  const flags = new Map();
  const switches = new Set();
  const positional = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (eq >= 0 || VALUE_FLAGS.has(name)) {
      const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new Error(`${arg} needs a value`);
      flags.set(name, [...(flags.get(name) ?? []), value]);
    } else {
      switches.add(name);
    }
  }
  return { flags, switches, positional };
}

/** The caller's environment minus what would confuse code-server or leak the caller's tooling into the host. */
function serverEnv() {
  /** @type {Record<string, string>} */
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    // VSCODE_IPC_HOOK_CLI and friends make code-server hand the request to an enclosing VS Code instead of starting.
    if (/^(VSCODE_|ELECTRON_|npm_|NODE_OPTIONS$|NODE_CHANNEL_FD$)/.test(key)) continue;
    env[key] = value;
  }
  return env;
}

/** @param {string} line */
function out(line) {
  process.stdout.write(line.endsWith('\n') ? line : `${line}\n`);
}

/** Page console text without the %c markers and trailing style arguments VS Code uses to colour "[Extension Host]". */
function plainConsoleText(/** @type {import('playwright-core').ConsoleMessage} */ msg) {
  const text = msg.text();
  return text.includes('%c') ? text.replace(/%c/g, '').replace(/(\s+(color|font-weight|background)\s*:[^\s]*)+\s*$/, '') : text;
}

async function main() {
  const { flags, switches, positional } = parseArgs(process.argv.slice(2));
  const verbose = Boolean(process.env.BATON_E2E_VERBOSE);
  const log = (/** @type {string} */ line) => process.stderr.write(`[launcher] ${line}\n`);
  const { codeServerEntry } = await provisionVscode({ log: verbose ? log : () => {} });
  const chromiumPath = findChromium() ?? '/usr/bin/chromium';

  for (const name of switches) {
    if (!IGNORED_SWITCHES.has(name)) log(`ignoring --${name} (no meaning for code-server)`);
  }

  const extensionsDir = flags.get('extensions-dir')?.at(-1);
  const userDataDir = flags.get('user-data-dir')?.at(-1);
  const vsixes = flags.get('install-extension') ?? [];
  if (vsixes.length > 0) {
    // Like `code --install-extension`: install into the extensions dir and exit without opening a window.
    if (!extensionsDir) throw new Error('--install-extension needs --extensions-dir (code-server has no default one here)');
    await installExtensions({ codeServerEntry, vsixes, extensionsDir, userDataDir });
    out(`Installed ${vsixes.join(', ')} into ${extensionsDir}`);
    return 0;
  }

  const extensionDevelopmentPath = flags.get('extensionDevelopmentPath') ?? [];
  const extensionTestsPath = flags.get('extensionTestsPath')?.at(-1);
  let folder = flags.get('folder-uri')?.at(-1);
  if (folder?.startsWith('file://')) folder = fileURLToPath(folder);
  folder ??= positional.find((p) => existsSync(p) && statSync(p).isDirectory());
  if (positional.some((p) => p.endsWith('.code-workspace'))) log('opening a .code-workspace is not supported; pass a folder');

  const timeoutMs = Number(process.env.BATON_E2E_TIMEOUT_MS ?? 300_000);
  const server = await CodeServer.start({ codeServerEntry, env: serverEnv(), extensionsDir, userDataDir, log, verbose });
  /** @type {(code: number) => void} */
  let reportExit = () => {};
  const reported = new Promise((resolve) => (reportExit = resolve));
  let timer;
  let exiting = false;
  try {
    await server.open({
      executablePath: chromiumPath,
      folder: folder && path.resolve(folder),
      extensionDevelopmentPath: extensionDevelopmentPath.map((p) => path.resolve(p)),
      extensionTestsPath: extensionTestsPath && path.resolve(extensionTestsPath),
      waitForWorkbench: false,
      beforeGoto: async (page) => {
        // VS Code's web workbench calls these when running extension tests (IAutomatedWindow).
        await page.exposeFunction('codeAutomationExit', (/** @type {number} */ code) => {
          exiting = true;
          reportExit(Number(code));
        });
        await page.exposeFunction('codeAutomationLog', (/** @type {string} */ type, /** @type {unknown[]} */ args) => {
          // Once the tests reported, the window tears down and logs errors about it that concern no test.
          if (exiting && !verbose) return;
          const text = Array.isArray(args) ? format(...args) : String(args);
          if (verbose || !WORKBENCH_CHATTER.test(text)) (type === 'error' ? process.stderr : process.stdout).write(`${text}\n`);
        });
        page.on('pageerror', (err) => verbose && log(`page error: ${err.message}`));
      },
      onConsole: (msg) => {
        const text = plainConsoleText(msg);
        if (text.includes('[Extension Host]')) out(text);
        else if (verbose) log(`console.${msg.type()}: ${text}`);
      },
    });
    if (!extensionTestsPath) {
      log(`workbench open at ${server.url}; no --extensionTestsPath, so waiting until killed`);
    }
    const hang = new Promise((resolve) => {
      timer = setTimeout(() => resolve('timeout'), extensionTestsPath ? timeoutMs : 2 ** 31 - 1);
    });
    const result = await Promise.race([reported, hang]);
    if (result === 'timeout') {
      server.markFailed();
      log(
        `the tests did not report an exit code within ${timeoutMs} ms (BATON_E2E_TIMEOUT_MS): a test hangs, or the ` +
          `window never ran ${extensionTestsPath}. Extension host logs: ${server.logsDir}`,
      );
      return 2;
    }
    if (result !== 0) server.markFailed();
    return /** @type {number} */ (result);
  } catch (err) {
    server.markFailed();
    throw err;
  } finally {
    clearTimeout(timer);
    await server.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`[launcher] ${err instanceof Error ? (err.stack ?? err.message) : err}\n`);
    process.exit(1);
  },
);
