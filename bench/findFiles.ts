// Files under `dir` (recursively) whose name matches `pattern`: how the benches find VS Code's logs. A missing folder is empty.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

export async function findFiles(dir: string, pattern: RegExp): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await findFiles(full, pattern)));
    else if (pattern.test(entry.name)) out.push(full);
  }
  return out;
}
