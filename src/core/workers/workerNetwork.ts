// What a worker's shell may reach on the network, from Baton's settings to the runtime's sandbox
// policy. Measured with the bundled runtime (1.0.85, Bubblewrap + slirp4netns; README "Security"):
// - allowOutbound alone runs each command in its own network namespace behind a firewall that
//   drops only the host's loopback: this machine's other addresses and the whole local network
//   stay reachable, whatever allowLocalNetwork says.
// - A non-empty allowedHosts/blockedHosts switches the runtime to proxy-only egress: direct
//   connections are dropped, HTTP(S) goes through the runtime's own sandbox proxy, which (with
//   allowLocalNetwork false) refuses loopback, private (10/8, 172.16/12, 192.168/16), link-local
//   (169.254/16, the cloud metadata endpoint) and IPv6 ULA destinations, names resolving to them
//   included, and every blocked host (deny wins over allow).
// So 'internet' always carries a host list: this machine's own addresses (which need not be in a
// private range) and the metadata address, which also keeps the list non-empty on a machine
// without a network. The runtime refuses a proxy whose credentials are not in their own fields,
// and authenticates to a proxy only through its sandbox proxy (again only with a host list); the
// worker's shell then sees only that proxy's address, never the user's proxy or its password.
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

export type NetworkMode = 'internet' | 'allow' | 'deny';

/** The user's HTTP(S) proxy as the runtime takes it: credentials never inside the URL. */
export interface ProxySetting {
  url: string;
  username?: string;
  password?: string;
}

export type NetworkSetting = 'baton.workers.allowedHosts' | 'baton.workers.blockedHosts' | 'http.proxy';
export type NetworkProblem = 'empty' | 'url' | 'port' | 'wildcard' | 'not-a-host' | 'proxy-url' | 'proxy-scheme';

const PROBLEM_TEXT: Record<NetworkProblem, string> = {
  empty: 'is empty',
  url: 'is a URL; give the host name alone (registry.npmjs.org)',
  port: 'has a port; host rules match every port of a host',
  wildcard: "has a wildcard the runtime does not take (only a leading '*.' for subdomains, or '*' alone in blockedHosts)",
  'not-a-host': 'is not a host name or an IP address',
  'proxy-url': 'is not a URL (http://host:port)',
  'proxy-scheme': 'is not an http:// or https:// proxy; the sandbox takes no other kind',
};

/** A setting entry the runtime would refuse: the worker's network is cut until it is fixed. */
export class NetworkSettingError extends Error {
  constructor(
    readonly setting: NetworkSetting,
    readonly entry: string,
    readonly problem: NetworkProblem,
  ) {
    super(`${setting}: '${entry}' ${PROBLEM_TEXT[problem]}`);
    this.name = 'NetworkSettingError';
  }
}

export interface NetworkSettings {
  /** baton.workers.network (default 'internet'). */
  mode: NetworkMode;
  allowedHosts?: string[];
  blockedHosts?: string[];
  /** The user's proxy URL (VS Code's http.proxy, else HTTPS_PROXY/HTTP_PROXY), credentials and all. */
  proxy?: string;
}

/** One worker's network, resolved: what Baton asks the runtime for, and why it differs from the setting. */
export interface WorkerNetwork {
  /** The setting. */
  requested: NetworkMode;
  /** In force: 'deny' while a setting is bad (closed, never open). */
  mode: NetworkMode;
  allowedHosts: string[];
  blockedHosts: string[];
  /** Baton's own entries in blockedHosts ('internet'): this machine's addresses and the metadata endpoint. */
  machineBlocked: string[];
  proxy?: ProxySetting;
  problems: NetworkSettingError[];
}

// The link-local metadata endpoint of AWS, Azure, GCP and others: the sandbox proxy refuses it already
// (link-local), named anyway so the host list is never empty (see the file's head).
const METADATA = '169.254.169.254';
// Gives the runtime a host list (so it starts its sandbox proxy, the only way it authenticates to the
// user's proxy) while matching nothing: '.invalid' never resolves (RFC 2606).
const PROXY_AUTH_ONLY = 'baton-proxy-auth.invalid';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

/** Why the runtime would refuse `entry` as a host rule, or undefined when it is one. */
export function hostRuleProblem(entry: string, list: 'allowed' | 'blocked'): NetworkProblem | undefined {
  const e = entry.trim();
  if (!e) return 'empty';
  if (e.includes('://') || e.includes('/')) return 'url';
  if (isIP(e)) return undefined;
  if (e === '*') return list === 'blocked' ? undefined : 'wildcard';
  const host = e.startsWith('*.') ? e.slice(2) : e;
  if (host.includes('*')) return 'wildcard';
  if (/^\[.*\]/.test(host) || /:\d*$/.test(host)) return 'port';
  if (host.length > 253 || !host.split('.').every((l) => LABEL.test(l))) return 'not-a-host';
  return undefined;
}

/** The proxy URL split into the fields the runtime takes, or why it cannot be used. */
export function parseProxy(raw: string): ProxySetting | NetworkSettingError {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
  } catch {
    return new NetworkSettingError('http.proxy', redactProxy(text), 'proxy-url');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return new NetworkSettingError('http.proxy', redactProxy(text), 'proxy-scheme');
  const username = url.username ? decodeURIComponent(url.username) : undefined;
  const password = url.password ? decodeURIComponent(url.password) : undefined;
  return { url: `${url.protocol}//${url.host}`, ...(username ? { username } : {}), ...(password ? { password } : {}) };
}

/** A proxy URL fit to show: any user:password@ replaced. */
export function redactProxy(raw: string): string {
  return raw.replace(/\/\/[^/@]*@/, '//***@');
}

/** This machine's own addresses (not loopback): what 'internet' keeps workers off besides the local ranges. */
export function machineAddresses(ifaces: ReturnType<typeof networkInterfaces> = networkInterfaces()): string[] {
  const out = new Set<string>();
  for (const list of Object.values(ifaces)) for (const a of list ?? []) if (!a.internal) out.add(a.address.replace(/%.*$/, ''));
  return [...out];
}

export function resolveWorkerNetwork(settings: NetworkSettings, machine: string[] = machineAddresses()): WorkerNetwork {
  const problems: NetworkSettingError[] = [];
  const list = (entries: string[] | undefined, which: 'allowed' | 'blocked'): string[] => {
    const ok: string[] = [];
    for (const entry of entries ?? []) {
      const problem = hostRuleProblem(String(entry), which);
      if (problem)
        problems.push(new NetworkSettingError(which === 'allowed' ? 'baton.workers.allowedHosts' : 'baton.workers.blockedHosts', String(entry), problem));
      else ok.push(String(entry).trim());
    }
    return ok;
  };
  const allowedHosts = list(settings.allowedHosts, 'allowed');
  const userBlocked = list(settings.blockedHosts, 'blocked');
  let proxy: ProxySetting | undefined;
  if (settings.proxy?.trim()) {
    const parsed = parseProxy(settings.proxy);
    if (parsed instanceof NetworkSettingError) problems.push(parsed);
    else proxy = parsed;
  }
  const requested = settings.mode;
  if (requested === 'deny' || problems.length) {
    return { requested, mode: 'deny', allowedHosts: [], blockedHosts: [], machineBlocked: [], problems };
  }
  const machineBlocked = requested === 'internet' ? [...new Set([...machine, METADATA])] : [];
  const blockedHosts = [...new Set([...userBlocked, ...machineBlocked])];
  // Without a host list the runtime puts a credentialed proxy into the shell's URL, then refuses to run anything (measured).
  const signsIn = proxy?.username !== undefined || proxy?.password !== undefined;
  if (signsIn && !blockedHosts.length && !allowedHosts.length) blockedHosts.push(PROXY_AUTH_ONLY);
  return { requested, mode: requested, allowedHosts, blockedHosts, machineBlocked, ...(proxy ? { proxy } : {}), problems };
}

/** GitHub's API, which the runtime's built-in GitHub MCP server reads for a session with the user's token. */
export const GITHUB_API_HOST = 'api.github.com';

/**
 * Whether a host rule (as hostRuleProblem accepts it) covers `host`: the host itself, '*.' for its subdomains, '*' for
 * all; in blockedHosts a domain also covers its subdomains (as the runtime blocks them).
 */
function ruleCovers(rule: string, host: string, list: 'allowed' | 'blocked'): boolean {
  const r = rule.trim().toLowerCase();
  if (r === '*' || r === host) return true;
  if (r.startsWith('*.')) return host.endsWith(r.slice(1));
  return list === 'blocked' && host.endsWith(`.${r}`);
}

/**
 * Whether a worker's shell, under this network, could reach `host` (deny wins over allow, as in the runtime). The
 * built-in GitHub MCP server runs outside the sandbox, so a worker keeps it only when this holds for GitHub's API.
 */
export function letsThrough(n: WorkerNetwork, host: string): boolean {
  if (n.mode === 'deny') return false;
  const h = host.toLowerCase();
  if (n.blockedHosts.some((rule) => ruleCovers(rule, h, 'blocked'))) return false;
  return n.allowedHosts.length === 0 || n.allowedHosts.some((rule) => ruleCovers(rule, h, 'allowed'));
}

/** The network line of a worker's card and of Doctor: the mode in force, in a person's words. */
export function describeNetwork(n: WorkerNetwork): string {
  if (n.problems.length) return `network off: ${n.problems.map((p) => p.message).join('; ')}`;
  const base =
    n.mode === 'deny'
      ? 'network off'
      : n.mode === 'internet'
        ? 'network: internet over HTTP(S), not this machine or the local network'
        : "network: everything, this machine's addresses and the local network included";
  // With a host list the runtime lets out only what goes through its sandbox proxy (measured).
  const proxied = n.mode === 'allow' && (n.allowedHosts.length || n.blockedHosts.length) ? '; HTTP(S) only, through the sandbox proxy' : '';
  const only = n.mode !== 'deny' && n.allowedHosts.length ? `; only ${n.allowedHosts.join(', ')}` : '';
  const userBlocked = n.blockedHosts.filter((h) => !n.machineBlocked.includes(h) && h !== PROXY_AUTH_ONLY);
  const blocked = n.mode !== 'deny' && userBlocked.length ? `; never ${userBlocked.join(', ')}` : '';
  const via = n.mode !== 'deny' && n.proxy ? `; via your proxy ${n.proxy.url}${n.proxy.username ? ' (signed in)' : ''}` : '';
  return `${base}${proxied}${only}${blocked}${via}`;
}

/**
 * The card's network words: the mode, the host list when it is short, and the proxy, in a few words. The full line
 * (describeNetwork) is the card's tooltip: at a 300 px side bar it took four lines under every card.
 */
export function briefNetwork(n: WorkerNetwork): string {
  if (n.problems.length) return 'network off: a network setting is invalid';
  if (n.mode === 'deny') return 'network off';
  const hosts = n.allowedHosts.length > 2 ? `${n.allowedHosts.length} hosts` : n.allowedHosts.join(', ');
  const what = hosts ? `only ${hosts}` : n.mode === 'internet' ? 'internet only' : 'full network';
  return `${what}${n.proxy ? ' via your proxy' : ''}`;
}

/** Doctor's network line: the mode a worker started now gets, what Baton blocks, and what the runtime confirmed. */
export function networkReport(
  n: WorkerNetwork,
  support: { available: boolean; networkAvailable: boolean; networkReason?: string },
  workers: Array<{ name: string; sandbox?: { network?: { mode: NetworkMode; verified?: boolean } } }>,
): { ok: boolean; text: string } {
  if (n.problems.length) return { ok: false, text: `${describeNetwork(n)}. Fix the entries; until then workers run with no network.` };
  if (n.mode !== 'deny' && support.available && !support.networkAvailable) return { ok: false, text: `network off: ${support.networkReason ?? 'unavailable'}` };
  const proxy =
    n.proxy?.username !== undefined || n.proxy?.password !== undefined
      ? ' (its credentials go to the sandbox proxy in their own fields, never to a worker)'
      : '';
  // Counted, not listed: Doctor's report is meant to be pasted into a bug.
  const own = n.machineBlocked.filter((a) => a !== METADATA).length;
  const machine = n.machineBlocked.length ? `; Baton also blocks this machine's ${own} address${own === 1 ? '' : 'es'} and ${METADATA}` : '';
  const seen = workers.filter((w) => w.sandbox?.network?.verified).map((w) => `${w.name}: ${w.sandbox!.network!.mode}`);
  return { ok: true, text: `${describeNetwork(n)}${proxy}${machine}${seen.length ? `; as the runtime reports for ${seen.join(', ')}` : ''}` };
}
