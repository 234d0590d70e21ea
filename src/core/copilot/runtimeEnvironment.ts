// The runtime process's environment, built by allowlist: every shell a worker runs inherits it,
// and no denylist can name every secret a user's environment holds (ACME_API_KEY, AWS keys, npm
// tokens, database URLs, an SSH agent socket). Only what a build needs passes, plus what the user
// names in baton.workers.environment. The orchestrator's GitHub token never travels this way: it
// goes to each session over the SDK's connection (a session-level token never reaches a shell).
import { shownVariableName } from '../util/typedSetting';
import { makePathSafe } from '../util/safePath';

/** baton.workers.environment: a name mapped to `true` passes through from VS Code's environment; to a string, is set to it. */
export type EnvironmentSetting = Readonly<Record<string, string | boolean>>;

/** What the runtime's environment left out or changed, by name only (Doctor shows it; values never). */
export interface EnvironmentReport {
  /** Names in the source environment that the runtime does not get. */
  withheld: string[];
  /** Proxy variables whose `user:pass@` was removed. */
  strippedProxyCredentials: string[];
  /** Names the setting asked for that Baton never passes (its own credentials go over the connection). */
  refused: string[];
  /** Entries of the setting no process can be given (a name with `=` or a NUL, a value with a NUL), by name up to any `=`. */
  unusable?: string[];
}

/** Variables that carry Baton's own credentials: never passed, not even when named in the setting. */
const CREDENTIAL_VARIABLES = new Set([
  'COPILOT_GITHUB_TOKEN',
  'GH_TOKEN',
  'GITHUB_TOKEN',
  'GH_ENTERPRISE_TOKEN',
  'GITHUB_ENTERPRISE_TOKEN',
  'COPILOT_SDK_AUTH_TOKEN',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'AZURE_OPENAI_API_KEY',
]);

const EXACT = new Set([
  'PATH',
  'HOME',
  'USER',
  'SHELL',
  'TERM',
  'TMPDIR',
  // The locale by its POSIX and glibc names, never a pattern: `LC_*` or `XDG_*_DIR` let any name through that a user or
  // a tool chose to start that way (an `LC_API_KEY`, an `XDG_VAULT_TOKEN_DIR`).
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_CTYPE',
  'LC_NUMERIC',
  'LC_TIME',
  'LC_COLLATE',
  'LC_MONETARY',
  'LC_MESSAGES',
  'LC_PAPER',
  'LC_NAME',
  'LC_ADDRESS',
  'LC_TELEPHONE',
  'LC_MEASUREMENT',
  'LC_IDENTIFICATION',
  // The XDG Base Directory folders: where the runtime and the tools a build runs keep their config, caches and state.
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
  'XDG_RUNTIME_DIR',
  'XDG_CONFIG_DIRS',
  'XDG_DATA_DIRS',
  // CA settings: a build behind a corporate proxy needs them.
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  'GIT_SSL_CAINFO',
  // Where the runtime reaches Copilot (GitHub Enterprise, a test server): dropping them would send the
  // user's token somewhere they did not choose. URLs, credentials stripped like a proxy's.
  'COPILOT_API_URL',
  'COPILOT_DEBUG_GITHUB_API_URL',
  'GH_HOST',
]);

/** Windows cannot start a process without these; names compare case-insensitively there. */
const WINDOWS = new Set([
  'SYSTEMROOT',
  'SYSTEMDRIVE',
  'WINDIR',
  'COMSPEC',
  'PATHEXT',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
  'TEMP',
  'TMP',
  'PROGRAMDATA',
  'PROGRAMFILES',
  'USERNAME',
]);

const PROXIES = new Set(['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'NO_PROXY', 'FTP_PROXY']);
const URL_VARIABLES = new Set([...PROXIES, 'COPILOT_API_URL', 'COPILOT_DEBUG_GITHUB_API_URL', 'GH_HOST']);

function allowedByDefault(name: string, platform: NodeJS.Platform): boolean {
  const upper = name.toUpperCase();
  if (PROXIES.has(upper)) return true;
  if (platform === 'win32' && (WINDOWS.has(upper) || EXACT.has(upper))) return true;
  return EXACT.has(name);
}

/** What a process can be given: a name without `=` or NUL (nor blank), a value without NUL; else spawn throws. */
function usable(name: string, value: string | boolean): boolean {
  return name !== '' && !/[=\0]/.test(name) && !(typeof value === 'string' && value.includes('\0'));
}

/**
 * A URL without its `user:pass@`; undefined when it had none. Proxies are often written without a scheme
 * (`user:pass@proxy:3128`, which curl and npm accept) and passwords with a raw `@` or `/` in them: everything up to the
 * last `@` goes, so no part of a password is left (a proxy or API URL has no `@` of its own after its host).
 */
export function withoutUrlCredentials(value: string): string | undefined {
  const at = value.lastIndexOf('@');
  if (at < 0) return undefined;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(value)?.[0] ?? '';
  return scheme + value.slice(at + 1);
}

/**
 * The runtime's environment from `source` (VS Code's own), the allowlist and the user's setting,
 * with what was left out by name. Pure: the same inputs give the same environment.
 */
export function buildRuntimeEnvironment(
  source: Readonly<Record<string, string | undefined>>,
  setting: EnvironmentSetting = {},
  platform: NodeJS.Platform = process.platform,
): { env: Record<string, string>; report: EnvironmentReport } {
  const env: Record<string, string> = {};
  const unusable: string[] = [];
  const report: EnvironmentReport = { withheld: [], strippedProxyCredentials: [], refused: [], unusable };
  const isCredential = (name: string): boolean => CREDENTIAL_VARIABLES.has(platform === 'win32' ? name.toUpperCase() : name);
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    const named = setting[name] === true;
    if (isCredential(name) || (!named && !allowedByDefault(name, platform))) {
      report.withheld.push(name);
      continue;
    }
    const stripped = URL_VARIABLES.has(name.toUpperCase()) ? withoutUrlCredentials(value) : undefined;
    if (stripped !== undefined) report.strippedProxyCredentials.push(name);
    env[name] = stripped ?? value;
  }
  for (const [name, value] of Object.entries(setting)) {
    // One such entry made the runtime fail to start, so every turn failed: it is left out and named instead.
    if (!usable(name, value)) {
      unusable.push(shownVariableName(name));
      continue;
    }
    if (isCredential(name)) {
      report.refused.push(name);
      continue;
    }
    if (typeof value !== 'string') continue;
    // A proxy's password set here is a secret all the same: a worker's shell would read it (README: removed, named).
    const stripped = URL_VARIABLES.has(name.toUpperCase()) ? withoutUrlCredentials(value) : undefined;
    if (stripped !== undefined && !report.strippedProxyCredentials.includes(name)) report.strippedProxyCredentials.push(name);
    env[name] = stripped ?? value;
  }
  // The runtime runs git, ripgrep and bubblewrap by name in a worker's folder: never resolved there (safePath.ts).
  makePathSafe(env, platform);
  report.withheld = report.withheld.filter((name) => env[name] === undefined).sort();
  report.strippedProxyCredentials.sort();
  report.refused.sort();
  unusable.sort();
  return { env, report };
}

/** The GitHub token the environment carried, in the CLI's precedence; it goes to sessions over the connection. */
export function gitHubTokenOf(env: Readonly<Record<string, string | undefined>>): string | undefined {
  return [env.COPILOT_GITHUB_TOKEN, env.GH_TOKEN, env.GITHUB_TOKEN].find((t) => t && t.trim())?.trim();
}

/** Doctor's line: names only, never a value. */
export function describeEnvironmentReport(report: EnvironmentReport): string {
  const parts = [
    report.withheld.length ? `withheld from workers: ${report.withheld.join(', ')}` : 'nothing withheld',
    ...(report.strippedProxyCredentials.length ? [`user:password removed from ${report.strippedProxyCredentials.join(', ')}`] : []),
    ...(report.refused.length ? [`never passed although baton.workers.environment names them: ${report.refused.join(', ')}`] : []),
    ...(report.unusable?.length
      ? [`left out of baton.workers.environment, no process can take them (a name with = or a NUL, a value with a NUL): ${report.unusable.join(', ')}`]
      : []),
  ];
  return parts.join('; ');
}
