// What a worker's shell reaches on the network, against the REAL runtime, Bubblewrap and
// slirp4netns, built as the extension builds Baton: a listener on this machine's own (non-loopback)
// address and on its loopback, tried by a worker with curl directly (as a raw client would) and
// through whatever proxy the sandbox gives it (as npm, pip or git would).
// - "internet" (the default): neither is reached, in a worktree with the shell trusted and in
//   place with it asked; the sandbox proxy says why, and the card shows the mode the runtime confirmed.
// - "allow": this machine's address is reached directly. The host's loopback is not: the runtime's
//   firewall always drops the slirp gateway that leads to it (measured), so only a host list, which
//   routes HTTP(S) through the sandbox proxy, reaches it.
// - allowedHosts with a test host name that the user's proxy (a test proxy here, with credentials)
//   resolves: that host reached, another refused by the sandbox proxy before the user's proxy sees it;
//   the credentials reach the proxy and never the worker's environment or the model.
// - a bad host entry: the card and Doctor name it, and the worker runs with no network.
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { machineAddresses, networkReport } from '../../src/core/workers/workerNetwork';
import { makeRepo, testGit } from '../support/gitFixture';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { waitFor } from '../support/waitFor';
import { afterEachCore } from '../support/afterEachCore';

interface Listener {
  server: http.Server;
  port: number;
  /** Request paths it answered, in order. */
  hits: string[];
}

async function listen(host: string, handler?: http.RequestListener): Promise<Listener> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    if (handler) return handler(req, res);
    res.end('LISTENER-OK');
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, port: (server.address() as AddressInfo).port, hits };
}

const close = (l: Listener | undefined): Promise<void> => new Promise((resolve) => (l ? l.server.close(() => resolve()) : resolve()));

describe('worker network (real runtime, Bubblewrap, slirp4netns, scripted model)', function () {
  this.timeout(180_000);
  let core: CoreFixture;
  let listener: Listener;
  let upstream: Listener | undefined;
  /** This machine's own IPv4 address (not loopback). */
  let own: string;

  const backgroundDone = (): number => core.events.filter((e) => e.type === 'turn.completed' && e.origin.channel === 'background').length;

  /** One worker task: `command` through the bash tool, then a report; the orchestrator's answer to its result. */
  const scriptShell = (worker: string, command: string): void => {
    const mine = (r: { systemText: string }) => r.systemText.includes(`You are '${worker}'`);
    core.server.on(
      { predicate: (r) => mine(r) && !r.messages.some((m) => m.role === 'tool'), name: `${worker} probe` },
      { toolCalls: [{ id: `${worker}-1`, name: 'bash', arguments: { command, description: 'probe the network' } }] },
    );
    core.server.on({ predicate: (r) => mine(r) && r.messages.some((m) => m.role === 'tool'), name: `${worker} report` }, { text: `${worker}: probed` });
    core.server.on({ lastUserIncludes: `[Background task completed] Worker '${worker}'`, name: `result of ${worker}` }, { text: `noted ${worker}` });
  };

  /** Runs a worker that curls each target directly and through the sandbox's proxy; its output lines by label. */
  const probe = async (
    worker: string,
    targets: Record<string, string>,
    opts: { isolation?: 'worktree' | 'none'; workingDir?: string; extra?: string } = {},
  ): Promise<Map<string, { direct: string; proxied: string; body: string }>> => {
    const lines = Object.entries(targets).map(
      ([label, url]) =>
        `echo "${label} direct=$(curl --noproxy '*' -s -m 2 -o /dev/null -w '%{http_code}' '${url}/${worker}-${label}-direct') ` +
        `proxied=$(curl -s -m 5 -w ' %{http_code}' '${url}/${worker}-${label}-proxied' | tr '\\n' ' ')"`,
    );
    scriptShell(worker, [...lines, opts.extra ?? ''].join('\n'));
    core.workerSettings.isolation = opts.isolation ?? 'worktree';
    await core.pool.create({ name: worker, workingDir: opts.workingDir ?? repo, prompt: `TASK-${worker}: probe the network` });
    await waitFor(`${worker} to finish`, () => core.pool.list().find((w) => w.name === worker && w.state === 'done'), 60_000);
    const expected = ++results;
    await waitFor(`the result of ${worker}`, () => backgroundDone() >= expected);
    const out = toolOutput(worker);
    const found = new Map<string, { direct: string; proxied: string; body: string }>();
    for (const m of out.matchAll(/^(\w+) direct=(\d+) proxied=(.*?)\s*(\d{3})\s*$/gm)) found.set(m[1]!, { direct: m[2]!, proxied: m[4]!, body: m[3]! });
    assert.deepEqual([...found.keys()], Object.keys(targets), `every target was tried:\n${out}`);
    return found;
  };
  let results = 0;
  let repo: string;

  const toolOutput = (worker: string): string =>
    core.server
      .chatRequests()
      .filter((r) => r.systemText.includes(`You are '${worker}'`))
      .at(-1)!
      .messages.filter((m) => m.role === 'tool')
      .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
      .join('\n');

  const card = (worker: string) => core.pool.list().find((w) => w.name === worker)!;

  beforeEach(async () => {
    results = 0;
    core = await startCore();
    repo = await makeRepo(testGit(), join(core.home, 'dev', 'app'), { 'README.md': '# app\n' });
    // Dual-stack on every address: this machine's own and its loopback.
    listener = await listen('::');
    const v4 = machineAddresses().filter((a) => /^\d+\.\d+\.\d+\.\d+$/.test(a));
    assert.ok(v4.length, 'this machine needs a non-loopback IPv4 address for these tests');
    own = v4[0]!;
  });

  afterEachCore(() => core, {
    afterDispose: async () => {
      await close(listener);
      await close(upstream);
      upstream = undefined;
    },
  });

  const machineTargets = (): Record<string, string> => ({
    own: `http://${own}:${listener.port}`,
    loopback: `http://127.0.0.1:${listener.port}`,
    localhost: `http://localhost:${listener.port}`,
  });

  it('"internet" (the default) reaches neither this machine\'s address nor its loopback: in a worktree trusted, in place asked', async () => {
    assert.equal(core.workerSettings.network, undefined, 'the default setting');
    core.workerSettings.trustWorkingDir = true;
    const trusted = await probe('roamer', machineTargets());
    core.workerSettings.trustWorkingDir = false;
    core.broker.answer = 'worker';
    const asked = await probe('homebody', machineTargets(), { isolation: 'none' });

    assert.deepEqual(listener.hits, [], 'no worker reached a listener on this machine');
    for (const [worker, found] of [
      ['roamer', trusted],
      ['homebody', asked],
    ] as const) {
      for (const [label, r] of found) {
        assert.equal(r.direct, '000', `${worker} ${label}: a direct connection fails`);
        assert.equal(r.proxied, '403', `${worker} ${label}: the sandbox proxy refuses it`);
        assert.match(r.body, /Sandbox host policy denied the destination/);
      }
    }
    assert.equal(card('roamer').isolation?.kind, 'worktree');
    assert.equal(card('homebody').isolation?.kind, 'in-place');
    assert.deepEqual(
      core.broker.asked.map((p) => [p.worker, p.kind]),
      [['homebody', 'shell']],
      'only the untrusted worker was asked',
    );
    for (const w of ['roamer', 'homebody']) {
      const net = card(w).sandbox?.network;
      assert.equal(net?.mode, 'internet');
      assert.equal(net?.verified, true, `${w}: the runtime reported the mode`);
      assert.match(net!.line, /^network: internet over HTTP\(S\), not this machine or the local network$/);
      assert.equal(net!.brief, 'internet only', `${w}: the card's few words`);
    }
  });

  it('"allow" reaches this machine\'s address; the host\'s loopback only through the sandbox proxy, which a host list turns on', async () => {
    core.workerSettings.trustWorkingDir = true;
    core.workerSettings.network = 'allow';
    const open = await probe('opener', machineTargets(), { isolation: 'none' });
    assert.deepEqual(
      [...open].map(([label, r]) => [label, r.direct]),
      [
        ['own', '200'],
        ['loopback', '000'],
        ['localhost', '000'],
      ],
    );
    assert.deepEqual(listener.hits, ['/opener-own-direct'], "this machine's address, directly; the loopback, not at all");
    assert.match(card('opener').sandbox!.network!.line, /everything, this machine.s addresses and the local network included/);
    assert.equal(card('opener').sandbox!.network!.verified, true);

    // A host list routes HTTP(S) through the sandbox proxy, which (in "allow") reaches local addresses: only the listed one.
    core.workerSettings.allowedHosts = ['localhost'];
    listener.hits.length = 0;
    const listed = await probe('lister', machineTargets(), { isolation: 'none' });
    assert.deepEqual(
      [...listed].map(([label, r]) => [label, r.direct, r.proxied]),
      [
        ['own', '000', '403'],
        ['loopback', '000', '403'],
        ['localhost', '000', '200'],
      ],
    );
    assert.deepEqual(listener.hits, ['/lister-localhost-proxied']);
  });

  it("allowedHosts: a test host the user's proxy resolves is reached, another refused; the proxy's credentials never reach the worker", async () => {
    // The user's proxy, as a test stands in for it: it resolves api.baton.test to the listener and nothing else.
    upstream = await listen('127.0.0.1', (req, res) => {
      const target = new URL(req.url ?? '');
      if (target.hostname !== 'api.baton.test') return void res.writeHead(502).end('NOT-MAPPED');
      http.get({ host: '127.0.0.1', port: listener.port, path: target.pathname }, (r) => r.pipe(res)).on('error', () => res.writeHead(502).end());
    });
    const auth = new Map<string, string | undefined>();
    upstream.server.prependListener('request', (req: http.IncomingMessage) => auth.set(req.url ?? '', req.headers['proxy-authorization']));
    core.workerSettings.trustWorkingDir = true;
    core.workerSettings.proxy = `http://alice:s3cret-PW@127.0.0.1:${upstream.port}`;
    core.workerSettings.allowedHosts = ['api.baton.test'];
    const found = await probe('fetcher', { named: 'http://api.baton.test', other: 'http://other.baton.test' }, { extra: 'env | sort' });

    assert.equal(found.get('named')?.proxied, '200');
    assert.match(found.get('named')!.body, /LISTENER-OK/);
    assert.equal(found.get('other')?.proxied, '403', 'refused by the sandbox proxy');
    assert.deepEqual(listener.hits, ['/fetcher-named-proxied']);
    assert.deepEqual([...auth.keys()], ['http://api.baton.test/fetcher-named-proxied'], 'the refused host never reached the user proxy');
    assert.equal(auth.get('http://api.baton.test/fetcher-named-proxied'), `Basic ${Buffer.from('alice:s3cret-PW').toString('base64')}`);
    const env = toolOutput('fetcher');
    assert.match(env, /^HTTPS?_PROXY=http:\/\/[\d.]+:\d+$/m, "the worker's environment names the sandbox proxy");
    assert.ok(!env.includes(`127.0.0.1:${upstream.port}`), "the worker's environment does not name the user's proxy");
    for (const req of core.server.requests) assert.ok(!JSON.stringify(req).includes('s3cret-PW'), `the proxy password reached the model in ${req.path}`);
    assert.match(card('fetcher').sandbox!.network!.line, /only api\.baton\.test; via your proxy http:\/\/127\.0\.0\.1:\d+ \(signed in\)$/);
  });

  it('a bad host entry is named on the card and in Doctor, and the worker runs with no network', async () => {
    core.workerSettings.trustWorkingDir = true;
    core.workerSettings.network = 'allow';
    core.workerSettings.blockedHosts = ['https://tracker.example/'];
    const found = await probe('strict', { own: `http://${own}:${listener.port}` }, { isolation: 'none' });
    assert.equal(found.get('own')?.direct, '000');
    assert.deepEqual(listener.hits, []);
    const net = card('strict').sandbox!.network!;
    assert.equal(net.mode, 'deny');
    assert.equal(net.verified, true);
    assert.equal(net.line, "network off: baton.workers.blockedHosts: 'https://tracker.example/' is a URL; give the host name alone (registry.npmjs.org)");
    const report = core.pool.setup.network();
    assert.deepEqual(
      report.problems.map((p) => [p.setting, p.entry, p.problem]),
      [['baton.workers.blockedHosts', 'https://tracker.example/', 'url']],
    );
    // What Baton: Doctor shows for it.
    const doctor = networkReport(report, core.sessions.sandboxSupport, core.pool.list());
    assert.equal(doctor.ok, false);
    assert.match(doctor.text, /^network off: baton\.workers\.blockedHosts: 'https:\/\/tracker\.example\/' is a URL.*until then workers run with no network\.$/);
  });
});
