// Reading a file for a message without ever reading all of a big one: at most CONTEXT_LIMITS.fileBytes
// are read, a binary file is told apart from its first bytes, and the excerpt ends on a line and a
// whole UTF-8 character.
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { ContextError } from './contextPort';
import { CONTEXT_LIMITS, countLines, formatBytes } from './limits';

/**
 * True when the bytes look like a binary file: a NUL byte (UTF-16 text has them too, and is not
 * attachable as it is) or more than 10% control characters other than tab, CR, LF, FF and ESC.
 */
export function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, CONTEXT_LIMITS.sniffBytes);
  if (n === 0) return false;
  let control = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    if (b === 0) return true;
    if (b < 32 && b !== 9 && b !== 10 && b !== 13 && b !== 12 && b !== 27) control++;
  }
  return control / n > 0.1;
}

export type TextExcerpt = { ok: true; text: string; truncated: boolean; size: number; note?: string } | { ok: false; error: ContextError };

/** Reads up to `maxBytes` of a file (already realpath-resolved and checked by the caller). `label` names it in messages. */
export async function readTextExcerpt(realPath: string, label: string, maxBytes: number = CONTEXT_LIMITS.fileBytes): Promise<TextExcerpt> {
  let handle;
  try {
    // Non-blocking: a FIFO's open would wait for a writer for ever (a regular file reads as it always does).
    handle = await open(realPath, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    return { ok: false, error: fsError(err, label) };
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) return { ok: false, error: { kind: 'unavailable', message: `${label} is a folder: attach it with #folder.` } };
    if (!stat.isFile()) return { ok: false, error: { kind: 'unreadable', message: `${label} is not a regular file.` } };
    const want = Math.min(stat.size, maxBytes);
    const buffer = Buffer.alloc(want);
    let read = 0;
    while (read < want) {
      const { bytesRead } = await handle.read(buffer, read, want - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    const bytes = buffer.subarray(0, read);
    if (looksBinary(bytes)) {
      return { ok: false, error: { kind: 'binary', message: `${label} is a binary file (${formatBytes(stat.size)}): Baton attaches text files only.` } };
    }
    if (stat.size <= read) return { ok: true, text: bytes.toString('utf8'), truncated: false, size: stat.size };
    const text = wholeLines(bytes);
    const note = `truncated: ${label} is ${formatBytes(stat.size)}; only its first ${countLines(text)} lines (${formatBytes(Buffer.byteLength(text))}) are attached`;
    return { ok: true, text: `${text}\n[${note}]`, truncated: true, size: stat.size, note };
  } catch (err) {
    return { ok: false, error: fsError(err, label) };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** The bytes up to the last line break (or the last whole character when there is none), as text. */
function wholeLines(bytes: Uint8Array): string {
  const lastBreak = bytes.lastIndexOf(10);
  const cut = lastBreak > 0 ? lastBreak : completeUtf8Length(bytes);
  return Buffer.from(bytes.buffer, bytes.byteOffset, cut).toString('utf8');
}

/** The length of `bytes` without a UTF-8 sequence cut off at the end. */
function completeUtf8Length(bytes: Uint8Array): number {
  let i = bytes.length - 1;
  // Walk back over continuation bytes to the lead byte of the last sequence.
  while (i > 0 && i > bytes.length - 4 && (bytes[i]! & 0xc0) === 0x80) i--;
  const lead = bytes[i]!;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return i + need <= bytes.length ? bytes.length : i;
}

function fsError(err: unknown, label: string): ContextError {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR')
    return { kind: 'missing', message: `${label} no longer exists (deleted or moved). Remove it from the message or attach it again.` };
  if (code === 'EISDIR') return { kind: 'unavailable', message: `${label} is a folder: attach it with #folder.` };
  return { kind: 'unreadable', message: `${label} could not be read (${code ?? (err instanceof Error ? err.message : String(err))}).` };
}
