// PATH without the entries that name the current folder. An empty entry (`:/usr/bin`, `/usr/bin:`, from an
// `export PATH=$UNSET:$PATH`) or a relative one (`.`, `node_modules/.bin`) makes a program run by name resolve in the
// folder it is started in (measured with Node 20: PATH=":/usr/bin" and `git` spawned in a folder holding an executable
// `git` ran that file). Baton runs git in the user's repositories and worktrees, and the runtime runs git, ripgrep and
// bubblewrap in a worker's folder: a repository must not put its own program in their place.
import * as path from 'node:path';

/** `value` with only its absolute entries, in order; '' when it has none. */
export function safePath(value: string | undefined, delimiter: string = path.delimiter, isAbsolute: (p: string) => boolean = path.isAbsolute): string {
  return (value ?? '')
    .split(delimiter)
    .filter((entry) => entry !== '' && isAbsolute(entry))
    .join(delimiter);
}

/** `env` with its PATH (any case: Windows' `Path`) made safe for `platform`, in place. */
export function makePathSafe(env: Record<string, string | undefined>, platform: NodeJS.Platform = process.platform): void {
  const paths = platform === 'win32' ? path.win32 : path.posix;
  for (const name of Object.keys(env)) if (name.toUpperCase() === 'PATH') env[name] = safePath(env[name], paths.delimiter, paths.isAbsolute);
}
