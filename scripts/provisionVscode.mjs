#!/usr/bin/env node
// Provisions the VS Code the e2e tests run in, the way @vscode/test-electron downloads its own on first use:
// code-server (a real VS Code server with the Node extension host) is installed from npm into
// .vscode-test/code-server/ and reused after; Debian's Chromium renders its workbench.
//
// Why code-server and not a desktop build: with only the npm registry and Debian apt reachable there is no desktop
// VS Code or Electron to be had (see /work/shared/VSCODE-TESTING.md). code-server@4.100.3 (VS Code 1.100.3) is the
// newest whose engines accept Node 20.
//
// Idempotent: a marker records what was installed (and for which Node ABI, since node-pty, argon2 and kerberos are
// native), so a rerun only checks the marker and the apt binaries.
//
// Usage: node scripts/provisionVscode.mjs   (or import { provisionVscode } from this file)
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const CODE_SERVER_VERSION = '4.100.3';

// @vscode/ripgrep's postinstall downloads rg from the internet unless it finds
// $TMPDIR/vscode-ripgrep-cache-<package version>/ripgrep-<tag>-<target>.tar.gz. These are the values for the
// @vscode/ripgrep that code-server 4.100.3 pins (its lib/vscode/npm-shrinkwrap.json; `VERSION` in lib/postinstall.js).
// Bumping CODE_SERVER_VERSION means re-reading both.
const RIPGREP_PACKAGE_VERSION = '1.15.11';
const RIPGREP_TAG = 'v13.0.0-10';

// Install scripts that must run. npm 11 checks dependency install scripts against the project's allowScripts: 11.19
// runs unlisted ones with a warning, but its docs (and `strict-allow-scripts`) skip or refuse them, and a skipped
// node-pty or ripgrep only shows up later as a broken VS Code. So every one is listed. code-server's own postinstall
// runs `npm install` in lib/vscode and lib/vscode/extensions, separate projects whose package.json is not ours, so
// those get the same list through a project .npmrc (see writeNpmShim).
const ALLOW_SCRIPTS = [
  'code-server', // postinstall: installs VS Code's own dependencies (below)
  'argon2', // builds itself with node-gyp when its prebuilt download fails
  'node-pty', // terminal
  'kerberos', // proxy auth; needs libkrb5-dev
  '@vscode/ripgrep', // search; seeded from Debian's rg
  '@vscode/spdlog', // logging
  '@parcel/watcher', // file watching
  '@vscode/deviceid',
  'native-watchdog',
  '@vscode/windows-process-tree', // no-ops off Windows, but npm still asks
  '@vscode/windows-registry',
  '@vscode/windows-ca-certs',
  'esbuild', // lib/vscode/extensions dev tooling
];

/** What the install scripts must have produced, relative to .vscode-test/code-server. */
const NATIVE_PRODUCTS = [
  'node_modules/argon2/lib/binding/napi-v3/argon2.node',
  'node_modules/code-server/lib/vscode/node_modules/node-pty/build/Release/pty.node',
  'node_modules/code-server/lib/vscode/node_modules/kerberos/build/Release/kerberos.node',
  'node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep/bin/rg',
  'node_modules/code-server/lib/vscode/node_modules/@vscode/spdlog/build/Release/spdlog.node',
  'node_modules/code-server/lib/vscode/node_modules/native-watchdog/build/Release/watchdog.node',
];

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '..');

/**
 * Debian packages the e2e layer needs, and how to tell each is present without dpkg (so a non-Debian machine that
 * has them some other way passes too). libkrb5-dev and the compilers are only needed to build code-server once.
 */
const APT_PACKAGES = [
  { name: 'chromium', present: () => findChromium() !== undefined, runtime: true },
  { name: 'ripgrep', present: () => onPath('rg') !== undefined, runtime: false },
  { name: 'libkrb5-dev', present: () => existsSync('/usr/include/krb5.h') || onPath('krb5-config') !== undefined, runtime: false },
  { name: 'g++', present: () => onPath('g++') !== undefined, runtime: false },
  { name: 'make', present: () => onPath('make') !== undefined, runtime: false },
  { name: 'python3', present: () => onPath('python3') !== undefined, runtime: false },
  // Workers' sandbox (the Copilot runtime runs bwrap; with network allowed it needs slirp4netns and iptables) and worktrees.
  { name: 'bubblewrap', present: () => onPath('bwrap') !== undefined, runtime: true },
  { name: 'slirp4netns', present: () => onPath('slirp4netns') !== undefined, runtime: true },
  { name: 'iptables', present: () => onPath('iptables') !== undefined || existsSync('/usr/sbin/iptables'), runtime: true },
  { name: 'git', present: () => onPath('git') !== undefined, runtime: true },
  // What the workers' network tests run inside the sandbox to try a listener, directly and through the sandbox proxy.
  { name: 'curl', present: () => onPath('curl') !== undefined, runtime: true },
  // ssh-keygen: a test signs a kept branch's commit with an ssh key, as a user whose git signs every commit does.
  { name: 'openssh-client', present: () => onPath('ssh-keygen') !== undefined, runtime: true },
];

/** @returns {string | undefined} */
export function findChromium() {
  const candidates = [process.env.BATON_E2E_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((p) => p && existsSync(p));
}

/** @param {string} bin */
function onPath(bin) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && existsSync(path.join(dir, bin))) return path.join(dir, bin);
  }
  return undefined;
}

/**
 * @typedef {object} ProvisionResult
 * @property {string} codeServerEntry absolute path of code-server's out/node/entry.js
 * @property {string} chromium absolute path of the Chromium executable
 * @property {string} version code-server version
 */

/**
 * Makes sure code-server and Chromium are ready. Fast (a marker and a few stat calls) once provisioned.
 * @param {{ root?: string, log?: (line: string) => void }} [options]
 * @returns {Promise<ProvisionResult>}
 */
export async function provisionVscode({ root = repoRoot, log = (line) => console.log(`[provision] ${line}`) } = {}) {
  const dir = path.join(root, '.vscode-test', 'code-server');
  const pkgDir = path.join(dir, 'node_modules', 'code-server');
  const codeServerEntry = path.join(pkgDir, 'out', 'node', 'entry.js');
  const markerPath = path.join(dir, '.provisioned.json');
  const wanted = { codeServer: CODE_SERVER_VERSION, nodeAbi: process.versions.modules, platform: `${process.platform}-${process.arch}` };

  const marker = await readFile(markerPath, 'utf8').then(JSON.parse, () => undefined);
  const installed =
    marker !== undefined &&
    marker.codeServer === wanted.codeServer &&
    marker.nodeAbi === wanted.nodeAbi &&
    marker.platform === wanted.platform &&
    existsSync(codeServerEntry);

  await ensureAptPackages(installed ? APT_PACKAGES.filter((p) => p.runtime) : APT_PACKAGES, log);
  const chromium = /** @type {string} */ (findChromium());

  if (installed) {
    log(`code-server ${CODE_SERVER_VERSION} already in ${path.relative(root, dir)}/`);
    return { codeServerEntry, chromium, version: CODE_SERVER_VERSION };
  }
  if (Number(process.versions.node.split('.')[0]) !== 20) {
    throw new Error(`code-server ${CODE_SERVER_VERSION} needs Node 20 (this is ${process.version}).`);
  }

  const started = Date.now();
  log(`installing code-server ${CODE_SERVER_VERSION} into ${path.relative(root, dir)}/ (first run only, ~1.5 min)`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const allowScripts = Object.fromEntries(ALLOW_SCRIPTS.map((name) => [name, true]));
  await writeFile(
    path.join(dir, 'package.json'),
    JSON.stringify(
      {
        name: 'baton-test-vscode',
        private: true,
        description: 'The VS Code (code-server) the Baton e2e tests run in. Written by scripts/provisionVscode.mjs.',
        dependencies: { 'code-server': CODE_SERVER_VERSION },
        allowScripts,
      },
      null,
      2,
    ) + '\n',
  );

  const tmp = path.join(dir, '.tmp');
  await seedRipgrep(tmp, log);

  // code-server's postinstall runs `npm install` inside lib/vscode and lib/vscode/extensions. Those nested installs
  // are their own projects, so the allowScripts above does not reach them and --allow-scripts in the environment is
  // refused for project installs. A userconfig would work but replace the user's own ~/.npmrc (registry, nodedir...),
  // so instead a wrapper npm on PATH drops a project .npmrc with the same allow-list before each nested install.
  const shimDir = path.join(dir, '.npm-shim');
  await writeNpmShim(shimDir, ALLOW_SCRIPTS);

  const env = {
    ...process.env,
    PATH: `${shimDir}${path.delimiter}${process.env.PATH ?? ''}`,
    TMPDIR: tmp,
    // code-server's postinstall refuses to run as root without this.
    npm_config_unsafe_perm: 'true',
    // node-pty's postinstall runs `npx node-gyp`, which waits on a prompt (and is cancelled without a TTY) otherwise.
    npm_config_yes: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    BATON_REAL_NPM: onPath('npm') ?? 'npm',
  };
  await run('npm', ['install', '--foreground-scripts'], { cwd: dir, env }, log);

  const missing = NATIVE_PRODUCTS.map((rel) => path.join(dir, rel)).filter((p) => !existsSync(p));
  if (!existsSync(codeServerEntry)) missing.push(codeServerEntry);
  if (missing.length > 0) {
    throw new Error(
      `code-server install in ${dir} is incomplete; missing:\n  ${missing.join('\n  ')}\n` +
        'An install script did not run or failed: read the npm output above.',
    );
  }
  await rm(tmp, { recursive: true, force: true });
  await writeFile(markerPath, JSON.stringify({ ...wanted, installedAt: new Date().toISOString() }, null, 2) + '\n');
  log(`code-server ${CODE_SERVER_VERSION} ready in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return { codeServerEntry, chromium, version: CODE_SERVER_VERSION };
}

/**
 * @param {{ name: string, present: () => boolean }[]} packages
 * @param {(line: string) => void} log
 */
async function ensureAptPackages(packages, log) {
  const missing = packages.filter((p) => !p.present()).map((p) => p.name);
  if (missing.length === 0) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || onPath('apt-get') === undefined) {
    throw new Error(
      `The e2e tests need these Debian packages, which are missing: ${missing.join(', ')}.\n` +
        `Install them (sudo apt-get update && sudo apt-get install -y ${missing.join(' ')}), ` +
        'or run the tests as root on Debian/Ubuntu and they are installed for you.',
    );
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  log(`apt-get: installing ${missing.join(', ')}`);
  await run('apt-get', ['update'], { env }, log);
  await run('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { env }, log);
  const still = packages.filter((p) => !p.present()).map((p) => p.name);
  if (still.length > 0) throw new Error(`apt-get finished but these are still missing: ${still.join(', ')}`);
}

/**
 * Pre-seeds @vscode/ripgrep's download cache with a tarball of the system rg.
 * @param {string} tmp the TMPDIR the install will run with
 * @param {(line: string) => void} log
 */
async function seedRipgrep(tmp, log) {
  const rg = onPath('rg');
  if (rg === undefined) throw new Error('ripgrep (rg) is not on PATH; install the Debian package ripgrep.');
  const target = { x64: 'x86_64-unknown-linux-musl', arm64: 'aarch64-unknown-linux-musl' }[process.arch];
  if (process.platform !== 'linux' || target === undefined) {
    throw new Error(`Provisioning code-server offline is only supported on Linux x64/arm64, not ${process.platform}-${process.arch}.`);
  }
  const cacheDir = path.join(tmp, `vscode-ripgrep-cache-${RIPGREP_PACKAGE_VERSION}`);
  await mkdir(cacheDir, { recursive: true });
  const tarball = path.join(cacheDir, `ripgrep-${RIPGREP_TAG}-${target}.tar.gz`);
  // The package untars into its bin/ and expects `rg` at the archive root.
  await run('tar', ['czf', tarball, '-C', path.dirname(rg), path.basename(rg)], {}, log);
  log(`seeded ${path.basename(tarball)} from ${rg}`);
}

/**
 * A `npm` first on PATH that, when started inside code-server's lib/vscode tree, writes that project's .npmrc with
 * the allow-list, then hands over to the real npm.
 * @param {string} shimDir
 * @param {string[]} allow
 */
async function writeNpmShim(shimDir, allow) {
  await mkdir(shimDir, { recursive: true });
  const npmrc = `allow-scripts=${allow.join(',')}`;
  const script = `#!/bin/sh
# Written by scripts/provisionVscode.mjs: see the comment there.
case "$PWD" in
  */node_modules/code-server/lib/vscode|*/node_modules/code-server/lib/vscode/extensions)
    [ -f package.json ] && [ ! -f .npmrc ] && echo '${npmrc}' > .npmrc ;;
esac
exec "$BATON_REAL_NPM" "$@"
`;
  await writeFile(path.join(shimDir, 'npm'), script, { mode: 0o755 });
}

/**
 * Runs a command with its output shown, without blocking the event loop.
 * @param {string} cmd
 * @param {string[]} args
 * @param {import('node:child_process').SpawnOptions} options
 * @param {(line: string) => void} log
 */
function run(cmd, args, options, log) {
  log(`$ ${cmd} ${args.join(' ')}`);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolve(undefined) : reject(new Error(`${cmd} ${args.join(' ')} failed (${signal ?? `exit ${code}`})`))));
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const t0 = Date.now();
  provisionVscode().then(
    (r) => console.log(`[provision] done in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${r.codeServerEntry}`),
    (err) => {
      console.error(`[provision] ${err instanceof Error ? err.message : err}`);
      process.exitCode = 1;
    },
  );
}
