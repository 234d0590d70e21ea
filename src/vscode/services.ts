// Builds Baton's core once, on first need (never during activation): the store, the one Copilot
// runtime (not started until a message is sent or the chat view opens), the orchestrator, the
// worker pool and the chat controller.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { createBatonCore, prepareBatonCore, type BatonCore, type BatonCoreDeps } from '../core/batonCore';
import { threadTimes, threadTimesSince } from '../core/util/threadTimes';
import type { HostActions } from '../core/chat/chatController';
import { EditorContext } from './editorContext';
import { openLink } from './openLink';
import { providerChange, whenNoWorkerRuns } from './providerChange';
import { dirtyBuffers } from './workerChangesCommands';
import { numberSettingProblems } from './numberSettings';
import { readWikiFolder } from './wikiFolderSetting';
import type { OutputLog } from './outputLog';
import { readOrchestratorSettings, readProvider, readRuntimeSettings, readSkillIndexUrl, readWorkerSettings, setModel, setRoutingAuto } from './settings';

/** globalState key: the user chose VS Code's GitHub sign-in for Copilot (Baton: Sign In). */
export const USE_VSCODE_GITHUB = 'baton.useVsCodeGitHubSession';

export type Core = BatonCore;

export class BatonServices implements vscode.Disposable {
  private core: Promise<Core> | undefined;
  private built: Core | undefined;
  private readonly readyListeners: Array<(core: Core) => void> = [];
  private readonly disposables: vscode.Disposable[] = [];
  private editorContextRef: EditorContext | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly log: OutputLog,
    /** performance.now() when activate() began, so the log can say how long after it the core was ready. */
    private readonly activatedAt = performance.now(),
    /** The extension host's main thread at that moment: how much of the wait it spent running, how much waiting for a CPU. */
    private readonly activatedThread = threadTimes(),
  ) {
    prepareBatonCore({ store: this.storeOptions() });
  }

  /** The core, built on first call; later calls share it. */
  ready(): Promise<Core> {
    this.core ??= this.build().then((core) => {
      this.built = core;
      for (const listener of this.readyListeners.splice(0)) this.tell(listener, core);
      return core;
    });
    return this.core;
  }

  /** The core if it is already built, without building it. */
  get current(): Core | undefined {
    return this.built;
  }

  onReady(listener: (core: Core) => void): void {
    if (this.built) this.tell(listener, this.built);
    else this.readyListeners.push(listener);
  }

  /** One listener that throws (a view that fails to register) is logged and shown; the core and the others go on. */
  private tell(listener: (core: Core) => void, core: Core): void {
    try {
      listener(core);
    } catch (err) {
      this.log.error('A part of Baton failed to start', err);
      void vscode.window.showErrorMessage(`Baton: a part of Baton failed to start: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  get storageDir(): string {
    return this.context.globalStorageUri.fsPath;
  }

  /**
   * Protected like Baton's storage: the folder that holds it, `<user data>/User/globalStorage`, has VS Code's state
   * database, where SecretStorage keeps every extension's secrets (encrypted by a key the OS keyring holds, or, on a
   * Linux without one, by a fixed key).
   */
  get hostSecrets(): string[] {
    return [path.dirname(this.storageDir)];
  }

  /** The editor as the chat's context (files, selections, problems, changes); one per window. */
  get editorContext(): EditorContext {
    return (this.editorContextRef ??= new EditorContext([this.storageDir, ...this.hostSecrets]));
  }

  private async build(): Promise<Core> {
    const started = performance.now();
    // The extension host's CPU over the build too: on a loaded machine the wall time stretches while this stays put.
    const cpuAtStart = process.cpuUsage();
    const { context, log } = this;
    const storageDir = this.storageDir;
    // The store creates its folder itself; only the provider (a secret, for BYOK) and an opted-in token are awaited here.
    const [provider, gitHubToken] = await Promise.all([readProvider(context.secrets), this.githubToken()]);
    const settingsMs = performance.now() - started;
    const core = await createBatonCore({
      storageDir,
      installPath: context.extensionPath,
      hostSecrets: this.hostSecrets,
      version: context.extension.packageJSON.version as string,
      logger: log,
      provider,
      runtime: { gitHubToken },
      settings: { orchestrator: readOrchestratorSettings, workers: readWorkerSettings, runtime: readRuntimeSettings },
      workspaceFolders: () => (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
      dirtyBuffers,
      defaultWorkerFolder: () => this.editorContext.defaultWorkerFolder(),
      host: this.hostActions(),
      // The chat's control tools change settings here; the header and status bar follow through onDidChangeConfiguration.
      control: { setRoutingAuto, setModel },
      wikiFolder: readWikiFolder,
      skillIndexUrl: readSkillIndexUrl,
      store: this.storeOptions(),
    });
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration(async (e) => {
        // A numeric setting just set out of its bounds says so now, not at its next use.
        if (e.affectsConfiguration('baton')) numberSettingProblems();
        if (e.affectsConfiguration('baton.provider')) {
          await this.providerChanged(core, 'the provider settings changed');
        } else if (e.affectsConfiguration('baton.model') || e.affectsConfiguration('baton.routing')) {
          // Also after a switch Baton made itself (SettingsControl): telling the session twice rebuilds it once.
          core.control.settingsChanged(e.affectsConfiguration('baton.model') ? 'the model' : 'the routing');
        }
      }),
      context.secrets.onDidChange(async (e) => {
        if (!e.key.startsWith('baton.provider.')) return;
        await this.providerChanged(core, 'the provider API key changed');
      }),
    );
    const now = performance.now();
    const cpu = process.cpuUsage(cpuAtStart);
    // Since activation began (the same span as the figure): wall time = on a CPU + waiting for one + blocked or idle.
    const thread = threadTimesSince(this.activatedThread);
    const threadNote = thread
      ? `; main thread since activation: ${thread.onCpuMs.toFixed(0)} ms on a CPU, ${thread.waitingMs.toFixed(0)} ms waiting for one`
      : '';
    log.info(
      `Baton core ready in ${(now - started).toFixed(0)} ms, ${(now - this.activatedAt).toFixed(0)} ms after activation began (settings ${settingsMs.toFixed(0)} ms; host CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms${threadNote}; storage: ${storageDir})`,
    );
    return core;
  }

  /** A provider setting or key changed: the runtime restarts only for a real change, after the workers running now. */
  private async providerChanged(core: Core, reason: string): Promise<void> {
    const running = (): string[] => core.pool.listActive().flatMap((w) => (w.state === 'running' ? [w.name] : []));
    const change = providerChange(core.sessions.provider, await readProvider(this.context.secrets), running());
    if (change.kind === 'none') return;
    if (change.kind === 'after-workers') {
      const names = change.running.map((n) => `'${n}'`).join(', ');
      void vscode.window.showInformationMessage(`Baton: the provider changed. It is used once ${names} finish${change.running.length === 1 ? 'es' : ''}.`);
      await whenNoWorkerRuns(running, (listener) => core.pool.onDidChange(listener));
    }
    // Read again: it may have changed again (or back) while the workers ran.
    const next = await readProvider(this.context.secrets);
    if (providerChange(core.sessions.provider, next, []).kind === 'none') return;
    core.sessions.updateProvider(next);
    await core.sessions.reset(reason);
  }

  private storeOptions(): BatonCoreDeps['store'] {
    const { context, log } = this;
    return {
      wasmPath: path.join(context.extensionPath, 'dist', 'sql-wasm.wasm'),
      freshImagePath: path.join(context.extensionPath, 'dist', 'baton-fresh.sqlite'),
      onReport: (report) => {
        log[report.level === 'error' ? 'error' : report.level === 'warning' ? 'warn' : 'info'](report.message);
        // Pop up only what the user must act on (a file moved aside, data not saved); the rest is in the log.
        if (report.userMustAct) void vscode.window.showWarningMessage(`Baton: ${report.message}`);
      },
    };
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
      openLink: (href) => openLink(href),
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
      toggleRouting: () => {
        const on = !readOrchestratorSettings().routing.auto;
        // A settings write that fails (a read-only settings file) is said: the header would otherwise just not change.
        void (this.built ? this.built.control.setRoutingAuto(on) : setRoutingAuto(on)).catch((err: unknown) =>
          vscode.window.showErrorMessage(`Baton: could not turn auto routing ${on ? 'on' : 'off'}: ${err instanceof Error ? err.message : String(err)}`),
        );
      },
      openWorker: (name, action) => {
        const command = {
          review: 'baton.reviewChanges',
          apply: 'baton.applyChanges',
          discard: 'baton.discardChanges',
          folder: 'baton.openWorkerFolder',
          branch: 'baton.keepChangesAsBranch',
          ask: 'baton.askWorkerForChanges',
          'resolve-worker': 'baton.resolveWithWorker',
          'resolve-editor': 'baton.resolveInEditor',
          undo: 'baton.undoApply',
        } as const;
        void vscode.commands.executeCommand(action && action !== 'transcript' ? command[action] : 'baton.worker.openTranscript', name);
      },
      context: this.editorContext,
      conversationAction: (action, id) =>
        void vscode.commands.executeCommand(action === 'rename' ? 'baton.renameConversation' : 'baton.deleteConversation', id),
    };
  }

  async dispose(): Promise<void> {
    for (const d of this.disposables.splice(0)) d.dispose();
    await this.built?.dispose();
  }
}
