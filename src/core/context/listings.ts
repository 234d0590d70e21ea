// Text for the references that are lists rather than file content: the problems (diagnostics) of a file
// or the workspace, and a folder's files. Bounded by count and by characters, with the marker.
import { boundText, CONTEXT_LIMITS, type Bounded } from './limits';

export type Severity = 'error' | 'warning' | 'info' | 'hint';

/** One diagnostic, as the VS Code layer reads it (1-based line and column). */
export interface Problem {
  path: string;
  line: number;
  column: number;
  severity: Severity;
  message: string;
  source?: string;
  code?: string;
}

const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2, hint: 3 };

/** `src/a.ts:3:7 error: Type 'string' is not assignable … [ts 2322]`, errors first. */
export function formatProblems(problems: readonly Problem[], scope: string): Bounded & { count: number } {
  if (!problems.length) return { text: `No problems in ${scope}.`, truncated: false, count: 0 };
  const sorted = [...problems].sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || a.path.localeCompare(b.path) || a.line - b.line);
  const shown = sorted.slice(0, CONTEXT_LIMITS.problems);
  const lines = shown.map((p) => {
    const tag = [p.source, p.code].filter(Boolean).join(' ');
    return `${p.path}:${p.line}:${p.column} ${p.severity}: ${p.message.replace(/\s*\n\s*/g, ' ')}${tag ? ` [${tag}]` : ''}`;
  });
  const header = `${problems.length} problem(s) in ${scope}:`;
  const more = sorted.length > shown.length ? [`[truncated: ${sorted.length - shown.length} more problem(s) not shown]`] : [];
  const bounded = boundText([header, ...lines, ...more].join('\n'), CONTEXT_LIMITS.problemsChars, 'problems list');
  const truncated = bounded.truncated || more.length > 0;
  return {
    ...bounded,
    truncated,
    count: problems.length,
    ...(truncated && !bounded.note ? { note: `truncated: the first ${shown.length} of ${problems.length} problems` } : {}),
  };
}

/** A folder's files (relative paths, already filtered by the excludes and .gitignore), as an indented list. */
export function formatFolderListing(folderLabel: string, files: readonly string[], total = files.length): Bounded {
  const limit = CONTEXT_LIMITS.folderEntries;
  const shown = [...files].sort((a, b) => a.localeCompare(b)).slice(0, limit);
  const header = `${folderLabel}/ (${total} file(s)${total > shown.length ? `, the first ${shown.length} listed` : ''}):`;
  const lines = [header, ...shown.map((f) => `  ${f}`)];
  const truncated = total > shown.length;
  if (truncated) lines.push(`[truncated: ${total - shown.length} more file(s) not listed]`);
  const bounded = boundText(lines.join('\n'), 32_000, 'folder listing');
  return truncated && !bounded.truncated ? { ...bounded, truncated: true, note: `truncated: ${shown.length} of ${total} files listed` } : bounded;
}

/** The lines `startLine..endLine` (1-based, inclusive) of a text. */
export function sliceLines(text: string, startLine: number, endLine: number): string {
  const lines = text.split(/\r?\n/);
  return lines.slice(startLine - 1, endLine).join('\n');
}
