// The shapes the worker pool, its tools and the views share.
import type { WorkerCard, WorkerState } from '../../shared/protocol';
import type { AgentSession, PermissionHandler } from '../copilot/agentSessions';
import { ToolFailure } from '../copilot/batonTool';
import type { WorkerTranscript } from './workerTranscript';

export interface WorkerSettings {
  /** baton.workers.max: workers holding a session at once (default 5). */
  max: number;
  /** baton.workers.timeoutMs: the longest one task may run (default 600000). */
  timeoutMs: number;
  /** User-configured protected paths, on top of the built-in ones. */
  protectedPaths: string[];
  /** Approve shell commands in a worker's own directory without asking (trusted projects). */
  trustWorkingDir: boolean;
}

/** Where the request that started a worker came from; its result is summarised back there. */
export type ReplyChannel = 'panel' | 'command';

/** A failure worth telling the model or the user as is (bad name, limit reached, protected path...). */
export class WorkerError extends ToolFailure {
  constructor(message: string) {
    super(message);
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

export interface Task {
  abort: AbortController;
  done: Promise<void>;
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
  replyTo: ReplyChannel;
  source: WorkerInfo['source'];
  transcript: WorkerTranscript;
  permissions: PermissionHandler;
  task?: Task;
  /** Settles when the session exists (creation or attach in flight). */
  ready: Promise<void>;
  tasks: number;
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
