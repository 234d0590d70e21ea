// VS Code's own pickers for the `#` list: #file (fuzzy search over the workspace's files), #folder, and
// the scope of #problems. The file list respects files.exclude and search.exclude (through findFiles)
// and .gitignore (through git itself), and leaves out protected paths.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { gitVisibleFiles } from '../core/context/gitChanges';
import { checkReferencePath, type PathPolicyOptions } from '../core/context/pathPolicy';

const MAX_FILES = 5000;

/** files.exclude and search.exclude as one glob for findFiles (passing one replaces files.exclude, so both go in). */
function excludeGlob(): string | undefined {
  const config = vscode.workspace.getConfiguration();
  const patterns = new Set<string>();
  for (const key of ['files.exclude', 'search.exclude']) {
    const map = config.get<Record<string, unknown>>(key) ?? {};
    // `when` clauses (conditional excludes) and nested braces cannot join one brace glob: those are left to .gitignore.
    for (const [glob, on] of Object.entries(map)) if (on === true && !/[{}]/.test(glob)) patterns.add(glob);
  }
  return patterns.size ? `{${[...patterns].join(',')}}` : undefined;
}

/** Files under `dir` (a real path), absolute, filtered by the excludes and by .gitignore where `dir` is in a repository. */
export async function listWorkspaceFiles(dir: string, max = MAX_FILES): Promise<{ paths: string[]; absolute: string[] }> {
  const [uris, visible] = await Promise.all([
    vscode.workspace.findFiles(new vscode.RelativePattern(vscode.Uri.file(dir), '**/*'), excludeGlob(), max),
    gitVisibleFiles(dir),
  ]);
  const absolute: string[] = [];
  const paths: string[] = [];
  for (const uri of uris) {
    const rel = path.relative(dir, uri.fsPath).split(path.sep).join('/');
    if (visible && !visible.has(rel)) continue;
    absolute.push(uri.fsPath);
    paths.push(rel);
  }
  return { paths, absolute };
}

interface PathItem extends vscode.QuickPickItem {
  fsPath: string;
}

/** Every workspace file as a quick pick item (name as label, folder as description); protected paths left out. */
async function fileItems(policy: PathPolicyOptions): Promise<PathItem[]> {
  const items: PathItem[] = [];
  const multi = policy.workspaceFolders.length > 1;
  for (const folder of policy.workspaceFolders) {
    const { absolute, paths } = await listWorkspaceFiles(folder);
    absolute.forEach((abs, i) => {
      if (policy.protectedPaths.match(abs)) return;
      const rel = paths[i]!;
      const dir = path.posix.dirname(rel);
      const shownDir = multi ? path.posix.join(path.basename(folder), dir) : dir;
      items.push({ label: path.basename(abs), description: shownDir === '.' ? '' : shownDir, fsPath: abs });
    });
  }
  return items.sort((a, b) => (a.description ?? '').localeCompare(b.description ?? '') || a.label.localeCompare(b.label));
}

async function pickFrom(items: Promise<PathItem[]>, title: string, placeholder: string): Promise<string | undefined> {
  const qp = vscode.window.createQuickPick<PathItem>();
  qp.title = title;
  qp.placeholder = placeholder;
  qp.matchOnDescription = true;
  qp.busy = true;
  qp.show();
  try {
    qp.items = await items;
  } finally {
    qp.busy = false;
  }
  return new Promise<string | undefined>((resolve) => {
    qp.onDidAccept(() => {
      resolve(qp.selectedItems[0]?.fsPath);
      qp.hide();
    });
    qp.onDidHide(() => {
      resolve(undefined);
      qp.dispose();
    });
  });
}

/** #file: a fuzzy search over the workspace's files. */
export function pickFile(policy: PathPolicyOptions): Promise<string | undefined> {
  return pickFrom(fileItems(policy), 'Baton: attach a file', 'Type part of a file name');
}

/** #folder: the workspace folders and every folder that holds a listed file. */
export function pickFolder(policy: PathPolicyOptions): Promise<string | undefined> {
  const folders = fileItems(policy).then((files) => {
    const dirs = new Map<string, PathItem>();
    for (const root of policy.workspaceFolders) dirs.set(root, { label: path.basename(root), description: 'workspace folder', fsPath: root });
    for (const f of files) {
      for (let dir = path.dirname(f.fsPath); !dirs.has(dir) && policy.workspaceFolders.some((r) => dir.startsWith(r)); dir = path.dirname(dir)) {
        if (checkReferencePath(dir, policy).ok) dirs.set(dir, { label: path.basename(dir), description: relTo(policy, dir), fsPath: dir });
        else break;
      }
    }
    return [...dirs.values()];
  });
  return pickFrom(folders, 'Baton: attach a folder (its list of files)', 'Type part of a folder name');
}

function relTo(policy: PathPolicyOptions, dir: string): string {
  const root = policy.workspaceFolders.find((r) => dir.startsWith(r)) ?? '';
  return path.relative(root, dir).split(path.sep).join('/');
}

/** #problems: the active file's or the whole workspace's. Resolves to a path, 'workspace', or undefined (cancelled). */
export async function pickProblemsScope(): Promise<string | undefined> {
  const editor = vscode.window.activeTextEditor;
  const file = editor?.document.uri.scheme === 'file' ? editor.document.uri.fsPath : undefined;
  if (!file) return 'workspace';
  const count = (uri?: vscode.Uri) =>
    uri ? vscode.languages.getDiagnostics(uri).length : vscode.languages.getDiagnostics().reduce((n, [, d]) => n + d.length, 0);
  const items: Array<vscode.QuickPickItem & { scope: string }> = [
    { label: `Problems in ${path.basename(file)}`, description: `${count(vscode.Uri.file(file))}`, scope: file },
    { label: 'Problems in the workspace', description: `${count()}`, scope: 'workspace' },
  ];
  const pick = await vscode.window.showQuickPick(items, { title: 'Baton: attach problems' });
  return pick?.scope;
}
