// Prints, as a markdown table, every figure of bench/results.json that has a target, with whether it was met: the
// README's Performance table is this output for CI's last quick bench on main.
//   node --import tsx bench/targetsTable.ts [path/to/results.json]
import { readFileSync } from 'node:fs';
import { formatFigure, meetsTarget, type BenchFigure } from './figure';

interface Results {
  date: string;
  quick: boolean;
  machine: { cpus: number; model?: string; memGiB: number; node: string };
  results: Record<string, BenchFigure[] | { error: string }>;
}

const file = process.argv[2] ?? 'bench/results.json';
const { date, quick, machine, results } = JSON.parse(readFileSync(file, 'utf8')) as Results;
const cell = (text: string): string => text.replace(/\|/g, '\\|');
const lines = [
  `${quick ? 'Quick' : 'Full'} bench of ${date.slice(0, 10)}: ${machine.cpus} × ${machine.model ?? 'cpu'}, ${machine.memGiB} GiB, Node ${machine.node}.`,
  '',
  '| section | figure | value | target | met |',
  '| --- | --- | --- | --- | --- |',
];
for (const [section, figures] of Object.entries(results)) {
  if (!Array.isArray(figures)) {
    lines.push(`| ${section} | the section failed: ${cell(figures.error.split('\n')[0] ?? '')} | | | ✗ |`);
    continue;
  }
  for (const f of figures) {
    const ok = meetsTarget(f);
    if (ok === undefined) continue;
    lines.push(`| ${section} | ${cell(f.name)} | ${formatFigure(f)} | ${cell(f.target ?? '')} | ${ok ? '✓' : '✗'} |`);
  }
}
console.log(lines.join('\n'));
