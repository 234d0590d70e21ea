// baton.workers.network and its host lists and proxy, resolved into what the runtime's sandbox is
// asked for. What each mode then reaches is tested against the real runtime in
// test/integration/workerNetwork.integration.test.ts.
import * as assert from 'node:assert/strict';
import { reportedNetworkMode, toSandboxConfig, type SandboxPolicy } from '../../src/core/copilot/sandbox';
import type { SessionSpec } from '../../src/core/copilot/agentSessions';
import { buildSessionConfig, GITHUB_MCP_SERVER } from '../../src/core/copilot/sessionConfig';
import {
  briefNetwork,
  describeNetwork,
  GITHUB_API_HOST,
  hostRuleProblem,
  letsThrough,
  machineAddresses,
  networkReport,
  NetworkSettingError,
  parseProxy,
  resolveWorkerNetwork,
} from '../../src/core/workers/workerNetwork';

const MACHINE = ['192.168.1.20', 'fd00::20'];
const linux = { available: true, networkAvailable: true };

function config(settings: Parameters<typeof resolveWorkerNetwork>[0], support = linux) {
  const n = resolveWorkerNetwork(settings, MACHINE);
  const policy: SandboxPolicy = {
    deniedPaths: [],
    readonlyPaths: [],
    readwritePaths: ['/w'],
    network: { ...n, line: describeNetwork(n), brief: briefNetwork(n) },
  };
  return { n, network: toSandboxConfig(policy, support).userPolicy?.network };
}

describe('worker network policy', () => {
  it('"internet" (the default) keeps this machine and the local network out: its addresses and the metadata endpoint blocked, local traffic off', () => {
    const { n, network } = config({ mode: 'internet' });
    assert.equal(n.mode, 'internet');
    assert.deepEqual(network, { allowOutbound: true, allowLocalNetwork: false, blockedHosts: ['192.168.1.20', 'fd00::20', '169.254.169.254'] });
    assert.match(describeNetwork(n), /^network: internet over HTTP\(S\), not this machine or the local network$/);
    assert.equal(briefNetwork(n), 'internet only');
  });

  it('"internet" keeps a host list on a machine with no address, so the runtime still filters through its proxy', () => {
    const n = resolveWorkerNetwork({ mode: 'internet' }, []);
    assert.deepEqual(n.blockedHosts, ['169.254.169.254']);
  });

  it('"allow" is everything, said so; "deny" is none; host lists and a proxy pass through as the runtime takes them', () => {
    assert.deepEqual(config({ mode: 'allow' }).network, { allowOutbound: true, allowLocalNetwork: true });
    assert.match(describeNetwork(config({ mode: 'allow' }).n), /everything, this machine.s addresses and the local network included/);
    assert.deepEqual(config({ mode: 'deny', allowedHosts: ['a.example'] }).network, { allowOutbound: false });
    const { n, network } = config({
      mode: 'internet',
      allowedHosts: ['registry.npmjs.org', '*.github.com'],
      blockedHosts: ['evil.example'],
      proxy: 'http://proxy.corp:3128',
    });
    assert.deepEqual(network, {
      allowOutbound: true,
      allowLocalNetwork: false,
      allowedHosts: ['registry.npmjs.org', '*.github.com'],
      blockedHosts: ['evil.example', '192.168.1.20', 'fd00::20', '169.254.169.254'],
      proxy: { url: 'http://proxy.corp:3128' },
    });
    assert.equal(
      describeNetwork(n),
      'network: internet over HTTP(S), not this machine or the local network; only registry.npmjs.org, *.github.com; never evil.example; via your proxy http://proxy.corp:3128',
    );
    // The card's few words: what a worker may reach, the whole line in its tooltip.
    assert.equal(briefNetwork(n), 'only registry.npmjs.org, *.github.com via your proxy');
    assert.equal(briefNetwork(resolveWorkerNetwork({ mode: 'allow', allowedHosts: ['a.example', 'b.example', 'c.example'] }, MACHINE)), 'only 3 hosts');
    assert.equal(briefNetwork(config({ mode: 'allow' }).n), 'full network');
    assert.equal(briefNetwork(config({ mode: 'deny' }).n), 'network off');
  });

  it("puts the proxy's credentials in their own fields, never in the URL or the card", () => {
    assert.deepEqual(parseProxy('http://al%40ce:p%3Ass@proxy.corp:3128/'), { url: 'http://proxy.corp:3128', username: 'al@ce', password: 'p:ss' });
    assert.deepEqual(parseProxy('proxy.corp:8080'), { url: 'http://proxy.corp:8080' });
    const { n, network } = config({ mode: 'allow', proxy: 'https://u:secret@proxy.corp' });
    assert.deepEqual(network?.proxy, { url: 'https://proxy.corp', username: 'u', password: 'secret' });
    // The runtime authenticates to a proxy only through its sandbox proxy, which it starts only for a host list.
    assert.deepEqual(network?.blockedHosts, ['baton-proxy-auth.invalid']);
    assert.doesNotMatch(describeNetwork(n), /secret|baton-proxy-auth/);
    assert.doesNotMatch(briefNetwork(n), /secret|proxy.corp/);
    const bad = parseProxy('socks5://u:secret@proxy.corp:1080');
    assert.ok(bad instanceof NetworkSettingError);
    assert.equal(bad.problem, 'proxy-scheme');
    assert.doesNotMatch(bad.message, /secret/);
  });

  it('a bad host entry is a typed error naming the setting and the entry, and cuts the network (never silently dropped)', () => {
    const cases: Array<[string, 'allowed' | 'blocked', ReturnType<typeof hostRuleProblem>]> = [
      ['registry.npmjs.org', 'allowed', undefined],
      ['*.example.com', 'allowed', undefined],
      ['10.0.0.7', 'blocked', undefined],
      ['fd00::1', 'blocked', undefined],
      ['*', 'blocked', undefined],
      ['*', 'allowed', 'wildcard'],
      ['https://registry.npmjs.org/', 'allowed', 'url'],
      ['10.0.0.0/8', 'blocked', 'url'],
      ['example.com:443', 'allowed', 'port'],
      ['api.*.example.com', 'allowed', 'wildcard'],
      ['bad host', 'allowed', 'not-a-host'],
      ['  ', 'allowed', 'empty'],
    ];
    for (const [entry, list, problem] of cases) assert.equal(hostRuleProblem(entry, list), problem, `${list}: ${entry}`);
    const { n, network } = config({ mode: 'internet', allowedHosts: ['ok.example', 'https://x.example/'], blockedHosts: ['10.0.0.0/8'] });
    assert.equal(n.mode, 'deny');
    assert.deepEqual(network, { allowOutbound: false });
    assert.deepEqual(
      n.problems.map((p) => [p instanceof NetworkSettingError, p.setting, p.entry, p.problem]),
      [
        [true, 'baton.workers.allowedHosts', 'https://x.example/', 'url'],
        [true, 'baton.workers.blockedHosts', '10.0.0.0/8', 'url'],
      ],
    );
    assert.match(describeNetwork(n), /^network off: baton\.workers\.allowedHosts: 'https:\/\/x\.example\/' .*; baton\.workers\.blockedHosts: '10\.0\.0\.0\/8'/);
    assert.equal(briefNetwork(n), 'network off: a network setting is invalid');
  });

  it("Doctor's line: an error naming each bad entry; otherwise the mode, what Baton blocks, and what the runtime confirmed", () => {
    const bad = networkReport(resolveWorkerNetwork({ mode: 'internet', allowedHosts: ['registry.npmjs.org:443'] }, MACHINE), linux, []);
    assert.equal(bad.ok, false);
    assert.match(bad.text, /^network off: baton\.workers\.allowedHosts: 'registry\.npmjs\.org:443' has a port; .*until then workers run with no network\.$/);
    const good = networkReport(resolveWorkerNetwork({ mode: 'internet', proxy: 'http://u:pw@proxy.corp:3128' }, MACHINE), linux, [
      { name: 'w1', sandbox: { network: { mode: 'internet', verified: true } } },
      { name: 'w2', sandbox: { network: { mode: 'internet' } } },
    ]);
    assert.equal(good.ok, true);
    assert.match(
      good.text,
      /^network: internet over HTTP\(S\), .*via your proxy http:\/\/proxy\.corp:3128 \(signed in\) \(its credentials go to the sandbox proxy in their own fields, never to a worker\); Baton also blocks this machine's 2 addresses and 169\.254\.169\.254; as the runtime reports for w1: internet$/,
    );
    assert.doesNotMatch(good.text, /pw|192\.168\.1\.20/);
    const noTools = networkReport(
      resolveWorkerNetwork({ mode: 'allow' }, MACHINE),
      { available: true, networkAvailable: false, networkReason: 'needs slirp4netns' },
      [],
    );
    assert.deepEqual(noTools, { ok: false, text: 'network off: needs slirp4netns' });
  });

  it('cuts the network where the sandbox cannot filter it (no slirp4netns/iptables), whatever the mode', () => {
    const support = { available: true, networkAvailable: false, networkReason: 'needs slirp4netns' };
    assert.deepEqual(config({ mode: 'internet' }, support).network, { allowOutbound: false });
  });

  it("reads the mode in force from the runtime's policy_resolved event (its fields as measured)", () => {
    assert.equal(reportedNetworkMode({ allowOutbound: false, allowLocalNetwork: false }), 'deny');
    assert.equal(reportedNetworkMode({ allowOutbound: true, allowLocalNetwork: false }), 'internet');
    assert.equal(reportedNetworkMode({ allowOutbound: true, allowLocalNetwork: true }), 'allow');
    assert.equal(reportedNetworkMode({}), undefined, 'an event without the fields confirms nothing');
  });

  it("lists this machine's own addresses, not its loopback", () => {
    const got = machineAddresses({
      lo: [{ address: '127.0.0.1', internal: true } as never],
      eth0: [{ address: '192.0.2.2', internal: false } as never, { address: 'fe80::1%eth0', internal: false } as never],
    });
    assert.deepEqual(got, ['192.0.2.2', 'fe80::1']);
  });

  it("lets GitHub's API through as the runtime's host rules would: deny wins, an allow list must name it, a blocked domain covers its subdomains", () => {
    const through = (settings: Parameters<typeof resolveWorkerNetwork>[0]) => letsThrough(resolveWorkerNetwork(settings, MACHINE), GITHUB_API_HOST);
    assert.deepEqual(
      [
        through({ mode: 'internet' }),
        through({ mode: 'allow' }),
        through({ mode: 'internet', allowedHosts: ['API.github.com'] }),
        through({ mode: 'internet', allowedHosts: ['*.github.com', 'registry.example.test'] }),
        through({ mode: 'allow', blockedHosts: ['example.test'] }),
      ],
      [true, true, true, true, true],
    );
    assert.deepEqual(
      [
        through({ mode: 'deny' }),
        through({ mode: 'internet', allowedHosts: ['registry.example.test'] }),
        through({ mode: 'internet', allowedHosts: ['github.com'] }),
        through({ mode: 'allow', blockedHosts: ['*.github.com'] }),
        through({ mode: 'allow', blockedHosts: ['GitHub.com'] }),
        through({ mode: 'allow', blockedHosts: ['*'] }),
        through({ mode: 'internet', allowedHosts: ['api.github.com'], blockedHosts: ['api.github.com'] }),
        // A bad entry cuts the network: closed, never open.
        through({ mode: 'allow', allowedHosts: ['https://api.github.com'] }),
      ],
      [false, false, false, false, false, false, false, false],
    );
  });

  it("a worker's disabled MCP servers join a test's, and a worker without them keeps what the test set", () => {
    const worker: SessionSpec = {
      role: 'worker',
      workingDirectory: '/w',
      systemMessage: '',
      permissions: () => ({ kind: 'reject' as const }),
      ownSession: true,
    };
    const extra = { disabledMcpServers: ['other'] };
    const off = buildSessionConfig({ ...worker, disabledMcpServers: [GITHUB_MCP_SERVER] } as SessionSpec, { provider: undefined, extra });
    assert.deepEqual(off.disabledMcpServers, ['other', GITHUB_MCP_SERVER]);
    assert.deepEqual(buildSessionConfig(worker, { provider: undefined, extra }).disabledMcpServers, ['other']);
    assert.equal(buildSessionConfig(worker, { provider: undefined }).disabledMcpServers, undefined);
  });
});
