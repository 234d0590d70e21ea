// One file, several spellings of its path: a case-insensitive file system (macOS, Windows by default) or a symlinked
// folder on the way. What Baton compares or keys paths by.
import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';

/** The path as its file system compares it: in lower case where case does not tell files apart. */
export function caseKey(p: string): string {
  return process.platform === 'win32' || process.platform === 'darwin' ? p.toLowerCase() : p;
}

/** The path as given and as its real path (an editor may hold a file through a symlinked folder). */
export async function pathKeys(p: string): Promise<string[]> {
  const keys = [caseKey(resolve(p))];
  try {
    keys.push(caseKey(await realpath(p)));
  } catch {}
  return keys;
}
