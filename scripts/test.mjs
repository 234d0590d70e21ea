// `npm test`: typecheck, the layering rule, lint and format, then unit, integration and e2e tests (mocha each).
// Pass layer names to run a subset: `node scripts/test.mjs unit integration`.
import { spawn } from 'node:child_process';

const all = ['typecheck', 'layers', 'lint', 'format', 'unit', 'provision', 'integration', 'e2e'];
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const layers = wanted.length ? wanted : all;
const mocha = ['node_modules/mocha/bin/mocha.js', '--require', 'tsx/cjs', '--exit'];
// Integration tests end without --exit: whatever a test leaves running keeps the run from ending, and the root hook
// (test/support/leakCheck.ts) names servers, runtime processes and temp folders left behind.
const mochaNoExit = mocha.filter((a) => a !== '--exit');

const steps = {
  typecheck: ['node', ['node_modules/typescript/bin/tsc', '-p', '.', '--noEmit']],
  layers: ['node', ['scripts/checkLayers.mjs']],
  lint: ['node', ['node_modules/eslint/bin/eslint.js', '--max-warnings', '0', 'src', 'webview', 'test', 'bench']],
  format: ['node', ['node_modules/prettier/bin/prettier.cjs', '--check', '.']],
  unit: ['node', [...mocha, '--timeout', '30000', 'test/unit/**/*.unit.test.ts']],
  // The integration layer needs what the e2e layer does on this machine (bubblewrap and git for workers' sandbox and
  // worktrees): installed when root, otherwise named in a clear error. Idempotent and quick once done.
  provision: ['node', ['scripts/provisionVscode.mjs']],
  integration: ['node', [...mochaNoExit, '--timeout', '120000', '--require', 'test/support/leakCheck.ts', 'test/integration/**/*.integration.test.ts']],
  e2e: ['node', ['test/e2e/runE2e.mjs']],
};

// Mocha's own summary lines ("N passing", "N failing"), summed over every layer for the closing line.
const totals = { passed: 0, failed: 0 };
function count(text) {
  for (const m of text.matchAll(/^\s*(\d+) passing\b/gm)) totals.passed += Number(m[1]);
  for (const m of text.matchAll(/^\s*(\d+) failing\b/gm)) totals.failed += Number(m[1]);
}

function run(name) {
  const [cmd, args] = steps[name];
  const started = Date.now();
  console.log(`\n=== ${name} ===`);
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
    let pending = '';
    const forward = (stream, out) =>
      stream.on('data', (chunk) => {
        out.write(chunk);
        pending += chunk.toString();
        const cut = pending.lastIndexOf('\n');
        if (cut >= 0) {
          count(pending.slice(0, cut + 1));
          pending = pending.slice(cut + 1);
        }
      });
    forward(child.stdout, process.stdout);
    forward(child.stderr, process.stderr);
    child.on('exit', (code, signal) => {
      count(pending);
      pending = '';
      const ok = code === 0;
      console.log(`=== ${name}: ${ok ? 'passed' : `FAILED (${signal ?? code})`} in ${((Date.now() - started) / 1000).toFixed(1)} s ===`);
      resolve(ok);
    });
  });
}

const failed = [];
for (const name of layers) {
  if (!steps[name]) {
    console.error(`Unknown test layer '${name}'. Layers: ${all.join(', ')}`);
    process.exit(2);
  }
  if (!(await run(name))) failed.push(name);
}
// A layer that failed without a mocha summary (typecheck, a crash) still counts as a failure.
const failedTests = Math.max(totals.failed, failed.length && !totals.failed ? 1 : 0);
if (failed.length) console.error(`\nFailed layers: ${failed.join(', ')}`);
else console.log(`\nAll layers passed: ${layers.join(', ')}`);
console.log(`tests: ${totals.passed} passed, ${failedTests} failed`);
process.exit(failed.length ? 1 : 0);
