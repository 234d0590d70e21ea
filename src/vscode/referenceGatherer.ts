// Reads one reference for sending: a selection from the editor's document (unsaved edits included), a
// file (from the open document, or at most CONTEXT_LIMITS.fileBytes from disk), a folder's file list,
// the problems of a file or the workspace, the working tree's changes. Each is bounded; any failure is
// a ContextError and the message is not sent.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ContextError, ResolvedReference } from '../core/context/contextPort';
import { workingTreeChanges } from '../core/context/gitChanges';
import { boundText, CONTEXT_LIMITS } from '../core/context/limits';
import { formatFolderListing, formatProblems, sliceLines, type Problem, type Severity } from '../core/context/listings';
import { lineRange, referenceLabel, type Reference } from '../core/context/references';
import { looksBinary, readTextExcerpt } from '../core/context/textFile';
import type { EditorContext } from './editorContext';
import { listWorkspaceFiles } from './referencePicker';

export type Gathered = { ok: true; reference: ResolvedReference } | { ok: false; error: ContextError };

const fail = (error: ContextError): Gathered => ({ ok: false, error });

export async function gatherReference(ref: Reference, ctx: EditorContext): Promise<Gathered> {
  const label = referenceLabel(ref);
  switch (ref.kind) {
    case 'selection': {
      const checked = ctx.check(ref.path);
      if (!checked.ok) return fail(checked.error);
      const doc = await openDocument(checked.real, checked.display);
      if (!doc.ok) return fail(doc.error);
      const lineCount = doc.document.lineCount;
      if (ref.startLine > lineCount)
        return fail({
          kind: 'missing',
          message: `${checked.display} has ${lineCount} lines now: lines ${lineRange(ref.startLine, ref.endLine)} are gone. Select again.`,
        });
      const endLine = Math.min(ref.endLine, lineCount);
      const text = sliceLines(doc.document.getText(), ref.startLine, endLine);
      const bounded = boundText(text, CONTEXT_LIMITS.selectionChars, 'selection');
      return {
        ok: true,
        reference: { ref, label, path: checked.display, lines: lineRange(ref.startLine, endLine), language: doc.document.languageId, ...bounded },
      };
    }
    case 'file': {
      const checked = ctx.check(ref.path);
      if (!checked.ok) return fail(checked.error);
      const open = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === checked.real);
      if (open?.isDirty) {
        // What the user sees in the editor, unsaved edits included.
        const bounded = boundText(open.getText(), CONTEXT_LIMITS.fileBytes, 'file');
        return { ok: true, reference: { ref, label, path: checked.display, language: open.languageId, ...bounded } };
      }
      const excerpt = await readTextExcerpt(checked.real, checked.display);
      if (!excerpt.ok) return fail(excerpt.error);
      return {
        ok: true,
        reference: {
          ref,
          label,
          path: checked.display,
          ...(open ? { language: open.languageId } : {}),
          text: excerpt.text,
          truncated: excerpt.truncated,
          note: excerpt.note,
        },
      };
    }
    case 'folder': {
      const checked = ctx.check(ref.path);
      if (!checked.ok) return fail(checked.error);
      const files = await listWorkspaceFiles(checked.real, 5000);
      const listing = formatFolderListing(checked.display, files.paths, files.paths.length);
      return { ok: true, reference: { ref, label, path: checked.display, ...listing } };
    }
    case 'problems': {
      let scopePath: string | undefined;
      let entries: Array<[vscode.Uri, readonly vscode.Diagnostic[]]>;
      if (ref.path) {
        const checked = ctx.check(ref.path);
        if (!checked.ok) return fail(checked.error);
        scopePath = checked.display;
        entries = [[vscode.Uri.file(checked.real), vscode.languages.getDiagnostics(vscode.Uri.file(checked.real))]];
      } else entries = vscode.languages.getDiagnostics();
      const problems: Problem[] = [];
      for (const [uri, diagnostics] of entries) {
        if (uri.scheme !== 'file' || !diagnostics.length) continue;
        // Problems of protected or outside files are left out, as their files would be.
        const checked = ctx.check(uri.fsPath);
        if (!checked.ok) continue;
        for (const d of diagnostics) problems.push(toProblem(checked.display, d));
      }
      const listed = formatProblems(problems, scopePath ?? 'the workspace');
      return {
        ok: true,
        reference: { ref, label, ...(scopePath ? { path: scopePath } : {}), text: listed.text, truncated: listed.truncated, note: listed.note },
      };
    }
    case 'changes': {
      const folders = vscode.workspace.workspaceFolders?.filter((f) => f.uri.scheme === 'file') ?? [];
      if (!folders.length) return fail({ kind: 'unavailable', message: 'Open a folder first: #changes shows the git changes of the workspace.' });
      const parts: string[] = [];
      let truncated = false;
      let note: string | undefined;
      for (const folder of folders) {
        const changes = await workingTreeChanges(folder.uri.fsPath, folder.name);
        if (!changes.ok) {
          if (folders.length === 1) return fail(changes.error);
          continue;
        }
        parts.push(folders.length > 1 ? `# ${folder.name}\n${changes.text}` : changes.text);
        truncated ||= changes.truncated;
        note ??= changes.note;
      }
      if (!parts.length) return fail({ kind: 'unavailable', message: 'No workspace folder is in a git repository: #changes has nothing to show.' });
      const bounded = boundText([...new Set(parts)].join('\n\n'), CONTEXT_LIMITS.changesChars, 'diff');
      return { ok: true, reference: { ref, label, text: bounded.text, truncated: truncated || bounded.truncated, note: bounded.note ?? note } };
    }
    default: {
      const unreachable: never = ref;
      return fail({ kind: 'unavailable', message: `Unknown reference ${JSON.stringify(unreachable)}` });
    }
  }
}

type OpenedDocument = { ok: true; document: vscode.TextDocument } | { ok: false; error: ContextError };

/** The document for a path: the open one (unsaved edits count), or loaded, after a binary sniff of the file. */
async function openDocument(real: string, display: string): Promise<OpenedDocument> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === real);
  if (open) return { ok: true, document: open };
  const sniff = await readTextExcerpt(real, display, CONTEXT_LIMITS.sniffBytes);
  if (!sniff.ok) return { ok: false, error: sniff.error };
  if (looksBinary(Buffer.from(sniff.text))) return { ok: false, error: { kind: 'binary', message: `${display} is a binary file.` } };
  try {
    return { ok: true, document: await vscode.workspace.openTextDocument(vscode.Uri.file(real)) };
  } catch (err) {
    return { ok: false, error: { kind: 'unreadable', message: `${display} could not be opened: ${err instanceof Error ? err.message : String(err)}` } };
  }
}

const SEVERITY: Record<vscode.DiagnosticSeverity, Severity> = {
  [vscode.DiagnosticSeverity.Error]: 'error',
  [vscode.DiagnosticSeverity.Warning]: 'warning',
  [vscode.DiagnosticSeverity.Information]: 'info',
  [vscode.DiagnosticSeverity.Hint]: 'hint',
};

function toProblem(display: string, d: vscode.Diagnostic): Problem {
  const code = typeof d.code === 'object' ? d.code.value : d.code;
  return {
    path: display.split(path.sep).join('/'),
    line: d.range.start.line + 1,
    column: d.range.start.character + 1,
    severity: SEVERITY[d.severity],
    message: d.message,
    ...(d.source ? { source: d.source } : {}),
    ...(code !== undefined ? { code: String(code) } : {}),
  };
}
