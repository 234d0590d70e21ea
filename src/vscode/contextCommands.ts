// The editor's gestures into Baton: Add Selection to Chat (editor menu, keybinding), Ask About Selection,
// Add File / Folder to Chat (explorer, editor tab), Start a Worker Here… (explorer folder). The chips go
// to the panel, which is shown so the user sees what was attached or why it was refused.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { askUntilTaken } from './askUntilTaken';
import type { AttachResult } from '../core/context/contextPort';
import { workerNameFor } from '../core/context/workerName';
import type { EditorContext } from './editorContext';
import type { WorkerInfo } from '../core/workers/workerPool';
import type { BatonServices, Core } from './services';

export const CONTEXT_COMMANDS = {
  addSelection: 'baton.context.addSelection',
  askAboutSelection: 'baton.context.askAboutSelection',
  addFile: 'baton.context.addFile',
  addFolder: 'baton.context.addFolder',
  startWorkerHere: 'baton.startWorkerHere',
} as const;

/** The resources of an explorer or tab command: the multi-selection when there is one, else the clicked item. */
function resources(clicked: unknown, selected: unknown): vscode.Uri[] {
  const all = Array.isArray(selected) && selected.length ? selected : [clicked];
  return all.filter((u): u is vscode.Uri => u instanceof vscode.Uri);
}

export function registerContextCommands(services: BatonServices, editorContext: EditorContext): vscode.Disposable {
  const showChat = async (): Promise<Core> => {
    const core = await services.ready();
    await vscode.commands.executeCommand('baton.chat.focus');
    return core;
  };
  const deliver = async (result: AttachResult | Promise<AttachResult>): Promise<void> => {
    const core = await showChat();
    const r = await result;
    if (r.ok) core.chat.context.add(r.chips);
    else core.chat.context.refused(r.error.kind, r.error.message);
  };
  const register = (id: string, fn: (...args: never[]) => unknown) => vscode.commands.registerCommand(id, fn);
  // The implicit chip follows the active editor from the moment the chat can show it.
  services.onReady((core) => editorContext.follow((chip) => core.chat.context.setImplicit(chip)));

  return vscode.Disposable.from(
    register(CONTEXT_COMMANDS.addSelection, () => deliver(editorContext.selectionChip())),
    register(CONTEXT_COMMANDS.askAboutSelection, async () => {
      const chip = editorContext.selectionChip();
      if (!chip.ok) return void vscode.window.showWarningMessage(`Baton: ${chip.error.message}`);
      const [first] = chip.chips;
      if (!first) return;
      const question = await vscode.window.showInputBox({
        title: `Ask Baton about ${first.label}`,
        prompt: 'The selection goes with your question; the answer appears in the Baton panel.',
        placeHolder: 'Explain this',
      });
      if (!question?.trim()) return;
      const core = await showChat();
      await core.chat.sendFromPanel(question, [{ ref: first.ref }]);
    }),
    register(CONTEXT_COMMANDS.addFile, (clicked?: vscode.Uri, selected?: vscode.Uri[]) => {
      const uris = resources(clicked ?? vscode.window.activeTextEditor?.document.uri, selected).filter((u) => u.scheme === 'file');
      if (!uris.length) return void vscode.window.showWarningMessage('Baton: choose a file in the explorer or open one in an editor to add it to the chat.');
      return deliver(editorContext.attachPaths(uris.map((u) => u.fsPath)));
    }),
    register(CONTEXT_COMMANDS.addFolder, (clicked?: vscode.Uri, selected?: vscode.Uri[]) => {
      const uris = resources(clicked, selected).filter((u) => u.scheme === 'file');
      if (!uris.length) return;
      return deliver(editorContext.attachPaths(uris.map((u) => u.fsPath)));
    }),
    register(CONTEXT_COMMANDS.startWorkerHere, async (clicked?: vscode.Uri) => {
      const folder = clicked instanceof vscode.Uri && clicked.scheme === 'file' ? clicked.fsPath : editorContext.defaultWorkerFolder();
      if (!folder) return void vscode.window.showWarningMessage('Baton: right-click a folder in the explorer to start a worker there.');
      return startWorkerIn(folder);
    }),
    editorContext,
  );

  /** Asks for the task and starts the worker; refused once typed (the worker limit, a protected folder), it is not lost. */
  async function startWorkerIn(folder: string): Promise<void> {
    let started: (WorkerInfo & { note?: string }) | undefined;
    await askUntilTaken({
      box: {
        title: `Baton: start a worker in ${path.basename(folder)}`,
        prompt: `The worker works in ${folder} and reports back in the Baton panel.`,
        placeHolder: 'What should the worker do? e.g. "add unit tests for utils.ts"',
      },
      take: async (task) => {
        const core = await services.ready();
        const name = workerNameFor(
          path.basename(folder),
          task,
          core.pool.list().map((w) => w.name),
        );
        // The pool realpath-resolves the folder and refuses a protected one, as for the orchestrator's workers.
        started = await core.pool.create({ name, workingDir: folder, prompt: task, replyTo: 'panel' });
      },
      refused: (err) => `Baton could not start a worker in ${folder}: ${err instanceof Error ? err.message : String(err)}`,
    });
    // Told once it started, outside the refusal's reach: nothing here may start it again.
    if (!started) return;
    const note = started.note ? ` ${started.note}` : '';
    void vscode.window.showInformationMessage(`Baton: worker '${started.name}' started in ${started.workingDir}.${note} Its result comes back in the chat.`);
    await vscode.commands.executeCommand('baton.chat.focus');
  }
}
