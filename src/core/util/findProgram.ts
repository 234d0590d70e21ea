// A program's absolute path, found in PATH's absolute entries (safePath.ts) and never in the folder it will run in.
// Spawning by bare name there is not enough: Windows looks in the current folder first whatever PATH says (a cloned
// repository's git.exe would run when Baton runs git in it), and an empty PATH entry does the same elsewhere.
import { accessSync, constants, statSync } from 'node:fs';
import * as path from 'node:path';
import { safePath } from './safePath';

/** The first file named `name` (with one of PATHEXT's extensions on Windows) in `env`'s PATH; undefined if none. */
export function findProgram(
  name: string,
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform = process.platform,
  isProgram: (file: string) => boolean = (file) => isExecutable(file, platform),
): string | undefined {
  const paths = platform === 'win32' ? path.win32 : path.posix;
  const key = Object.keys(env).find((k) => k.toUpperCase() === 'PATH');
  const dirs = safePath(key ? env[key] : undefined, paths.delimiter, paths.isAbsolute)
    .split(paths.delimiter)
    .filter(Boolean);
  const pathext = Object.keys(env).find((k) => k.toUpperCase() === 'PATHEXT');
  const extensions = platform === 'win32' ? (env[pathext ?? 'PATHEXT'] ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean) : [''];
  for (const dir of dirs) {
    for (const ext of extensions) {
      const file = paths.join(dir, name + ext.toLowerCase());
      if (isProgram(file)) return file;
    }
  }
  return undefined;
}

function isExecutable(file: string, platform: NodeJS.Platform): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    if (platform !== 'win32') accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
