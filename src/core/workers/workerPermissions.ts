// A worker's permission handler (the session's onPermissionRequest). There is no approveAll:
// - protected paths are always denied, whatever the user approved before or the trust setting says;
// - reads and edits inside the worker's own directory (real paths) are approved;
// - shell commands, anything outside the directory, URLs and MCP tools are asked of the user through
//   the PermissionBroker; with trustWorkingDir, shell commands are approved without asking, but
//   only while the runtime's sandbox holds the worker (a heuristic on command text is no boundary);
// - a request to act outside the sandbox always reaches the user, worded so, for that one request
//   (a "permissive retry", which keeps the sandbox and its network rules, is worded as that);
// - every decision is logged.
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import type { PermissionHandler, PermissionRequest, PermissionRequestResult } from '../copilot/agentSessions';
import { mcpToolLabel } from '../copilot/mcpToolLabel';
import type { PermissionDecision, PermissionPrompt } from '../../shared/protocol';
import type { Logger } from '../util/logger';
import { isWithin, realpathNearest, systemFolder, type ProtectedPaths } from './protectedPaths';

/** Asks the user about one thing a worker wants to do. The UI (panel, notification) implements it. */
export interface PermissionBroker {
  /**
   * Resolves with the user's decision: 'once', 'worker' (approve this kind for the rest of this
   * worker) or 'deny'. `signal` aborts when the worker stops waiting (killed, timed out, closed):
   * the UI should withdraw the prompt; the promise may then reject or resolve 'deny'.
   */
  ask(prompt: PermissionPrompt, signal?: AbortSignal): Promise<PermissionDecision>;
}

export interface WorkerPermissionOptions {
  worker: string;
  /** A worker started to read only: every file edit is refused, wherever it points. */
  readOnly?: () => boolean;
  /** Real paths out of its reach entirely: reads and edits of them are refused (what git ignores where it reads in place). */
  hidden?: () => readonly string[];
  /** Real paths outside its working directory that it may read without asking (what worktreeInclude linked in). */
  readable?: () => readonly string[];
  /** The conversation the worker reports to (its questions count there: turn.awaiting-input). */
  conversation?: () => string | undefined;
  /** The worker's working directory, already realpath'd. */
  workingDir: string;
  /** Read at every request, so settings changes apply at once. */
  protectedPaths: () => ProtectedPaths;
  trustWorkingDir: () => boolean;
  /** Whether the runtime's sandbox holds this worker's commands now (its session's sandbox state). */
  sandboxed?: () => boolean;
  broker: PermissionBroker;
  logger: Logger;
  /** The running task's signal, handed to the broker so a prompt is withdrawn when the task ends. */
  signal?: () => AbortSignal | undefined;
  /** Called with every decision in words (for the worker's transcript). */
  onDecision?: (line: string) => void;
}

/** What the handler will do with a request before anyone is asked. */
export type Verdict =
  | { action: 'approve'; reason: string; detail: string }
  | { action: 'deny'; reason: string; detail: string; feedback: string }
  /** `remember`: the key an "allow for this worker" is kept under; absent, the user decides each such request alone. */
  | { action: 'ask'; reason: string; detail: string; kind: string; remember?: string };

const DENIED_KINDS = new Set(['memory', 'extension-management', 'extension-permission-access', 'extension-env-access', 'factory']);

/**
 * Classifies a request without side effects: the unit-testable core of the handler.
 * `approvedKinds` holds the kinds the user approved for the rest of this worker.
 */
export function evaluatePermission(
  request: PermissionRequest,
  ctx: {
    workingDir: string;
    protectedPaths: ProtectedPaths;
    trustWorkingDir: boolean;
    approvedKinds: ReadonlySet<string>;
    sandboxed?: boolean;
    readOnly?: boolean;
    /** Real paths out of its reach entirely (what git ignores where a worker reads in place). */
    hidden?: readonly string[];
    /** Real paths outside its working directory it may read (what worktreeInclude linked into its worktree). */
    readable?: readonly string[];
  },
): Verdict {
  const { workingDir, protectedPaths, approvedKinds } = ctx;
  // Its sandbox makes the folder read-only to its shell; its edit tools are refused here, also outside the sandbox.
  if (ctx.readOnly && request.kind === 'write')
    return {
      action: 'deny',
      reason: 'this worker only reads',
      detail: request.fileName,
      feedback: 'Denied: you were started to read only; you may not change or create files. Say in your report what should change.',
    };
  // Trust auto-approves shells only inside the sandbox: outside it nothing but the user stands between a command and the machine.
  const trustWorkingDir = ctx.trustWorkingDir && ctx.sandboxed === true;
  // Managed policy forbids host auto-approval: such requests always reach the user (protected paths are still denied).
  const managed = request.managedApprovalRequired === true;
  const protectedDeny = (p: string, label: string): Verdict => ({
    action: 'deny',
    reason: `protected path ${label}`,
    detail: p,
    feedback: `Denied: ${p} is inside the protected path ${label}. Workers may never touch it; do not try another way.`,
  });

  const bypass = request as { requestSandboxBypass?: boolean; requestSandboxBypassReason?: string; requestSandboxPermissive?: boolean };
  if (bypass.requestSandboxBypass === true) {
    // Never approved by trust or by an earlier "for this worker": the user decides this exact request.
    const inner = evaluatePermission({ ...request, requestSandboxBypass: false } as PermissionRequest, {
      ...ctx,
      trustWorkingDir: false,
      approvedKinds: new Set(),
    });
    if (inner.action === 'deny') return inner;
    // Its sandbox is what keeps a read-only worker's commands from writing the folder: never lifted, not even by the user.
    if (ctx.readOnly && request.kind === 'shell')
      return {
        action: 'deny',
        reason: 'this worker only reads: its commands stay in its sandbox',
        detail: request.fullCommandText,
        feedback: 'Denied: you were started to read only; your commands run in a sandbox that keeps the folder read-only. Say in your report what you needed.',
      };
    const why = bypass.requestSandboxBypassReason ? ` (${bypass.requestSandboxBypassReason})` : '';
    if (bypass.requestSandboxPermissive === true) {
      // A permissive retry stays in the sandbox with its network policy; only its file and process limits stop blocking.
      return {
        action: 'ask',
        reason: `re-run in the sandbox with its file and process limits off (recorded, not blocked; network rules kept)${why}`,
        detail: `in the sandbox, file and process limits off: ${inner.detail}`,
        kind: 'sandbox file and process limits off',
      };
    }
    // A file request names the file, which is what the user is asked about: a file outside the
    // worker's folder (its sandbox keeps it in there), not "running" something outside the sandbox.
    if (request.kind === 'write' || request.kind === 'read') {
      const verb = request.kind === 'write' ? 'edit' : 'read';
      return {
        action: 'ask',
        reason: `${verb} a file outside its folder${why}`,
        detail: `${inner.detail} (outside its folder; its sandbox blocks this unless you allow it once)`,
        kind: `${verb} a file outside its folder`,
      };
    }
    return {
      action: 'ask',
      reason: `run OUTSIDE the sandbox${why}`,
      detail: `outside the sandbox: ${inner.detail}`,
      kind: 'outside the sandbox',
    };
  }
  switch (request.kind) {
    case 'read':
    case 'write': {
      const requested = request.kind === 'read' ? request.path : request.fileName;
      const resolved = request.resolvedPath;
      for (const p of [requested, resolved]) {
        if (!p) continue;
        const label = protectedPaths.match(p, workingDir);
        if (label) return protectedDeny(p, label);
      }
      const real = realpathNearest(path.resolve(workingDir, requested));
      const realResolved = resolved ? realpathNearest(path.resolve(workingDir, resolved)) : real;
      const verb = request.kind === 'read' ? 'read' : 'edit';
      const hidden = ctx.hidden?.find((h) => isWithin(real, h) || isWithin(realResolved, h));
      if (hidden)
        return {
          action: 'deny',
          reason: 'git ignores it: hidden from a worker that reads the folder itself',
          detail: real,
          feedback: `Denied: ${path.relative(workingDir, hidden) || hidden} is ignored by git, and what git ignores (local secrets such as .env, dependencies, build output) is out of your reach. Work from the files git tracks.`,
        };
      if (isWithin(real, workingDir) && isWithin(realResolved, workingDir)) {
        if (managed) return { action: 'ask', reason: 'managed policy requires a user decision', detail: real, kind: request.kind };
        // A worker in `/` is inside its folder in /proc too: every process's environment is there.
        const system = systemFolder(real) ?? systemFolder(realResolved);
        if (system) return { action: 'ask', reason: `${verb} in ${system} (every process's environment is there)`, detail: real, kind: request.kind };
        // A recursive read or search of a folder holding ~/.ssh (a worker in the home dir) would reach it.
        const holds = protectedPaths.containedIn(real);
        if (holds)
          return {
            action: 'ask',
            reason: `the folder contains the protected path ${holds}`,
            detail: real,
            kind: request.kind,
          };
        return { action: 'approve', reason: `${verb} inside the working directory`, detail: real };
      }
      // Linked in by the user's baton.workers.worktreeInclude: to read, as in its worktree (an edit still asks).
      if (request.kind === 'read' && !managed && ctx.readable?.some((r) => isWithin(real, r) && isWithin(realResolved, r)))
        return { action: 'approve', reason: 'read of a folder linked into its worktree', detail: real };
      const remember = `${request.kind}-outside`;
      if (approvedKinds.has(remember) && !managed) {
        return { action: 'approve', reason: `${verb} outside the working directory, approved for this worker`, detail: real };
      }
      return { action: 'ask', reason: `${verb} outside the working directory`, detail: real, kind: request.kind, remember };
    }
    case 'shell': {
      const cwd = request.resolvedWorkingDirectory ?? workingDir;
      const paths = [
        ...request.possiblePaths,
        ...Object.values(request.resolvedPaths ?? {}).filter((p): p is string => typeof p === 'string'),
        ...pathLikeTokens(request.fullCommandText),
      ];
      for (const p of paths) {
        const label = protectedPaths.match(p, cwd);
        if (label) return protectedDeny(p, label);
      }
      const cwdLabel = protectedPaths.match(cwd);
      if (cwdLabel) return protectedDeny(cwd, cwdLabel);
      const detail = request.fullCommandText;
      if (managed) return { action: 'ask', reason: 'managed policy requires a user decision', detail, kind: 'shell' };
      const holds = protectedPaths.containedIn(cwd);
      if (trustWorkingDir && !holds) return { action: 'approve', reason: 'shell command; the working directory is trusted', detail };
      if (approvedKinds.has('shell')) return { action: 'approve', reason: 'shell command, approved for this worker', detail };
      return {
        action: 'ask',
        reason: holds ? `shell command in a folder that contains the protected path ${holds}` : 'shell command',
        detail,
        kind: 'shell',
        remember: 'shell',
      };
    }
    case 'url': {
      if (approvedKinds.has('url') && !managed) return { action: 'approve', reason: 'URL access, approved for this worker', detail: request.url };
      return { action: 'ask', reason: 'URL access', detail: request.url, kind: 'url', remember: 'url' };
    }
    case 'mcp': {
      const detail = `${mcpToolLabel(request.serverName, request.toolName)}${request.args !== undefined ? ` ${clip(JSON.stringify(request.args), 500)}` : ''}`;
      const remember = `mcp:${request.serverName}/${request.toolName}`;
      if (approvedKinds.has(remember)) return { action: 'approve', reason: 'MCP tool, approved for this worker', detail };
      return { action: 'ask', reason: 'MCP tool', detail, kind: 'mcp', remember };
    }
    case 'custom-tool':
    case 'hook': {
      // A hook request is an MCP call the guard could not check (protectedArgs.ts): its arguments are what to judge.
      const given = request.kind === 'custom-tool' ? request.args : request.toolArgs;
      const detail = `${request.toolName}${given !== undefined ? ` ${clip(JSON.stringify(given), 500)}` : ''}`;
      const remember = `${request.kind}:${request.toolName}`;
      if (approvedKinds.has(remember)) return { action: 'approve', reason: `${request.kind}, approved for this worker`, detail };
      // Baton's sessions load no hooks of their own: a hook request is the guard's, an MCP tool's call.
      return { action: 'ask', reason: request.kind, detail, kind: request.kind === 'hook' ? 'mcp' : request.kind, remember };
    }
    default: {
      const kind = (request as { kind: string }).kind;
      if (DENIED_KINDS.has(kind)) {
        return { action: 'deny', reason: `${kind} is not available to workers`, detail: kind, feedback: `Denied: workers may not use ${kind}.` };
      }
      if (approvedKinds.has(kind)) return { action: 'approve', reason: `${kind}, approved for this worker`, detail: kind };
      return { action: 'ask', reason: kind, detail: clip(JSON.stringify(request), 500), kind, remember: kind };
    }
  }
}

/** Builds the session's onPermissionRequest for one worker; 'worker' approvals live as long as the handler. */
export function createWorkerPermissionHandler(opts: WorkerPermissionOptions): PermissionHandler {
  const approvedKinds = new Set<string>();
  // One tool call can raise the same request twice (measured: a read outside the tree asks twice);
  // the user answers once per tool call.
  const perCall = new Map<string, Promise<PermissionDecision>>();

  const record = (verb: string, v: Verdict, extra = ''): void => {
    const line = `Worker '${opts.worker}': ${verb} ${v.detail} (${v.reason})${extra}`;
    opts.logger.info(line);
    opts.onDecision?.(`permission ${verb}: ${v.detail} (${v.reason})${extra}`);
  };

  return async (request: PermissionRequest): Promise<PermissionRequestResult> => {
    let verdict: Verdict;
    try {
      verdict = evaluatePermission(request, {
        workingDir: opts.workingDir,
        protectedPaths: opts.protectedPaths(),
        trustWorkingDir: opts.trustWorkingDir(),
        sandboxed: opts.sandboxed?.() ?? false,
        readOnly: opts.readOnly?.() ?? false,
        hidden: opts.hidden?.() ?? [],
        readable: opts.readable?.() ?? [],
        approvedKinds,
      });
    } catch (err) {
      opts.logger.error(`Worker '${opts.worker}': could not evaluate a ${request.kind} permission request; denied`, err);
      return { kind: 'reject', feedback: 'Denied: the request could not be checked.' };
    }
    if (verdict.action === 'approve') {
      record('approved', verdict);
      return { kind: 'approve-once' };
    }
    if (verdict.action === 'deny') {
      record('denied', verdict);
      return { kind: 'reject', feedback: verdict.feedback };
    }

    const key = `${request.toolCallId ?? randomUUID()}|${verdict.remember ?? verdict.kind}|${verdict.detail}`;
    let pending = perCall.get(key);
    if (!pending) {
      const conversation = opts.conversation?.();
      const prompt: PermissionPrompt = {
        id: randomUUID(),
        worker: opts.worker,
        kind: verdict.kind,
        detail: verdict.detail,
        ...(conversation ? { conversation } : {}),
        ...(verdict.remember ? { kept: 'asker' as const } : {}),
      };
      pending = opts.broker.ask(prompt, opts.signal?.()).catch((err: unknown) => {
        opts.logger.warn(
          `Worker '${opts.worker}': the permission prompt ended without an answer (${err instanceof Error ? err.message : String(err)}); denied`,
        );
        return 'deny' as const;
      });
      perCall.set(key, pending);
      if (perCall.size > 200) perCall.delete(perCall.keys().next().value!);
    }
    const decision = await pending;
    if (decision === 'worker' && verdict.remember) {
      approvedKinds.add(verdict.remember);
      record('approved', verdict, ' — by the user, for the rest of this worker');
      return { kind: 'approve-once', approvedInteractively: true };
    }
    if (decision !== 'deny') {
      record('approved', verdict, ' — by the user, once');
      return { kind: 'approve-once', approvedInteractively: true };
    }
    record('denied', verdict, ' — by the user');
    return { kind: 'reject', feedback: 'The user denied this. Do not retry it; continue without it or explain what you needed.' };
  };
}

/**
 * Path-looking words of a shell command (`~/x`, `/x`, `./x`, `../x`, `a/b`, `.npmrc`, `$HOME/x`).
 * Best effort on top of the runtime's own possiblePaths: it catches the plain spellings
 * (`cat ~/.ssh/id_rsa`), not deliberate obfuscation — protected paths are also refused for reads
 * and edits, and untrusted shell commands reach the user anyway.
 */
export function pathLikeTokens(command: string): string[] {
  const out: string[] = [];
  for (const raw of command.split(/[\s;|&<>()`'"=,]+/)) {
    const t = raw.replace(/^[{[]+|[}\]]+$/g, '');
    if (!t || /^[a-z][a-z0-9+.-]*:\/\//i.test(t)) continue;
    if (
      /^(~|\$HOME|\$\{HOME\})(\/|$)/.test(t) ||
      t.startsWith('/') ||
      t.startsWith('./') ||
      t.startsWith('../') ||
      /^\.[A-Za-z0-9_-]/.test(t) ||
      t.includes('/')
    ) {
      out.push(t);
    }
  }
  return out;
}

function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
