// Builds, then runs bench/index.ts with tsx. `npm run bench -- --quick` runs the quick subset.
import { spawnSync } from 'node:child_process';

const build = spawnSync('node', ['esbuild.mjs', '--production'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
const run = spawnSync('node', ['--import', 'tsx', 'bench/index.ts', ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(run.status ?? 1);
