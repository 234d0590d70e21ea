// What a Chat-view request attaches (#file, #selection, a dragged file, the implicit active editor) as Baton's own
// references: read, checked and bounded exactly as the panel's chips are (core/context), so @baton sees the files a
// user attached instead of their names alone. A kind Baton cannot read (a tool, a symbol, a pasted image) is named back
// to the user rather than dropped without a word.
import * as vscode from 'vscode';
import type { AttachedReference } from '../core/context/contextPort';
import { MAX_REFERENCES } from '../core/context/references';

/** VS Code's ids of the references it adds by itself (the active editor, its visible part), not the user. */
const IMPLICIT_ID = /^vscode\.implicit/;

export interface ChatReferences {
  refs: AttachedReference[];
  /** What was attached that Baton does not read, as the user named it. */
  skipped: string[];
}

/** `prompt`: the request's text, where a reference typed in it (`#terminalSelection`) is named. */
export async function chatReferences(references: readonly vscode.ChatPromptReference[], prompt = ''): Promise<ChatReferences> {
  const refs: AttachedReference[] = [];
  const skipped: string[] = [];
  const keys = new Set<string>();
  for (const reference of references) {
    const implicit = IMPLICIT_ID.test(reference.id) ? { implicit: true } : {};
    const ref = await referenceOf(reference.value);
    if (!ref) {
      skipped.push(nameOf(reference, prompt));
      continue;
    }
    // The same file attached twice (by hand and as the active editor) is read once.
    const key = JSON.stringify(ref);
    if (keys.has(key)) continue;
    keys.add(key);
    refs.push({ ref, ...implicit });
  }
  // More than a message takes: the user's own first, the implicit one (the active editor) dropped before them.
  const ordered = [...refs.filter((r) => !r.implicit), ...refs.filter((r) => r.implicit)];
  return { refs: ordered.slice(0, MAX_REFERENCES), skipped: [...skipped, ...ordered.slice(MAX_REFERENCES).map((r) => pathOf(r))] };
}

async function referenceOf(value: unknown): Promise<AttachedReference['ref'] | undefined> {
  if (value instanceof vscode.Location) {
    if (value.uri.scheme !== 'file') return undefined;
    const { start, end } = value.range;
    // A selection that ends at the start of a line ends on the line before it (as the editor shows it).
    const last = end.line > start.line && end.character === 0 ? end.line - 1 : end.line;
    return { kind: 'selection', path: value.uri.fsPath, startLine: start.line + 1, endLine: last + 1 };
  }
  if (value instanceof vscode.Uri) {
    if (value.scheme !== 'file') return undefined;
    const stat = await Promise.resolve(vscode.workspace.fs.stat(value)).catch(() => undefined);
    // A path that is gone is sent as a file: reading it then refuses the message with the path named.
    return { kind: stat && stat.type & vscode.FileType.Directory ? 'folder' : 'file', path: value.fsPath };
  }
  return undefined;
}

function nameOf(reference: vscode.ChatPromptReference, prompt: string): string {
  if (reference.range) return prompt.slice(reference.range[0], reference.range[1]);
  const value = reference.value;
  if (value instanceof vscode.Uri) return value.toString();
  if (value instanceof vscode.Location) return value.uri.toString();
  return reference.id;
}

function pathOf(r: AttachedReference): string {
  return 'path' in r.ref && r.ref.path ? r.ref.path : r.ref.kind;
}
