// The editor as context for the chat: implements core's EditorContextPort with VS Code's API. It follows
// the active editor for the implicit chip (unless baton.context.implicit is off), answers the `#` picker
// and drops, and gathers references when a message is sent. Every path goes through checkReferencePath
// (realpath, protected paths, workspace) both when it is attached and again when it is sent: the
// webview is untrusted, and a file can be deleted or replaced by a symlink in between.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AttachedReference, AttachResult, ContextError, EditorContextPort, GatherResult } from '../core/context/contextPort';
import { CONTEXT_LIMITS, formatBytes } from '../core/context/limits';
import { checkReferencePath, type PathCheck, type PathPolicyOptions } from '../core/context/pathPolicy';
import { referenceKey, referenceLabel, type Reference, type ReferenceChip, type ReferenceKind } from '../core/context/references';
import { readTextExcerpt } from '../core/context/textFile';
import { ProtectedPaths } from '../core/workers/protectedPaths';
import { gatherReference } from './referenceGatherer';
import { pickFile, pickFolder, pickProblemsScope } from './referencePicker';
import { readImplicitContext, readWorkerSettings } from './settings';

export const IMPLICIT_SETTING = 'baton.context.implicit';

/** What a checked path needs for chips and gathering. */
export type CheckedPath = Extract<PathCheck, { ok: true }>;

export class EditorContext implements EditorContextPort, vscode.Disposable {
  /** Real paths outside the workspace the user agreed to send, for this window only. */
  private readonly confirmedOutside = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;
  private listener: ((chip: ReferenceChip | undefined) => void) | undefined;

  constructor(private readonly ownPaths: readonly string[]) {}

  /** Starts following the active editor; `onImplicit` gets the chip (or none) after each change. */
  follow(onImplicit: (chip: ReferenceChip | undefined) => void): vscode.Disposable {
    this.listener = onImplicit;
    const soon = () => {
      clearTimeout(this.timer);
      // Selections change on every keystroke and drag: one update per pause is enough.
      this.timer = setTimeout(() => this.listener?.(this.implicitChip()), 150);
    };
    this.disposables.push(
      vscode.window.onDidChangeActiveTextEditor(soon),
      vscode.window.onDidChangeTextEditorSelection(soon),
      vscode.workspace.onDidChangeWorkspaceFolders(soon),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(IMPLICIT_SETTING) || e.affectsConfiguration('baton.workers.protectedPaths')) soon();
      }),
    );
    onImplicit(this.implicitChip());
    return this;
  }

  policy(): PathPolicyOptions {
    // Baton's installation is protected from workers so they cannot change it; reading it as context
    // changes nothing, so only the storage (conversation, memories) and VS Code's secrets join the user's protected paths.
    const protectedPaths = new ProtectedPaths({ extra: readWorkerSettings().protectedPaths, ownPaths: this.ownPaths });
    return { workspaceFolders: workspaceFolders(), protectedPaths, confirmedOutside: this.confirmedOutside };
  }

  check(fsPath: string, allowUnconfirmed = false): PathCheck {
    return checkReferencePath(fsPath, this.policy(), allowUnconfirmed);
  }

  /** The active editor's selection (or its file, with nothing selected), when it may go with a message. */
  implicitChip(): ReferenceChip | undefined {
    if (!readImplicitContext()) return undefined;
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.uri.scheme !== 'file') return undefined;
    // Silently none for a protected or outside file: implicit context never asks or refuses.
    const checked = this.check(editor.document.uri.fsPath);
    if (!checked.ok) return undefined;
    const ref = selectionRef(editor) ?? { kind: 'file', path: editor.document.uri.fsPath };
    return { ...chipFor(ref, checked), implicit: true };
  }

  /** The selection of the active editor as a chip, or why there is none. */
  selectionChip(): AttachResult {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.uri.scheme !== 'file')
      return refuse('unavailable', 'Open a file and select some code first: there is no editor selection to attach.');
    const ref = selectionRef(editor);
    if (!ref) return refuse('unavailable', `Nothing is selected in ${path.basename(editor.document.uri.fsPath)}: select the code to attach first.`);
    const checked = this.check(ref.path);
    return checked.ok ? { ok: true, chips: [chipFor(ref, checked)] } : { ok: false, error: checked.error };
  }

  /** Chips for files or folders (explorer, drop, picker); an outside path is attached only after the user confirms. */
  async attachPaths(fsPaths: readonly string[]): Promise<AttachResult> {
    const chips: ReferenceChip[] = [];
    for (const p of fsPaths.slice(0, 50)) {
      let checked = this.check(p, true);
      if (!checked.ok) return { ok: false, error: checked.error };
      if (checked.outside && !this.confirmedOutside.has(checked.real)) {
        const answer = await vscode.window.showWarningMessage(
          `${checked.real} is outside the workspace. Send it to the model with your next message?`,
          { modal: true, detail: 'Baton attaches files outside the workspace only when you confirm each one.' },
          'Attach',
        );
        if (answer !== 'Attach') continue;
        this.confirmedOutside.add(checked.real);
        checked = this.check(p);
        if (!checked.ok) return { ok: false, error: checked.error };
      }
      const stat = await vscode.workspace.fs.stat(vscode.Uri.file(checked.real)).then(
        (s) => s,
        () => undefined,
      );
      if (!stat) return refuse('missing', `${checked.display} no longer exists (deleted or moved).`);
      if (stat.type & vscode.FileType.Directory) {
        chips.push(chipFor({ kind: 'folder', path: p }, checked));
        continue;
      }
      // Read now (at most the limit), so a binary file is refused at once and a big one says it will be cut.
      const excerpt = await readTextExcerpt(checked.real, checked.display);
      if (!excerpt.ok) return { ok: false, error: excerpt.error };
      const note = excerpt.truncated ? `${formatBytes(excerpt.size)}: only the first ${formatBytes(CONTEXT_LIMITS.fileBytes)} go with the message` : undefined;
      chips.push(chipFor({ kind: 'file', path: p }, checked, note));
    }
    return { ok: true, chips };
  }

  async pick(kind: ReferenceKind): Promise<AttachResult> {
    switch (kind) {
      case 'file': {
        const picked = await pickFile(this.policy());
        return picked ? this.attachPaths([picked]) : { ok: true, chips: [] };
      }
      case 'folder': {
        const picked = await pickFolder(this.policy());
        return picked ? this.attachPaths([picked]) : { ok: true, chips: [] };
      }
      case 'selection':
        return this.selectionChip();
      case 'problems': {
        const scope = await pickProblemsScope();
        if (scope === undefined) return { ok: true, chips: [] };
        if (scope === 'workspace') return { ok: true, chips: [chipFor({ kind: 'problems' }, undefined)] };
        const checked = this.check(scope);
        return checked.ok ? { ok: true, chips: [chipFor({ kind: 'problems', path: scope }, checked)] } : { ok: false, error: checked.error };
      }
      case 'changes':
        if (!workspaceFolders().length) return refuse('unavailable', 'Open a folder first: #changes shows the git changes of the workspace.');
        return { ok: true, chips: [chipFor({ kind: 'changes' }, undefined)] };
      default: {
        const unreachable: never = kind;
        return refuse('unavailable', `Unknown kind ${String(unreachable)}`);
      }
    }
  }

  drop(uris: string[]): Promise<AttachResult> {
    const paths: string[] = [];
    for (const raw of uris) {
      try {
        const uri = raw.includes('://') || raw.startsWith('file:') ? vscode.Uri.parse(raw, true) : vscode.Uri.file(raw);
        // code-server and remote windows hand over vscode-remote:// URIs whose path is the file's path on the host.
        if (uri.scheme === 'file' || uri.scheme === 'vscode-remote') paths.push(uri.scheme === 'file' ? uri.fsPath : path.normalize(uri.path));
      } catch {
        // not a URI: skipped
      }
    }
    if (!paths.length) return Promise.resolve(refuse('unavailable', 'Only files and folders can be dropped on Baton.'));
    return this.attachPaths(paths);
  }

  async gather(refs: readonly AttachedReference[]): Promise<GatherResult> {
    const references = [];
    for (const { ref, implicit } of refs) {
      const r = await gatherReference(ref, this);
      if (!r.ok) return r;
      references.push({ ...r.reference, ...(implicit ? { implicit: true } : {}) });
    }
    return { ok: true, references };
  }

  open(ref: Reference): void {
    if (ref.kind === 'changes') return void vscode.commands.executeCommand('workbench.view.scm');
    if (ref.kind === 'problems' && !ref.path) return void vscode.commands.executeCommand('workbench.actions.view.problems');
    if (!ref.path) return;
    const checked = this.check(ref.path);
    if (!checked.ok) return void vscode.window.showWarningMessage(`Baton: ${checked.error.message}`);
    const uri = vscode.Uri.file(checked.real);
    if (ref.kind === 'folder') return void vscode.commands.executeCommand('revealInExplorer', uri);
    const selection = ref.kind === 'selection' ? new vscode.Range(ref.startLine - 1, 0, ref.endLine - 1, Number.MAX_SAFE_INTEGER) : undefined;
    void vscode.window.showTextDocument(uri, selection ? { selection } : {}).then(undefined, () => undefined);
  }

  /**
   * The folder a worker started without one goes to: the workspace folder of the active file, or the only
   * folder; undefined in a multi-root workspace with no file open in it.
   */
  defaultWorkerFolder(): string | undefined {
    const uri = vscode.window.activeTextEditor?.document.uri;
    const folder = uri && uri.scheme === 'file' ? vscode.workspace.getWorkspaceFolder(uri) : undefined;
    if (folder) return folder.uri.fsPath;
    const all = workspaceFolders();
    return all.length === 1 ? all[0] : undefined;
  }

  /** Multi-root only: the active file's folder, so a worker the model starts for this message goes there. */
  workspaceHint(): string | undefined {
    if (workspaceFolders().length < 2) return undefined;
    const folder = this.defaultWorkerFolder();
    if (!folder) return undefined;
    return `<editor>The user's active file is in the workspace folder ${folder}. A worker for this message goes there (create_worker_session without working_dir) unless the user names another folder.</editor>`;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.listener = undefined;
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

export function workspaceFolders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}

function refuse(kind: ContextError['kind'], message: string): AttachResult {
  return { ok: false, error: { kind, message } };
}

/** The editor's selection as whole lines; undefined when nothing is selected. */
export function selectionRef(editor: vscode.TextEditor): Extract<Reference, { kind: 'selection' }> | undefined {
  const s = editor.selection;
  if (s.isEmpty) return undefined;
  // A selection ending at column 0 of a line (a triple-click, a drag to the line start) does not take that line.
  const endLine = s.end.character === 0 && s.end.line > s.start.line ? s.end.line - 1 : s.end.line;
  return { kind: 'selection', path: editor.document.uri.fsPath, startLine: s.start.line + 1, endLine: endLine + 1 };
}

export function chipFor(ref: Reference, checked: CheckedPath | undefined, note?: string): ReferenceChip {
  const where = checked
    ? `${checked.display}${checked.outside ? ' (outside the workspace)' : ''}`
    : ref.kind === 'changes'
      ? "The working tree's git diff"
      : 'All problems in the workspace';
  const lines = ref.kind === 'selection' ? `, lines ${ref.startLine}-${ref.endLine}` : '';
  return { key: referenceKey(ref), ref, label: referenceLabel(ref), detail: `${where}${lines}${note ? `\n${note}` : ''}` };
}
