// The DatabaseFile's dealings with the files themselves: reading the database (telling a missing file from one that
// cannot be read, which is never a damaged one), moving a damaged one aside, and sweeping what a crashed window left.
import { join } from 'node:path';
import { CORRUPT_COPIES_KEEP } from './bounds';
import { errorCode, type StoreFileSystem } from './storeFileSystem';

/** The file's bytes; or it is not there; or it is there and could not be read (the error says why). */
export type ReadResult = { bytes: Uint8Array } | { missing: true } | { error: unknown };

export async function readDatabase(fs: StoreFileSystem, path: string): Promise<ReadResult> {
  try {
    return { bytes: await fs.readFile(path) };
  } catch (err) {
    return readError(err);
  }
}

/** The same, synchronously (the open, see StoreFileSystem.readFileNow). */
export function readDatabaseNow(fs: StoreFileSystem, path: string): ReadResult {
  try {
    return { bytes: fs.readFileNow(path) };
  } catch (err) {
    return readError(err);
  }
}

/** Renames the database file to a dated `.corrupt-` name beside it and returns that path. */
export async function renameAside(fs: StoreFileSystem, dir: string, fileName: string): Promise<string> {
  const aside = `${join(dir, fileName)}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  await fs.rename(join(dir, fileName), aside);
  // Kept for inspection, the newest CORRUPT_COPIES_KEEP: a cause that keeps coming back must not fill the disk.
  const prefix = `${fileName}.corrupt-`;
  const copies = (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => n.startsWith(prefix)).sort();
  for (const old of copies.slice(0, -CORRUPT_COPIES_KEEP)) await fs.unlink(join(dir, old)).catch(() => undefined);
  return aside;
}

// Temp files and broken-lease files are only ever created under the lease, so whoever holds it may delete any that a
// crashed window left behind.
export async function sweepLeftovers(fs: StoreFileSystem, dir: string, fileName: string): Promise<void> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (name.startsWith(`${fileName}.tmp-`) || name.startsWith(`${fileName}.lease.stale-`)) {
      await fs.unlink(join(dir, name)).catch(() => undefined);
    }
  }
}

function readError(err: unknown): ReadResult {
  return errorCode(err) === 'ENOENT' ? { missing: true } : { error: err };
}
