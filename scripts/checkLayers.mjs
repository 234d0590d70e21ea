// The layering rule: src/core and src/shared run in plain Node (and the webview), so they never
// import 'vscode'. Fails with the offending lines.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

async function* files(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(full);
    else if (/\.(ts|mts|js|mjs)$/.test(entry.name)) yield full;
  }
}

const rule = /(from\s+['"]vscode['"]|require\(\s*['"]vscode['"]\s*\)|import\(\s*['"]vscode['"]\s*\))/;
const offenders = [];
for (const root of ['src/core', 'src/shared', 'webview']) {
  for await (const file of files(root)) {
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines.forEach((line, i) => {
      if (rule.test(line)) offenders.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
}
// The Copilot SDK (and its JSON-RPC layer) has one seam: src/core/copilot/.
const sdkRule = /(from\s+|require\(\s*|import\(\s*)['"](@github\/copilot-sdk|vscode-jsonrpc)/;
const sdkOffenders = [];
for await (const file of files('src')) {
  if (file.startsWith(join('src', 'core', 'copilot'))) continue;
  const lines = (await readFile(file, 'utf8')).split('\n');
  lines.forEach((line, i) => {
    if (sdkRule.test(line)) sdkOffenders.push(`${file}:${i + 1}: ${line.trim()}`);
  });
}
if (offenders.length || sdkOffenders.length) {
  if (offenders.length) console.error(`Layering rule broken: src/core, src/shared and webview must not import 'vscode':\n${offenders.join('\n')}`);
  if (sdkOffenders.length) console.error(`Layering rule broken: only src/core/copilot/ may import the Copilot SDK:\n${sdkOffenders.join('\n')}`);
  process.exit(1);
}
console.log('Layering rule holds: src/core, src/shared and webview never import vscode; only src/core/copilot/ imports the Copilot SDK.');
