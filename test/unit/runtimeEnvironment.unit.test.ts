// The runtime's environment by allowlist (every worker shell inherits it): what passes, what is
// withheld by name, proxy credentials stripped, and what the user's setting adds.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { buildRuntimeEnvironment, describeEnvironmentReport, withoutUrlCredentials } from '../../src/core/copilot/runtimeEnvironment';

const SOURCE = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/me',
  USER: 'me',
  SHELL: '/bin/bash',
  LANG: 'en_US.UTF-8',
  LC_ALL: 'C.UTF-8',
  TERM: 'xterm-256color',
  TMPDIR: '/tmp',
  XDG_CONFIG_HOME: '/home/me/.config',
  XDG_RUNTIME_DIR: '/run/user/1000',
  XDG_SESSION_TYPE: 'wayland',
  HTTPS_PROXY: 'http://alice:s3cret@proxy.corp:8080',
  no_proxy: 'localhost',
  NODE_EXTRA_CA_CERTS: '/etc/corp.pem',
  ACME_API_KEY: 'acme-123',
  AWS_SECRET_ACCESS_KEY: 'aws-456',
  NPM_TOKEN: 'npm-789',
  DATABASE_URL: 'postgres://u:p@h/db',
  SSH_AUTH_SOCK: '/tmp/ssh-agent.sock',
  GH_TOKEN: 'ghu_token',
  JAVA_HOME: '/opt/java',
};

describe('runtime environment (allowlist)', () => {
  it('passes what a build needs and withholds everything else, naming it', () => {
    const { env, report } = buildRuntimeEnvironment(SOURCE, {}, 'linux');
    assert.deepEqual(Object.keys(env).sort(), [
      'HOME',
      'HTTPS_PROXY',
      'LANG',
      'LC_ALL',
      'NODE_EXTRA_CA_CERTS',
      'PATH',
      'SHELL',
      'TERM',
      'TMPDIR',
      'USER',
      'XDG_CONFIG_HOME',
      'XDG_RUNTIME_DIR',
      'no_proxy',
    ]);
    assert.deepEqual(report.withheld, [
      'ACME_API_KEY',
      'AWS_SECRET_ACCESS_KEY',
      'DATABASE_URL',
      'GH_TOKEN',
      'JAVA_HOME',
      'NPM_TOKEN',
      'SSH_AUTH_SOCK',
      'XDG_SESSION_TYPE',
    ]);
    assert.equal(env.HTTPS_PROXY, 'http://proxy.corp:8080', "the proxy's user:pass@ is stripped");
    assert.deepEqual(report.strippedProxyCredentials, ['HTTPS_PROXY']);
  });

  it("adds what baton.workers.environment names, and never Baton's own credentials", () => {
    const { env, report } = buildRuntimeEnvironment(SOURCE, { JAVA_HOME: true, NODE_ENV: 'development', GH_TOKEN: true, MISSING: true }, 'linux');
    assert.equal(env.JAVA_HOME, '/opt/java');
    assert.equal(env.NODE_ENV, 'development');
    assert.equal(env.GH_TOKEN, undefined);
    assert.equal(env.MISSING, undefined);
    assert.deepEqual(report.refused, ['GH_TOKEN']);
    assert.ok(!report.withheld.includes('JAVA_HOME'));
    const line = describeEnvironmentReport(report);
    assert.match(line, /withheld from workers: ACME_API_KEY, AWS_SECRET_ACCESS_KEY/);
    assert.match(line, /user:password removed from HTTPS_PROXY/);
    assert.match(line, /never passed .* GH_TOKEN/);
    for (const value of ['acme-123', 'aws-456', 'npm-789', 'u:p@h', 's3cret', 'ghu_token'])
      assert.ok(!line.includes(value), `the report shows a value: ${value}`);
  });

  it('passes the real locale and XDG base-directory variables only, not any name that starts like them', () => {
    const locale = ['LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'LC_NUMERIC', 'LC_TIME', 'LC_COLLATE', 'LC_MONETARY', 'LC_MESSAGES'];
    const more = ['LC_PAPER', 'LC_NAME', 'LC_ADDRESS', 'LC_TELEPHONE', 'LC_MEASUREMENT', 'LC_IDENTIFICATION'];
    const xdg = ['XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME', 'XDG_RUNTIME_DIR', 'XDG_CONFIG_DIRS', 'XDG_DATA_DIRS'];
    const lookalikes = ['LC_SECRET_TOKEN', 'LC_API_KEY', 'XDG_VAULT_TOKEN_DIR', 'XDG_TOKEN_HOME', 'XDG_SECRET_DIRS', 'XDG_TOKEN'];
    const source = Object.fromEntries([...locale, ...more, ...xdg, ...lookalikes].map((name) => [name, `value-of-${name}`]));
    const { env, report } = buildRuntimeEnvironment(source, {}, 'linux');
    assert.deepEqual(Object.keys(env).sort(), [...locale, ...more, ...xdg].sort());
    assert.deepEqual(report.withheld, [...lookalikes].sort());
  });

  it('leaves out an entry of baton.workers.environment no process can take (the runtime would not start), naming it without its value', () => {
    const setting = { JAVA_HOME: '/opt/j\u0000dk', 'A=B': true, 'TOKEN=abc123': 'x', 'NUL\u0000': 'y', NODE_ENV: 'development' };
    const { env, report } = buildRuntimeEnvironment(SOURCE, setting, 'linux');
    assert.equal(env.NODE_ENV, 'development', 'the good entries still apply');
    // What the runtime's start does with it: the spawn threw "must be a string without null bytes" at every turn.
    assert.equal(spawnSync(process.execPath, ['-e', ''], { env }).status, 0, 'a process starts with this environment');
    assert.deepEqual(report.unusable, ['"A=…"', '"JAVA_HOME"', '"NUL\\u0000"', '"TOKEN=…"']);
    const line = describeEnvironmentReport(report);
    assert.match(line, /left out of baton\.workers\.environment, no process can take them .*"JAVA_HOME"/);
    assert.ok(!line.includes('abc123') && !line.includes('/opt/j'), line);
  });

  it('keeps the variables Windows needs to start a process, whatever their case', () => {
    const { env } = buildRuntimeEnvironment(
      { Path: 'C:\\Windows', SystemRoot: 'C:\\Windows', ComSpec: 'cmd.exe', github_token: 'x', Secret: 'y' },
      {},
      'win32',
    );
    assert.deepEqual(Object.keys(env).sort(), ['ComSpec', 'Path', 'SystemRoot']);
  });

  it("strips the user:password from GH_HOST, like a proxy's (the runtime reaches GitHub through it)", () => {
    const { env, report } = buildRuntimeEnvironment({ GH_HOST: 'ghuser:gh-secret@github.example.com' }, {}, 'linux');
    assert.equal(env.GH_HOST, 'github.example.com');
    assert.deepEqual(report.strippedProxyCredentials, ['GH_HOST']);
  });

  it('strips the user:password from a proxy set in baton.workers.environment too, and says so', () => {
    // Before, only VS Code's own environment was stripped: a password written in the setting reached every worker's shell.
    const { env, report } = buildRuntimeEnvironment({}, { HTTPS_PROXY: 'http://alice:s3cret@proxy:3128', NODE_ENV: 'a:b@c' }, 'linux');
    assert.equal(env.HTTPS_PROXY, 'http://proxy:3128');
    assert.equal(env.NODE_ENV, 'a:b@c', 'any other value is set as written');
    assert.deepEqual(report.strippedProxyCredentials, ['HTTPS_PROXY']);
  });

  it('strips credentials from URLs only, the whole of them however the proxy is written', () => {
    assert.equal(withoutUrlCredentials('http://u:p@proxy:3128/'), 'http://proxy:3128/');
    // No scheme (curl and npm take it), a raw @ or / in the password, a user alone (a token as the user name).
    assert.equal(withoutUrlCredentials('alice:s3cret@proxy.corp:8080'), 'proxy.corp:8080');
    assert.equal(withoutUrlCredentials('http://alice:p@ss@proxy.corp:8080'), 'http://proxy.corp:8080');
    assert.equal(withoutUrlCredentials('https://alice:pa/ss@proxy.corp:8080/'), 'https://proxy.corp:8080/');
    assert.equal(withoutUrlCredentials('socks5://ghp_token123@proxy.corp:1080'), 'socks5://proxy.corp:1080');
    assert.equal(withoutUrlCredentials('http://proxy:3128'), undefined);
    assert.equal(withoutUrlCredentials('localhost,127.0.0.1'), undefined);
  });
});
