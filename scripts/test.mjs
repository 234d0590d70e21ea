// `npm test`: typecheck, the layering rule, then unit, integration and e2e tests (mocha each).
// Pass layer names to run a subset: `node scripts/test.mjs unit integration`.
import { spawn } from 'node:child_process';

const all = ['typecheck', 'layers', 'unit', 'integration', 'e2e'];
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const layers = wanted.length ? wanted : all;
const mocha = ['node_modules/mocha/bin/mocha.js', '--require', 'tsx/cjs', '--exit'];

const steps = {
  typecheck: ['node', ['node_modules/typescript/bin/tsc', '-p', '.', '--noEmit']],
  layers: ['node', ['scripts/checkLayers.mjs']],
  unit: ['node', [...mocha, '--timeout', '30000', 'test/unit/**/*.unit.test.ts']],
  integration: ['node', [...mocha, '--timeout', '120000', 'test/integration/**/*.integration.test.ts']],
  e2e: ['node', ['test/e2e/runE2e.mjs']],
};

function run(name) {
  const [cmd, args] = steps[name];
  const started = Date.now();
  console.log(`\n=== ${name} ===`);
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'inherit', env: process.env });
    child.on('exit', (code, signal) => {
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
if (failed.length) {
  console.error(`\nFailed: ${failed.join(', ')}`);
  process.exit(1);
}
console.log(`\nAll layers passed: ${layers.join(', ')}`);
