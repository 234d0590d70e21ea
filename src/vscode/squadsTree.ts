// The Squads view: squad → agents → their running tasks, plus the squad's decisions; delegate, open decisions and
// remove from the items. The store is the source of truth; the view re-reads it when squads or workers change.
// A squad's and a task's usage is in their tooltip, filled in when hovered (resolveTreeItem): usage changes with every
// model call, and a row that changed with it refreshed the whole tree many times a turn.
import * as vscode from 'vscode';
import { askUntilTaken } from './askUntilTaken';
import type { BatonCore } from '../core/batonCore';
import type { SquadAgentRow, SquadRow } from '../core/store/areaTypes';
import type { SquadTaskInfo } from '../core/squads/squadService';
import { provideCommand } from './deferredCommands';
import { placeLabel } from './placeLabel';

type Node =
  | { kind: 'squad'; squad: SquadRow }
  | { kind: 'agent'; squad: string; agent: SquadAgentRow }
  | { kind: 'decisions'; squad: string; count: number }
  | { kind: 'decision'; squad: string; id: number; text: string }
  | { kind: 'task'; squad: string; task: SquadTaskInfo };

const LIVE = new Set(['running', 'idle']);

class SquadsTreeProvider implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  /** What the view showed at the last refresh (shown()). */
  private last = '';

  constructor(private readonly core: BatonCore) {}

  refresh(): void {
    this.last = this.shown();
    this.changed.fire(undefined);
  }

  /**
   * Refreshes only when what the view shows changed. The store and the pool change many times a turn (every worker's
   * status), and each refresh of the whole tree makes VS Code's extension host forget every item: a squad's children
   * asked for in between (the view just expanded) come back empty, and the squad stayed expanded with no children
   * until the next change (seen in e2e). Fewer refreshes, and only real ones, leave far less room for that; usage,
   * which changes at every model call, is read at hover instead (resolveTreeItem), so it never refreshes the tree.
   */
  refreshIfChanged(): void {
    const now = this.shown();
    if (now === this.last) return;
    this.last = now;
    this.changed.fire(undefined);
  }

  /** Every row the view can show (decisions included), as text: its id, label, description, tooltip, icon and state. */
  private shown(): string {
    const rows: string[] = [];
    const walk = (node: Node | undefined): void => {
      for (const child of this.getChildren(node)) {
        const item = this.getTreeItem(child);
        const tooltip = typeof item.tooltip === 'string' ? item.tooltip : item.tooltip?.value;
        const icon = item.iconPath instanceof vscode.ThemeIcon ? item.iconPath.id : '';
        rows.push(JSON.stringify([item.id, item.label, item.description, tooltip, icon, item.collapsibleState]));
        walk(child);
      }
    };
    walk(undefined);
    return rows.join('\n');
  }

  getChildren(node?: Node): Node[] {
    const { squads, store } = this.core;
    if (!node) return squads.list().map((squad) => ({ kind: 'squad' as const, squad }));
    if (node.kind === 'squad') {
      const name = node.squad.name;
      const live = squads.tasks(name).filter((t) => LIVE.has(t.worker_state ?? ''));
      return [
        ...store.squads.listAgents(name).map((agent) => ({ kind: 'agent' as const, squad: name, agent })),
        ...live.filter((t) => !t.agent).map((task) => ({ kind: 'task' as const, squad: name, task })),
        { kind: 'decisions' as const, squad: name, count: store.squads.countDecisions(name) },
      ];
    }
    if (node.kind === 'agent') {
      return this.core.squads
        .tasks(node.squad)
        .filter((t) => t.agent === node.agent.name && LIVE.has(t.worker_state ?? ''))
        .map((task) => ({ kind: 'task' as const, squad: node.squad, task }));
    }
    if (node.kind === 'decisions') {
      return store.squads.decisions(node.squad, 50).map((d) => ({ kind: 'decision' as const, squad: node.squad, id: d.id, text: d.content }));
    }
    return [];
  }

  /** The tooltips that carry usage, read when the row is hovered (VS Code asks only for a tooltip left undefined). */
  resolveTreeItem(item: vscode.TreeItem, node: Node): vscode.TreeItem {
    const usage = this.core.usage;
    if (node.kind === 'squad') {
      item.tooltip = `Squad '${node.squad.name}' in ${node.squad.project_dir}\nUniverse: ${node.squad.universe}\n${usage.describe('squad', node.squad.name)}`;
    } else if (node.kind === 'task') {
      item.tooltip = `${node.task.prompt}\n\n${usage.describe('worker', node.task.worker)}`;
    }
    return item;
  }

  getTreeItem(node: Node): vscode.TreeItem {
    switch (node.kind) {
      case 'squad': {
        const item = new vscode.TreeItem(node.squad.name, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `squad:${node.squad.name}`;
        item.description = placeLabel(node.squad.project_dir);
        item.iconPath = new vscode.ThemeIcon('organization');
        item.contextValue = 'squad';
        return item;
      }
      case 'agent': {
        const a = node.agent;
        const running = this.core.squads.tasks(node.squad).some((t) => t.agent === a.name && LIVE.has(t.worker_state ?? ''));
        const item = new vscode.TreeItem(a.name, running ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
        item.id = `agent:${node.squad}:${a.name}`;
        item.description = `${a.role} · ${a.tier}`;
        item.iconPath = new vscode.ThemeIcon(running ? 'loading~spin' : 'person');
        const tooltip = new vscode.MarkdownString();
        tooltip.appendText(`${a.name} — ${a.role} (${a.tier} tier)\n\n${a.charter}`);
        item.tooltip = tooltip;
        item.contextValue = 'squadAgent';
        return item;
      }
      case 'decisions': {
        const item = new vscode.TreeItem('Decisions', node.count ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
        item.id = `decisions:${node.squad}`;
        item.description = String(node.count);
        item.iconPath = new vscode.ThemeIcon('law');
        item.contextValue = 'squadDecisions';
        item.command = { command: 'baton.squad.openDecisions', title: 'Open Decisions', arguments: [node] };
        return item;
      }
      case 'decision': {
        const item = new vscode.TreeItem(node.text.replace(/\s+/g, ' '), vscode.TreeItemCollapsibleState.None);
        item.id = `decision:${node.squad}:${node.id}`;
        item.tooltip = node.text;
        item.contextValue = 'squadDecision';
        return item;
      }
      case 'task': {
        const t = node.task;
        const item = new vscode.TreeItem(t.worker, vscode.TreeItemCollapsibleState.None);
        item.id = `task:${t.worker}`;
        item.description = t.worker_state;
        item.iconPath = new vscode.ThemeIcon(t.worker_state === 'running' ? 'sync~spin' : 'circle-outline');
        item.contextValue = 'squadTask';
        item.command = { command: 'baton.worker.openTranscript', title: 'Open Worker Transcript', arguments: [t.worker] };
        return item;
      }
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** The `baton.squads` view and its commands (delegate, open decisions, remove, refresh). */
export function registerSquadsTree(core: BatonCore): vscode.Disposable {
  const provider = new SquadsTreeProvider(core);
  const view = vscode.window.createTreeView('baton.squads', { treeDataProvider: provider, showCollapseAll: true });
  const offStore = core.store.onDidChange((what) => {
    if (what === 'squads') provider.refreshIfChanged();
  });
  const offPool = core.pool.onDidChange(() => provider.refreshIfChanged());

  const pickSquad = async (node: unknown): Promise<string | undefined> => {
    if (isNode(node) && 'squad' in node) return typeof node.squad === 'string' ? node.squad : node.squad.name;
    const names = core.squads.list().map((s) => s.name);
    if (!names.length) {
      void vscode.window.showInformationMessage('Baton has no squads yet. Ask it in the chat to set one up for a project.');
      return undefined;
    }
    return vscode.window.showQuickPick(names, { placeHolder: 'Which squad?' });
  };

  return vscode.Disposable.from(
    view,
    provider,
    new vscode.Disposable(() => {
      offStore();
      offPool();
    }),
    provideCommand('baton.squads.refresh', () => provider.refresh()),
    provideCommand('baton.squad.delegate', async (node?: unknown) => {
      const squad = await pickSquad(node);
      if (!squad) return;
      const agent = isNode(node) && node.kind === 'agent' ? node.agent.name : undefined;
      // Refused once typed (the worker limit, the squad's folder), the task comes back in the box to try again.
      await askUntilTaken({
        box: {
          title: `Baton: a task for ${agent ?? `squad ${squad}`}`,
          prompt: 'A complete, self-contained task; a worker starts in the squad\u2019s folder.',
        },
        take: async (task) => {
          const { worker } = await core.squads.delegate({ squad, task, agent });
          void vscode.window.showInformationMessage(`Baton: '${worker.name}' is on it.`);
        },
        refused: (err) => `Baton: ${err instanceof Error ? err.message : String(err)}`,
      });
    }),
    provideCommand('baton.squad.openDecisions', async (node?: unknown) => {
      const squad = await pickSquad(node);
      if (!squad) return;
      const decisions = core.store.squads.decisions(squad, 500);
      const content = [
        `# Decisions of squad ${squad}`,
        '',
        ...(decisions.length ? decisions.map((d) => `- ${d.ts}${d.author ? ` (${d.author})` : ''}: ${d.content}`) : ['None logged yet.']),
      ].join('\n');
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument({ language: 'markdown', content }), { preview: true });
    }),
    provideCommand('baton.squad.remove', async (node?: unknown) => {
      if (isNode(node) && node.kind === 'agent') {
        const answer = await vscode.window.showWarningMessage(`Remove ${node.agent.name} from squad '${node.squad}'?`, { modal: true }, 'Remove');
        if (answer === 'Remove') core.squads.removeAgent(node.squad, node.agent.name);
        return;
      }
      const squad = await pickSquad(node);
      if (!squad) return;
      const answer = await vscode.window.showWarningMessage(`Delete squad '${squad}' with its agents and decisions?`, { modal: true }, 'Delete');
      if (answer === 'Delete') core.squads.delete(squad);
    }),
  );
}

function isNode(node: unknown): node is Node {
  return typeof node === 'object' && node !== null && typeof (node as Node).kind === 'string';
}
