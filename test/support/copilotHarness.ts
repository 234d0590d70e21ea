/**
 * Starts the REAL Copilot SDK client and bundled runtime against a ScriptedModelServer, hermetically: a from-scratch
 * environment, temp HOME/XDG/COPILOT_HOME dirs, and every proxy variable pointed at the scripted server so a stray
 * internet call shows up as a refused CONNECT instead of leaving the machine.
 *
 * MEASURED (SDK 1.0.14, bundled runtime 1.0.85; test/integration/harness.integration.test.ts re-checks both):
 * (a) Env-only auth works, WITHOUT the gitHubToken option, as long as useLoggedInUser is left at its default (true when
 *     no gitHubToken is given; `false` adds --no-auto-login and then no env token is read: "Not authenticated").
 *     - GH_TOKEN=<anything> or GITHUB_TOKEN=<anything>: authenticated (authType "gh-cli", no gh binary needed); every
 *       request carries `Authorization: Bearer <value>`.
 *     - COPILOT_GITHUB_TOKEN: only with a gho_/ghu_/github_pat_ prefix (authType "env"); "fake" or ghp_... are
 *       ignored (not authenticated, no request is made). When valid it wins over GH_TOKEN.
 *     So an e2e run can rely on env alone with GH_TOKEN=fake (or COPILOT_GITHUB_TOKEN=gho_fake).
 * (b) Yes. A session created with `configDirectory: D` keeps its state in D/session-state/<id>/ (events.jsonl,
 *     workspace.yaml, checkpoints), nothing under COPILOT_HOME/session-state; client.listSessions() and
 *     getLastSessionId() do not see it and getSessionMetadata(id) is undefined. resumeSession(id) without the same
 *     configDirectory fails ("Session not found"); with it, the history is back and the session answers.
 *
 * Other measured facts: BYOK requests carry no x-client-session-id (hence the provider header added below); the
 * runtime picks claude-sonnet-4.6 by default from the scripted model list; usage on the finish chunk becomes
 * assistant.usage {inputTokens, outputTokens}. Medians, 2 cores: start 35 ms, createSession 30 ms, first turn of a
 * session 176 ms, later plain turns 17 ms, tool round trip 36 ms, dispose 290 ms.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  CopilotClient as CopilotClientInstance,
  CopilotClientOptions,
  CopilotSession,
  ModelInfo,
  PermissionHandler,
  SessionConfig,
  SessionEvent,
} from '@github/copilot-sdk' with { 'resolution-mode': 'require' };
import { trackTempDir } from './leaks';
import { ScriptedModelServer } from './scriptedModelServer';

// The SDK ships CJS under its "require" export, but its package is "type": "module", so with module Node16 TypeScript
// types it as ESM and rejects a static value import from this CommonJS file (TS1479); the require itself is fine.
export const sdk = require('@github/copilot-sdk') as typeof import('@github/copilot-sdk', { with: { 'resolution-mode': 'require' } });
export const { CopilotClient, defineTool } = sdk;
export type { CopilotClientInstance, CopilotSession, SessionConfig, SessionEvent };

/** Approves every tool permission prompt, once. */
export const approveEverything: PermissionHandler = () => ({ kind: 'approve-once' });

/**
 * An environment built from nothing but PATH: the runtime must not see the developer's tokens, gh login, proxies or
 * ~/.copilot. Proxies point at the scripted server, which refuses CONNECT, so an unexpected internet call fails fast
 * and is recorded in `server.strayRequests`.
 */
export function hermeticEnv(serverUrl: string, root: string): Record<string, string> {
  const noProxy = '127.0.0.1,localhost,::1';
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: join(root, 'home'),
    XDG_CONFIG_HOME: join(root, 'xdg', 'config'),
    XDG_STATE_HOME: join(root, 'xdg', 'state'),
    XDG_CACHE_HOME: join(root, 'xdg', 'cache'),
    XDG_DATA_HOME: join(root, 'xdg', 'data'),
    GH_CONFIG_DIR: join(root, 'gh'),
    TMPDIR: join(root, 'tmp'),
    COPILOT_HOME: join(root, 'copilot-home'),
    COPILOT_DEBUG_GITHUB_API_URL: serverUrl,
    COPILOT_API_URL: serverUrl,
    HTTP_PROXY: serverUrl,
    HTTPS_PROXY: serverUrl,
    http_proxy: serverUrl,
    https_proxy: serverUrl,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
    GH_TOKEN: '',
    GITHUB_TOKEN: '',
  };
}

/** The directories hermeticEnv names, created up front so the runtime never falls back to a default location. */
async function makeEnvDirs(env: Record<string, string>, root: string): Promise<void> {
  const keys = ['HOME', 'XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'GH_CONFIG_DIR', 'TMPDIR', 'COPILOT_HOME'];
  await Promise.all(keys.map((k) => mkdir(env[k] ?? join(root, k), { recursive: true })));
}

export interface HarnessOptions {
  /** Share a server between harnesses; dispose() then leaves it running. */
  server?: ScriptedModelServer;
  /** Merged over hermeticEnv (e.g. `{ GH_TOKEN: 'fake' }`). */
  env?: Record<string, string>;
  /** Token passed as the client's gitHubToken option; null omits the option so auth comes from `env` alone. */
  gitHubToken?: string | null;
  /** Further client options; env and baseDirectory are the harness's. */
  client?: Omit<CopilotClientOptions, 'env' | 'baseDirectory'>;
  /** Session config defaults applied by sessionConfig() before its `extra`. */
  session?: Partial<SessionConfig>;
}

export interface Harness {
  readonly server: ScriptedModelServer;
  readonly client: CopilotClientInstance;
  readonly env: Record<string, string>;
  /** Temp root holding every directory below; removed by dispose(). */
  readonly root: string;
  /** COPILOT_HOME and the client's baseDirectory. */
  readonly copilotHome: string;
  /** The runtime's working directory: an empty dir, so no repo instructions or git state leak into prompts. */
  readonly workspace: string;
  /** PID of the spawned runtime, if the SDK spawned one. */
  readonly runtimePid: number | undefined;
  /** streaming, github-mcp-server disabled, approve-everything permissions, then the harness defaults, then `extra`. */
  sessionConfig(extra?: Partial<SessionConfig>): SessionConfig;
  dispose(): Promise<void>;
}

/** Starts the real client/runtime in Copilot API mode, authenticated with a fake token against the scripted server. */
export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  return launch(opts, {});
}

/**
 * BYOK mode: no GitHub identity at all, the session talks to `<server>/v1` as an OpenAI-compatible provider. The
 * runtime cannot list models without a login, so the client answers listModels from the scripted server's list.
 */
export async function byokHarness(opts: HarnessOptions = {}): Promise<Harness> {
  return launch({ ...opts, gitHubToken: opts.gitHubToken === undefined ? null : opts.gitHubToken }, { byok: true });
}

async function launch(opts: HarnessOptions, mode: { byok?: boolean }): Promise<Harness> {
  const root = await mkdtemp(join(tmpdir(), 'baton-harness-'));
  trackTempDir(root);
  const ownsServer = opts.server === undefined;
  let server: ScriptedModelServer | undefined;
  let client: CopilotClientInstance | undefined;
  let runtimePid: number | undefined;
  const cleanup = async (): Promise<void> => {
    if (client) await stopClient(client, runtimePid);
    if (server && ownsServer) await server.close();
    await rm(root, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
  };
  try {
    server = opts.server ?? (await ScriptedModelServer.start());
    const env = { ...hermeticEnv(server.url, root), ...opts.env };
    const copilotHome = env.COPILOT_HOME!;
    const workspace = join(root, 'workspace');
    await makeEnvDirs(env, root);
    await mkdir(workspace, { recursive: true });

    const token = opts.gitHubToken === undefined ? 'fake' : opts.gitHubToken;
    const srv = server;
    client = new CopilotClient({
      workingDirectory: workspace,
      ...(token !== null ? { gitHubToken: token } : {}),
      ...(mode.byok ? { useLoggedInUser: false, onListModels: () => modelInfos(srv.modelIds()) } : {}),
      ...opts.client,
      env,
      baseDirectory: copilotHome,
    });
    await client.start();
    runtimePid = runtimeProcess(client)?.pid;

    // In BYOK mode the runtime sends no x-client-session-id, so the harness fixes the session id up front and sends it
    // as a provider header: `sessionId` rules then work in both modes. Resume with sessionConfig({ sessionId }).
    const byokDefaults = (sessionId: string): Partial<SessionConfig> => ({
      sessionId,
      model: srv.modelIds()[0],
      provider: {
        type: 'openai',
        baseUrl: `${srv.url}/v1`,
        apiKey: 'test',
        headers: { 'x-client-session-id': sessionId },
      },
    });
    let disposed: Promise<void> | undefined;
    return {
      server,
      client,
      env,
      root,
      copilotHome,
      workspace,
      runtimePid,
      sessionConfig: (extra = {}) => ({
        streaming: true,
        disabledMcpServers: ['github-mcp-server'],
        onPermissionRequest: approveEverything,
        ...(mode.byok ? byokDefaults(extra.sessionId ?? opts.session?.sessionId ?? randomUUID()) : {}),
        ...opts.session,
        ...extra,
      }),
      dispose: () => (disposed ??= cleanup()),
    };
  } catch (err) {
    await cleanup().catch(() => undefined);
    throw err;
  }
}

/** Graceful stop with a deadline, then forceStop, then SIGKILL of the runtime PID if it somehow survived. */
async function stopClient(client: CopilotClientInstance, pid: number | undefined): Promise<void> {
  try {
    const errors = await withDeadline(client.stop(), 5000);
    if (errors.length > 0) await client.forceStop();
  } catch {
    await client.forceStop().catch(() => undefined);
  }
  if (pid !== undefined && isAlive(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // exited between the check and the kill
    }
  }
}

// The SDK does not expose its child; reading the private field is the only way to make sure no runtime outlives a
// test. Returns undefined if a later SDK renames it, which only weakens the leftover-kill, never breaks dispose().
function runtimeProcess(client: CopilotClientInstance): ChildProcess | undefined {
  const child = (client as unknown as { cliProcess?: ChildProcess | null }).cliProcess;
  return child ?? undefined;
}

/** Whether process `pid` still runs. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/** ModelInfo for ids the scripted server lists: what BYOK's onListModels returns. */
export function modelInfos(ids: string[]): ModelInfo[] {
  return ids.map((id): ModelInfo => ({
    id,
    name: id,
    capabilities: {
      supports: { vision: false, reasoningEffort: false },
      limits: { max_context_window_tokens: 128000, max_prompt_tokens: 100000 },
    },
    policy: { state: 'enabled', terms: '' },
  }));
}

// ---- turn helpers ------------------------------------------------------------------------------------------------

export interface TurnResult {
  /** Every event from send() until session.idle, in order. */
  events: SessionEvent[];
  /** deltaContent of each assistant.message_delta. */
  deltas: string[];
  /** Content of the last assistant.message, if any. */
  content: string | undefined;
  /** data of the first session.error, if any. */
  error: Extract<SessionEvent, { type: 'session.error' }>['data'] | undefined;
  ms: number;
}

/**
 * send() and wait for session.idle, collecting events. Preferred over sendAndWait, which after a session.error can
 * resolve undefined on the next call and hides which events arrived.
 */
export async function runTurn(session: CopilotSession, prompt: string, timeoutMs = 10_000): Promise<TurnResult> {
  const events: SessionEvent[] = [];
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  let unsubscribe: () => void = () => undefined;
  const idle = new Promise<void>((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`runTurn: no session.idle within ${timeoutMs} ms; saw ${events.map((e) => e.type).join(', ')}`)), timeoutMs);
    unsubscribe = session.on((event) => {
      events.push(event);
      if (event.type === 'session.idle') resolve();
    });
  });
  // Subscribed before send() so no early event is missed; if send() throws, the idle wait must not reject unobserved.
  idle.catch(() => undefined);
  try {
    await session.send(prompt);
    await idle;
  } finally {
    clearTimeout(timer);
    unsubscribe();
  }
  const deltas: string[] = [];
  let content: string | undefined;
  let error: TurnResult['error'];
  for (const e of events) {
    if (e.type === 'assistant.message_delta') deltas.push(e.data.deltaContent);
    else if (e.type === 'assistant.message') content = e.data.content;
    else if (e.type === 'session.error' && !error) error = e.data;
  }
  return { events, deltas, content, error, ms: Date.now() - started };
}

/** Resolves with the first event of `type` (optionally also satisfying `where`), or rejects after timeoutMs. */
export function waitForEvent<K extends SessionEvent['type']>(
  session: CopilotSession,
  type: K,
  timeoutMs = 10_000,
  where: (e: Extract<SessionEvent, { type: K }>) => boolean = () => true,
): Promise<Extract<SessionEvent, { type: K }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`waitForEvent: no ${type} within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = session.on((event) => {
      if (event.type !== type) return;
      const typed = event as Extract<SessionEvent, { type: K }>;
      if (!where(typed)) return;
      clearTimeout(timer);
      off();
      resolve(typed);
    });
  });
}
