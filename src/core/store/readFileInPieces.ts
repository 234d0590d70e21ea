// Reads a whole file synchronously (the store's open: see StoreFileSystem.readFileNow) through one small buffer kept
// for the process's life, copying each piece into the result. readFileSync has the kernel write the file straight
// into a new buffer the size of the file; on a virtual machine whose every newly mapped 4 KB page costs tens of
// microseconds, each page of that buffer was paid for twice, once when the kernel wrote it and again when this thread
// first read it (the digest check): a 10 MB file's read and hash took 60-100 ms instead of ~10 (note ¹⁰ of
// docs/performance.md). Here the kernel only ever writes into the piece, whose pages are mapped after the first
// open, and the result's pages are mapped once, by the copy; elsewhere the copy costs about a millisecond for 10 MB.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** Small enough that keeping it costs nothing, large enough that a 10 MB file is 40 reads. */
const PIECE_BYTES = 256 * 1024;
let piece: Buffer | undefined;

/** The file's bytes, as readFileSync would give them: up to the size it had when opened, fewer if it shrank meanwhile. */
export function readFileInPieces(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    piece ??= Buffer.allocUnsafeSlow(PIECE_BYTES);
    const size = fstatSync(fd).size;
    const bytes = Buffer.allocUnsafeSlow(size);
    let length = 0;
    while (length < size) {
      const read = readSync(fd, piece, 0, Math.min(piece.length, size - length), length);
      if (read === 0) break;
      piece.copy(bytes, length, 0, read);
      length += read;
    }
    return length === size ? bytes : bytes.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}
