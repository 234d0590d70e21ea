// The AgentSessions port on the real Copilot SDK: one runtime client (CopilotRuntime) holds every
// session Baton opens; configs come from the one role-keyed builder; every SDK failure leaves
// here as a typed AgentError.
import { existsSync } from 'node:fs';
import { readdir, rm, rmdir, stat } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CopilotClient, CopilotSession, SessionConfig } from '@github/copilot-sdk';
import type {
  AgentSession,
  AgentSessions,
  EnvironmentReport,
  MachineSessionInfo,
  OpenOptions,
  ProviderSettings,
  RuntimeStats,
  SessionSpec,
} from './agentSessions';
import { whileClientLives } from './clientLoss';
import { CopilotAgentSession, type SessionHost } from './copilotAgentSession';
import { CopilotRuntime, type CopilotRuntimeOptions } from './copilotRuntime';
import { AgentError, kindOfSessionError } from './errors';
import { openAhead } from './openAhead';
import { forkWithoutTouching } from './safeFork';
import { handlerOnly } from './handlerOnly';
import { runtimeToolDirs } from './runtimeTools';
import { snapshotFiles } from './snapshotFiles';
import { networkInForce, sandboxSupport, toSandboxConfig, type SandboxStatus, type SandboxSupport } from './sandbox';
import { fromSdkError } from './sdkErrors';
import { buildSessionConfig } from './sessionConfig';
import { untilAborted, withTimeout } from '../util/delay';

export interface CopilotAgentSessionsOptions extends CopilotRuntimeOptions {
  /** Baton's own session folder (configDirectory), so its sessions stay out of the user's CLI list. */
  sessionDirectory?: string;
  /** Extra config for every session (tests only: e.g. disabledMcpServers). */
  extraSessionConfig?: Partial<SessionConfig>;
}

/** A session id as the runtime makes them (a UUID); anything else is never taken for a folder name. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
/** The runtime's folder of a session's file snapshots, in its Copilot home (removeFileSnapshots). */
const SNAPSHOTS = 'rewind-file-snapshots';
/**
 * The most a session open may take (measured: 60 ms, a resume ~60-400 ms; MCP servers connect after it). Past it the
 * runtime is taken for stuck: a connection error, so a turn's retry restarts it and a worker's create fails.
 */
const OPEN_LIMIT_MS = 60_000;

export class CopilotAgentSessions implements AgentSessions {
  private readonly runtime: CopilotRuntime;
  /** What every session's host shares; hostOf adds the waits bound to the session's own client. */
  private readonly host: Omit<SessionHost, 'whileAlive'>;
  private support: SandboxSupport | undefined;

  constructor(private readonly opts: CopilotAgentSessionsOptions) {
    this.runtime = new CopilotRuntime(opts);
    this.host = {
      isConnected: () => this.runtime.isConnected(),
      forget: (session) => this.runtime.forget(session),
      classify: (data) => this.classify(data),
    };
  }

  get provider(): ProviderSettings {
    return this.runtime.provider;
  }

  get copilotHome(): string {
    return this.runtime.copilotHome;
  }

  get isStarted(): boolean {
    return this.runtime.isStarted;
  }

  onDidReset(listener: (reason: string) => void): () => void {
    return this.runtime.onDidReset(listener);
  }

  async start(): Promise<void> {
    await this.runtime.client();
  }

  async create(spec: SessionSpec, opts: OpenOptions & { ahead?: boolean } = {}): Promise<AgentSession> {
    const client = await untilAborted(this.runtime.client(), opts.signal);
    return whileClientLives(client, this.openNew(client, spec, opts.ahead === true), {
      what: 'opening a session',
      signal: opts.signal,
      limitMs: OPEN_LIMIT_MS,
      // Opened for nobody (the caller stopped, or gave up on the runtime): let go, and its empty folder deleted.
      abandon: (late) => void late.disconnect().then(() => this.delete(late.id).catch(() => undefined)),
    });
  }

  private async openNew(client: CopilotClient, spec: SessionSpec, ahead: boolean): Promise<AgentSession> {
    const config = this.config(spec);
    const created = await client.createSession(config).catch((err: unknown) => {
      throw fromSdkError(err, 'create');
    });
    const reopened = ahead
      ? await openAhead(client, created, config).catch(async (err: unknown) => {
          // Suspended but not resumed: that session is gone, so it is deleted, and the caller's next ensure() makes another.
          await this.delete(created.sessionId).catch(() => undefined);
          throw fromSdkError(err, 'resume');
        })
      : undefined;
    const session = reopened ?? created;
    this.runtime.sessionOpened();
    return new CopilotAgentSession(session, this.hostOf(client), await this.applySandbox(session, spec), { mcpHost: reopened !== undefined });
  }

  async resume(id: string, spec: SessionSpec, opts: OpenOptions = {}): Promise<AgentSession> {
    const client = await untilAborted(this.runtime.client(), opts.signal);
    return whileClientLives(client, this.reopen(client, id, spec), {
      what: 'resuming a session',
      signal: opts.signal,
      limitMs: OPEN_LIMIT_MS,
      // Only let go: the session is still the one its owner saved, resumed again next time.
      abandon: (late) => void late.disconnect(),
    });
  }

  private async reopen(client: CopilotClient, id: string, spec: SessionSpec): Promise<AgentSession> {
    const session = await client.resumeSession(id, this.config(spec)).catch((err: unknown) => {
      throw fromSdkError(err, 'resume');
    });
    this.runtime.sessionOpened();
    await handlerOnly(session).catch(async (err: unknown) => {
      // Never used with a mode that bypasses Baton's handler: the session is let go, as a refused sandbox is.
      await session.disconnect().catch(() => undefined);
      throw err instanceof AgentError ? err : fromSdkError(err, 'resume');
    });
    // Measured: the sandbox does not survive a resume, so it is applied again every time.
    return new CopilotAgentSession(session, this.hostOf(client), await this.applySandbox(session, spec), { mcpHost: true });
  }

  /** What a session opened on `client` asks of its runtime: its waits end when that client's runtime does. */
  private hostOf(client: CopilotClient): SessionHost {
    return { ...this.host, whileAlive: (work, what) => whileClientLives(client, work, { what }) };
  }

  /** Whether the session will be held by the runtime's sandbox: a worker's, with its policy, on a machine that can. */
  private sandboxHolds(spec: SessionSpec): boolean {
    return spec.role === 'worker' && spec.sandbox !== undefined && this.sandboxSupport.available;
  }

  /** What this machine's runtime can enforce (checked once: it looks at PATH). */
  get sandboxSupport(): SandboxSupport {
    this.support ??= { ...sandboxSupport(process.platform, this.opts.env?.PATH ?? process.env.PATH), runtimeTools: runtimeToolDirs() };
    return this.support;
  }

  /**
   * A create-time sandboxConfig is dropped by the SDK (measured), so the policy is applied with
   * options.update. A session whose policy the runtime refused is closed, never used unsandboxed.
   */
  private async applySandbox(session: CopilotSession, spec: SessionSpec): Promise<SandboxStatus> {
    if (spec.role !== 'worker' || !spec.sandbox) return { state: 'off' };
    const support = this.sandboxSupport;
    if (!this.sandboxHolds(spec)) return { state: 'unsupported', reason: `${support.reason}. ${support.fix ?? ''}`.trim() };
    try {
      const result = await session.rpc.options.update({ sandboxConfig: toSandboxConfig(spec.sandbox, support) });
      if (!(result as { success?: boolean }).success) throw new AgentError('fatal', 'the runtime refused the sandbox policy');
    } catch (err) {
      await session.disconnect().catch(() => undefined);
      throw err instanceof AgentError ? err : fromSdkError(err, 'call');
    }
    return { state: 'applied', network: networkInForce(spec.sandbox, support) };
  }

  async delete(id: string): Promise<void> {
    const own = this.ownSessionPath(id);
    if (own && existsSync(own)) {
      // The runtime's delete looks only in its Copilot home (measured: "Session file not found" for a session kept
      // in a configDirectory), so Baton removes its own session's folder once the runtime has let go of it.
      if (this.runtime.isStarted) {
        const client = await this.runtime.client();
        await whileClientLives(client, client.rpc.sessions.close({ sessionId: id }), { what: 'closing a session' }).catch(() => undefined);
      }
      await rm(own, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
      await this.removeFileSnapshots(id);
      return;
    }
    const client = await this.runtime.client();
    await client.deleteSession(id).catch((err: unknown) => {
      throw fromSdkError(err, 'call');
    });
  }

  /**
   * The runtime keeps a session's file snapshots (a copy of each file as it was before the session first changed it,
   * which a rewind restores) in its Copilot home, the user's ~/.copilot, whatever folder the session itself lives in
   * (measured: <home>/session-state/<id>/rewind-file-snapshots/ with backups/, index.json and tracking.json, left for
   * every worker after its session was deleted). One of Baton's own sessions takes them with it: that folder only, and
   * the session's folder there once it is empty, so nothing else in the user's Copilot home is touched.
   */
  async removeFileSnapshots(id: string): Promise<void> {
    if (!SESSION_ID.test(id)) return;
    const dir = join(this.homeSessions, id);
    await rm(join(dir, SNAPSHOTS), { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
    await rmdir(dir).catch(() => undefined);
  }

  private get homeSessions(): string {
    return join(this.copilotHome || join(homedir(), '.copilot'), 'session-state');
  }

  async leftFileSnapshots(): Promise<Array<{ id: string; files: string[] }>> {
    const entries = await readdir(this.homeSessions, { withFileTypes: true }).catch(() => []);
    const left: Array<{ id: string; files: string[] }> = [];
    for (const e of entries) {
      if (!e.isDirectory() || !SESSION_ID.test(e.name) || existsSync(this.ownSessionPath(e.name) ?? '')) continue;
      const inside = await readdir(join(this.homeSessions, e.name)).catch(() => []);
      if (inside.length !== 1 || inside[0] !== SNAPSHOTS) continue;
      left.push({ id: e.name, files: await snapshotFiles(join(this.homeSessions, e.name, SNAPSHOTS, 'index.json')) });
    }
    return left;
  }

  async ownSessions(): Promise<Array<{ id: string; modifiedAt: number }>> {
    const dir = this.opts.sessionDirectory ? join(this.opts.sessionDirectory, 'session-state') : undefined;
    if (!dir) return [];
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    const found = await Promise.all(
      entries
        .filter((e) => e.isDirectory() && SESSION_ID.test(e.name))
        .map(async (e) => ({ id: e.name, modifiedAt: (await stat(join(dir, e.name)).catch(() => undefined))?.mtimeMs ?? 0 })),
    );
    return found;
  }

  async historyBytes(id: string): Promise<number | undefined> {
    const own = this.ownSessionPath(id);
    return own ? (await stat(join(own, 'events.jsonl')).catch(() => undefined))?.size : undefined;
  }

  async ownSessionGone(id: string): Promise<boolean> {
    const own = this.ownSessionPath(id);
    if (!own) return false;
    return (await stat(join(own, 'events.jsonl')).catch(() => undefined)) === undefined;
  }

  /** Where a session of Baton's own folder lives; undefined for an id that could not be one (no path tricks). */
  private ownSessionPath(id: string): string | undefined {
    if (!this.opts.sessionDirectory || !SESSION_ID.test(id)) return undefined;
    return join(this.opts.sessionDirectory, 'session-state', id);
  }

  async fork(sourceId: string, title: string): Promise<string> {
    const client = await this.runtime.client();
    return forkWithoutTouching(client, this.copilotHome || join(homedir(), '.copilot'), sourceId, title);
  }

  async list(): Promise<MachineSessionInfo[]> {
    const client = await this.runtime.client();
    const all = await client.listSessions().catch((err: unknown) => {
      throw fromSdkError(err, 'call');
    });
    return all.map((s) => ({
      sessionId: s.sessionId,
      workingDir: s.context?.workingDirectory,
      summary: (s.summary ?? '').trim(),
      startedAt: toMs(s.startTime),
      modifiedAt: toMs(s.modifiedTime),
      isRemote: s.isRemote === true,
    }));
  }

  async inUse(ids: string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const client = await this.runtime.client();
    const result = await client.rpc.sessions.checkInUse({ sessionIds: ids }).catch((err: unknown) => {
      throw fromSdkError(err, 'call');
    });
    return new Set(result.inUse);
  }

  async metadata(id: string): Promise<{ workingDir?: string; summary?: string } | undefined> {
    const client = await this.runtime.client();
    const meta = await client.getSessionMetadata(id).catch((err: unknown) => {
      throw fromSdkError(err, 'call');
    });
    return meta ? { workingDir: meta.context?.workingDirectory, summary: meta.summary } : undefined;
  }

  async listModels(): Promise<string[]> {
    return this.runtime.listModels().catch((err: unknown) => {
      throw fromSdkError(err, 'call');
    });
  }

  async authStatus(): Promise<{ authenticated: boolean; authType?: string; message?: string }> {
    return this.runtime.authStatus().catch((err: unknown) => {
      throw fromSdkError(err, 'call');
    });
  }

  async status(): Promise<{ version: string; protocolVersion: number }> {
    const client = await this.runtime.client();
    const status = await client.getStatus().catch((err: unknown) => {
      throw fromSdkError(err, 'call');
    });
    return { version: status.version, protocolVersion: status.protocolVersion };
  }

  isConnected(): boolean {
    return this.runtime.isConnected();
  }

  ping(timeoutMs?: number): Promise<boolean> {
    return this.runtime.ping(timeoutMs);
  }

  reset(reason: string): Promise<void> {
    return this.runtime.reset(reason);
  }

  updateProvider(provider: ProviderSettings): void {
    this.runtime.updateProvider(provider);
  }

  runtimePid(): number | undefined {
    return this.runtime.runtimePid();
  }

  runtimeStats(): RuntimeStats | undefined {
    return this.runtime.stats();
  }

  restart(reason: string): Promise<void> {
    return this.runtime.restart(reason);
  }

  whenRestarted(): Promise<void> {
    return this.runtime.whenRestarted();
  }

  environmentReport(): EnvironmentReport {
    return this.runtime.environment().report;
  }

  toolOutputDirs(): string[] {
    const { env } = this.runtime.environment();
    const machine = env.TMPDIR || env.TEMP || env.TMP || tmpdir();
    return this.runtime.tempDir ? [this.runtime.tempDir, machine] : [machine];
  }

  dispose(): Promise<void> {
    return this.runtime.dispose();
  }

  private config(spec: SessionSpec): SessionConfig {
    return buildSessionConfig(spec, {
      provider: this.runtime.sessionProvider(),
      gitHubToken: this.runtime.provider.type === 'copilot' ? this.runtime.sessionToken : undefined,
      sessionDirectory: this.opts.sessionDirectory,
      sandboxed: this.sandboxHolds(spec),
      extra: this.opts.extraSessionConfig,
    });
  }

  /**
   * A session.error's kind. The runtime reports a missing Copilot sign-in as a plain `query` error
   * with no status (measured: "Execution failed: InvalidArg, No GitHub OAuth token ..."), so for
   * an unclassified failure on the Copilot provider the runtime's auth status decides.
   */
  private async classify(data: { errorType?: string; statusCode?: number; message: string }): Promise<AgentError> {
    const kind = kindOfSessionError(data.errorType, data.statusCode);
    // A session.error comes after the runtime's own retries of the model call (see AgentError's details).
    const details = { errorType: data.errorType, statusCode: data.statusCode, ...(kind === 'transient' ? { retriedByRuntime: true } : {}) };
    if (kind === 'fatal' && data.statusCode === undefined && this.provider.type === 'copilot') {
      try {
        // Bounded: the turn waits for this answer (its idle no longer ends it), and a runtime that never answers it
        // must not hold the turn until its time limit.
        const auth = await withTimeout(this.authStatus(), 5000, 'auth check timed out');
        if (!auth.authenticated) return new AgentError('auth', `not signed in: ${auth.message ?? data.message}`, details);
      } catch {
        /* the auth check is a refinement; the error stays fatal without it */
      }
    }
    return new AgentError(kind, data.message, details);
  }
}

function toMs(value: unknown): number {
  const ms = value instanceof Date ? value.getTime() : new Date(value as string).getTime();
  return Number.isFinite(ms) ? ms : 0;
}
