// The programs the Copilot runtime ships beside itself and runs inside a worker's sandbox: its `grep` and `glob` tools
// start the bundled ripgrep by its absolute path, in the runtime's package (in the extension's own node_modules). The
// sandbox shows a worker no part of the home folder it is not given, and Baton's install folder is a protected path
// besides, so both tools failed in every sandboxed worker with "rg: not found" (measured, runtime 1.0.85). These
// folders are made readable there, nothing else of the package.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** The runtime package's folders of bundled programs that exist here (real paths are the sandbox policy's to take). */
export function runtimeToolDirs(platform: NodeJS.Platform = process.platform, arch: string = process.arch): string[] {
  // Named as the SDK names them (a Linux without glibc has packages of its own); only this machine's is installed.
  const names = [`@github/copilot-sdk-${platform}-${arch}`, ...(platform === 'linux' ? [`@github/copilot-sdk-linuxmusl-${arch}`] : [])];
  // The SDK finds its platform package the same way: the first node_modules on the resolution path that holds it.
  const require = createRequire(__filename);
  const root = names
    .flatMap((name) => (require.resolve.paths(name) ?? []).map((base) => join(base, name)))
    .find((dir) => existsSync(join(dir, 'package.json')));
  if (!root) return [];
  return ['ripgrep', 'tgrep'].map((tool) => join(root, tool)).filter((dir) => existsSync(dir));
}
