// Baton's table of contents. Activation only registers things: the core (store, runtime,
// orchestrator, workers) is built just after, and the Copilot runtime starts only when the chat
// view opens or a message is sent.
import * as vscode from 'vscode';
import type { BatonApi } from '../api/baton';
import { createBatonApi } from './core/api/batonApi';
import { registerChatParticipant } from './vscode/chatParticipant';
import { registerChatView } from './vscode/chatViewProvider';
import { registerCommands } from './vscode/commands';
import { registerConversationCommands } from './vscode/conversationCommands';
import { registerContextCommands } from './vscode/contextCommands';
import { registerContextKeys } from './vscode/contextKeys';
import { registerLanguageModelTools } from './vscode/languageModelTools';
import { declareCommands, failDeclaredCommands } from './vscode/deferredCommands';
import { tellStartFailure } from './vscode/doctorWithoutCore';
import { registerMachineSessionsTree } from './vscode/machineSessionsTree';
import { registerMemoriesTree } from './vscode/memoriesTree';
import { registerNotifications } from './vscode/notifications';
import { OutputLog } from './vscode/outputLog';
import { BatonServices } from './vscode/services';
import { registerStatusBar } from './vscode/statusBar';
import { CHANGE_COMMANDS, registerWorkerChangesCommands } from './vscode/workerChangesCommands';
import { registerUsageView } from './vscode/usageView';
import { registerWorkersTree } from './vscode/workersTree';
import { registerSkillsTree } from './vscode/skillsTree';
import { registerSquadsTree } from './vscode/squadsTree';
import { registerWikiTree } from './vscode/wikiTree';

let services: BatonServices | undefined;

/** Commands implemented by the trees, which need the core; declared at once so none is ever missing. */
const TREE_COMMANDS = [
  'baton.killWorker',
  'baton.worker.openTranscript',
  'baton.worker.sendFollowUp',
  'baton.attachSession',
  'baton.forkSession',
  'baton.machineSessions.refresh',
  'baton.memory.add',
  'baton.memory.edit',
  'baton.memory.forget',
  'baton.squads.refresh',
  'baton.squad.delegate',
  'baton.squad.openDecisions',
  'baton.squad.remove',
  'baton.wiki.refresh',
  'baton.wiki.newPage',
  'baton.wiki.revealFolder',
  'baton.skills.refresh',
  'baton.skill.install',
  'baton.skill.remove',
  ...CHANGE_COMMANDS,
] as const;

/** The public API (api/baton.d.ts), plus how long activation took (read by the bench and the e2e tests). */
export function activate(context: vscode.ExtensionContext): BatonApi & { activationMs: number } {
  const started = performance.now();
  const log = new OutputLog();
  services = new BatonServices(context, log, started);
  const chatView = registerChatView(context, services);
  context.subscriptions.push(
    log,
    chatView,
    registerCommands(context, services),
    registerConversationCommands(services),
    registerUsageView(services),
    registerContextCommands(services, services.editorContext),
    // Refused at once, with why and a Doctor report made without the core, if the core cannot be built.
    declareCommands(TREE_COMMANDS, {
      registerCommand: (id, run) => vscode.commands.registerCommand(id, run),
      refused: (_id, failure) =>
        tellStartFailure(failure, { storageDir: context.globalStorageUri.fsPath, version: context.extension.packageJSON.version as string, log }),
    }),
    registerStatusBar(services),
    registerContextKeys(services),
    registerNotifications(services, () => chatView.isVisible()),
    registerChatParticipant(context, services),
    registerLanguageModelTools(services),
  );
  const ready = services.ready.bind(services);
  const api = createBatonApi(async () => (await ready()).access);
  context.subscriptions.push({ dispose: () => api.dispose() });
  services.onReady((core) => {
    context.subscriptions.push(
      registerWorkersTree(core.pool, (w) => core.usage.describe('worker', w), chatView),
      registerWorkerChangesCommands(core.pool, log),
      registerMachineSessionsTree(core.pool),
      registerMemoriesTree(core.store),
    );
    context.subscriptions.push(registerSquadsTree(core), registerWikiTree(core), registerSkillsTree(core));
  });
  // Just after activate() returns (a microtask, not a timer: a timer waits behind the rest of VS
  // Code's start-up work, measured at ~200 ms): the first message needs the store and the orchestrator.
  queueMicrotask(
    () =>
      void services?.ready().catch((err: unknown) => {
        log.error('Baton failed to start', err);
        failDeclaredCommands(err);
      }),
  );
  const activationMs = performance.now() - started;
  log.info(`Baton activated in ${activationMs.toFixed(1)} ms`);
  return Object.assign(api, { activationMs });
}

export async function deactivate(): Promise<void> {
  // Flushes the store and stops the runtime; VS Code waits for this promise.
  await services?.dispose();
  services = undefined;
}
