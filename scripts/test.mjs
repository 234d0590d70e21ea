// `npm test`: typecheck, the layering rule, lint and format, then unit, integration and e2e tests (mocha each), then the
// packaged .vsix's file list.
// Pass layer names to run a subset: `node scripts/test.mjs unit integration`.
import { spawn } from 'node:child_process';

const all = ['typecheck', 'layers', 'lint', 'format', 'unit', 'provision', 'integration', 'e2e', 'package'];
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const layers = wanted.length ? wanted : all;
const mocha = ['node_modules/mocha/bin/mocha.js', '--require', 'tsx/cjs', '--exit'];
// Integration tests end without --exit: the root hook (test/support/leakCheck.ts) names servers, runtime processes and
// temp folders left behind, and fails the run when anything but a timer still holds the process 15 s after the last
// test (a library's timer may: see there).
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
  // The .vsix of this platform, built as `npm run package` does (a production build into dist/, then vsce), and its
  // file list checked from the zip. Last, so the e2e layer ran on the dev build; .ci/run then tests this .vsix in VS Code.
  package: [
    ['node', ['scripts/package.mjs']],
    ['node', [...mocha, '--timeout', '30000', 'test/package/**/*.package.test.ts']],
  ],
};

// Mocha's own summary lines ("N passing", "N failing"), summed over every layer for the closing line.
const totals = { passed: 0, failed: 0 };
function count(text) {
  for (const m of text.matchAll(/^\s*(\d+) passing\b/gm)) totals.passed += Number(m[1]);
  for (const m of text.matchAll(/^\s*(\d+) failing\b/gm)) totals.failed += Number(m[1]);
}

// What a failed layer printed last, said again at the end: CI shows only the tail of a long run, and a failure reported
// minutes of output earlier (mocha's "N failing" section, a type error) was out of sight.
const REPEAT_CHARS = 12_000;
const failures = [];

async function run(name) {
  const commands = typeof steps[name][0] === 'string' ? [steps[name]] : steps[name];
  const started = Date.now();
  console.log(`\n=== ${name} ===`);
  let ok = true;
  for (const [cmd, args] of commands) {
    if (!ok) break;
    const result = await runCommand(cmd, args);
    ok = result.ok;
    if (!ok) failures.push({ name, text: whatFailed(result.output) });
  }
  console.log(`=== ${name}: ${ok ? 'passed' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s ===`);
  return ok;
}

/**
 * Mocha's failure sections (a layer may run several mocha processes: the e2e suites), else the command's last lines;
 * at most REPEAT_CHARS either way.
 */
function whatFailed({ sections, tail }) {
  const text = sections.length ? sections.join('\n') : tail.split('\n').slice(-40).join('\n');
  return text.length > REPEAT_CHARS ? `${text.slice(0, REPEAT_CHARS)}\n…` : text;
}

/** Collects, from complete lines of output, each "N failing" line and the lines after it (mocha's failure report). */
function failureSections() {
  const sections = [];
  let left = 0;
  let size = 0;
  return {
    sections,
    lines(text) {
      for (const line of text.split('\n')) {
        if (/^\s*\d+ failing\b/.test(line)) {
          left = 120;
          sections.push('');
        }
        if (left <= 0 || size >= REPEAT_CHARS) continue;
        sections[sections.length - 1] += `${line}\n`;
        size += line.length + 1;
        left--;
      }
    },
  };
}

function runCommand(cmd, args) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
    let pending = '';
    // Bounded: a layer's whole output can be megabytes.
    let tail = '';
    const found = failureSections();
    const forward = (stream, out) =>
      stream.on('data', (chunk) => {
        out.write(chunk);
        tail = (tail + chunk.toString()).slice(-REPEAT_CHARS);
        pending += chunk.toString();
        const cut = pending.lastIndexOf('\n');
        if (cut >= 0) {
          count(pending.slice(0, cut + 1));
          found.lines(pending.slice(0, cut));
          pending = pending.slice(cut + 1);
        }
      });
    forward(child.stdout, process.stdout);
    forward(child.stderr, process.stderr);
    child.on('exit', (code, signal) => {
      count(pending);
      found.lines(pending);
      pending = '';
      if (code !== 0) console.log(`${cmd} ${args[0]} exited with ${signal ?? code}`);
      resolve({ ok: code === 0, output: { sections: found.sections, tail } });
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
for (const { name, text } of failures) console.error(`\n=== what failed in ${name} ===\n${text.trimEnd()}`);
if (failed.length) console.error(`\nFailed layers: ${failed.join(', ')}`);
else console.log(`\nAll layers passed: ${layers.join(', ')}`);
console.log(`tests: ${totals.passed} passed, ${failedTests} failed`);
process.exit(failed.length ? 1 : 0);
