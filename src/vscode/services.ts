// Builds Baton's core once, on first need (never during activation): the store, the one Copilot
// runtime (not started until a message is sent or the chat view opens), the orchestrator, the
// worker pool and the chat controller.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ChatController, type HostActions } from '../core/chat/chatController';
import { CopilotRuntime } from '../core/copilot/copilotRuntime';
import { readUserCopilotConfig } from '../core/copilot/userCopilotConfig';
import { createMemoryTools } from '../core/memory/memoryTools';
import { getMemorySummary } from '../core/memory/memorySummary';
import type { Origin } from '../core/orchestrator/events';
import { Orchestrator } from '../core/orchestrator/orchestrator';
import { SessionClaims } from '../core/orchestrator/sessionClaims';
import { SqlJsStore } from '../core/store/sqlJsStore';
import type { BatonStore } from '../core/store/types';
import { WorkerPool } from '../core/workers/workerPool';
import { createWorkerTools } from '../core/workers/workerTools';
import type { OutputLog } from './outputLog';
import { readOrchestratorSettings, readProvider, readWorkerSettings, setRoutingAuto } from './settings';

/** Where a worker started during the current turn reports back: the channel that asked. */
function replyChannel(origin: Origin | undefined): 'panel' | 'command' {
  if (!origin) return 'panel';
  if (origin.channel === 'background') return origin.replyTo ?? 'panel';
  return origin.channel;
}

/** globalState key: the user chose VS Code's GitHub sign-in for Copilot (Baton: Sign In). */
export const USE_VSCODE_GITHUB = 'baton.useVsCodeGitHubSession';

export interface Core {
  store: BatonStore;
  runtime: CopilotRuntime;
  orchestrator: Orchestrator;
  pool: WorkerPool;
  chat: ChatController;
}

export class BatonServices implements vscode.Disposable {
  private core: Promise<Core> | undefined;
  private built: Core | undefined;
  private readonly readyListeners: Array<(core: Core) => void> = [];
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly log: OutputLog,
  ) {}

  /** The core, built on first call; later calls share it. */
  ready(): Promise<Core> {
    this.core ??= this.build().then((core) => {
      this.built = core;
      for (const listener of this.readyListeners.splice(0)) listener(core);
      return core;
    });
    return this.core;
  }

  /** The core if it is already built, without building it. */
  get current(): Core | undefined {
    return this.built;
  }

  onReady(listener: (core: Core) => void): void {
    if (this.built) listener(this.built);
    else this.readyListeners.push(listener);
  }

  get storageDir(): string {
    return this.context.globalStorageUri.fsPath;
  }

  private async build(): Promise<Core> {
    const started = Date.now();
    const { context, log } = this;
    const storageDir = this.storageDir;
    await vscode.workspace.fs.createDirectory(context.globalStorageUri);
    const store = await SqlJsStore.open({
      dir: storageDir,
      wasmPath: path.join(context.extensionPath, 'dist', 'sql-wasm.wasm'),
      onReport: (report) => {
        log[report.level === 'error' ? 'error' : report.level === 'warning' ? 'warn' : 'info'](report.message);
        // Pop up only what the user must know (a file moved aside, data not saved); the rest is in the log.
        if (report.level === 'error' || /moved to|could not save/.test(report.message)) void vscode.window.showWarningMessage(`Baton: ${report.message}`);
      },
    });

    const runtime = new CopilotRuntime({
      provider: await readProvider(context.secrets),
      logger: log,
      gitHubToken: await this.githubToken(),
      fallbackModels: () => {
        const s = readOrchestratorSettings().routing;
        return [...new Set([s.model, ...Object.values(s.tiers)])];
      },
    });
    const sessionDirectory = path.join(storageDir, 'copilot-sessions');
    const userConfig = await readUserCopilotConfig(runtime.copilotHome, log);
    const ownPaths = [context.extensionPath, storageDir];

    let chat: ChatController | undefined;
    let orchestrator!: Orchestrator;
    const pool = new WorkerPool({
      runtime,
      store,
      logger: log,
      sessionDirectory,
      ownPaths,
      settings: readWorkerSettings,
      broker: { ask: (prompt) => chat?.askPermission(prompt) ?? Promise.resolve('deny') },
      copilotHome: runtime.copilotHome,
      model: () => readOrchestratorSettings().routing.model,
      reservedSessionIds: () => [orchestrator.currentSessionId, store.getState('orchestrator_session_id')],
      // Delivered once the orchestrator's session takes it: a window closed while it waited in the
      // queue leaves it in the inbox for the next start, while a failed summary turn does not make
      // it come back again.
      deliver: (text, origin) => orchestrator.enqueue(text, origin).started,
    });
    orchestrator = new Orchestrator({
      runtime,
      store,
      logger: log,
      version: context.extension.packageJSON.version as string,
      settings: readOrchestratorSettings,
      tools: () => [...createMemoryTools(store), ...createWorkerTools(pool, { replyTo: () => replyChannel(orchestrator.currentOrigin) })],
      memorySummary: () => getMemorySummary(store),
      sessionDirectory,
      claims: new SessionClaims(path.join(storageDir, 'claims')),
      userConfig: () => userConfig,
      installPath: context.extensionPath,
      workspaceFolders: () => (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
    });
    chat = new ChatController(orchestrator, store, this.hostActions(), log, () => readOrchestratorSettings().routing.auto);
    const interrupted = orchestrator.start();
    if (interrupted.length) log.warn(`Offering to resend ${interrupted.length} interrupted message(s)`);
    const workersSub = pool.onDidChange((cards) => chat?.updateWorkers(cards));
    this.disposables.push({ dispose: workersSub });
    void pool.deliverPending().catch((err) => log.error('Could not deliver the results workers left from the last session', err));

    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration(async (e) => {
        if (e.affectsConfiguration('baton.provider')) {
          runtime.updateProvider(await readProvider(context.secrets));
          await runtime.reset('the provider settings changed');
        } else if (e.affectsConfiguration('baton.model') || e.affectsConfiguration('baton.routing')) {
          chat?.refreshState();
        }
      }),
      context.secrets.onDidChange(async (e) => {
        if (!e.key.startsWith('baton.provider.')) return;
        runtime.updateProvider(await readProvider(context.secrets));
        await runtime.reset('the provider API key changed');
      }),
    );
    log.info(`Baton core ready in ${Date.now() - started} ms (storage: ${storageDir})`);
    return { store, runtime, orchestrator, pool, chat };
  }

  /**
   * The GitHub session of VS Code, once the user chose it with `Baton: Sign In`. Until then the
   * runtime signs in as the Copilot CLI does (its own login, or GH_TOKEN), which a token passed
   * here would override.
   */
  private async githubToken(): Promise<string | undefined> {
    if (!this.context.globalState.get<boolean>(USE_VSCODE_GITHUB)) return undefined;
    try {
      const session = await vscode.authentication.getSession('github', ['read:user'], { silent: true });
      return session?.accessToken;
    } catch {
      return undefined;
    }
  }

  private hostActions(): HostActions {
    return {
      openLink: (href) => {
        let uri: vscode.Uri;
        try {
          uri = vscode.Uri.parse(href, true);
        } catch {
          return;
        }
        if (['http', 'https', 'mailto'].includes(uri.scheme)) void vscode.env.openExternal(uri);
        else if (uri.scheme === 'file') void vscode.window.showTextDocument(uri);
      },
      insertCode: (code) => {
        const editor = vscode.window.activeTextEditor;
        if (!editor) {
          void vscode.window.showInformationMessage('Baton: open an editor to insert the code into.');
          return;
        }
        void editor.edit((edit) => {
          for (const selection of editor.selections) edit.replace(selection, code);
        });
      },
      runCommand: (command) => void vscode.commands.executeCommand(command),
      toggleRouting: () => void setRoutingAuto(!readOrchestratorSettings().routing.auto),
      openWorker: (name) => void vscode.commands.executeCommand('baton.worker.openTranscript', name),
    };
  }

  async dispose(): Promise<void> {
    for (const d of this.disposables.splice(0)) d.dispose();
    const core = this.built;
    if (!core) return;
    core.chat.dispose();
    await core.pool.dispose();
    await core.orchestrator.dispose();
    await core.runtime.dispose();
    await core.store.close();
  }
}
