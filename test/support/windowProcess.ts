// Baton in a separate Node process, as a second VS Code window's extension host runs it: built by the composition
// root (createBatonCore) over a storage folder shared with the other windows, with the real Copilot runtime pointed at
// the test's scripted model server. Forked by test/integration/windows.integration.test.ts; it takes commands over
// IPC (send, resend, query, dispose) and reports what its panel is sent, its orchestrator's events and its log lines.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createBatonCore, type BatonCore } from '../../src/core/batonCore';
import { panelOpened } from '../../src/core/chat/panelOpened';
import type { OrchestratorEvent } from '../../src/core/orchestrator/events';
import type { Logger } from '../../src/core/util/logger';
import type { HostMessage } from '../../src/shared/protocol';
import { hermeticEnv } from './copilotHarness';
import { defaultSettings } from './orchestratorFixture';

export interface WindowJob {
  /** The folder every window shares: the runtime's home, Baton's global storage. */
  root: string;
  serverUrl: string;
  /** This window's workspace folder name (its label in the other windows). */
  workspace: string;
  /** baton.workers.trustWorkingDir: a worker's shell commands run without asking (sandboxed). */
  trustWorkingDir?: boolean;
}

export type WindowCommand =
  | { cmd: 'send'; text: string }
  | { cmd: 'resend'; id: string }
  /** The panel reloaded: it asks for its snapshot again. */
  | { cmd: 'reload' }
  /** Remove on a queued message of the panel. */
  | { cmd: 'withdraw'; id: string }
  /** Stop in the panel. */
  | { cmd: 'stop' }
  /** A message sent as the API and the Chat view send one: the answer reports how its turn ended. */
  | { cmd: 'ask'; reqId: number; text: string }
  /** Cancels ask `reqId`, as the API's cancellation does (Orchestrator.withdraw, else stop). */
  | { cmd: 'cancelAsk'; reqId: number }
  | { cmd: 'query'; reqId: number; what: 'session' | 'owners' | 'log' }
  /** A worker's pending changes, as Apply and the card's count reach them: the answer is the result or the error. */
  | { cmd: 'changes'; reqId: number; op: 'apply' | 'keep' | 'totals'; name: string }
  | { cmd: 'dispose' };

export type WindowReport =
  | { kind: 'ready'; pid: number }
  | { kind: 'post'; at: number; message: HostMessage }
  | { kind: 'event'; at: number; event: OrchestratorEvent }
  | { kind: 'log'; line: string }
  | { kind: 'answer'; reqId: number; value: unknown }
  | { kind: 'failed'; message: string };

function report(r: WindowReport): void {
  process.send?.(r);
}

async function main(job: WindowJob): Promise<void> {
  const env = hermeticEnv(job.serverUrl, job.root);
  for (const key of ['HOME', 'XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'GH_CONFIG_DIR', 'TMPDIR', 'COPILOT_HOME'])
    await mkdir(env[key]!, { recursive: true });
  const storageDir = join(job.root, 'globalStorage');
  const workspace = join(job.root, job.workspace);
  await mkdir(workspace, { recursive: true });
  const line =
    (level: string) =>
    (message: string, err?: unknown): void =>
      report({ kind: 'log', line: `${level} ${message}${err ? ` ${String(err)}` : ''}` });
  const logger: Logger = { info: line('info'), warn: line('warn'), error: line('error') };
  const settings = defaultSettings();
  const core: BatonCore = await createBatonCore({
    storageDir,
    installPath: join(job.root, 'extension'),
    version: '0.0.0-test',
    logger,
    provider: { type: 'copilot' },
    settings: {
      orchestrator: () => settings,
      workers: () => ({ max: 5, timeoutMs: 30_000, protectedPaths: [], trustWorkingDir: job.trustWorkingDir === true }),
    },
    workspaceFolders: () => [workspace],
    host: { openLink: () => undefined, insertCode: () => undefined, runCommand: () => undefined, toggleRouting: () => undefined, openWorker: () => undefined },
    homeDir: env.HOME,
    store: { flushDelayMs: 20 },
    runtime: { env, copilotHome: env.COPILOT_HOME, workingDirectory: workspace, gitHubToken: 'fake' },
    retryDelaysMs: [50, 150, 300],
    healthCheckIntervalMs: 0,
  });
  core.chat.onDidPost((message) => report({ kind: 'post', at: Date.now(), message }));
  core.conversations.onEvent((event) => report({ kind: 'event', at: Date.now(), event }));
  // The panel opens, as the extension's view does: it asks for its first snapshot, and the session is prepared.
  core.chat.receive({ type: 'ready' });
  void panelOpened(core, logger);
  const asks = new Map<number, string>();
  process.on('message', (command: WindowCommand) => {
    switch (command.cmd) {
      case 'send':
        core.chat.receive({ type: 'chat/send', text: command.text });
        break;
      case 'resend':
        core.chat.receive({ type: 'chat/resend', id: command.id });
        break;
      case 'reload':
        core.chat.receive({ type: 'ready' });
        break;
      case 'withdraw':
        core.chat.receive({ type: 'chat/withdraw', id: command.id });
        break;
      case 'stop':
        core.chat.receive({ type: 'chat/stop' });
        break;
      case 'cancelAsk': {
        const turnId = asks.get(command.reqId);
        if (turnId && !core.orchestrator.withdraw(turnId)) core.orchestrator.stop(turnId);
        break;
      }
      case 'ask': {
        const handle = core.orchestrator.enqueue(command.text, { channel: 'api' });
        asks.set(command.reqId, handle.turnId);
        void handle.done.then(
          (result) => report({ kind: 'answer', reqId: command.reqId, value: { logId: handle.logId, content: result.content } }),
          (err: unknown) =>
            report({ kind: 'answer', reqId: command.reqId, value: { logId: handle.logId, error: err instanceof Error ? err.message : String(err) } }),
        );
        break;
      }
      case 'query': {
        const value =
          command.what === 'session'
            ? (core.orchestrator.currentSessionId ?? null)
            : command.what === 'owners'
              ? core.conversationClaims.list()
              : core.store.recentLog(200).map((e) => ({ id: e.id, role: e.role, status: e.status, content: e.content }));
        report({ kind: 'answer', reqId: command.reqId, value });
        break;
      }
      case 'changes': {
        const changes = core.pool.changes!;
        const op =
          command.op === 'apply'
            ? changes.apply(command.name, { dirtyBuffers: [] })
            : command.op === 'keep'
              ? changes.keepAsBranch(command.name, `${command.name}'s change`)
              : changes.totals(command.name);
        void op.then(
          (value) => report({ kind: 'answer', reqId: command.reqId, value }),
          (err: unknown) =>
            report({ kind: 'answer', reqId: command.reqId, value: { error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) } }),
        );
        break;
      }
      case 'dispose':
        void core.dispose().then(() => process.exit(0));
        break;
    }
  });
  report({ kind: 'ready', pid: process.pid });
}

process.once('message', (job: WindowJob) => {
  main(job).catch((err: unknown) => {
    report({ kind: 'failed', message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    process.exit(1);
  });
});
