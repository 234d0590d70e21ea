// The Skills view: the skills Baton installed (each a folder with a SKILL.md, loaded by every session), opened in
// the editor; remove from the item. Installs go through the chat (skill_install) or the install command.
import * as vscode from 'vscode';
import type { BatonCore } from '../core/batonCore';
import type { SkillInfo } from '../core/skills/skillLibrary';
import { provideCommand } from './deferredCommands';

class SkillsTreeProvider implements vscode.TreeDataProvider<SkillInfo> {
  private readonly changed = new vscode.EventEmitter<SkillInfo | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly core: BatonCore) {}

  refresh(): void {
    this.changed.fire(undefined);
  }

  getChildren(node?: SkillInfo): Promise<SkillInfo[]> | SkillInfo[] {
    return node ? [] : this.core.skills.list();
  }

  getTreeItem(skill: SkillInfo): vscode.TreeItem {
    const item = new vscode.TreeItem(skill.name, vscode.TreeItemCollapsibleState.None);
    item.id = `skill:${skill.name}`;
    item.description = skill.description;
    item.tooltip = `${skill.name}: ${skill.description}\n${skill.dir}`;
    item.iconPath = new vscode.ThemeIcon('extensions');
    item.contextValue = 'skill';
    item.command = { command: 'vscode.open', title: 'Open SKILL.md', arguments: [vscode.Uri.joinPath(vscode.Uri.file(skill.dir), 'SKILL.md')] };
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** The `baton.skills` view and its commands (install, remove, refresh). */
export function registerSkillsTree(core: BatonCore): vscode.Disposable {
  const provider = new SkillsTreeProvider(core);
  const view = vscode.window.createTreeView('baton.skills', { treeDataProvider: provider });
  const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(core.skills.dir), '*/SKILL.md'));
  const refresh = () => provider.refresh();
  watcher.onDidCreate(refresh);
  watcher.onDidDelete(refresh);
  watcher.onDidChange(refresh);
  return vscode.Disposable.from(
    view,
    provider,
    watcher,
    provideCommand('baton.skills.refresh', refresh),
    provideCommand('baton.skill.install', async () => {
      const source = await vscode.window.showInputBox({
        title: 'Baton: install a skill',
        prompt: 'A git URL (https://…) or an absolute folder path holding a SKILL.md',
      });
      if (!source?.trim()) return;
      try {
        // A skill of the same name installed before is replaced whole (edits made to it too): asked first, in a modal.
        const confirmReplace = async (names: string[]): Promise<boolean> =>
          (await vscode.window.showWarningMessage(
            `Replace the installed skill${names.length === 1 ? '' : 's'} ${names.map((n) => `'${n}'`).join(', ')} with the one${names.length === 1 ? '' : 's'} from ${source.trim()}?`,
            { modal: true, detail: 'The folder of each is replaced whole: edits made to it are lost.' },
            'Replace',
          )) === 'Replace';
        const done = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Baton: installing the skill' }, () =>
          core.skills.install(source, { confirmReplace }),
        );
        if (!done.length) return;
        core.renewSession('skills changed');
        refresh();
        void vscode.window.showInformationMessage(`Baton: installed ${done.map((s) => s.name).join(', ')}.`);
      } catch (err) {
        void vscode.window.showErrorMessage(`Baton: ${err instanceof Error ? err.message : String(err)}`);
      }
    }),
    provideCommand('baton.skill.remove', async (node?: unknown) => {
      const skills = await core.skills.list();
      const name = isSkill(node)
        ? node.name
        : await vscode.window.showQuickPick(
            skills.map((s) => s.name),
            { placeHolder: 'Which skill should Baton remove?' },
          );
      if (!name) return;
      const answer = await vscode.window.showWarningMessage(`Remove skill '${name}'?`, { modal: true }, 'Remove');
      if (answer !== 'Remove') return;
      await core.skills.remove(name);
      core.renewSession('skills changed');
      refresh();
    }),
  );
}

function isSkill(node: unknown): node is SkillInfo {
  return typeof node === 'object' && node !== null && typeof (node as SkillInfo).name === 'string' && typeof (node as SkillInfo).dir === 'string';
}
