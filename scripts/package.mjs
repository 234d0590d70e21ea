// `npm run package`: a production build and a .vsix per platform. The Copilot runtime is a native,
// per-platform package, so each .vsix carries only its own (vsce --target) and nothing else from
// node_modules (.vscodeignore).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

// vsce's target → the Copilot runtime package's suffix; the .vsix file-list test reads the same file.
const TARGETS = JSON.parse(readFileSync(new URL('./vsixTargets.json', import.meta.url), 'utf8'));
const requested = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const current = `${process.platform}-${process.arch}`;
const targets = requested.length ? requested : [current];

const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

run('node', ['esbuild.mjs', '--production']);
for (const target of targets) {
  const runtime = TARGETS[target];
  if (!runtime) throw new Error(`Unknown target ${target}; one of ${Object.keys(TARGETS).join(', ')}`);
  if (!existsSync(`node_modules/@github/copilot-sdk-${runtime}/package.json`)) {
    console.error(
      `The Copilot runtime for ${target} (@github/copilot-sdk-${runtime}) is not installed here; npm installs only this platform's. Install it with: npm install --no-save --force @github/copilot-sdk-${runtime}`,
    );
    process.exit(1);
  }
  // Only the matching runtime may ship: the .vscodeignore keeps @github/copilot-sdk-*, so the other
  // platforms' packages must be absent, which npm's optional-dependency install already ensures.
  // No skip flag. Baton has no public repository yet, so the manifest names none (never an invented one), and vsce is
  // told that is intended instead of asking; relative README links stay relative (no repository to rewrite them
  // against): VS Code's extension page resolves them inside the installed .vsix, which ships media/.
  run('node', [
    'node_modules/@vscode/vsce/vsce',
    'package',
    '--target',
    target,
    '--out',
    `baton-${target}.vsix`,
    '--allow-missing-repository',
    '--no-rewrite-relative-links',
  ]);
  console.log(`Built baton-${target}.vsix`);
}
