// The one seam between Baton and the Copilot runtime. Everything outside src/core/copilot/ talks to
// sessions through these interfaces; only copilotAgentSessions.ts (and its helpers here) import the
// SDK. Unit tests implement the same port in memory (test/support/inMemoryAgentSessions.ts).
import type { UsageInfo } from '../../shared/protocol';
import type { CallUsage } from './callUsage';
import type { AgentEvent, McpServerConfig, PermissionHandler } from './sdkTypes';
import type { BatonTool } from './batonTool';
import type { SandboxPolicy, SandboxStatus, SandboxSupport } from './sandbox';
import type { EnvironmentReport } from './runtimeEnvironment';
import type { SandboxedCommandOptions, SandboxedCommandResult } from './sandboxedCommand';

export { SandboxRequiredError, type SandboxedCommandOptions, type SandboxedCommandResult } from './sandboxedCommand';

export type { EnvironmentReport, EnvironmentSetting } from './runtimeEnvironment';

export type { SandboxNetwork, SandboxNetworkStatus, SandboxPolicy, SandboxState, SandboxStatus, SandboxSupport } from './sandbox';

export type { AgentEvent, McpServerConfig, PermissionHandler, PermissionRequest, PermissionRequestResult } from './sdkTypes';

export type ProviderType = 'copilot' | 'openai' | 'azure' | 'anthropic';

export interface ProviderSettings {
  type: ProviderType;
  baseUrl?: string;
  apiKey?: string;
}

/**
 * A verdict on an MCP tool's call before it runs, whatever the runtime would decide by itself (it runs a tool its
 * server marks read-only without a permission request): undefined lets the call go on as usual; 'ask' turns it into a
 * permission request of kind `hook`; 'deny' refuses it with `reason`, which the model reads.
 */
export type ToolGuard = (toolName: string, args: unknown) => { decision: 'deny' | 'ask'; reason: string } | undefined;

/** What a session is for; the config builder derives everything else from the role (sessionConfig.ts). */
export type SessionSpec =
  | {
      role: 'orchestrator';
      model: string;
      tools: BatonTool[];
      systemMessage: string;
      mcpServers?: Record<string, McpServerConfig>;
      skillDirectories?: string[];
      /** What it may do and what it asks (orchestratorPermissions.ts); unset: Baton's own tools only. */
      permissions?: PermissionHandler;
      /** What an MCP tool's call is held to before it runs (protectedArgs.ts). */
      mcpGuard?: ToolGuard;
    }
  | {
      role: 'worker';
      workingDirectory: string;
      systemMessage: string;
      permissions: PermissionHandler;
      model?: string;
      /** Skill folders (Baton's installed skills, the user's own), as the orchestrator gets them. */
      skillDirectories?: string[];
      /** Baton made the session (it lives in Baton's folder); attached and forked ones stay in the user's Copilot home. */
      ownSession: boolean;
      /** The runtime's sandbox for this worker's commands; re-applied after every resume. Undefined: none. */
      sandbox?: SandboxPolicy;
      /** Track the files the worker changes, so a folder without git still gets a diff and an undo. */
      trackChanges?: boolean;
      /** MCP servers the session must not start (the built-in GitHub one when the worker's network keeps GitHub out). */
      disabledMcpServers?: string[];
      /** What an MCP tool's call is held to before it runs (protectedArgs.ts). */
      mcpGuard?: ToolGuard;
    }
  | { role: 'classifier'; model: string }
  /** A one-off session that summarizes older turns of a conversation (its summarize policy). */
  | { role: 'summarizer'; model: string };

export interface RunOptions {
  /** Aborting it aborts the turn; run() then rejects with the signal's reason once the runtime settled. */
  signal: AbortSignal;
  /** Rejects with TurnTimeoutError after this long (the turn is aborted first). */
  timeoutMs?: number;
  /** Text of the top-level reply as it streams; a second message in one turn starts with a blank line. */
  onDelta?: (delta: string) => void;
  /** Tool calls of this turn, for progress (the raw events go to AgentSession.onEvent listeners). */
  onTool?: (tool: { phase: 'start' | 'end'; toolName: string; toolCallId: string; success?: boolean }) => void;
  /** Each model call's usage as it is reported, so a turn that fails or is stopped is counted too (callUsage.ts). */
  onUsage?: (usage: CallUsage) => void;
  /** The runtime recorded the prompt as its user message `eventId` (a rewind point: truncateFrom). */
  onDelivered?: (eventId: string) => void;
}

export interface RunResult {
  text: string;
  usage: UsageInfo;
  /** The model that actually answered (the runtime may fall back from the one asked for). */
  model?: string;
}

/** What the runtime's own record says about a prompt after a failure. */
export type PromptRecord = { kind: 'answered'; content: string } | { kind: 'delivered' } | { kind: 'absent' };

export interface AgentSession {
  readonly id: string;
  /**
   * The one run loop: sends `prompt` and settles when the session goes idle. Rejects with an
   * AgentError (classified), TurnTimeoutError, or the signal's reason. The error carries
   * `delivered` (see RunFailure) so a caller knows whether the runtime may have the prompt.
   */
  run(prompt: string, opts: RunOptions): Promise<RunResult>;
  /** After a failed run: did the runtime record `prompt`, and did it answer it? */
  inspect(prompt: string): Promise<PromptRecord>;
  /** Every event of the session (transcripts); returns the unsubscribe function. */
  onEvent(listener: (event: AgentEvent) => void): () => void;
  setModel(model: string): Promise<void>;
  /** The sandbox of this session as its events report it (workers only; 'off' otherwise). */
  readonly sandbox: SandboxStatus;
  /**
   * Runs a shell command of Baton's own (not the model's) in this session's working directory and
   * sandbox, while no turn runs. Rejects with SandboxRequiredError when no sandbox is in force.
   */
  runSandboxed(command: string, opts: SandboxedCommandOptions): Promise<SandboxedCommandResult>;
  /** Files this session changed (file-change tracking; paths relative to its working directory). */
  changedFiles(): Promise<FileChange[]>;
  /**
   * Puts every file this session changed back as it was before its first turn, but for those changed since by someone
   * else (`kept`: the runtime leaves them). Fails, restoring nothing, when the runtime could not (AgentError).
   */
  rewindFiles(): Promise<RewoundFiles>;
  /** Removes the user message `eventId` and everything after it from the session's history (an edited message). */
  truncateFrom(eventId: string): Promise<void>;
  compact(): Promise<{ tokensRemoved: number; messagesRemoved: number }>;
  /**
   * Has the runtime set up what it otherwise sets up at a new session's first message, with no model request (the
   * panel was opened; see Orchestrator.prewarm), for `model`. Never changes what the session holds. Best-effort: never throws.
   */
  warmUp(model: string): Promise<void>;
  abort(): Promise<void>;
  /** Bounded and quiet: a session on a dead connection may never answer. */
  disconnect(): Promise<void>;
}

/** What a rewind of a session's files did. */
export interface RewoundFiles {
  restored: string[];
  /** Left as they are: changed after the session's last write ('changed-since'), or never captured whole. */
  kept: { path: string; reason: 'changed-since' | 'not-captured' }[];
}

export interface FileChange {
  path: string;
  changeType: string;
  /** Unified diff; empty when the runtime left it out (`truncated`). */
  diff: string;
  /** The runtime left the diff out: the file is over its per-file size limit. */
  truncated?: boolean;
}

/** Set on errors thrown by run(): whether the prompt may have reached the runtime. */
export interface RunFailure {
  delivered: boolean;
}

export function wasDelivered(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as Partial<RunFailure>).delivered === true;
}

/** A Copilot session on this machine, as listed from the runtime's Copilot home. */
export interface MachineSessionInfo {
  sessionId: string;
  workingDir?: string;
  summary: string;
  startedAt: number;
  modifiedAt: number;
  isRemote: boolean;
}

/** The running runtime, for the idle restart's trigger and Doctor. */
export interface RuntimeStats {
  pid: number;
  /** Sessions created or resumed since this runtime started. */
  sessionsOpened: number;
}

/** How a session is opened. */
export interface OpenOptions {
  /** The opener's own end (a turn's Stop or time limit): the open rejects with its reason, and what it opens is let go. */
  signal?: AbortSignal;
}

export interface AgentSessions {
  readonly provider: ProviderSettings;
  /** The runtime's Copilot home (COPILOT_HOME): where the user's own sessions live. */
  readonly copilotHome: string;
  readonly isStarted: boolean;
  /** What the runtime's sandbox can enforce on this machine (for workers, the card and Doctor). */
  readonly sandboxSupport: SandboxSupport;
  /** Fires with the reason after the runtime was torn down; every session of it is gone. */
  onDidReset(listener: (reason: string) => void): () => void;
  /** Starts the runtime (concurrent callers share one start); later calls return at once. */
  start(): Promise<void>;
  /**
   * `ahead`: the session is opened before anyone writes to it (the panel was opened), so it is opened the way a
   * resumed one is, with its MCP servers' host, and warmUp can then connect them (docs/performance.md ³).
   */
  create(spec: SessionSpec, opts?: OpenOptions & { ahead?: boolean }): Promise<AgentSession>;
  /**
   * Rejects with AgentError('session') when the runtime has no such session; with AgentError('connection') when the
   * runtime exits (or stops answering) while the session opens: the session is not at fault then, and stays resumable.
   */
  resume(id: string, spec: SessionSpec, opts?: OpenOptions): Promise<AgentSession>;
  /** Deletes a session from disk (Baton's own folder, or the runtime's Copilot home). */
  delete(id: string): Promise<void>;
  /** The sessions in Baton's own session folder (never the user's Copilot home), with when each last changed. */
  ownSessions(): Promise<Array<{ id: string; modifiedAt: number }>>;
  /**
   * How long the history the runtime keeps of one of Baton's own sessions has grown (its event log, in bytes; the
   * runtime appends every event and never shortens it, its own compaction included); undefined for any other session.
   */
  historyBytes(id: string): Promise<number | undefined>;
  /**
   * Whether `id` names one of Baton's own sessions with no history on disk: its folder deleted (by the user, a restored
   * disk), or a session never sent a prompt (the runtime saves none). Resuming it could only fail "Session not found".
   * False for any session outside Baton's folder.
   */
  ownSessionGone(id: string): Promise<boolean>;
  /**
   * File snapshots the runtime left in its Copilot home for sessions that exist nowhere any more: a folder there that
   * holds nothing but them (no event log: not a CLI session) and whose id is none of Baton's own sessions; each with the
   * files it holds a copy of, as the runtime resolved them. Baton's workers left these until it deleted them with their
   * sessions (removeFileSnapshots).
   */
  leftFileSnapshots(): Promise<Array<{ id: string; files: string[] }>>;
  /** Deletes the file snapshots of a session, and its folder in the Copilot home once that is empty. */
  removeFileSnapshots(id: string): Promise<void>;
  /** Copies a machine session into a new one; the source's files are only read. Returns the new id. */
  fork(sourceId: string, title: string): Promise<string>;
  list(): Promise<MachineSessionInfo[]>;
  /** The ids among `ids` that another process holds. */
  inUse(ids: string[]): Promise<Set<string>>;
  metadata(id: string): Promise<{ workingDir?: string; summary?: string } | undefined>;
  listModels(): Promise<string[]>;
  /** Starts the runtime if needed and asks who is signed in. */
  authStatus(): Promise<{ authenticated: boolean; authType?: string; message?: string }>;
  /** Starts the runtime if needed and asks its version. */
  status(): Promise<{ version: string; protocolVersion: number }>;
  isConnected(): boolean;
  ping(timeoutMs?: number): Promise<boolean>;
  /** Tears the runtime down so the next call starts a fresh one. */
  reset(reason: string): Promise<void>;
  /**
   * Stops the runtime and starts a new one now (onDidReset fires in between: every session of the old one is gone);
   * calls made meanwhile wait for the new runtime.
   */
  restart(reason: string): Promise<void>;
  /** Settles once no restart is under way (at once when none is): what is about to use a session it holds waits here. */
  whenRestarted(): Promise<void>;
  /** The running runtime's process and the sessions opened on it; undefined when it is not started. */
  runtimeStats(): RuntimeStats | undefined;
  updateProvider(provider: ProviderSettings): void;
  /** The runtime's process id (diagnostics, the memory benchmark). */
  runtimePid(): number | undefined;
  /** What the runtime's environment leaves out (by allowlist), by name only: Doctor shows it. */
  environmentReport(): EnvironmentReport;
  /**
   * Where runtimes save a tool result too large to hand to the model (runtime/toolOutputSweep.ts): the running
   * runtime's own TMPDIR (runtimeTemp.ts), then the machine's, where earlier versions' runtimes and a Copilot CLI of
   * the user's leave theirs.
   */
  toolOutputDirs(): string[];
  dispose(): Promise<void>;
}
