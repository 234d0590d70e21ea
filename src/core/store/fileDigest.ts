// The digest of the bytes Baton last wrote to its database file, kept beside it. A file whose bytes still hash to it is
// exactly what a sound in-memory database exported, so opening it can skip SQLite's page-by-page quick_check (most of
// the cost of opening a large file); any other file (damaged on disk, written by something else, a torn or missing
// digest) gets the full check. Hashing runs off the extension host's thread (WebCrypto).
import { webcrypto } from 'node:crypto';
import type { StoreFileSystem } from './storeFileSystem';

/** The sidecar beside the database file: one small file, rewritten with every write of the database. */
export function digestPath(databasePath: string): string {
  return `${databasePath}.digest`;
}

export async function digestOf(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await webcrypto.subtle.digest('SHA-256', bytes));
  return Buffer.from(hash).toString('hex');
}

/** The digest recorded for the file, or undefined when there is none (or it cannot be read). */
export async function readDigest(fs: StoreFileSystem, databasePath: string): Promise<string | undefined> {
  try {
    return new TextDecoder().decode(await fs.readFile(digestPath(databasePath))).trim() || undefined;
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
