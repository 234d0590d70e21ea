// Palette commands: everything the panel does, plus the ones that only make sense as commands.
import * as vscode from 'vscode';
import { TurnError } from '../core/orchestrator/orchestrator';
import { runDoctor } from './doctor';
import { StartFailure } from './deferredCommands';
import { openDoctorWithoutCore } from './doctorWithoutCore';
import { USE_VSCODE_GITHUB, type BatonServices } from './services';
import { providerType, readOrchestratorSettings, SECRET_PREFIX, setRoutingAuto } from './settings';

export function registerCommands(context: vscode.ExtensionContext, services: BatonServices): vscode.Disposable {
  const register = (id: string, fn: (...args: never[]) => unknown) => vscode.commands.registerCommand(id, fn);
  return vscode.Disposable.from(
    register('baton.focus', () => vscode.commands.executeCommand('baton.chat.focus')),
    // A new conversation; the one shown is kept in the list (Baton: Open Conversation… brings it back).
    register('baton.newChat', async () => {
      const core = await services.ready();
      core.conversations.create();
    }),
    register('baton.stop', async () => {
      const core = services.current;
      if (!core?.conversations.stop()) void vscode.window.showInformationMessage('Baton is not answering anything right now.');
    }),
    register('baton.sendMessage', async (text?: string) => {
      const message =
        typeof text === 'string' && text
          ? text
          : await vscode.window.showInputBox({ title: 'Ask Baton', prompt: 'The reply appears in the Baton panel.', ignoreFocusOut: true });
      if (!message) return;
      const core = await services.ready();
      const handle = core.chat.sendText(message, 'command');
      return handle.done.then(
        (r) => r.content,
        (err) => {
          void vscode.window.showErrorMessage(err instanceof TurnError ? err.readable.message : String(err));
          return undefined;
        },
      );
    }),
    register('baton.toggleRouting', async () => {
      const on = !readOrchestratorSettings().routing.auto;
      // Through the core when it is built, as the chat's toggle_auto does (the session's instructions follow).
      await (services.current ? services.current.control.setRoutingAuto(on) : setRoutingAuto(on));
      void vscode.window.showInformationMessage(`Baton: automatic model routing is ${on ? 'on' : 'off'}.`);
    }),
    register('baton.switchModel', async () => {
      const core = await services.ready();
      let models: string[];
      try {
        models = await core.sessions.listModels();
      } catch (err) {
        void vscode.window.showErrorMessage(`Baton could not list models: ${err instanceof Error ? err.message : String(err)}`);
        return;
      }
      const current = readOrchestratorSettings().routing.model;
      const pick = await vscode.window.showQuickPick(
        models.map((id) => ({ label: id, description: id === current ? 'current' : undefined })),
        { title: 'Baton: model for the orchestrator', placeHolder: current },
      );
      if (!pick) return;
      await core.control.switchModel(pick.label);
    }),
    register('baton.compact', async () => {
      const core = await services.ready();
      try {
        const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Baton: compacting the conversation' }, () =>
          core.orchestrator.compact(),
        );
        void vscode.window.showInformationMessage(`Baton compacted the conversation: ${r.tokensRemoved} tokens and ${r.messagesRemoved} messages freed.`);
      } catch (err) {
        void vscode.window.showErrorMessage(`Baton could not compact: ${err instanceof Error ? err.message : String(err)}`);
      }
    }),
    register('baton.remember', () => vscode.commands.executeCommand('baton.memory.add')),
    register('baton.showLog', () => services.log.show()),
    // The Workers view, opened and focused: it lists the finished workers the panel's strip no longer shows.
    register('baton.showWorkers', () => vscode.commands.executeCommand('baton.workers.focus')),
    register('baton.doctor', async () => {
      // Baton did not start: Doctor is what the user needs most then, made of what can be checked without the core.
      let core: Awaited<ReturnType<typeof services.ready>>;
      try {
        core = await services.ready();
      } catch (err) {
        const ctx = { storageDir: services.storageDir, version: context.extension.packageJSON.version as string, log: services.log };
        return openDoctorWithoutCore(new StartFailure(err), ctx);
      }
      const report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Baton: checking' }, () =>
        runDoctor(core, services.storageDir, context.extension.packageJSON.version),
      );
      const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: report });
      await vscode.window.showTextDocument(doc, { preview: true });
    }),
    register('baton.setProviderKey', async () => {
      let type = providerType();
      const switching = type === 'copilot';
      if (switching) {
        const pick = await vscode.window.showQuickPick(['openai', 'azure', 'anthropic'], { title: 'Baton: which provider is the key for?' });
        if (!pick) return;
        type = pick as typeof type;
      }
      const key = await vscode.window.showInputBox({
        title: `Baton: API key for ${type}`,
        password: true,
        ignoreFocusOut: true,
        prompt: switching
          ? "Stored in VS Code's secret storage, never in settings. Baton uses this provider once the key is stored."
          : "Stored in VS Code's secret storage, never in settings. Leave it empty to remove the stored key.",
        validateInput: (v) => (switching && !v.trim() ? 'Type the key (Escape keeps Copilot).' : undefined),
      });
      // Escape (or nothing typed) changes nothing: the provider moved before the key was asked for, and Escape left
      // Baton restarted on a provider with no key.
      if (key === undefined || (switching && !key.trim())) return;
      if (key) await context.secrets.store(SECRET_PREFIX + type, key);
      else await context.secrets.delete(SECRET_PREFIX + type);
      if (switching) await vscode.workspace.getConfiguration('baton').update('provider.type', type, vscode.ConfigurationTarget.Global);
      if (!vscode.workspace.getConfiguration('baton').get<string>('provider.baseUrl')) {
        void vscode.window
          .showInformationMessage('Baton: also set baton.provider.baseUrl (for example http://127.0.0.1:11434/v1 for Ollama).', 'Open Settings')
          .then((p) => p && vscode.commands.executeCommand('workbench.action.openSettings', 'baton.provider'));
      }
    }),
    register('baton.signIn', async () => {
      try {
        const session = await vscode.authentication.getSession('github', ['read:user'], { createIfNone: true });
        if (session) {
          await context.globalState.update(USE_VSCODE_GITHUB, true);
          await vscode.workspace.getConfiguration('baton').update('provider.type', 'copilot', vscode.ConfigurationTarget.Global);
          void vscode.window
            .showInformationMessage(`Baton: signed in as ${session.account.label}. Reload the window to use the new sign-in.`, 'Reload')
            .then((p) => p && vscode.commands.executeCommand('workbench.action.reloadWindow'));
        }
      } catch (err) {
        void vscode.window.showErrorMessage(
          `Baton: sign-in failed: ${err instanceof Error ? err.message : String(err)}. You can also run \`copilot login\` in a terminal.`,
        );
      }
    }),
  );
}
