/**
 * What a Baton .vsix must and must not carry, as a list of problems (empty: it is right). The rules read package.json
 * and README.md, so a new media file named there is required at once. Used by the package test on the real .vsix and
 * by a unit test on made-up file lists, which shows each rule can fail.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** vsce's target → the Copilot runtime package's suffix (scripts/vsixTargets.json, which scripts/package.mjs reads too). */
export const RUNTIME_OF_TARGET: Record<string, string> = JSON.parse(readFileSync(join(__dirname, '..', '..', 'scripts', 'vsixTargets.json'), 'utf8'));

/** Paths inside the .vsix's extension/ folder that every .vsix needs, read from the manifest and README. */
export function requiredFiles(root: string, target: string): string[] {
  const manifest = readFileSync(join(root, 'package.json'), 'utf8');
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const runtime = RUNTIME_OF_TARGET[target];
  if (!runtime) throw new Error(`unknown target ${target}`);
  // Every media/ file the manifest names (icon, view container icon, walkthrough pages) or the README shows.
  const media = new Set([...manifest.matchAll(/"(media\/[^"]+)"/g), ...readme.matchAll(/\]\((media\/[^)\s]+)\)/g)].map((m) => m[1]!));
  const dir = `node_modules/@github/copilot-sdk-${runtime}`;
  // vsce renames LICENSE to LICENSE.txt and lower-cases readme.md and changelog.md.
  return [
    'package.json',
    'readme.md',
    'changelog.md',
    'LICENSE.txt',
    'dist/extension.js',
    'dist/webview.js',
    'dist/webview-highlighter.js',
    'dist/webview.css',
    'dist/sql-wasm.wasm',
    'dist/baton-fresh.sqlite',
    'api/baton.d.ts',
    ...[...media].sort(),
    `${dir}/package.json`,
    `${dir}/sdk/index.js`,
    `${dir}/prebuilds/${target.replace('alpine', 'linux')}/runtime.node`,
  ];
}

/** Why a file must not ship, or undefined when it may. `path` is relative to the .vsix's extension/ folder. */
export function forbiddenReason(path: string, target: string): string | undefined {
  const runtime = RUNTIME_OF_TARGET[target]!;
  const platform = target.replace('alpine', 'linux');
  if (/\.map$/.test(path)) return 'a source map';
  if (/^(src|webview|test|bench|scripts|out|\.ci|\.vscode-test|\.git)\//.test(path)) return 'sources, tests or tooling';
  if (/\.ts$/.test(path) && path !== 'api/baton.d.ts' && !path.startsWith(`node_modules/@github/copilot-sdk-${runtime}/`)) return 'a TypeScript source';
  if (/(^|\/)(package-lock\.json|tsconfig\.json|esbuild\.mjs|eslint\.config\.mjs|\.env[^/]*|[^/]+\.vsix)$/.test(path)) return 'build or secret file';
  if (path.startsWith('node_modules/')) {
    const own = `node_modules/@github/copilot-sdk-${runtime}/`;
    if (!path.startsWith(own))
      return /^node_modules\/@github\/copilot-sdk-/.test(path) ? "another platform's runtime" : 'a node_modules package besides the runtime';
    // Inside the runtime package: native binaries of its own platform only.
    const binDir = /\/(?:prebuilds|bin)\/([^/]+)\//.exec(path.slice(own.length - 1))?.[1];
    if (binDir && binDir !== platform) return `a ${binDir} binary in the ${target} package`;
  }
  return undefined;
}

/** Every problem of a .vsix's file list (paths as in the zip, `extension/...` plus vsce's own two files). */
export function vsixProblems(zipPaths: string[], root: string, target: string): string[] {
  const files = new Set(zipPaths.filter((p) => p.startsWith('extension/')).map((p) => p.slice('extension/'.length)));
  const problems: string[] = [];
  for (const need of requiredFiles(root, target)) if (!files.has(need)) problems.push(`missing: ${need}`);
  for (const file of files) {
    const why = forbiddenReason(file, target);
    if (why) problems.push(`must not ship (${why}): ${file}`);
  }
  for (const own of ['extension.vsixmanifest', '[Content_Types].xml']) if (!zipPaths.includes(own)) problems.push(`missing: ${own}`);
  return problems;
}
