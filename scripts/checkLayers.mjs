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
if (offenders.length) {
  console.error(`Layering rule broken: src/core, src/shared and webview must not import 'vscode':\n${offenders.join('\n')}`);
  process.exit(1);
}
console.log('Layering rule holds: src/core, src/shared and webview never import vscode.');
