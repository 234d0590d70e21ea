/**
 * Opens the chat webview as a standalone page in Debian's Chromium, for benchmarks and quick looks (the real UI tests
 * run inside VS Code). The page is exactly what the extension serves: renderWebviewHtml with its strict CSP, the
 * minified bundle and stylesheet written into it, served over 127.0.0.1. Only `acquireVsCodeApi` is stubbed, by an init script:
 * it records what the webview posts and can answer `ready` with host messages, the way the extension does. The answer
 * waits in the origin's localStorage, not in the init script: the browser evaluates an init script before the page,
 * and one holding a 1.25 MB snapshot charged the page's first paint with work VS Code never does (docs/performance.md ⁴).
 * CSP violations are collected, so a benchmark run also proves the page needs nothing the CSP forbids.
 */
import { CHROMIUM_ARGS } from './chromium';
import { DARK_THEME } from './darkTheme';
import { createServer, type Server } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as esbuild from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { HostMessage, WebviewMessage } from '../../src/shared/protocol';
import { createNonce, renderWebviewHtml } from '../../src/vscode/webviewHtml';

const ROOT = resolve(__dirname, '../..');

/**
 * V8's explicit compile hint, which the webview bundle carried on its first line until the highlighter had a bundle of
 * its own (see esbuild.mjs); bench/traceOpen.ts can still build with it, and builds another checkout as it ships.
 */
export const WEBVIEW_COMPILE_HINT = '//# allFunctionsCalledOnLoad';

export interface WebviewBuild {
  dir: string;
  js: string;
  css: string;
  /** The code highlighter's bundle, which the page runs after its first paint; undefined for a build from before it. */
  highlighter: string | undefined;
  jsBytes: number;
  cssBytes: number;
  highlighterBytes: number;
  /** The checkout's own page writer (a base's writes its page as that checkout does: bench/traceOpen.ts --base). */
  render: typeof renderWebviewHtml;
  dispose(): Promise<void>;
}

const HIGHLIGHTER_ENTRY = 'webview/highlighterBundle.ts';

/** Whether a checkout's own build puts V8's compile hint on its webview bundle. */
function shipsCompileHint(root: string): boolean {
  return readFileSync(join(root, 'esbuild.mjs'), 'utf8').includes(`'${WEBVIEW_COMPILE_HINT}'`);
}

/** Builds dist-equivalent webview.js, webview-highlighter.js and webview.css (minified, like a release) into a temp dir. */
export async function buildWebview(opts: { readable?: boolean; root?: string; compileHint?: boolean } = {}): Promise<WebviewBuild> {
  const dir = await mkdtemp(join(tmpdir(), 'baton-webview-'));
  // `root`: another checkout's webview/ (bench/traceOpen.ts compares two builds in one run).
  const root = opts.root ?? ROOT;
  // What both of the page's scripts are built with. `readable`: minified but for names and whitespace, so a profile
  // names the functions (bench/traceOpen.ts).
  const script = {
    absWorkingDir: root,
    outdir: dir,
    bundle: true,
    ...(opts.readable ? { minifySyntax: true } : { minify: true }),
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    logLevel: 'silent',
  } as const;
  await esbuild.build({
    ...script,
    entryPoints: { webview: 'webview/main.ts' },
    loader: { '.css': 'text' },
    // As esbuild.mjs: markdown-it needs only the entities decoder.
    alias: { entities: 'entities/lib/decode.js' },
    // As the checkout's esbuild.mjs: with V8's compile hint on the first line if it has one (this one has not; a
    // checkout from before has), unless told (bench/traceOpen.ts measures both ways).
    ...((opts.compileHint ?? shipsCompileHint(root)) ? { banner: { js: WEBVIEW_COMPILE_HINT } } : {}),
  });
  await esbuild.build({ absWorkingDir: root, entryPoints: { webview: 'webview/styles.css' }, outdir: dir, bundle: true, minify: true, logLevel: 'silent' });
  // As esbuild.mjs: the highlighter, without the compile hint (a base checkout from before it has none).
  const highlighter = existsSync(join(root, HIGHLIGHTER_ENTRY)) ? join(dir, 'webview-highlighter.js') : undefined;
  if (highlighter) await esbuild.build({ ...script, entryPoints: { 'webview-highlighter': HIGHLIGHTER_ENTRY } });
  const js = join(dir, 'webview.js');
  const css = join(dir, 'webview.css');
  return {
    dir,
    js,
    css,
    highlighter,
    jsBytes: (await stat(js)).size,
    cssBytes: (await stat(css)).size,
    highlighterBytes: highlighter ? (await stat(highlighter)).size : 0,
    // Another checkout's page as that checkout writes it (bench/traceOpen.ts --base compares two pages); one from before
    // the page had its own writer gets this one's.
    render:
      root === ROOT || !existsSync(join(root, 'src/vscode/webviewHtml.ts'))
        ? renderWebviewHtml
        : ((await import(join(root, 'src/vscode/webviewHtml.ts'))) as { renderWebviewHtml: typeof renderWebviewHtml }).renderWebviewHtml,
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

export interface OpenOptions {
  /** Host messages posted to the page when it says `ready` (usually one snapshot). */
  replyToReady?: HostMessage[];
  /** The first page written into the HTML, as the extension does once its core is built (see chatViewProvider.ts). */
  firstPage?: HostMessage;
  /**
   * Answer `ready` from this process (a round trip out of the page and back, as VS Code's goes through the extension
   * host) instead of from the page's own stub at once. The replies then are not in the page's init script either.
   */
  roundTrip?: boolean;
  /**
   * The stub's answer to `ready` written into its init script, as before it waited in localStorage: only to measure
   * what that cost the page (bench/traceOpen.ts --replies-in-init-script).
   */
  repliesInInitScript?: boolean;
  /** What vscode.getState() returns at load. */
  initialState?: unknown;
  viewport?: { width: number; height: number };
  theme?: Record<string, string>;
  /** Reuse a build (benchmarks build once). */
  build?: WebviewBuild;
  /**
   * How the page carries the bundle and the stylesheet: written into it, as the extension serves it (the default), or
   * as files it requests from this server, as it did before (bench/traceOpen.ts compares the two).
   */
  files?: 'inline' | 'requested';
  /** Runs after the page exists and before it loads (to start a profiler, say). */
  beforeLoad?: (page: Page) => Promise<void>;
}

export interface WebviewPage {
  page: Page;
  url: string;
  build: WebviewBuild;
  /** Everything the webview posted so far. */
  posted(): Promise<WebviewMessage[]>;
  /** Delivers host messages, each as its own message event, as VS Code does. */
  push(...messages: HostMessage[]): Promise<void>;
  cspViolations(): Promise<string[]>;
  /** Uncaught exceptions in the page. */
  errors: string[];
  close(): Promise<void>;
}

/** The localStorage item that holds the stub's answer to `ready`. */
const REPLIES_KEY = '__batonRepliesToReady';

/** Page-side state of the stub, on window.__batonHost. */
export interface HostStub {
  posted: unknown[];
  violations: string[];
  readyAt?: number;
  /** Set when the stub's answer was not in the page's storage at `ready` and came from the test's process: how late. */
  repliesLateMs?: number;
  /** When the replies to `ready` were parsed, posted, and their first message event began. */
  parsedAt?: number;
  postedAt?: number;
  receivedAt?: number;
  /** When the first message element appeared in the DOM, and the first frame after it (≈ painted). */
  firstMessageAt?: number;
  firstPaintAt?: number;
  state: unknown;
}

// Page-side code is a plain string, not a function: tsx (esbuild with keepNames) would wrap inner functions in a
// `__name` helper that does not exist in the page.
// Each moment is also a user-timing mark (baton:ready, baton:received, baton:first-message, baton:first-paint): a
// Chromium trace has them on its own clock, so trace analyses (bench/traceOpen.ts, the panel bench's CPU figure) cut
// exactly there.
const INIT_SCRIPT = String.raw`(function (arg) {
  var host = { posted: [], violations: [], state: arg.state };
  window.__batonHost = host;
  window.acquireVsCodeApi = function () {
    // VS Code sets theme variables on <html> through the CSSOM; doing the same needs no inline style. (Here, not
    // at init: an init script runs before <html> exists; the bundle calls this before anything is painted.)
    for (var name in arg.theme) document.documentElement.style.setProperty('--vscode-' + name, arg.theme[name]);
    // VS Code paints the view's background behind the webview; here the page does.
    document.documentElement.style.setProperty('background', 'var(--vscode-sideBar-background)');
    return {
      postMessage: function (message) {
        host.posted.push(JSON.parse(JSON.stringify(message)));
        if (message && message.type === 'ready') {
          host.readyAt = performance.now();
          performance.mark('baton:ready');
          // roundTrip: this process answers (see openWebviewPage), as the extension host does in VS Code.
          if (arg.roundTrip) {
            window.__batonReady();
            return;
          }
          // The replies travel as JSON text and are parsed here, as VS Code's IPC does, then posted (structured clone)
          // like VS Code posts into the webview's frame: the receiving costs are the real ones. The text is read from
          // the browser's storage only now, when the host would send it.
          var answer = function (text) {
            var replies = JSON.parse(text);
            host.parsedAt = performance.now();
            for (var i = 0; i < replies.length; i++) window.postMessage(replies[i], '*');
            host.postedAt = performance.now();
            window.addEventListener('message', function once() {
              host.receivedAt = performance.now();
              performance.mark('baton:received');
              window.removeEventListener('message', once, true);
            }, true);
          };
          var stored = arg.replies !== undefined ? arg.replies : localStorage.getItem(arg.repliesKey);
          if (stored !== null) {
            answer(stored);
            return;
          }
          // Playwright writes the item from a page of its own as it makes the context, and that write is sometimes
          // lost: in the whole unit run the page's storage stayed empty (20 s, looked at every 5 ms). Then this
          // process answers, a hop later; host.repliesLateMs says it had to.
          window.__batonRepliesFromTest().then(function (text) {
            host.repliesLateMs = performance.now() - host.readyAt;
            answer(text);
          });
        }
      },
      getState: function () { return host.state; },
      setState: function (state) { host.state = state; },
    };
  };
  document.addEventListener('securitypolicyviolation', function (e) {
    host.violations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sample);
  });
  new MutationObserver(function (_, observer) {
    if (host.firstMessageAt === undefined && document.querySelector('[data-testid="message"]')) {
      host.firstMessageAt = performance.now();
      performance.mark('baton:first-message');
      observer.disconnect();
      requestAnimationFrame(function () { setTimeout(function () { host.firstPaintAt = performance.now(); performance.mark('baton:first-paint'); }, 0); });
    }
  }).observe(document, { childList: true, subtree: true });
})`;

/**
 * Waits until `expression` is truthy in the page, polling from this process: Playwright's waitForFunction with a
 * string polls by eval inside the page, which the page's CSP refuses once the first check has failed.
 */
export async function waitInPage(page: Page, expression: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${expression}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** True in the page once the code highlighter's bundle has run (webview/highlighter.ts), just after the first paint. */
export const HIGHLIGHTER_LOADED = 'window.batonHighlighter !== undefined';

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, timeout: 60_000 });
}

/**
 * Mocha hooks for a suite of webview pages: one build of the bundle and one Chromium for the whole suite, closed after
 * it. The returned getters are valid inside the suite's tests.
 */
export function useWebviewBrowser(): { browser(): Browser; build(): WebviewBuild } {
  let browser: Browser | undefined;
  let build: WebviewBuild | undefined;
  before(async () => {
    build = await buildWebview();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await build?.dispose();
  });
  const ready = <T>(value: T | undefined, what: string): T => {
    if (!value) throw new Error(`the webview ${what} is not ready: call useWebviewBrowser() inside describe()`);
    return value;
  };
  return { browser: () => ready(browser, 'browser'), build: () => ready(build, 'build') };
}

export async function openWebviewPage(browser: Browser, options: OpenOptions = {}): Promise<WebviewPage> {
  const build = options.build ?? (await buildWebview());
  const ownBuild = !options.build;
  const server = await serve(build, options.firstPage, options.files ?? 'inline');
  const address = server.address();
  const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const replies = JSON.stringify(options.replyToReady ?? []);
  // The stub's answer waits in the page origin's localStorage (Playwright writes it from a page of its own before this
  // one exists), read when the page says `ready`: nothing of it is evaluated before the page.
  const stored = !options.roundTrip && !options.repliesInInitScript;
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 420, height: 800 },
    ...(stored ? { storageState: { cookies: [], origins: [{ origin, localStorage: [{ name: REPLIES_KEY, value: replies }] }] } } : {}),
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.stack ?? e.message));
  const arg = {
    replies: options.roundTrip ? '[]' : options.repliesInInitScript ? replies : undefined,
    repliesKey: REPLIES_KEY,
    roundTrip: !!options.roundTrip,
    state: options.initialState ?? null,
    theme: options.theme ?? DARK_THEME,
  };
  if (options.roundTrip) {
    // The same receiving costs as the stub's own answer (JSON text parsed in the page, then posted), a hop later.
    await page.exposeFunction('__batonReady', () => {
      void page
        .evaluate(
          `(function (text) { var replies = JSON.parse(text); __batonHost.parsedAt = performance.now(); replies.forEach(function (m) { window.postMessage(m, '*'); }); __batonHost.postedAt = performance.now();
            window.addEventListener('message', function once() { __batonHost.receivedAt = performance.now(); performance.mark('baton:received'); window.removeEventListener('message', once, true); }, true); })(${JSON.stringify(replies)})`,
        )
        .catch(() => undefined);
    });
  }
  if (stored) await page.exposeFunction('__batonRepliesFromTest', () => replies);
  await page.addInitScript({ content: `${INIT_SCRIPT}(${JSON.stringify(arg)});` });
  await options.beforeLoad?.(page);
  await page.goto(`${origin}/`, { waitUntil: 'load' });
  return {
    page,
    url: origin,
    build,
    posted: () => page.evaluate('window.__batonHost.posted') as Promise<WebviewMessage[]>,
    // Resolves once the page has handled them: window.postMessage dispatches each a task later, so a read right after
    // posting could see the page from before (it did, in a run). A marker posted last, which the panel ignores (it is no
    // host message), arrives after every one of them has gone through the panel's own listener.
    push: async (...messages) => {
      await page.evaluate(`new Promise(function (done) {
        var marker = '__batonPushed:' + Math.random();
        window.addEventListener('message', function seen(e) {
          if (e.data !== marker) return;
          window.removeEventListener('message', seen);
          done();
        });
        (${JSON.stringify(messages)}).forEach(function (m) { window.postMessage(m, '*'); });
        window.postMessage(marker, '*');
      })`);
    },
    errors,
    cspViolations: () => page.evaluate('window.__batonHost.violations') as Promise<string[]>,
    close: async () => {
      await context.close();
      await new Promise<void>((done) => server.close(() => done()));
      if (ownBuild) await build.dispose();
    },
  };
}

/** The build's files as text, as the extension reads them once (chatViewProvider.ts). */
export interface PageFiles {
  script: string;
  style: string;
  highlighter: string | undefined;
  render: typeof renderWebviewHtml;
}

export async function readPageFiles(build: WebviewBuild): Promise<PageFiles> {
  return {
    script: await readFile(build.js, 'utf8'),
    style: await readFile(build.css, 'utf8'),
    highlighter: build.highlighter ? await readFile(build.highlighter, 'utf8') : undefined,
    render: build.render,
  };
}

/**
 * The page the extension serves, from the same builder, with the build's files written in (or the bundle and the
 * stylesheet requested from `origin`; the highlighter is written in either way, as the page runs it only from there).
 */
export function servedHtml(origin: string, files: PageFiles, inline: boolean, firstPage?: HostMessage): string {
  return files.render({
    cspSource: origin,
    nonce: createNonce(),
    script: inline ? { text: files.script } : { uri: `${origin}/webview.js` },
    style: inline ? { text: files.style } : { uri: `${origin}/webview.css` },
    highlighter: files.highlighter,
    firstPage,
  });
}

async function serve(build: WebviewBuild, firstPage: HostMessage | undefined, files: 'inline' | 'requested'): Promise<Server> {
  const text = await readPageFiles(build);
  const inline = files === 'inline';
  const server = createServer((req, res) => {
    const origin = `http://${req.headers.host}`;
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, type: string, body: string | Buffer): void => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (path === '/') {
      send(200, 'text/html; charset=utf-8', servedHtml(origin, text, inline, firstPage));
    } else if (!inline && (path === '/webview.js' || path === '/webview.css')) {
      readFile(path === '/webview.js' ? build.js : build.css).then(
        (body) => send(200, path.endsWith('.js') ? 'text/javascript' : 'text/css', body),
        () => send(500, 'text/plain', 'read failed'),
      );
    } else send(404, 'text/plain', 'not found');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  return server;
}
