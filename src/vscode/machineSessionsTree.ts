// The Machine Sessions view (`baton.machineSessions`): the Copilot sessions on this machine, grouped by
// directory, newest first; attach one as a worker or fork it. Listing needs the Copilot runtime, so
// the view loads when it is first shown (or refreshed), never at activation.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { provideCommand } from './deferredCommands';
import { homeShortened } from './placeLabel';
import { MACHINE_SESSIONS_MAX, newestOfNote, sessionWorkers } from '../core/workers/machineSessions';
import { SessionInUseError, type MachineSession, type WorkerPool } from '../core/workers/workerPool';
import { ago } from '../core/workers/workerTools';

type Node = { kind: 'dir'; dir: string; sessions: MachineSession[] } | { kind: 'session'; session: MachineSession } | { kind: 'message'; text: string };

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,47}$/;

export function registerMachineSessionsTree(pool: WorkerPool): vscode.Disposable {
  const disposables: vscode.Disposable[] = [];
  const changed = new vscode.EventEmitter<void>();
  disposables.push(changed);
  let sessions: MachineSession[] | undefined;
  // Past the newest MACHINE_SESSIONS_MAX, the view and the pickers say how many there are in all.
  let cut: string | undefined;
  let error: string | undefined;
  let loading: Promise<void> | undefined;

  const load = (): Promise<void> =>
    (loading ??= pool.machine
      .page({ limit: MACHINE_SESSIONS_MAX })
      .then(
        (page) => {
          sessions = page.sessions;
          cut = newestOfNote(page.sessions.length, page.total);
          error = undefined;
        },
        (err: unknown) => {
          error = `Could not list sessions: ${err instanceof Error ? err.message : String(err)}`;
        },
      )
      .finally(() => {
        loading = undefined;
        changed.fire();
      }));

  const provider: vscode.TreeDataProvider<Node> = {
    onDidChangeTreeData: changed.event,
    getChildren: (node) => {
      if (node?.kind === 'dir') return node.sessions.map((session) => ({ kind: 'session', session }));
      if (node) return [];
      if (error) return [{ kind: 'message', text: error }];
      if (!sessions) return [];
      return groupByDir(sessions);
    },
    getTreeItem: (node) => itemFor(node),
  };
  const view = vscode.window.createTreeView('baton.machineSessions', { treeDataProvider: provider });
  disposables.push(view);
  // A failed load is said by the error row alone: a "Loading sessions…" (or "No sessions") above it contradicted it.
  const showLoading = (): void => {
    view.message = error ? undefined : sessions ? (sessions.length ? cut && `${cut}.` : 'No Copilot sessions on this machine yet.') : 'Loading sessions…';
  };
  disposables.push(changed.event(showLoading));
  if (view.visible) void load();
  disposables.push(
    view.onDidChangeVisibility((e) => {
      if (e.visible && !sessions) void load();
    }),
  );
  showLoading();
  // The worker markers follow the pool (a session becoming or ceasing to be a worker), as the core marks them.
  const unsubscribe = pool.onDidChange((workers) => {
    if (!sessions) return;
    const byId = sessionWorkers(workers);
    sessions = sessions.map((s) => ({ ...s, worker: byId.get(s.sessionId) }));
    changed.fire();
  });
  disposables.push({ dispose: unsubscribe });

  const pickSession = async (title: string): Promise<MachineSession | undefined> => {
    await load();
    if (!sessions?.length) {
      void vscode.window.showInformationMessage(error ? `Baton: ${error}` : 'Baton: no Copilot sessions on this machine.');
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(
      sessions.map((s) => ({
        label: s.summary,
        description: `${ago(Date.now() - s.modifiedAt)}${s.inUse ? ' · in use' : ''}${s.worker ? ` · worker '${s.worker}'` : ''}`,
        detail: s.workingDir ?? '(no directory)',
        session: s,
      })),
      { title, placeHolder: cut ? `Copilot session (${cut.toLowerCase()})` : 'Copilot session', matchOnDetail: true },
    );
    return picked?.session;
  };

  const askName = (session: MachineSession, purpose: string): Thenable<string | undefined> => {
    const taken = new Set(pool.list().map((w) => w.name));
    return vscode.window.showInputBox({
      title: `${purpose}: worker name`,
      prompt: `Session "${session.summary}" in ${session.workingDir ?? 'an unknown directory'}`,
      value: suggestName(session, taken),
      ignoreFocusOut: true,
      validateInput: (v) => {
        const name = v.trim();
        if (!NAME.test(name)) return 'Letters, digits, ".", "_" or "-", starting with a letter or digit (at most 48).';
        return taken.has(name) ? `A worker named '${name}' exists already.` : undefined;
      },
    });
  };

  const bringIn = async (arg: Node | undefined, fork: boolean): Promise<void> => {
    const session = arg?.kind === 'session' ? arg.session : await pickSession(fork ? 'Fork which session?' : 'Attach which session?');
    if (!session) return;
    const name = (await askName(session, fork ? 'Fork' : 'Attach'))?.trim();
    if (!name) return;
    try {
      const w = fork
        ? await pool.machine.fork(session.sessionId, name, { replyTo: 'command' })
        : await pool.machine.attach(session.sessionId, name, { replyTo: 'command' });
      void load();
      const action = await vscode.window.showInformationMessage(
        `Baton: ${fork ? 'a copy of' : ''} "${session.summary}" is now worker '${w.name}'.`,
        'Send a Task',
      );
      if (action) await vscode.commands.executeCommand('baton.worker.sendFollowUp', w.name);
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      if (!fork && err instanceof SessionInUseError) {
        // Never written into while another process holds it; a fork is the way to continue.
        const choice = await vscode.window.showWarningMessage(
          `Baton: "${session.summary}" is in use by another process (a Copilot CLI or an editor), so Baton won't write into it. Continue in a copy instead?`,
          'Fork It',
        );
        if (choice) {
          try {
            const w = await pool.machine.fork(session.sessionId, name, { replyTo: 'command' });
            void load();
            void vscode.window.showInformationMessage(`Baton: a copy of "${session.summary}" is now worker '${w.name}'.`);
          } catch (forkErr) {
            void vscode.window.showErrorMessage(`Baton: ${forkErr instanceof Error ? forkErr.message : String(forkErr)}`);
          }
        }
        return;
      }
      void vscode.window.showErrorMessage(`Baton: ${text}`);
    }
  };

  disposables.push(
    provideCommand('baton.machineSessions.refresh', () => load()),
    provideCommand('baton.attachSession', (arg?: Node) => bringIn(arg, false)),
    provideCommand('baton.forkSession', (arg?: Node) => bringIn(arg, true)),
  );
  return vscode.Disposable.from(...disposables);
}

/** Directories ordered by their newest session; sessions newest first inside. */
function groupByDir(sessions: MachineSession[]): Node[] {
  const groups = new Map<string, MachineSession[]>();
  for (const s of [...sessions].sort((a, b) => b.modifiedAt - a.modifiedAt)) {
    const dir = s.workingDir ?? '(no directory)';
    const list = groups.get(dir) ?? [];
    list.push(s);
    groups.set(dir, list);
  }
  return [...groups.entries()].map(([dir, list]) => ({ kind: 'dir', dir, sessions: list }));
}

function itemFor(node: Node): vscode.TreeItem {
  if (node.kind === 'message') {
    const item = new vscode.TreeItem(node.text);
    item.iconPath = new vscode.ThemeIcon('warning');
    return item;
  }
  if (node.kind === 'dir') {
    const item = new vscode.TreeItem(path.basename(node.dir) || node.dir, vscode.TreeItemCollapsibleState.Expanded);
    item.id = `dir:${node.dir}`;
    item.description = `${homeShortened(node.dir)} · ${node.sessions.length}`;
    item.tooltip = node.dir;
    item.iconPath = vscode.ThemeIcon.Folder;
    item.contextValue = 'machineSessions.dir';
    return item;
  }
  const s = node.session;
  const item = new vscode.TreeItem(s.summary, vscode.TreeItemCollapsibleState.None);
  item.id = `session:${s.sessionId}`;
  item.description = `${ago(Date.now() - s.modifiedAt)}${s.worker ? ` · worker '${s.worker}'` : s.inUse ? ' · in use' : ''}`;
  item.iconPath = new vscode.ThemeIcon(s.worker ? 'person' : s.inUse ? 'lock' : 'comment-discussion');
  // Attach is offered only when it can work; fork always can.
  item.contextValue = s.worker ? 'machineSession.worker' : s.inUse ? 'machineSession.inUse' : 'machineSession';
  const tip = new vscode.MarkdownString(undefined, true);
  tip.appendText(s.summary);
  tip.appendMarkdown(`\n\n\`${s.sessionId}\`  \n`);
  tip.appendText(`${s.workingDir ?? '(no directory)'}\nModified ${new Date(s.modifiedAt).toLocaleString()}`);
  if (s.inUse) tip.appendMarkdown('\n\n_In use by another process: fork it to continue._');
  item.tooltip = tip;
  return item;
}

function suggestName(s: MachineSession, taken: Set<string>): string {
  const base =
    s.summary
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 24)
      .replace(/-+$/, '') || `session-${s.sessionId.slice(0, 8)}`;
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}-${i}`;
  return name;
}
