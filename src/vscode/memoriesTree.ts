// The Memories view: what Baton remembers, by category, with add / edit / forget. The store is the source of truth;
// the tree re-reads it on every change, from this window or from another one.
import * as vscode from 'vscode';
import { provideCommand } from './deferredCommands';
import { MemoryFullError } from '../core/store/memoryFullError';
import { parseSqliteTimestamp } from '../core/store/rowSchemas';
import { MEMORY_CATEGORIES, type BatonStore, type Memory, type MemoryCategory } from '../core/store/types';

type Node = { kind: 'category'; category: MemoryCategory; count: number } | { kind: 'memory'; memory: Memory };

const CATEGORY_ICONS: Record<MemoryCategory, string> = {
  preference: 'heart',
  fact: 'info',
  project: 'folder',
  person: 'person',
  routine: 'calendar',
};

class MemoriesTreeProvider implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly store: BatonStore) {}

  refresh(): void {
    this.changed.fire(undefined);
  }

  getChildren(node?: Node): Node[] {
    const memories = this.store.listMemories();
    if (!node) {
      return MEMORY_CATEGORIES.map((category) => ({
        kind: 'category' as const,
        category,
        count: memories.filter((m) => m.category === category).length,
      })).filter((n) => n.count > 0);
    }
    if (node.kind === 'memory') return [];
    return memories
      .filter((m) => m.category === node.category)
      .sort((a, b) => b.last_accessed.localeCompare(a.last_accessed) || b.id - a.id)
      .map((memory) => ({ kind: 'memory' as const, memory }));
  }

  getParent(node: Node): Node | undefined {
    if (node.kind === 'category') return undefined;
    const count = this.store.listMemories().filter((m) => m.category === node.memory.category).length;
    return { kind: 'category', category: node.memory.category, count };
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'category') {
      const item = new vscode.TreeItem(node.category, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `category:${node.category}`;
      item.description = String(node.count);
      item.iconPath = new vscode.ThemeIcon(CATEGORY_ICONS[node.category]);
      item.contextValue = 'memoryCategory';
      return item;
    }
    const m = node.memory;
    const item = new vscode.TreeItem(m.content.replace(/\s+/g, ' '), vscode.TreeItemCollapsibleState.None);
    item.id = `memory:${m.id}`;
    item.description = `${m.source === 'user' ? 'saved by you' : 'noted by Baton'} · ${age(m.created_at)}`;
    const tooltip = new vscode.MarkdownString();
    tooltip.appendText(m.content);
    tooltip.appendMarkdown(
      `\n\n---\n\n#${m.id} · ${m.category} · ${m.source === 'user' ? 'saved by you' : 'noted by Baton'}  \nsaved ${age(m.created_at)} · last used ${age(m.last_accessed)}`,
    );
    item.tooltip = tooltip;
    item.contextValue = 'memory';
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** The `baton.memories` view and the `baton.memory.add` / `.edit` / `.forget` commands. */
export function registerMemoriesTree(store: BatonStore): vscode.Disposable {
  const provider = new MemoriesTreeProvider(store);
  const view = vscode.window.createTreeView('baton.memories', { treeDataProvider: provider, showCollapseAll: true });
  const unsubscribe = store.onDidChange((what) => {
    if (what === 'memories') provider.refresh();
  });

  const pickMemory = async (placeHolder: string): Promise<Memory | undefined> => {
    const memories = store.listMemories();
    if (!memories.length) {
      void vscode.window.showInformationMessage('Baton has no memories yet.');
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      memories.map((memory) => ({ label: memory.content, description: `#${memory.id} · ${memory.category}`, memory })),
      { placeHolder, matchOnDescription: true },
    );
    return pick?.memory;
  };
  // Invoked from a tree item the node is passed in; from the palette there is none, so ask.
  const memoryFrom = (node: unknown, placeHolder: string): Promise<Memory | undefined> | Memory => (isMemoryNode(node) ? node.memory : pickMemory(placeHolder));

  const validate = (value: string) =>
    !value.trim() ? 'Write what Baton should remember.' : value.length > 1000 ? 'Keep it under 1000 characters; one short sentence is best.' : undefined;

  return vscode.Disposable.from(
    view,
    provider,
    new vscode.Disposable(unsubscribe),
    provideCommand('baton.memory.add', async (node?: unknown) => {
      const preset = isCategoryNode(node) ? node.category : undefined;
      const category =
        preset ??
        (
          await vscode.window.showQuickPick(
            MEMORY_CATEGORIES.map((c) => ({ label: c, description: CATEGORY_HINTS[c] })),
            { title: 'Baton: remember something', placeHolder: 'What kind of thing is it?' },
          )
        )?.label;
      if (!category) return;
      const content = await vscode.window.showInputBox({
        title: `Baton: remember (${category})`,
        prompt: 'One short sentence, e.g. "Prefers TypeScript over JavaScript". It reaches the orchestrator from its next session.',
        validateInput: validate,
      });
      if (!content?.trim()) return;
      let added;
      try {
        added = store.addMemory(category, content, 'user');
      } catch (err) {
        if (!(err instanceof MemoryFullError)) throw err;
        void vscode.window.showErrorMessage(err.message);
        return;
      }
      const { memory, duplicate } = added;
      if (duplicate) void vscode.window.showInformationMessage(`Baton already remembers this as #${memory.id}.`);
    }),
    provideCommand('baton.memory.edit', async (node?: unknown) => {
      const memory = await memoryFrom(node, 'Which memory do you want to edit?');
      if (!memory) return;
      const content = await vscode.window.showInputBox({
        title: `Baton: edit memory #${memory.id} (${memory.category})`,
        value: memory.content,
        validateInput: validate,
      });
      if (content === undefined || content.trim() === memory.content) return;
      if (!store.updateMemory(memory.id, content)) void vscode.window.showWarningMessage(`Memory #${memory.id} no longer exists.`);
    }),
    provideCommand('baton.memory.forget', async (node?: unknown) => {
      const memory = await memoryFrom(node, 'Which memory should Baton forget?');
      if (!memory) return;
      const answer = await vscode.window.showWarningMessage(`Forget memory #${memory.id}?`, { modal: true, detail: memory.content }, 'Forget');
      if (answer !== 'Forget') return;
      if (!store.deleteMemory(memory.id)) void vscode.window.showWarningMessage(`Memory #${memory.id} no longer exists.`);
    }),
  );
}

const CATEGORY_HINTS: Record<MemoryCategory, string> = {
  preference: 'how you like things done',
  fact: 'something true about you or the world',
  project: 'a codebase, its layout or conventions',
  person: 'someone you work with',
  routine: 'a recurring schedule or habit',
};

function isMemoryNode(node: unknown): node is Extract<Node, { kind: 'memory' }> {
  return typeof node === 'object' && node !== null && (node as Node).kind === 'memory';
}

function isCategoryNode(node: unknown): node is Extract<Node, { kind: 'category' }> {
  return typeof node === 'object' && node !== null && (node as Node).kind === 'category';
}

function age(timestamp: string): string {
  const date = parseSqliteTimestamp(timestamp);
  if (!date) return timestamp;
  const seconds = Math.max(0, (Date.now() - date.getTime()) / 1000);
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  if (seconds < 30 * 86_400) return `${Math.floor(seconds / 86_400)} d ago`;
  return date.toLocaleDateString();
}
