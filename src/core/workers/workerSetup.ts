// How and where one worker runs: its permission handler, its place (a worktree or the folder
// itself), the protected paths it must keep out of, and its session spec with its sandbox. Kept
// apart from the pool's lifecycle (workerPool.ts); the only state held here is the folders the user let workers change
// unisolated until the window closes.
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import type { SandboxPolicy, SessionSpec } from '../copilot/agentSessions';
import { GITHUB_MCP_SERVER } from '../copilot/sessionConfig';
import { protectedPathGuard } from './protectedArgs';
import { ProtectedPaths, realpathNearest, resolveWorkingDir } from './protectedPaths';
import { FolderApprovals } from './folderApprovals';
import { workerSpecExtras, type WorkerPoolHooks } from './workerExtras';
import type { WorkerIsolation, Placement } from './workerIsolation';
import { workerInstructions } from './workerMessages';
import { WORK_IN_PLACE } from '../../shared/permissionAsk';
import type { PermissionDecision } from '../../shared/protocol';
import { createWorkerPermissionHandler } from './workerPermissions';
import { briefNetwork, describeNetwork, GITHUB_API_HOST, letsThrough, resolveWorkerNetwork, type WorkerNetwork } from './workerNetwork';
import { workerSandboxPolicy } from './workerSandbox';
import { parseReplyTo, WorkerError, type IsolationRequest, type Worker, type WorkerPoolOptions } from './workerTypes';

export class WorkerSetup {
  /** Folders the user answered "Allow in this folder" for: workers change them unisolated unasked, in this window. */
  private readonly unisolatedFolders = new FolderApprovals();

  constructor(
    private readonly opts: WorkerPoolOptions & WorkerPoolHooks,
    private readonly isolation: () => WorkerIsolation | undefined,
  ) {}

  /** The folders the user answered "Allow in this folder" for, in this window (Doctor lists them). */
  approvedFolders(): string[] {
    return this.unisolatedFolders.list();
  }

  /** Takes back every "Allow in this folder": the next worker Baton cannot isolate in each is asked again. */
  forgetApprovedFolders(): number {
    return this.unisolatedFolders.clear();
  }

  /** `worker` is read at each request (the handler is built with the worker, before it exists). */
  permissionHandler(name: string, dir: string, worker: () => Worker): Worker['permissions'] {
    return createWorkerPermissionHandler({
      worker: name,
      readOnly: () => isReadOnly(worker()),
      hidden: () => worker().hidden ?? [],
      // Resolved here: the folder a link leads to may itself be reached through a link.
      readable: () => (worker().linkedTargets ?? []).map((p) => realpathNearest(p)),
      conversation: () => parseReplyTo(worker().replyTo).conversation,
      workingDir: dir,
      protectedPaths: () => this.protectedPaths(),
      trustWorkingDir: () => this.opts.settings().trustWorkingDir === true,
      sandboxed: () => ['applied', 'engaged'].includes(worker().session?.sandbox.state ?? 'off'),
      broker: this.opts.broker,
      logger: this.opts.logger,
      signal: () => worker().task?.abort.signal,
      onDecision: (line) => worker().transcript.add('permission', line),
    });
  }

  /** Moves a reserved worker to where it will work (its worktree); its permissions follow it there. */
  async place(w: Worker, dir: string, requested: IsolationRequest | undefined, signal?: AbortSignal): Promise<string | undefined> {
    const isolation = this.isolation();
    if (!isolation) return undefined;
    const settings = this.opts.settings();
    // The model may ask for less than the setting (to read only), never for more: writing in place is the user's choice.
    const mode = requested === 'read-only' ? 'read-only' : (settings.isolation ?? 'worktree');
    const placement: Placement = await isolation.place(w.name, dir, mode, settings.worktreeInclude ?? [], this.guardedPaths());
    if (placement.unguarded) await this.consentToWorkInPlace(w, placement.workingDir, placement.unguarded, signal);
    w.isolation = placement.isolation;
    w.sandboxReadonly = placement.readonlyPaths;
    w.included = placement.included;
    w.linkedTargets = placement.linkedTargets;
    w.hidden = placement.hidden;
    if (placement.workingDir !== w.workingDir) {
      w.workingDir = placement.workingDir;
      w.permissions = this.permissionHandler(w.name, placement.workingDir, () => w);
    }
    return placement.note;
  }

  /**
   * A worker meant to be isolated that must change the folder itself (too large to copy, a repository with no commit):
   * the user decides, since a `.git` it made there would be read by git outside its sandbox (VS Code's opens one that
   * appears in the workspace). Only the user's setting (`isolation: "none"`) makes working in place the rule unasked;
   * "Allow in this folder" (the decision `worker`) does for that folder until the window closes.
   */
  private async consentToWorkInPlace(w: Worker, dir: string, why: string, caller: AbortSignal | undefined): Promise<void> {
    // Withdrawn by a kill of the worker (one before the question too: it is never shown), or when whoever asked for it
    // stops waiting (the turn that called the tool, a cancelled tool call).
    const withdrawn = caller ? AbortSignal.any([w.placing.signal, caller]) : w.placing.signal;
    const conversation = parseReplyTo(w.replyTo).conversation;
    const question = async (): Promise<PermissionDecision> =>
      withdrawn.aborted
        ? 'deny'
        : this.opts.broker
            .ask(
              {
                id: randomUUID(),
                worker: w.name,
                kind: WORK_IN_PLACE,
                kept: 'folder',
                detail: `${dir}\nNo isolation here: ${why}. Its edits would land in your files directly, and a .git it made there could have your git and VS Code's run a program outside its sandbox.`,
                ...(conversation ? { conversation } : {}),
              },
              withdrawn,
            )
            .catch((err: unknown) => {
              if (!withdrawn.aborted)
                this.opts.logger.warn(`Worker '${w.name}': asking to work in ${dir} itself ended without an answer (${String(err)}); not started`);
              return 'deny' as const;
            });
    const decision = await this.unisolatedFolders.ask(dir, withdrawn, question, (answer) => answer === 'worker');
    if (w.placing.signal.aborted) throw new WorkerError(`Worker '${w.name}' was stopped while it started.`);
    if (caller?.aborted) throw new WorkerError(`Worker '${w.name}' was not started: the request for it was stopped before the user answered.`);
    if (decision === 'earlier') {
      w.transcript.add('permission', `approved: change ${dir} itself (${why}) — by the user earlier, in this folder`);
      return;
    }
    w.transcript.add('permission', `${decision === 'deny' ? 'denied' : 'approved'}: change ${dir} itself (${why}) — by the user`);
    if (decision === 'deny')
      throw new WorkerError(
        `Worker '${w.name}' was not started: the user did not let it change ${dir} itself (${why}). Started to read only (isolation "read-only") it could read the folder; to change files, start it in a git repository with a commit.`,
      );
  }

  spec(w: Worker): SessionSpec {
    return {
      role: 'worker',
      workingDirectory: w.workingDir,
      permissions: w.permissions,
      ...workerSpecExtras(
        w,
        workerInstructions(
          w.name,
          w.workingDir,
          w.isolation?.kind === 'worktree' ? { branch: w.isolation.branch, included: w.included ?? [] } : isReadOnly(w) ? 'read-only' : undefined,
        ),
        this.opts.model?.(),
        this.opts,
      ),
      // Only sessions Baton creates live in its own folder; attached and forked ones stay in the user's Copilot home.
      ownSession: w.source === 'created',
      trackChanges: true,
      // Its MCP servers run outside its sandbox: a protected path in a call's arguments is refused, reads included.
      mcpGuard: protectedPathGuard(() => this.protectedPaths(), this.opts.logger, `Worker '${w.name}'`),
      // The runtime's GitHub MCP server reads GitHub from the runtime's process with the user's token, not from the
      // shell. The runtime holds it to the sandbox's rules for its endpoint's host (the Copilot API's, measured), not
      // GitHub's: a worker whose shell could not reach GitHub's API must not reach it that way either.
      ...(letsThrough(this.network(), GITHUB_API_HOST) ? {} : { disabledMcpServers: [GITHUB_MCP_SERVER] }),
      ...(this.opts.settings().sandbox === 'off' ? {} : { sandbox: this.sandboxPolicy(w) }),
    };
  }

  /** What no worker may reach: every protected location and the Copilot runtime's home (its login). */
  private guardedPaths(): string[] {
    return [...this.protectedPaths().paths, this.opts.sessions.copilotHome];
  }

  private sandboxPolicy(w: Worker): SandboxPolicy {
    const network = this.network();
    return workerSandboxPolicy({
      workingDir: w.workingDir,
      protectedPaths: [...this.guardedPaths(), ...(w.hidden ?? [])],
      network: {
        mode: network.mode,
        allowedHosts: network.allowedHosts,
        blockedHosts: network.blockedHosts,
        ...(network.proxy ? { proxy: network.proxy } : {}),
        line: describeNetwork(network),
        brief: briefNetwork(network),
      },
      readonlyPaths: w.sandboxReadonly,
      readOnly: isReadOnly(w),
      runtimeTools: this.opts.sessions.sandboxSupport.runtimeTools,
    });
  }

  /** The network a new worker gets under the current settings (read at each start: addresses change). */
  network(): WorkerNetwork {
    const s = this.opts.settings();
    return resolveWorkerNetwork({ mode: s.network ?? 'internet', allowedHosts: s.allowedHosts, blockedHosts: s.blockedHosts, proxy: s.proxy });
  }

  protectedPaths(): ProtectedPaths {
    // A worker's worktree lives in Baton's (protected) storage, and is its own place to work.
    const allowedInside = this.opts.storageDir ? [path.join(this.opts.storageDir, 'worktrees')] : [];
    return new ProtectedPaths({ homeDir: this.opts.homeDir, extra: this.opts.settings().protectedPaths ?? [], ownPaths: this.opts.ownPaths(), allowedInside });
  }

  resolveDir(input: string): string {
    const result = resolveWorkingDir(input, this.protectedPaths());
    if (!result.ok) throw new WorkerError(result.error);
    return result.dir;
  }
}

/** A worker started to read only (explain, review, search): nothing in its folder is its to change. */
export function isReadOnly(w: Pick<Worker, 'isolation'>): boolean {
  return w.isolation?.kind === 'in-place' && w.isolation.readOnly === true;
}
