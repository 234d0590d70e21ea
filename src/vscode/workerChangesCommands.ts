// Review, Apply, Discard and Open Folder for a worker's pending changes, from the Workers view, the
// panel's worker cards, the palette and Chat. Review opens VS Code's multi-file diff editor
// (original vs. the worker's version); Apply never overwrites an editor's unsaved changes and
// applies all or nothing; Discard asks first, because it cannot be undone.
import * as vscode from 'vscode';
import type { Logger } from '../core/util/logger';
import type { WorkerPool } from '../core/workers/workerPool';
import { provideCommand } from './deferredCommands';

export const CHANGE_COMMANDS = [
  'baton.reviewChanges',
  'baton.applyChanges',
  'baton.discardChanges',
  'baton.openWorkerFolder',
  'baton.cleanUpWorktrees',
] as const;

/** Absolute paths of the editor's documents with unsaved changes. */
export function dirtyBuffers(): string[] {
  return vscode.workspace.textDocuments.filter((d) => d.isDirty && d.uri.scheme === 'file').map((d) => d.uri.fsPath);
}

type Arg = string | { name?: unknown } | undefined;

export function registerWorkerChangesCommands(pool: WorkerPool, log: Logger): vscode.Disposable {
  const changes = pool.changes;
  const pick = async (arg: Arg, title: string): Promise<string | undefined> => {
    if (typeof arg === 'string' && arg) return arg;
    if (arg && typeof arg === 'object' && typeof arg.name === 'string') return arg.name;
    const pending = changes?.list() ?? [];
    if (!pending.length) {
      void vscode.window.showInformationMessage('Baton: no worker has changes waiting for review.');
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(
      pending.map((p) => ({ label: p.worker, description: p.branch ?? p.dir })),
      { title, placeHolder: 'Worker' },
    );
    return picked?.label;
  };
  const fail = (err: unknown): void => {
    log.warn(`Worker changes: ${err instanceof Error ? err.message : String(err)}`);
    void vscode.window.showErrorMessage(`Baton: ${err instanceof Error ? err.message : String(err)}`);
  };

  return vscode.Disposable.from(
    provideCommand('baton.reviewChanges', async (arg?: Arg) => {
      const name = await pick(arg, 'Review the changes of which worker?');
      if (!name || !changes) return;
      try {
        const review = await changes.review(name);
        log.info(`Review of worker '${name}': ${review.kind === 'files' ? `${review.entries.length} file(s) in the multi-file diff` : 'a unified diff'}`);
        if (review.kind === 'files') {
          if (!review.entries.length) return void vscode.window.showInformationMessage(`Baton: worker '${name}' changed nothing.`);
          const title = `Worker '${name}' — ${(await changes.totals(name)).line}`;
          const rows = review.entries.map((e) => [vscode.Uri.file(e.userPath), vscode.Uri.file(e.originalPath), vscode.Uri.file(e.modifiedPath)]);
          await vscode.commands.executeCommand('vscode.changes', title, rows);
        } else {
          const doc = await vscode.workspace.openTextDocument({
            language: 'diff',
            content: review.text || `Worker '${name}' changed nothing in ${review.dir}.`,
          });
          await vscode.window.showTextDocument(doc, { preview: true });
        }
      } catch (err) {
        fail(err);
      }
    }),
    provideCommand('baton.applyChanges', async (arg?: Arg) => {
      const name = await pick(arg, 'Apply the changes of which worker?');
      if (!name || !changes) return;
      try {
        const totals = await changes.totals(name);
        const choice = await vscode.window.showInformationMessage(
          `Apply ${totals.line} from worker '${name}' to your working tree?`,
          { modal: true, detail: 'All or nothing: if any file conflicts or has unsaved edits, nothing changes.' },
          'Apply',
          'Apply and Keep Worktree',
        );
        if (!choice) return;
        const message = await changes.apply(name, { dirtyBuffers: dirtyBuffers(), keep: choice === 'Apply and Keep Worktree' });
        void vscode.window.showInformationMessage(`Baton: ${message}`);
      } catch (err) {
        fail(err);
      }
    }),
    provideCommand('baton.discardChanges', async (arg?: Arg) => {
      const name = await pick(arg, 'Discard the changes of which worker?');
      if (!name || !changes) return;
      try {
        const totals = await changes.totals(name);
        const choice = await vscode.window.showWarningMessage(
          `Discard ${totals.line} of worker '${name}'?`,
          {
            modal: true,
            detail: 'This cannot be undone: the worker\u2019s worktree and branch are deleted (or, without git, the files it changed are restored).',
          },
          'Discard',
        );
        if (choice !== 'Discard') return;
        void vscode.window.showInformationMessage(`Baton: ${await changes.discard(name)}`);
      } catch (err) {
        fail(err);
      }
    }),
    provideCommand('baton.cleanUpWorktrees', async () => {
      const orphans = (await changes?.orphans()) ?? [];
      if (!orphans.length) return void vscode.window.showInformationMessage('Baton: no orphaned worktrees.');
      const choice = await vscode.window.showWarningMessage(
        `Remove ${orphans.length} orphaned worktree(s) and their baton/ branches?`,
        { modal: true, detail: orphans.map((o) => `${o.worktreePath}${o.branch ? ` (${o.branch})` : ''}`).join('\n') },
        'Remove',
      );
      if (choice !== 'Remove' || !changes) return;
      try {
        void vscode.window.showInformationMessage(`Baton: removed ${await changes.removeOrphans()} orphaned worktree(s).`);
      } catch (err) {
        fail(err);
      }
    }),
    provideCommand('baton.openWorkerFolder', async (arg?: Arg) => {
      const name = await pick(arg, 'Open the folder of which worker?');
      if (!name || !changes) return;
      const pending = changes.list().find((p) => p.worker === name);
      const dir = pending?.dir ?? pool.list().find((w) => w.name === name)?.workingDir;
      if (!dir) return fail(new Error(`no folder is known for worker '${name}'.`));
      await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(dir), { forceNewWindow: true });
    }),
  );
}
