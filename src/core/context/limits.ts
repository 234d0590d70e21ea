// How much of the editor one message may carry. Every reference is bounded on its own, and the message
// as a whole, so a stray 5 MB file or a huge diff can never blow the model's context: beyond a limit the
// text is cut at a line boundary and says so ("[truncated …]"), to the model and on the chip.

export const CONTEXT_LIMITS = {
  /** Characters of a selection. */
  selectionChars: 20_000,
  /** Bytes of a file read from disk (a bigger file is attached as its first bytes, with a note). */
  fileBytes: 64 * 1024,
  /** Entries of a folder listing. */
  folderEntries: 300,
  /** Diagnostics in one #problems reference, and their characters. */
  problems: 100,
  problemsChars: 16_000,
  /** Characters of the working tree's diff. */
  changesChars: 64_000,
  /** All references of one message together. */
  totalChars: 200_000,
  /** A selection up to this size is kept in the log with the message (bigger ones keep only path and lines). */
  storedSelectionChars: 2_000,
  /** Bytes sniffed for NUL and control characters to tell a binary file. */
  sniffBytes: 8 * 1024,
} as const;

export interface Bounded {
  text: string;
  truncated: boolean;
  /** Set when truncated: what was kept of how much. */
  note?: string;
}

/**
 * Cuts `text` to at most `maxChars` (marker included), at the last line break before the limit when there
 * is one, and appends a marker naming what was kept. `what` words the note ("lines of the selection").
 */
export function boundText(text: string, maxChars: number, what = 'text'): Bounded {
  if (text.length <= maxChars) return { text, truncated: false };
  const totalLines = countLines(text);
  // Room for the marker itself (its numbers and `what`), so the result stays within maxChars.
  let cut = Math.max(0, maxChars - 110 - what.length);
  const lineEnd = text.lastIndexOf('\n', cut);
  if (lineEnd > cut / 2) cut = lineEnd;
  // Never split a surrogate pair.
  if (cut > 0 && isHighSurrogate(text.charCodeAt(cut - 1))) cut--;
  const kept = text.slice(0, cut);
  const note = `truncated: the first ${countLines(kept)} of ${totalLines} lines of the ${what} (${kept.length} of ${text.length} characters)`;
  return { text: `${kept}\n[${note}]`, truncated: true, note };
}

export function countLines(text: string): number {
  if (!text) return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < text.length - 1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Human size: 812 B, 4.2 KB, 5.0 MB. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}
