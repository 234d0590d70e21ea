// The shapes the worker pool, its tools and the views share.
import type { WorkerCard, WorkerState } from '../../shared/protocol';
import type { AgentSession, AgentSessions, EnvironmentSetting, PermissionHandler } from '../copilot/agentSessions';
import type { IncludedEntry } from '../git/worktreeInclude';
import { REPLY_CHANNELS, type Channel } from '../orchestrator/events';
import type { BatonStore, WorkerRowInput } from '../store/types';
import type { Logger } from '../util/logger';
import type { Deliver } from './workerInbox';
import type { NetworkMode } from './workerNetwork';
import type { WorkerOwner } from './workerOwner';
import type { PermissionBroker } from './workerPermissions';
import { ToolFailure } from '../copilot/batonTool';
import { WorkerTranscript } from './workerTranscript';

export interface WorkerSettings {
  /** baton.workers.max: workers holding a session at once (default 5). */
  max: number;
  /** baton.workers.timeoutMs: the longest one task may run (default 600000). */
  timeoutMs: number;
  /** User-configured protected paths, on top of the built-in ones. */
  protectedPaths: string[];
  /** Approve shell commands in a worker's own directory without asking (trusted projects), only while sandboxed. */
  trustWorkingDir: boolean;
  /** baton.workers.sandbox: the runtime's sandbox wherever it can engage ('auto', the default), or never. */
  sandbox?: 'auto' | 'off';
  /** baton.workers.network: 'internet' (default: outbound, not this machine or the local network), 'allow' or 'deny'. */
  network?: NetworkMode;
  /** baton.workers.allowedHosts: when set, the only hosts a worker's shell may reach (through the sandbox proxy). */
  allowedHosts?: string[];
  /** baton.workers.blockedHosts: hosts a worker's shell may never reach (deny wins). */
  blockedHosts?: string[];
  /** The user's HTTP(S) proxy URL (VS Code's http.proxy, else the environment's), handed to the sandbox. */
  proxy?: string;
  /** baton.workers.isolation: a git worktree per worker in a repository (default), or the folder itself. */
  isolation?: 'worktree' | 'none';
  /** baton.workers.worktreeInclude: ignored files and folders to copy or link into each new worktree. */
  worktreeInclude?: string[];
  /** baton.workers.verifyCommand: run on a worker's change set after each finished run, in its sandbox (empty: never). */
  verifyCommand?: string;
  /** baton.workers.environment: variables the runtime (and so every worker's shell) gets beyond the allowlist. */
  environment?: EnvironmentSetting;
}

/**
 * Where the model asks a worker to work: its own worktree, or the folder itself to read only. Only the user's setting
 * (baton.workers.isolation: "none") lets a worker change the folder itself; a folder without git gets a copy (folderRepos.ts)
 * unless it is too large to copy or git is missing, and then the worker works in it.
 */
export type IsolationRequest = 'worktree' | 'read-only';

/** Where the request that started a worker came from; its result is summarised back there. */
export type ReplyChannel = Exclude<Channel, 'background'>;

/**
 * Where a worker's result goes: the channel that asked, and after '@' the conversation it asked in (stored as such in
 * the worker's row and its inbox row). A bare channel (rows from before conversations) goes to the active one.
 */
export type ReplyTo = ReplyChannel | `${ReplyChannel}@${string}`;

export function replyTo(channel: ReplyChannel, conversation?: string): ReplyTo {
  return conversation ? `${channel}@${conversation}` : channel;
}

/** The channel and conversation of a stored reply address; an unknown channel (an older row) replies to the panel. */
export function parseReplyTo(stored: string): { channel: ReplyChannel; conversation?: string } {
  const at = stored.indexOf('@');
  const channel = at >= 0 ? stored.slice(0, at) : stored;
  const known = (REPLY_CHANNELS as readonly string[]).includes(channel);
  const conversation = at >= 0 ? stored.slice(at + 1) : '';
  return { channel: known ? (channel as ReplyChannel) : 'panel', ...(conversation ? { conversation } : {}) };
}

/** A failure worth telling the model or the user as is (bad name, limit reached, protected path...). */
export class WorkerError extends ToolFailure {
  constructor(message: string, toolHint?: string) {
    super(message, toolHint);
    this.name = 'WorkerError';
  }
}

/** A card plus what the views need beyond it. */
export interface WorkerInfo extends WorkerCard {
  sessionId?: string;
  createdAt: number;
  finishedAt?: number;
  /** created: Baton made the session; attached: a machine session brought in; forked: a copy Baton made of one. */
  source: 'created' | 'attached' | 'forked';
}

export interface WorkerStatus extends WorkerInfo {
  elapsedMs: number;
  /** The end of the current (or last) task's output, at most 2,000 characters. */
  lastOutput: string;
  tasks: number;
}

/** A Copilot session on this machine (CLI, editor, or Baton's own). */
export interface MachineSession {
  sessionId: string;
  workingDir?: string;
  summary: string;
  startedAt: number;
  modifiedAt: number;
  /** Held by another running process (undefined when that could not be checked). */
  inUse?: boolean;
  /** The Baton worker currently bound to it, if any. */
  worker?: string;
}

export type StopReason = { kind: 'killed'; by: 'user' | 'tool' | 'shutdown' } | { kind: 'timeout' } | { kind: 'lost'; error: string } | { kind: 'settled' };

/** Something that runs when one task of a worker ends (a conflict resolution checks its work, or undoes it). */
export interface FollowUp {
  /** What the card shows while the task runs ("resolving conflicts"). */
  activity: string;
  /** Its text joins the task's completion message. */
  after: (end: 'completed' | 'failed' | 'timed_out' | 'killed') => Promise<string>;
}

export interface Task {
  abort: AbortController;
  done: Promise<void>;
  /** The task has its session (it may be using it): a runtime torn down ends the task. Before, it opens a new one. */
  hasSession?: boolean;
}

export interface Worker {
  name: string;
  workingDir: string;
  sessionId?: string;
  session?: AgentSession;
  unsubscribe?: () => void;
  state: WorkerState;
  createdAt: number;
  /** When the current (or last) task started; creation time before the first task. */
  startedAt: number;
  finishedAt?: number;
  replyTo: ReplyTo;
  source: WorkerInfo['source'];
  transcript: WorkerTranscript;
  permissions: PermissionHandler;
  task?: Task;
  /** Settles when the session exists (creation or attach in flight). */
  ready: Promise<void>;
  /** Aborted by a kill before the worker started (while it is placed): a question to the user about its place goes. */
  placing: AbortController;
  tasks: number;
  /** The last sandbox state its session reported (kept when the session is disconnected). */
  sandbox?: WorkerCard['sandbox'];
  isolation?: WorkerCard['isolation'];
  changes?: WorkerCard['changes'];
  outcome?: WorkerCard['outcome'];
  summary?: string;
  /** Runs when the current task ends (set by a conflict resolution). */
  followUp?: FollowUp;
  overlaps?: WorkerCard['overlaps'];
  conflicts?: WorkerCard['conflicts'];
  /** The last verify of its change set (baton.workers.verifyCommand), or the one running. */
  verify?: WorkerCard['verify'];
  /** Readable (never writable) inside the sandbox: the repository's git folder and what was linked into the worktree. */
  sandboxReadonly?: string[];
  /** What Baton brought into the worktree from the user's checkout, linked or copied (named in its instructions). */
  included?: IncludedEntry[];
  /** Where those links lead (real paths): its file tools may read there, never write (its sandbox holds them read-only). */
  linkedTargets?: string[];
  /** Hidden from it in its sandbox and refused by its permission handler: what git ignores where it reads in place. */
  hidden?: string[];
  /** Its session was deleted once its work was settled: a follow-up starts a new one (sessionLifecycle.ts). */
  sessionClosed?: boolean;
}

/** The session is held by another process (an open Copilot CLI or editor): Baton will not write into it; a fork can continue it. */
export class SessionInUseError extends WorkerError {
  constructor(
    message: string,
    readonly sessionId: string,
  ) {
    super(message);
    this.name = 'SessionInUseError';
  }
}

export interface WorkerPoolOptions {
  sessions: AgentSessions;
  store: BatonStore;
  logger: Logger;
  broker: PermissionBroker;
  /**
   * Feeds a result to the orchestrator (Orchestrator.enqueue). The pool marks the inbox row
   * delivered once this resolves; when it throws, the row waits for deliverPending().
   */
  deliver: Deliver;
  settings: () => WorkerSettings;
  /** Baton's installation and storage dirs: protected like credentials. */
  ownPaths: () => string[];
  /** Baton's storage folder: worker worktrees live in its `worktrees` folder. Without it workers work in place. */
  storageDir?: string;
  /** The workspace folders: where a pending change set's repository is looked for once the user moved it. */
  workspaceFolders?: () => readonly string[];
  /** Injectable for tests; defaults to os.homedir(). */
  homeDir?: string;
  /** The model for new and resumed worker sessions; undefined = the runtime's default (BYOK providers need one). */
  model?: () => string | undefined;
  /** Session ids that must never be attached (the orchestrator's own session). */
  reservedSessionIds?: () => Array<string | undefined>;
  /** This window, as its worker rows name it (workerOwner.ts); undefined: rows with no owner (one window only). */
  owner?: WorkerOwner;
  now?: () => number;
}

/** A new worker record; `permissions` builds its permission handler, which reads the current task later. */
export function newWorker(
  args: { name: string; dir: string; replyTo: ReplyTo; source: WorkerInfo['source']; now: () => number },
  /** The worker's permission handler; `worker` is read at each request, never while it is built. */
  permissions: (worker: () => Worker) => PermissionHandler,
): Worker {
  const now = args.now();
  const transcript = new WorkerTranscript(args.now);
  const w: Worker = {
    name: args.name,
    workingDir: args.dir,
    state: 'idle',
    createdAt: now,
    startedAt: now,
    replyTo: args.replyTo,
    source: args.source,
    transcript,
    ready: Promise.resolve(),
    placing: new AbortController(),
    tasks: 0,
    permissions: permissions(() => w),
  };
  return w;
}

/** The worker's row in the store: enough for the next start to report an interrupted task. */
export function workerRow(w: Worker, maxOutput: number, owner: string | null): WorkerRowInput {
  const output = w.transcript.taskOutput();
  return {
    owner,
    name: w.name,
    copilot_session_id: w.sessionId ?? null,
    working_dir: w.workingDir,
    status: w.state === 'running' ? 'running' : w.state === 'idle' ? 'idle' : 'error',
    last_output: output ? output.slice(-maxOutput) : null,
    origin: w.replyTo,
  };
}
