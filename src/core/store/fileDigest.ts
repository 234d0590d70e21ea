// The digest of the bytes Baton last wrote to its database file, kept beside it. A file whose bytes still hash to it is
// exactly what a sound in-memory database exported, so opening it can skip SQLite's page-by-page quick_check (most of
// the cost of opening a large file); any other file (damaged on disk, written by something else, a torn or missing
// digest) gets the full check. A flush hashes off the extension host's thread (WebCrypto), while the file is written;
// opening hashes on it (digestNow), since the open waits for the answer anyway and a hand-off to another thread costs
// more than the hash (SHA-256 takes ~7 ms for 10 MB where the CPU has SHA instructions) on a busy machine.
import { createHash, webcrypto } from 'node:crypto';
import type { StoreFileSystem } from './storeFileSystem';

/** The sidecar beside the database file: one small file, rewritten with every write of the database. */
export function digestPath(databasePath: string): string {
  return `${databasePath}.digest`;
}

/** SHA-256 of the bytes, in hex, hashed on a thread of the pool (a flush's, while the file is written). */
export async function digestOf(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await webcrypto.subtle.digest('SHA-256', bytes));
  return Buffer.from(hash).toString('hex');
}

/** The same digest as digestOf, computed on this thread. */
export function digestNow(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The digest recorded for the file, read synchronously (at open, with the file itself), or undefined. */
export function readDigest(fs: StoreFileSystem, databasePath: string): string | undefined {
  try {
    return new TextDecoder().decode(fs.readFileNow(digestPath(databasePath))).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Records `digest` for the file just written (under the write lease). Not atomic: a crash here leaves no digest or a
 * torn one, which only means the next open runs the full check.
 */
export async function writeDigest(fs: StoreFileSystem, databasePath: string, digest: string): Promise<void> {
  const path = digestPath(databasePath);
  await fs.unlink(path).catch(() => undefined);
  await fs.createFile(path, new TextEncoder().encode(digest), false);
}
