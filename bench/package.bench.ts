// The .vsix a user downloads, per platform: `npm run package` for each target whose Copilot runtime is installed here
// (npm installs only this platform's), measured from the zip. The runtime is most of it.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import type { BenchFigure } from './figure';
import { RUNTIME_OF_TARGET } from '../test/support/vsixRules';
import { zipEntries } from '../test/support/zipEntries';

export async function benchPackage(): Promise<BenchFigure[]> {
  const targets = Object.entries(RUNTIME_OF_TARGET)
    .filter(([, runtime]) => existsSync(`node_modules/@github/copilot-sdk-${runtime}/package.json`))
    .map(([target]) => target);
  const r = spawnSync(process.execPath, ['scripts/package.mjs', ...targets], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm run package failed:\n${r.stdout}\n${r.stderr}`);
  const figures: BenchFigure[] = [];
  for (const target of targets) {
    const file = `baton-${target}.vsix`;
    const entries = await zipEntries(file);
    const runtime = entries.filter((e) => e.path.includes('/node_modules/@github/copilot-sdk-')).reduce((s, e) => s + e.size, 0);
    const unpacked = entries.reduce((s, e) => s + e.size, 0);
    figures.push(
      { name: `.vsix ${target}: download (${entries.length} files)`, value: statSync(file).size / 2 ** 20, unit: 'MB' },
      { name: `.vsix ${target}: unpacked`, value: unpacked / 2 ** 20, unit: 'MB' },
      { name: `.vsix ${target}: unpacked, Baton without the Copilot runtime`, value: (unpacked - runtime) / 2 ** 20, unit: 'MB' },
    );
  }
  return figures;
}
