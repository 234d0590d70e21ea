// The Wiki view: the knowledge base's pages, opened in the normal editor. The files are the truth: a file watcher
// on the wiki folder (edits made in the editor, files added or deleted by hand) brings the index in step, and
// the view follows the index.
import * as vscode from 'vscode';
import type { BatonCore } from '../core/batonCore';
import type { WikiIndexRow } from '../core/store/areaTypes';
import { provideCommand } from './deferredCommands';
import { normalizePageName } from '../core/wiki/wikiPaths';

class WikiTreeProvider implements vscode.TreeDataProvider<WikiIndexRow> {
  private readonly changed = new vscode.EventEmitter<WikiIndexRow | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly core: BatonCore) {}

  refresh(): void {
    this.changed.fire(undefined);
  }

  getChildren(node?: WikiIndexRow): WikiIndexRow[] {
    if (node) return [];
    return this.core.store.wikiIndex.indexed(this.core.wiki.folder);
  }

  getTreeItem(page: WikiIndexRow): vscode.TreeItem {
    const item = new vscode.TreeItem(page.title, vscode.TreeItemCollapsibleState.None);
    item.id = `wiki:${page.name}`;
    item.description = page.title === page.name ? undefined : page.name;
    item.iconPath = new vscode.ThemeIcon('book');
    item.tooltip = `${page.name}.md — ${Math.max(1, Math.round(page.size / 1024))} KB, changed ${new Date(page.mtime_ms).toLocaleString()}`;
    item.resourceUri = this.uri(page);
    item.contextValue = 'wikiPage';
    item.command = { command: 'vscode.open', title: 'Open Page', arguments: [this.uri(page)] };
    return item;
  }

  uri(page: WikiIndexRow): vscode.Uri {
    return vscode.Uri.joinPath(vscode.Uri.file(this.core.wiki.folder), ...`${page.name}.md`.split('/'));
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** The `baton.wiki` view, its file watcher and commands (refresh, new page, reveal the folder). */
export function registerWikiTree(core: BatonCore): vscode.Disposable {
  const provider = new WikiTreeProvider(core);
  const view = vscode.window.createTreeView('baton.wiki', { treeDataProvider: provider });
  const offStore = core.store.onDidChange((what) => {
    if (what === 'wiki') provider.refresh();
  });
  let timer: NodeJS.Timeout | undefined;
  const syncSoon = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => void core.wiki.sync().then(() => provider.refresh()), 150);
  };
  let watcher: vscode.FileSystemWatcher | undefined;
  const watch = (): void => {
    watcher?.dispose();
    watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(core.wiki.folder), '**/*.md'));
    watcher.onDidChange(syncSoon);
    watcher.onDidCreate(syncSoon);
    watcher.onDidDelete(syncSoon);
    syncSoon();
  };
  watch();

  return vscode.Disposable.from(
    view,
    provider,
    new vscode.Disposable(() => {
      offStore();
      clearTimeout(timer);
      watcher?.dispose();
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('baton.wiki.folder')) watch();
    }),
    // A save in the editor is the edit the index must follow even where file events are slow or missing.
    vscode.workspace.onDidSaveTextDocument((doc) => {
      if (core.wiki.pageOf(doc.uri.fsPath)) syncSoon();
    }),
    provideCommand('baton.wiki.refresh', () => syncSoon()),
    provideCommand('baton.wiki.newPage', async () => {
      const name = await vscode.window.showInputBox({
        title: 'Baton: new wiki page',
        prompt: 'Page name, e.g. "release-process" or "guides/setup"',
        // Checked as it is typed: refused after the box closed, the name was lost.
        validateInput: (v) => {
          try {
            normalizePageName(v);
            return undefined;
          } catch (err) {
            return err instanceof Error ? err.message : String(err);
          }
        },
      });
      if (!name?.trim()) return;
      try {
        // A name already taken opens that page: a new page never replaces one (it did, with a bare heading).
        const page = await core.wiki.write(name, `# ${normalizePageName(name).split('/').pop()}\n`, { ifMissing: true });
        await vscode.window.showTextDocument(vscode.Uri.file(page.file));
        if (!page.created) void vscode.window.showInformationMessage(`Baton: the wiki already has a page '${page.name}'; it is open as it was.`);
      } catch (err) {
        void vscode.window.showErrorMessage(`Baton: ${err instanceof Error ? err.message : String(err)}`);
      }
    }),
    provideCommand('baton.wiki.revealFolder', () => vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(core.wiki.folder))),
  );
}
