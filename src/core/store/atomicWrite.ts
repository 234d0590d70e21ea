import { dirname } from 'node:path';
import { delay } from '../util/delay';
import { errorCode, type StoreFileSystem } from './storeFileSystem';

/** The prefix of every temp file, so a later writer can find and delete what a crashed one left. */
export function tempPrefix(path: string): string {
  return `${path}.tmp-`;
}

/**
 * Replaces `path` with `data` so that a crash at any point leaves either the old file or the new one, never a torn
 * mix: write a temp file, fsync it, rename it over the target, fsync the folder.
 * `beforeCommit` runs between the fsync and the rename (the store re-checks its lease there); if it throws, the
 * old file is kept. Resolves once the rename is done: that is the commit point, so a failure after it (fsyncing the
 * folder) must not make the caller think the new file was not written and write its changes a second time.
 */
export async function atomicWrite(
  fs: StoreFileSystem,
  path: string,
  data: Uint8Array,
  opts: { tempSuffix: string; beforeCommit?: () => Promise<void> },
): Promise<void> {
  const temp = tempPrefix(path) + opts.tempSuffix;
  let renamed = false;
  try {
    await fs.createFile(temp, data, true);
    await opts.beforeCommit?.();
    await renameWithRetry(fs, temp, path);
    renamed = true;
  } finally {
    if (!renamed) await fs.unlink(temp).catch(() => undefined);
  }
  await fs.syncDir(dirname(path)).catch(() => undefined);
}

// On Windows a rename over a file that another process has open (a window reading it, a virus scanner) fails with
// EPERM/EBUSY for a moment; waiting briefly is what makes the rename succeed there.
async function renameWithRetry(fs: StoreFileSystem, from: string, to: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await fs.rename(from, to);
      return;
    } catch (err) {
      const transient = ['EPERM', 'EBUSY', 'EACCES'].includes(errorCode(err) ?? '');
      if (!transient || attempt >= 10) throw err;
      await delay(10 * (attempt + 1));
    }
  }
}
