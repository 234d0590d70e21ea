// Review, Apply, Keep as Branch, Discard, Ask for Changes and Open Folder for a worker's pending
// changes, from the Workers view, the panel's worker cards, the palette and Chat. Review opens VS
// Code's multi-file diff editor (original vs. the worker's version); its right side is the worker's
// own file, so a hunk reverted or edited there (and saved) is what Apply takes. Apply offers the
// changed files one by one (all chosen by default), never overwrites an editor's unsaved changes and
// applies the chosen files all or nothing; Discard asks first, because it cannot be undone. A
// Review tab of a change set that is gone is closed.
import * as vscode from 'vscode';
import { askUntilTaken } from './askUntilTaken';
import { applyConfirm } from '../core/changes/applyConfirm';
import { resolveInEditorQuestion, resolveOrApply } from '../core/changes/applyWithMarkers';
import { namedFiles } from '../core/changes/applyUndo';
import { refusedFollowUp } from './refusedFollowUp';
import { ApplyConflict } from '../core/changes/changeSet';
import { suggestCommitMessage } from '../core/changes/keepAsBranch';
import { suggestVerifyCommand } from '../core/changes/verifySuggestion';
import { readVerifyCommand, setVerifyCommand } from './settings';
import type { Logger } from '../core/util/logger';
import type { WorkerPool } from '../core/workers/workerPool';
import { provideCommand } from './deferredCommands';

export const CHANGE_COMMANDS = [
  'baton.reviewChanges',
  'baton.applyChanges',
  'baton.discardChanges',
  'baton.keepChangesAsBranch',
  'baton.askWorkerForChanges',
  'baton.resolveWithWorker',
  'baton.resolveInEditor',
  'baton.openWorkerFolder',
  'baton.cleanUpWorktrees',
  'baton.setVerifyCommand',
  'baton.forgetFolderApprovals',
  'baton.undoApply',
] as const;

/** Absolute paths of the editor's documents with unsaved changes. */
export function dirtyBuffers(): string[] {
  return vscode.workspace.textDocuments.filter((d) => d.isDirty && d.uri.scheme === 'file').map((d) => d.uri.fsPath);
}

type Arg = string | { name?: unknown } | undefined;

/** An Apply met files changed differently in the user's tree: both ways forward, the user's files untouched until then. */
async function offerResolution(name: string, err: ApplyConflict): Promise<void> {
  // Non-modal, with the explanation in the message: VS Code shows `detail` only in a modal dialog. Not modal: nothing
  // has changed yet and neither choice writes without asking (Resolve in the Editor confirms in a modal of its own).
  const choice = await vscode.window.showWarningMessage(
    `Baton: ${err.message} Resolve with the worker (it rebuilds its change on your current tree; your files stay as they are), or resolve in the editor (conflict markers written into your files).`,
    'Resolve with the Worker',
    'Resolve in the Editor',
  );
  if (choice === 'Resolve with the Worker') await vscode.commands.executeCommand('baton.resolveWithWorker', name);
  else if (choice === 'Resolve in the Editor') await vscode.commands.executeCommand('baton.resolveInEditor', name);
}

/** What Baton uses of the built-in git extension's API (version 1). */
interface GitRepositories {
  getRepository(uri: vscode.Uri): { status(): Promise<void> } | null;
  openRepository?(root: vscode.Uri): Promise<{ status(): Promise<void> } | null>;
}

/**
 * Makes the git extension's model hold the repository of `uri` with its conflict: its merge-editor command does nothing
 * (and says nothing) for a file of a repository it has not found yet, or before its next status scan sees the stages.
 * Seen in CI: a repository created after the window opened, the file unmerged, and no merge editor.
 */
async function gitSees(uri: vscode.Uri): Promise<void> {
  const extension = vscode.extensions.getExtension<{ getAPI(version: 1): GitRepositories }>('vscode.git');
  if (!extension) return;
  const api = (extension.isActive ? extension.exports : await extension.activate()).getAPI(1);
  const repository = api.getRepository(uri) ?? (await api.openRepository?.(vscode.Uri.joinPath(uri, '..')));
  await repository?.status();
}

/** VS Code's merge editor on an unmerged file (the git extension's command), or the file itself without it. */
async function openMergeEditor(uri: vscode.Uri, log: Logger): Promise<void> {
  try {
    await gitSees(uri);
    await vscode.commands.executeCommand('git.openMergeEditor', uri);
  } catch (err) {
    log.warn(`Merge editor: ${err instanceof Error ? err.message : String(err)}; opening the file`);
    await vscode.window.showTextDocument(uri);
  }
}

/** The Review tabs of a worker (titled "Worker '<name>' — …"): closed once its worktree is gone. */
async function closeReview(name: string): Promise<void> {
  const prefix = reviewTitle(name, '');
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.label.startsWith(prefix));
  if (tabs.length) await vscode.window.tabGroups.close(tabs, true);
}

function reviewTitle(name: string, line: string): string {
  return `Worker '${name}' \u2014 ${line}`;
}

export function registerWorkerChangesCommands(pool: WorkerPool, log: Logger): vscode.Disposable {
  const changes = pool.changes;
  /** `branchable`: only change sets with a branch of the user's to keep them on (not a copy of a folder without git). */
  const pick = async (arg: Arg, title: string, branchable = false): Promise<string | undefined> => {
    if (typeof arg === 'string' && arg) return arg;
    if (arg && typeof arg === 'object' && typeof arg.name === 'string') return arg.name;
    const pending = (changes?.list() ?? []).filter((p) => !branchable || (p.kind === 'worktree' && !p.changeSet?.folderRepo));
    if (!pending.length) {
      void vscode.window.showInformationMessage(
        branchable ? 'Baton: no worker has changes in a repository to keep as a branch.' : 'Baton: no worker has changes waiting for review.',
      );
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

  // However a change set ended (a command, the orchestrator's tool), its Review tab goes with it.
  const closed = new Set<string>();
  const onChange = pool.onDidChange((workers) => {
    for (const w of workers) {
      if (w.outcome && !closed.has(w.name)) {
        closed.add(w.name);
        void closeReview(w.name);
      } else if (!w.outcome) closed.delete(w.name);
    }
  });

  return vscode.Disposable.from(
    { dispose: onChange },
    provideCommand('baton.reviewChanges', async (arg?: Arg) => {
      const name = await pick(arg, 'Review the changes of which worker?');
      if (!name || !changes) return;
      try {
        const review = await changes.review(name);
        log.info(`Review of worker '${name}': ${review.kind === 'files' ? `${review.entries.length} file(s) in the multi-file diff` : 'a unified diff'}`);
        if (review.kind === 'files') {
          if (!review.entries.length) return void vscode.window.showInformationMessage(`Baton: worker '${name}' changed nothing.`);
          const title = reviewTitle(name, (await changes.totals(name)).line);
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
        changes.assertSettleable(name, 'apply them');
        // What the user is shown from here on is what lands, or nothing does (ChangedSinceConfirm).
        const expectTree = await changes.pinned(name);
        const totals = await changes.totals(name);
        // Nothing but folders left out (repositories of its own): nothing to ask about, and the reason said.
        if (!totals.files) return void vscode.window.showInformationMessage(`Baton: worker '${name}' has no file to apply. ${totals.leftOut ?? ''}`.trim());
        let paths: string[] | undefined;
        const isWorktree = changes.list().some((p) => p.worker === name && p.kind === 'worktree');
        if (isWorktree && totals.files > 1) {
          const files = await changes.files(name);
          const picked = await vscode.window.showQuickPick(
            files.map((f) => ({
              label: f.path,
              description: `${f.status}${f.oldPath ? ` from ${f.oldPath}` : ''}${f.binary ? ' (binary)' : ` +${f.additions} \u2212${f.deletions}`}`,
              picked: true,
            })),
            { title: `Apply which files of worker '${name}'?`, placeHolder: 'The files not chosen stay in the worktree', canPickMany: true },
          );
          if (!picked?.length) return;
          if (picked.length < files.length) paths = picked.map((p) => p.label);
        }
        const confirm = await applyConfirm(changes, name, paths);
        const choice = await vscode.window.showInformationMessage(
          confirm.message,
          { modal: true, detail: confirm.detail },
          confirm.action,
          ...(paths ? [] : [`${confirm.action} and Keep Worktree`]),
        );
        if (!choice) return;
        const message = await changes.apply(name, { dirtyBuffers: dirtyBuffers(), keep: choice === `${confirm.action} and Keep Worktree`, paths, expectTree });
        const undo = changes.undoableApplies().some((r) => r.worker === name) ? ['Undo Apply'] : [];
        void vscode.window.showInformationMessage(`Baton: ${message}`, ...undo).then((p) => p && vscode.commands.executeCommand('baton.undoApply', name));
      } catch (err) {
        if (err instanceof ApplyConflict && err.files.some((f) => f.reason === 'does-not-apply')) return offerResolution(name, err);
        fail(err);
      }
    }),
    provideCommand('baton.resolveWithWorker', async (arg?: Arg) => {
      const name = await pick(arg, 'Which worker should resolve its conflicts?');
      if (!name || !changes || refusedFollowUp(pool, name)) return;
      try {
        changes.assertSettleable(name, 'have it resolve its conflicts');
        void vscode.window.showInformationMessage(`Baton: ${await changes.resolveWithWorker(name)}`);
      } catch (err) {
        fail(err);
      }
    }),
    provideCommand('baton.resolveInEditor', async (arg?: Arg) => {
      const name = await pick(arg, 'Resolve the conflicts of which worker in the editor?');
      if (!name || !changes) return;
      try {
        changes.assertSettleable(name, 'apply them');
        // A copy of a folder without git: no index of the user's holds the file unmerged, and git's merge editor has
        // no repository to open it from; the editor shows the markers with their Accept actions.
        const copy = !!changes.list().find((p) => p.worker === name)?.changeSet?.folderRepo;
        const choice = await vscode.window.showWarningMessage(
          await resolveInEditorQuestion(changes, name),
          {
            modal: true,
            detail: copy
              ? 'What applies cleanly is applied; each conflicting file in your folder gets conflict markers and opens in the editor. The worker\u2019s copy is removed.'
              : 'Like a conflicting git stash pop: what applies cleanly is applied; each conflicting file in your tree gets conflict markers and stays unmerged, and opens in the merge editor. The worker\u2019s worktree is removed.',
          },
          'Apply with Conflict Markers',
        );
        if (choice !== 'Apply with Conflict Markers') return;
        const r = await resolveOrApply(changes, name, { dirtyBuffers: dirtyBuffers() });
        void vscode.window.showInformationMessage(`Baton: ${r.text}`);
        for (const file of r.conflicted) {
          if (copy) await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false });
          else await openMergeEditor(vscode.Uri.file(file), log);
        }
      } catch (err) {
        fail(err);
      }
    }),
    provideCommand('baton.keepChangesAsBranch', async (arg?: Arg) => {
      const name = await pick(arg, 'Keep the changes of which worker as a branch?', true);
      if (!name || !changes) return;
      try {
        changes.assertSettleable(name, 'keep them as a branch');
        const totals = await changes.totals(name);
        const suggested = suggestCommitMessage(name, pool.summaryOf(name));
        const [subject, ...body] = suggested.split('\n');
        const edited = await vscode.window.showInputBox({
          title: `Keep ${totals.line} of worker '${name}' as a commit on baton/${name}`,
          // What goes in the commit besides the line typed is said: it used to be added unseen.
          prompt: `The commit's subject (from the worker's summary)${body.some((l) => l.trim()) ? `; the rest of its summary (${body.filter((l) => l.trim()).length} lines) follows as the body` : ''}. Its worktree is removed; the branch stays for merge, cherry-pick or a pull request.`,
          value: subject,
          validateInput: (v) => (v.trim() ? undefined : 'A commit needs a message.'),
        });
        if (edited === undefined) return;
        const message = [edited.trim(), ...body].join('\n');
        void vscode.window.showInformationMessage(`Baton: ${await changes.keepAsBranch(name, message)}`);
      } catch (err) {
        fail(err);
      }
    }),
    provideCommand('baton.askWorkerForChanges', async (arg?: Arg) => {
      const name = await pick(arg, 'Ask which worker for changes?');
      if (!name || refusedFollowUp(pool, name)) return;
      await askUntilTaken({
        box: {
          title: `Ask worker '${name}' for changes`,
          prompt: 'It continues in its own worktree with its own session; its change set grows.',
          placeHolder: 'e.g. close, but rename that function to parseConfig',
          validateInput: (v) => (v.trim() ? undefined : 'Say what should change.'),
        },
        take: (text) => pool.send(name, text, 'panel').then(() => undefined),
        refused: (err) => {
          log.warn(`Worker changes: ${err instanceof Error ? err.message : String(err)}`);
          return `Baton: ${err instanceof Error ? err.message : String(err)}`;
        },
      });
    }),
    provideCommand('baton.discardChanges', async (arg?: Arg) => {
      const name = await pick(arg, 'Discard the changes of which worker?');
      if (!name || !changes) return;
      try {
        changes.assertSettleable(name, 'discard them');
        const totals = await changes.totals(name);
        const choice = await vscode.window.showWarningMessage(
          `Discard ${totals.line} of worker '${name}'?`,
          {
            modal: true,
            detail:
              'This cannot be undone: the worker\u2019s worktree and branch are deleted (or, for a worker that worked in the folder itself, the files it changed are restored).',
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
        `Remove ${orphans.length === 1 ? 'the orphaned worktree and its baton/ branch' : `${orphans.length} orphaned worktrees and their baton/ branches`}?`,
        { modal: true, detail: orphans.map((o) => `${o.worktreePath}${o.branch ? ` (${o.branch})` : ''}`).join('\n') },
        'Remove',
      );
      if (choice !== 'Remove' || !changes) return;
      try {
        // What the dialog listed, and is an orphan still: one found since (a worker placed meanwhile) is not the user's to lose.
        const removed = await changes.removeOrphans(orphans.map((o) => o.worktreePath));
        void vscode.window.showInformationMessage(`Baton: removed ${removed} orphaned worktree${removed === 1 ? '' : 's'}.`);
      } catch (err) {
        fail(err);
      }
    }),
    provideCommand('baton.undoApply', async (arg?: Arg) => {
      const undoable = changes?.undoableApplies() ?? [];
      const named = typeof arg === 'string' ? arg : arg && typeof arg === 'object' && typeof arg.name === 'string' ? arg.name : undefined;
      if (!changes || !undoable.length) return void vscode.window.showInformationMessage('Baton: no Apply of a worker to undo.');
      const rec = named
        ? undoable.find((r) => r.worker === named)
        : (
            await vscode.window.showQuickPick(
              undoable.map((r) => ({ label: r.worker, description: `${r.summary}, ${new Date(r.at).toLocaleString()}`, rec: r })),
              { title: 'Undo the Apply of which worker?', placeHolder: 'Worker' },
            )
          )?.rec;
      if (!rec) return void (named && vscode.window.showInformationMessage(`Baton: there is no Apply of worker '${named}' to undo.`));
      const choice = await vscode.window.showWarningMessage(
        `Undo the Apply of worker '${rec.worker}' (${rec.summary})?`,
        {
          modal: true,
          detail: `Its files go back to how they were before it: ${namedFiles(rec.files)}. If one changed since, nothing is undone and Baton says which.`,
        },
        'Undo Apply',
      );
      if (choice !== 'Undo Apply') return;
      try {
        void vscode.window.showInformationMessage(`Baton: ${await changes.undoApply(rec.worker, { dirtyBuffers: dirtyBuffers() })}`);
      } catch (err) {
        fail(err);
      }
    }),
    // "Allow in this folder", taken back before the window closes: the next worker Baton cannot isolate there asks again.
    provideCommand('baton.forgetFolderApprovals', () => {
      const folders = pool.setup.approvedFolders();
      pool.setup.forgetApprovedFolders();
      void vscode.window.showInformationMessage(
        folders.length
          ? `Baton will ask again before a worker it cannot isolate changes ${folders.length === 1 ? folders[0] : `any of ${folders.length} folders`} itself.`
          : 'Baton: no folder was allowed: a worker Baton cannot isolate already asks before it changes a folder itself.',
      );
    }),
    provideCommand('baton.setVerifyCommand', async () => {
      const current = readVerifyCommand();
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
      const suggested = current || (folder ? await suggestVerifyCommand(folder).catch(() => undefined) : undefined);
      const command = await vscode.window.showInputBox({
        title: "The command that verifies a worker's changes before Apply",
        prompt: current
          ? 'Runs in the worker\u2019s worktree, in its sandbox, after each of its runs. Empty: no verify.'
          : `Runs in the worker\u2019s worktree, in its sandbox, after each of its runs.${suggested ? ' Suggested from your project.' : ''} Empty: no verify.`,
        value: suggested ?? '',
        placeHolder: 'e.g. npm test',
      });
      if (command === undefined) return;
      await setVerifyCommand(command.trim());
      void vscode.window.showInformationMessage(
        command.trim() ? `Baton: workers' changes are verified with \`${command.trim()}\`.` : 'Baton: workers\u2019 changes are not verified.',
      );
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
