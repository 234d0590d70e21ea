// Reads which files a session's snapshots hold a copy of, from the runtime's index of them
// (<Copilot home>/session-state/<id>/rewind-file-snapshots/index.json, measured: { schema: 1, snapshots: [{ files:
// { <hash>: { path, preimage: { resolvedPath }, … } } }] }). Only read to decide whose they are: anything unexpected
// reads as no files, which keeps the folder.
import { readFile, stat } from 'node:fs/promises';

/** An index larger than this is not read (a real one lists a worker's files: some KB). */
const MAX_INDEX_BYTES = 4 * 2 ** 20;

export async function snapshotFiles(indexFile: string): Promise<string[]> {
  try {
    if ((await stat(indexFile)).size > MAX_INDEX_BYTES) return [];
    const index = JSON.parse(await readFile(indexFile, 'utf8')) as { snapshots?: unknown };
    if (!Array.isArray(index.snapshots)) return [];
    const files: string[] = [];
    for (const snapshot of index.snapshots as Array<{ files?: unknown }>) {
      if (!snapshot?.files || typeof snapshot.files !== 'object') return [];
      for (const f of Object.values(snapshot.files as Record<string, { path?: unknown; preimage?: { resolvedPath?: unknown } }>)) {
        const resolved = f?.preimage?.resolvedPath ?? f?.path;
        if (typeof resolved !== 'string') return [];
        files.push(resolved);
      }
    }
    return files;
  } catch {
    return [];
  }
}
