// `npm run bench [-- --quick]`: every figure Baton promises, measured in one run, printed as a
// table and written to bench/results.json. Not a test: nothing here fails on a slow machine.
import { writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { formatFigure, meetsTarget, type BenchFigure } from './figure';
import { leftRunning } from './leftProcesses';

const quick = process.argv.includes('--quick');
// `--only store,panel` runs just those sections (results.json then holds only them).
const onlyArg = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length) ?? process.argv[process.argv.indexOf('--only') + 1];
const only = process.argv.some((a) => a === '--only' || a.startsWith('--only=')) ? new Set((onlyArg ?? '').split(',')) : undefined;

// Each section is imported when it runs, so `--only store` does not load (or need to compile) the others.
const sections: Array<[string, () => Promise<BenchFigure[]>]> = [
  ['bundle', async () => (await import('./bundle.bench')).benchBundle()],
  ['store', async () => (await import('./store.bench')).benchStore({ quick })],
  ['conversations', async () => (await import('./conversations.bench')).benchConversations({ quick })],
  ['orchestrator', async () => (await import('./orchestrator.bench')).benchOrchestrator({ quick })],
  ['workers', async () => (await import('./workers.bench')).benchWorkers({ quick })],
  // Before worktrees: its cleanup frees 10,000s of inodes, which makes the next large checkout slower for ~30 s on some filesystems.
  ['isolation', async () => (await import('./isolation.bench')).benchIsolation({ quick })],
  ['worktrees', async () => (await import('./worktrees.bench')).benchWorktrees({ quick })],
  [
    'landing',
    async () => [...(await (await import('./landing.bench')).benchLanding({ quick })), ...(await (await import('./verify.bench')).benchVerify({ quick }))],
  ],
  ['panel', async () => (await import('./panel.bench')).benchPanel({ quick })],
  ['activation', async () => (await import('./activation.bench')).benchActivation({ quick })],
  // Minutes long: only in the full run (CI runs --quick).
  ...(quick ? [] : ([['soak', async () => (await import('./soak.bench')).benchSoak()]] as Array<[string, () => Promise<BenchFigure[]>]>)),
  // Last: it leaves a production build in dist/, which the sections above must not measure by accident.
  ['package', async () => (await import('./package.bench')).benchPackage()],
];

async function main(): Promise<void> {
  const results: Record<string, BenchFigure[] | { error: string }> = {};
  let crashed = 0;
  for (const [name, run] of sections) {
    if (only && !only.has(name)) continue;
    const started = Date.now();
    process.stdout.write(`… ${name}\n`);
    try {
      results[name] = await run();
    } catch (err) {
      crashed++;
      results[name] = { error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
    }
    // A section that leaves processes running is a bug in it: the next sections would measure a loaded machine.
    const left = await leftRunning();
    if (left.length && Array.isArray(results[name])) {
      crashed++;
      results[name] = { error: `left ${left.length} process(es) running: ${left.map((p) => `${p.pid} ${p.cmd.slice(0, 100)}`).join('; ')}` };
    }
    process.stdout.write(`  ${name} took ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
  const rows: string[][] = [['section', 'figure', 'value', 'target', '']];
  for (const [section, figures] of Object.entries(results)) {
    if (!Array.isArray(figures)) {
      rows.push([section, `ERROR: ${figures.error.split('\n')[0]}`, '', '', '✗']);
      continue;
    }
    for (const f of figures) {
      const ok = meetsTarget(f);
      rows.push([section, f.name, formatFigure(f), f.target ?? '', ok === undefined ? '' : ok ? '✓' : '✗']);
    }
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i])).join('  ');
  console.log(
    `\nBaton benchmark (${quick ? 'quick' : 'full'}) on ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.versions.node}\n`,
  );
  console.log(line(rows[0]));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows.slice(1)) console.log(line(r));
  await writeFile(
    'bench/results.json',
    JSON.stringify(
      {
        date: new Date().toISOString(),
        quick,
        machine: { cpus: cpus().length, model: cpus()[0]?.model, memGiB: Math.round(totalmem() / 2 ** 30), node: process.versions.node },
        results,
      },
      null,
      2,
    ),
  );
  console.log('\nWritten to bench/results.json');
  // A section that crashed is a bug in the benchmark (it must not rot); a missed target is a figure.
  if (crashed) process.exit(1);
}

void main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
