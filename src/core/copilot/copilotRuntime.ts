// The one Copilot client (and so the one runtime process) that the orchestrator and every worker
// share: five sessions in one client cost ~124 MB, a client per session ~517 MB (measured).
// It starts lazily, on the first message or when the chat view opens, never at activation.
import { CopilotClient, RuntimeConnection, type CopilotClientOptions, type CopilotSession, type ModelInfo, type ProviderConfig } from '@github/copilot-sdk';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Emitter } from '../util/emitter';
import type { Logger } from '../util/logger';
import { withTimeout } from '../util/delay';
import type { ProviderSettings, RuntimeStats } from './agentSessions';
import { clientConnected } from './clientLoss';
import { AgentError } from './errors';
import { buildRuntimeEnvironment, gitHubTokenOf, type EnvironmentReport, type EnvironmentSetting } from './runtimeEnvironment';
import { createRuntimeTemp, removeRuntimeTemp, runtimeTempBase, sweepRuntimeTemps } from './runtimeTemp';
import { fromSdkError } from './sdkErrors';

export type { ProviderSettings, ProviderType } from './agentSessions';

export interface CopilotRuntimeOptions {
  provider: ProviderSettings;
  logger: Logger;
  /** The environment the runtime's is built from (by allowlist, runtimeEnvironment.ts); defaults to this process's. */
  env?: Record<string, string | undefined>;
  /** baton.workers.environment, read at each runtime start: names to pass through, values to set. */
  environment?: () => EnvironmentSetting;
  /** The Copilot home (COPILOT_HOME); undefined = the user's own (~/.copilot), so their sessions are visible. */
  copilotHome?: string;
  gitHubToken?: string;
  /** Model ids offered when the provider cannot list them (BYOK). */
  fallbackModels?: () => string[];
  /** The runtime's working directory (where it looks for repository instructions). */
  workingDirectory?: string;
  /** A different runtime executable (tests, or a user's own CLI). */
  runtimePath?: string;
}

export class CopilotRuntime {
  private current: CopilotClient | undefined;
  private starting: Promise<CopilotClient> | undefined;
  /** A restart under way (stop, then start): every caller of client() waits for the new runtime. */
  private restarting: Promise<void> | undefined;
  /** Sessions created or resumed on the current client (the idle restart's trigger reads it). */
  private opened = 0;
  private readonly didReset = new Emitter<string>();
  /** Fires with the reason after the client was torn down; sessions of the old client are gone. */
  readonly onDidReset = this.didReset.event;
  private disposed = false;
  /** The running runtime's own TMPDIR (runtimeTemp.ts), removed when it stops. */
  private temp: string | undefined;

  /** The GitHub token sessions carry (VS Code's sign-in, else one found in the environment); undefined: the CLI's own login. */
  readonly sessionToken: string | undefined;

  constructor(private options: CopilotRuntimeOptions) {
    this.sessionToken = options.gitHubToken ?? gitHubTokenOf(options.env ?? process.env);
  }

  /** The environment the runtime gets at its next start, and what it leaves out (names only). */
  environment(): { env: Record<string, string>; report: EnvironmentReport } {
    return buildRuntimeEnvironment(this.options.env ?? process.env, this.options.environment?.() ?? {});
  }

  get isStarted(): boolean {
    return this.current !== undefined;
  }

  /** The Copilot home the runtime uses (COPILOT_HOME): where the user's own sessions live. */
  get copilotHome(): string {
    return this.options.copilotHome ?? this.options.env?.COPILOT_HOME ?? process.env.COPILOT_HOME ?? join(homedir(), '.copilot');
  }

  get provider(): ProviderSettings {
    return this.options.provider;
  }

  /** New provider settings take effect at the next client start; callers reset when they must. */
  updateProvider(provider: ProviderSettings): void {
    this.options = { ...this.options, provider };
  }

  /** The started client; concurrent callers share one start. */
  /**
   * Lets the SDK client drop a session Baton is done with. The client keeps every session it opened in a private
   * registry until deleteSession or stop(), disconnected or not (measured with heap snapshots of the soak: one
   * CopilotSession per worker task ever run, ~20 KB each with its RPC closures); Baton's own sessions are removed
   * through their folder, not deleteSession (see CopilotAgentSessions.delete). Only this very object is dropped: a
   * session resumed since under the same id stays.
   */
  forget(session: CopilotSession): void {
    const registry = (this.current as unknown as { sessions?: Map<string, unknown> } | undefined)?.sessions;
    if (registry instanceof Map && registry.get(session.sessionId) === session) registry.delete(session.sessionId);
  }

  async client(): Promise<CopilotClient> {
    if (this.disposed) throw new AgentError('fatal', 'Baton is shutting down');
    // Nothing opens a session on a runtime being stopped: it would be gone with it.
    if (this.restarting) await this.restarting.catch(() => undefined);
    // A runtime that exited is not handed out: what is asked of it would never be answered (clientLoss.ts). Restarted
    // like an idle restart, so concurrent callers share the new one; the sessions of the old one are dropped (onDidReset).
    if (this.current && !clientConnected(this.current)) await this.restart('the Copilot runtime exited');
    if (this.current) return this.current;
    this.starting ??= this.start().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async start(): Promise<CopilotClient> {
    const { provider, runtimePath, logger, workingDirectory } = this.options;
    const byok = provider.type !== 'copilot';
    const { env, report } = this.environment();
    if (report.withheld.length) logger.info(`Runtime environment: ${report.withheld.length} variable(s) withheld from workers (Doctor lists them)`);
    const base = runtimeTempBase(env.TMPDIR);
    const swept = await sweepRuntimeTemps(base);
    if (swept) logger.info(`Removed ${swept} temp folder(s) of Copilot runtimes whose window is gone`);
    const temp = await createRuntimeTemp(base);
    const clientOptions: CopilotClientOptions = {
      env: process.platform === 'win32' ? env : { ...env, TMPDIR: temp },
      // The home Baton lists sessions from (and reads the user's MCP config and skills in): COPILOT_HOME is not on the
      // runtime's environment allowlist, so without it here the runtime used ~/.copilot while Baton read $COPILOT_HOME.
      baseDirectory: this.copilotHome,
      ...(workingDirectory ? { workingDirectory } : {}),
      logLevel: 'error',
      // With a token the sessions carry it; the runtime itself then needs no login of its own.
      ...(this.sessionToken && !byok ? { useLoggedInUser: false } : {}),
      ...(byok
        ? {
            useLoggedInUser: false,
            onListModels: () => (this.options.fallbackModels?.() ?? []).map(byokModel),
          }
        : {}),
      ...(runtimePath ? { connection: RuntimeConnection.forStdio({ path: runtimePath }) } : {}),
    };
    const started = Date.now();
    const client = new CopilotClient(clientOptions);
    await client.start().catch(async (err: unknown) => {
      await removeRuntimeTemp(temp);
      throw fromSdkError(err, 'start');
    });
    logger.info(`Copilot runtime started in ${Date.now() - started} ms (provider: ${provider.type})`);
    if (this.disposed) {
      await client.forceStop().catch(() => undefined);
      await removeRuntimeTemp(temp);
      throw new AgentError('fatal', 'Baton is shutting down');
    }
    this.current = client;
    this.temp = temp;
    this.opened = 0;
    return client;
  }

  /** Counts a session opened on the current client (created or resumed). */
  sessionOpened(): void {
    this.opened++;
  }

  /** The running runtime: its process and the sessions opened on it; undefined when not started. */
  stats(): RuntimeStats | undefined {
    const pid = this.runtimePid();
    return this.current && pid ? { pid, sessionsOpened: this.opened } : undefined;
  }

  /**
   * Stops the runtime and starts a new one at once (the idle restart). Unlike reset, every call meanwhile waits for
   * the new runtime instead of racing the stop: a session opened on the old one would be gone with it.
   */
  restart(reason: string): Promise<void> {
    this.restarting ??= (async () => {
      await this.reset(reason);
      this.starting ??= this.start().finally(() => (this.starting = undefined));
      await this.starting;
    })().finally(() => (this.restarting = undefined));
    return this.restarting;
  }

  /** Settles once no restart is under way (whether it succeeded or not: the next call starts a runtime again). */
  async whenRestarted(): Promise<void> {
    while (this.restarting) await this.restarting.catch(() => undefined);
  }

  /** The provider block every session config must repeat (createSession and resumeSession alike). */
  sessionProvider(): ProviderConfig | undefined {
    const p = this.options.provider;
    if (p.type === 'copilot') return undefined;
    if (!p.baseUrl) throw new AgentError('fatal', `Set baton.provider.baseUrl to use the ${p.type} provider.`);
    return { type: p.type, baseUrl: p.baseUrl, ...(p.apiKey ? { apiKey: p.apiKey } : {}) };
  }

  /**
   * Whether the started client still has its connection. The SDK marks its client 'disconnected'
   * when the runtime's stream closes but emits no event to sessions, so a turn polls this.
   */
  isConnected(): boolean {
    return clientConnected(this.current);
  }

  /** Pings the runtime without starting it; false when not started or not answering. */
  async ping(timeoutMs = 5000): Promise<boolean> {
    const client = this.current;
    if (!client) return false;
    try {
      await withTimeout(client.ping('baton'), timeoutMs, 'ping timed out');
      return true;
    } catch {
      return false;
    }
  }

  async listModels(): Promise<string[]> {
    const client = await this.client();
    if (this.sessionToken && this.options.provider.type === 'copilot') {
      const list = await client.rpc.models.list({ gitHubToken: this.sessionToken });
      return list.models.map((m) => m.id);
    }
    return (await client.listModels()).map((m) => m.id);
  }

  /** Who is signed in: the token sessions carry (checked by listing models with it), or the runtime's own login. */
  async authStatus(): Promise<{ authenticated: boolean; authType?: string; message?: string }> {
    const client = await this.client();
    if (this.sessionToken && this.options.provider.type === 'copilot') {
      try {
        await client.rpc.models.list({ gitHubToken: this.sessionToken });
        return { authenticated: true, authType: 'token' };
      } catch (err) {
        return { authenticated: false, message: err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err) };
      }
    }
    const auth = await client.getAuthStatus();
    return { authenticated: auth.isAuthenticated, authType: auth.authType, message: auth.statusMessage };
  }

  /** Tears the client down (its process included) so the next call starts a fresh one. */
  async reset(reason: string): Promise<void> {
    const client = this.current;
    const temp = this.temp;
    this.current = undefined;
    this.temp = undefined;
    if (client) {
      this.options.logger.warn(`Resetting the Copilot runtime: ${reason}`);
      await stopClient(client);
      await removeRuntimeTemp(temp);
    }
    this.didReset.fire(reason);
  }

  /** The running runtime's TMPDIR (its workers' temp), for Doctor and tests. */
  get tempDir(): string | undefined {
    return this.temp;
  }

  /** The runtime's process id, for diagnostics and the memory benchmark. */
  runtimePid(): number | undefined {
    const proc = (this.current as unknown as { cliProcess?: { pid?: number } } | undefined)?.cliProcess;
    return proc?.pid;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const client = this.current ?? (await this.starting?.catch(() => undefined));
    this.current = undefined;
    if (client) await stopClient(client);
    await removeRuntimeTemp(this.temp);
    this.temp = undefined;
    this.didReset.dispose();
  }
}

/**
 * Stops a client for sure: a graceful stop, then a forced one, then SIGKILL of the runtime process,
 * each bounded in time. A dead connection can make the SDK's own stop wait forever.
 */
async function stopClient(client: CopilotClient): Promise<void> {
  const pid = (client as unknown as { cliProcess?: { pid?: number } }).cliProcess?.pid;
  await withTimeout(client.stop(), 3000, 'stop timed out').catch(() => withTimeout(client.forceStop(), 2000, 'forceStop timed out').catch(() => undefined));
  if (pid) {
    try {
      process.kill(pid, 0);
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

function byokModel(id: string): ModelInfo {
  return {
    id,
    name: id,
    capabilities: {
      supports: { vision: false, reasoningEffort: false },
      limits: { max_context_window_tokens: 128000 },
    },
  } as ModelInfo;
}
