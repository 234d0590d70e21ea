/**
 * Runs a real VS Code for the e2e tests: code-server (VS Code's server with the Node extension host, provisioned by
 * scripts/provisionVscode.mjs) on 127.0.0.1, with its workbench opened in Debian's Chromium through playwright-core.
 * Facts this builds on are in /work/shared/VSCODE-TESTING.md.
 *
 * Everything a run writes (HOME, XDG dirs, TMPDIR, user data, extensions, the browser profile) lives in one scratch
 * folder, removed on a clean stop and kept (its path printed) after a failure so its logs can be read.
 *
 * Invariant: whatever start() spawns is stopped by stop(), by a SIGINT/SIGTERM, or at the latest when this process
 * exits. code-server runs in its own process group, so the extension host and whatever it spawned (the Copilot runtime)
 * go with it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CHROMIUM_ARGS } from '../support/chromium';
import { chromium, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core';

export interface CodeServerOptions {
  /** code-server's out/node/entry.js (provisionVscode() returns it). */
  codeServerEntry: string;
  /**
   * Environment for the server, merged over a minimal base (PATH, LANG and the scratch HOME/XDG/TMPDIR). The extension
   * host inherits it, and so does the Copilot runtime the extension spawns: this is how tests point the runtime at a
   * scripted model server. The caller's own environment is deliberately not passed on, so no developer token leaks in.
   */
  env?: Record<string, string | undefined>;
  /** User settings, over {"workbench.startupEditor":"none","telemetry.telemetryLevel":"off"} and any settings.json
   * already in the user data dir. */
  settings?: Record<string, unknown>;
  /** .vsix files installed into the extensions dir before the server starts. */
  installExtensions?: string[];
  /** Defaults to <scratch>/user-data and <scratch>/extensions. */
  userDataDir?: string;
  extensionsDir?: string;
  /** Parent of the scratch folder; defaults to the OS temp dir. */
  scratchParent?: string;
  /** Where progress and server output go; defaults to stderr with a prefix. */
  log?: (line: string) => void;
  /** Also show code-server's own log lines (always kept for the failure message). */
  verbose?: boolean;
  startTimeoutMs?: number;
}

export interface WorkbenchLocation {
  /** Absolute folder opened as the workspace. */
  folder?: string;
  /** Absolute extension folder(s) loaded as under development. */
  extensionDevelopmentPath?: string | string[];
  /** Absolute path of a bundled mocha runner run inside the extension host; the window reports its exit code. */
  extensionTestsPath?: string;
}

export interface OpenOptions extends WorkbenchLocation {
  /** Chromium executable; /usr/bin/chromium by default. */
  executablePath?: string;
  /** Runs after the page exists and before it navigates (e.g. page.exposeFunction). */
  beforeGoto?: (page: Page) => Promise<void>;
  /** Each page console line, e.g. to forward "[Extension Host] ..." lines. */
  onConsole?: (message: ConsoleMessage) => void;
  viewport?: { width: number; height: number };
  /** Wait for the workbench's activity bar before returning (default true). */
  waitForWorkbench?: boolean;
}

export interface Workbench {
  readonly context: BrowserContext;
  readonly page: Page;
  close(): Promise<void>;
}

/** Keep the workbench from reaching out (extension gallery, updates, telemetry) and from opening editors of its own. */
const QUIET_SETTINGS: Record<string, unknown> = {
  'workbench.startupEditor': 'none',
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'workbench.enableExperiments': false,
};

const live = new Set<CodeServer>();
/** Every code-server process still running, including one still starting (not yet in `live`). */
const spawned = new Set<ChildProcess>();

export class CodeServer {
  /** e.g. http://127.0.0.1:41234 */
  readonly url: string;
  private readonly workbenches = new Set<Workbench>();
  private stopping: Promise<void> | undefined;
  private failed = false;

  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    readonly scratch: string,
    readonly userDataDir: string,
    readonly extensionsDir: string,
    private readonly output: string[],
    private readonly log: (line: string) => void,
  ) {
    this.url = `http://127.0.0.1:${port}`;
  }

  /** The code-server process: every process of this VS Code (its extension host, a runtime it starts) descends from it. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  static async start(options: CodeServerOptions): Promise<CodeServer> {
    const log = options.log ?? ((line: string) => process.stderr.write(`[code-server] ${line}\n`));
    const scratch = await mkdtemp(join(options.scratchParent ?? tmpdir(), 'baton-e2e-'));
    const dirs = {
      HOME: join(scratch, 'home'),
      XDG_CONFIG_HOME: join(scratch, 'xdg', 'config'),
      XDG_DATA_HOME: join(scratch, 'xdg', 'data'),
      XDG_STATE_HOME: join(scratch, 'xdg', 'state'),
      XDG_CACHE_HOME: join(scratch, 'xdg', 'cache'),
      TMPDIR: join(scratch, 'tmp'),
    };
    const userDataDir = resolve(options.userDataDir ?? join(scratch, 'user-data'));
    const extensionsDir = resolve(options.extensionsDir ?? join(scratch, 'extensions'));
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      LANG: process.env.LANG ?? 'C.UTF-8',
      // No extension gallery: nothing to fetch offline, and no stray requests for a test's proxy to record.
      EXTENSIONS_GALLERY: '{}',
      ...dirs,
    };
    for (const [key, value] of Object.entries(options.env ?? {})) {
      if (value !== undefined) env[key] = value;
    }
    // The extra env may move HOME/TMPDIR elsewhere (a Copilot harness root); create whatever dirs it names.
    await Promise.all(
      [...Object.keys(dirs).map((k) => env[k]!), userDataDir, extensionsDir, join(userDataDir, 'User')].map((d) => mkdir(d, { recursive: true })),
    );
    // Settings already in the user data dir (a caller preparing it as it would for a desktop VS Code) are kept.
    const settingsFile = join(userDataDir, 'User', 'settings.json');
    const existing = await readFile(settingsFile, 'utf8').then(
      (t) => JSON.parse(t) as Record<string, unknown>,
      () => ({}),
    );
    const settings = { ...QUIET_SETTINGS, ...existing, ...options.settings };
    await writeFile(settingsFile, JSON.stringify(settings, null, 2));
    const configFile = join(scratch, 'code-server.yaml');
    await writeFile(configFile, 'auth: none\n');

    const common = ['--config', configFile, '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];
    if (options.installExtensions?.length) {
      log(`installing ${options.installExtensions.join(', ')}`);
      await installExtensions({ ...options, vsixes: options.installExtensions, userDataDir, extensionsDir, env });
    }

    const args = [
      options.codeServerEntry,
      ...common,
      '--bind-addr',
      '127.0.0.1:0', // the server picks a free port and prints it: no race with another run
      '--auth',
      'none',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--ignore-last-opened',
    ];
    // detached: its own process group, so stop() can signal the server, its extension hosts and their children at once.
    installExitHooks();
    const child = spawn(process.execPath, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    spawned.add(child);
    child.once('exit', () => spawned.delete(child));
    const output: string[] = [];
    const port = await new Promise<number>((resolvePort, reject) => {
      const timeoutMs = options.startTimeoutMs ?? 60_000;
      const timer = setTimeout(() => fail(new Error(`code-server did not start within ${timeoutMs} ms`)), timeoutMs);
      const fail = (err: Error) => {
        clearTimeout(timer);
        killGroup(child, 'SIGKILL');
        reject(new Error(`${err.message} (scratch kept: ${scratch})\n--- code-server output ---\n${output.join('\n')}`));
      };
      const onLine = (line: string) => {
        output.push(line);
        if (output.length > 500) output.shift();
        if (options.verbose) log(line);
        const m = /HTTP server listening on https?:\/\/[^:]+:(\d+)/.exec(line);
        if (m) {
          clearTimeout(timer);
          resolvePort(Number(m[1]));
        }
      };
      forEachLine(child.stdout!, onLine);
      forEachLine(child.stderr!, onLine);
      child.once('error', fail);
      child.once('exit', (code, signal) => fail(new Error(`code-server exited during startup (${signal ?? `exit ${code}`})`)));
    });
    const server = new CodeServer(child, port, scratch, userDataDir, extensionsDir, output, log);
    live.add(server);
    child.once('exit', () => live.delete(server));
    await server.waitHealthy(options.startTimeoutMs ?? 60_000);
    log(`VS Code (code-server) serving ${server.url}, scratch ${scratch}`);
    return server;
  }

  /** The workbench URL: `?folder=...&payload=[["extensionDevelopmentPath","vscode-remote://..."],...]`. */
  workbenchUrl(location: WorkbenchLocation = {}): string {
    const remote = (p: string) => `vscode-remote://127.0.0.1:${this.port}${resolve(p)}`;
    const payload: [string, string][] = [];
    const devPaths = location.extensionDevelopmentPath;
    for (const p of devPaths === undefined ? [] : Array.isArray(devPaths) ? devPaths : [devPaths]) {
      payload.push(['extensionDevelopmentPath', remote(p)]);
    }
    if (location.extensionTestsPath) payload.push(['extensionTestsPath', remote(location.extensionTestsPath)]);
    const query = new URLSearchParams();
    if (location.folder) query.set('folder', resolve(location.folder));
    if (payload.length > 0) query.set('payload', JSON.stringify(payload));
    const qs = query.toString();
    return `${this.url}/${qs ? `?${qs}` : ''}`;
  }

  /** Opens the workbench in a fresh headless Chromium profile. */
  async open(options: OpenOptions = {}): Promise<Workbench> {
    const profile = await mkdtemp(join(this.scratch, 'chromium-'));
    const home = join(this.scratch, 'browser-home'); // keeps Chromium's crash database etc. out of the user's ~/.config
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: options.executablePath ?? '/usr/bin/chromium',
      args: CHROMIUM_ARGS,
      env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache') },
      viewport: options.viewport ?? { width: 1400, height: 900 },
    });
    const page = context.pages()[0] ?? (await context.newPage());
    const workbench: Workbench = {
      context,
      page,
      close: async () => {
        this.workbenches.delete(workbench);
        await context.close().catch(() => undefined);
      },
    };
    this.workbenches.add(workbench);
    try {
      if (options.onConsole) page.on('console', options.onConsole);
      await options.beforeGoto?.(page);
      await page.goto(this.workbenchUrl(options), { waitUntil: 'domcontentloaded' });
      if (options.waitForWorkbench ?? true) {
        await page.locator('.monaco-workbench .activitybar').first().waitFor({ state: 'visible', timeout: 60_000 });
      }
    } catch (err) {
      await workbench.close();
      throw err;
    }
    return workbench;
  }

  /** Marks the run failed: stop() then keeps the scratch folder (logs) and says where it is. */
  markFailed(): void {
    this.failed = true;
  }

  /** code-server's recent output, for failure messages. */
  recentOutput(): string {
    return this.output.join('\n');
  }

  /** Output channel and extension host logs live here. */
  get logsDir(): string {
    return join(this.userDataDir, 'logs');
  }

  /** Closes the browser(s), stops the server's whole process group, and removes the scratch folder. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    await Promise.all([...this.workbenches].map((w) => w.close()));
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
      killGroup(this.child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(this.child, 'SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    // The group may outlive its leader (an extension host still shutting down).
    killGroup(this.child, 'SIGKILL');
    live.delete(this);
    if (this.failed || process.env.BATON_E2E_KEEP) {
      this.log(`kept ${this.scratch} (logs under ${this.logsDir})`);
    } else {
      await rm(this.scratch, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
    }
  }

  private async waitHealthy(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const res = await fetch(`${this.url}/healthz`);
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        await this.stop();
        throw new Error(`code-server at ${this.url} never became healthy\n${this.recentOutput()}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * `code --install-extension` for code-server: installs .vsix files into an extensions dir without starting a server.
 * The environment defaults to a scratch HOME so nothing lands in the user's own ~/.config.
 */
export async function installExtensions(options: {
  codeServerEntry: string;
  vsixes: string[];
  extensionsDir: string;
  userDataDir?: string;
  env?: Record<string, string>;
}): Promise<void> {
  const scratch = options.env ? undefined : await mkdtemp(join(tmpdir(), 'baton-install-'));
  const env = options.env ?? { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: scratch!, XDG_CONFIG_HOME: scratch!, TMPDIR: scratch! };
  const userDataDir = options.userDataDir ?? join(scratch ?? options.extensionsDir, 'user-data');
  try {
    for (const vsix of options.vsixes) {
      await runToEnd(
        process.execPath,
        [options.codeServerEntry, '--user-data-dir', userDataDir, '--extensions-dir', options.extensionsDir, '--force', '--install-extension', resolve(vsix)],
        env,
      );
    }
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}

/** Convenience: start a server (see CodeServer.start). */
export function startCodeServer(options: CodeServerOptions): Promise<CodeServer> {
  return CodeServer.start(options);
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

let hooksInstalled = false;
function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  // Last resort: a synchronous kill when the process exits with servers still running (a crash, process.exit()).
  process.on('exit', () => {
    for (const child of spawned) killGroup(child, 'SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    const handler = () => {
      void Promise.allSettled([...live].map((s) => s.stop())).then(() => {
        for (const child of spawned) killGroup(child, 'SIGKILL');
        // Someone else (mocha, test-electron) also listens: let them decide; otherwise exit as the signal would.
        if (process.listenerCount(signal) <= 1) process.exit(signal === 'SIGINT' ? 130 : 143);
      });
    };
    process.on(signal, handler);
  }
}

function forEachLine(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      onLine(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
    }
  });
  stream.on('end', () => buffered && onLine(buffered));
}

function runToEnd(cmd: string, args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: string[] = [];
    forEachLine(child.stdout!, (l) => out.push(l));
    forEachLine(child.stderr!, (l) => out.push(l));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolveRun() : reject(new Error(`${args.slice(-2).join(' ')} failed (exit ${code})\n${out.join('\n')}`))));
  });
}
