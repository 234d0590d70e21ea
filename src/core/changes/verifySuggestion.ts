// A verify command to offer for baton.workers.verifyCommand, from what the project declares
// (squad_analyze's findings, plus package.json's own test script); never by running anything.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { analyzeProject } from '../squads/squadAnalyze';

/** npm's placeholder for a project without tests: not a test script. */
const NPM_PLACEHOLDER = /no test specified/;

/** The command the project's own tooling runs its tests with, or undefined when it declares none. */
export async function suggestVerifyCommand(dir: string): Promise<string | undefined> {
  const found = await analyzeProject(dir);
  if (found.evidence.includes('package.json')) {
    const test = await testScript(dir);
    if (test !== undefined && !NPM_PLACEHOLDER.test(test)) {
      const manager = ['pnpm', 'yarn', 'bun'].find((m) => found.packageManagers.includes(m)) ?? 'npm';
      return `${manager} test`;
    }
  }
  if (found.testTools.includes('cargo test')) return 'cargo test';
  if (found.testTools.includes('go test')) return 'go test ./...';
  if (found.testTools.includes('pytest')) return found.packageManagers.includes('poetry') ? 'poetry run pytest' : 'python -m pytest';
  if (found.packageManagers.includes('Maven')) return 'mvn -q test';
  if (found.packageManagers.includes('Gradle')) return './gradlew test';
  return undefined;
}

async function testScript(dir: string): Promise<string | undefined> {
  try {
    const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { scripts?: Record<string, unknown> };
    const test = pkg.scripts?.test;
    return typeof test === 'string' && test.trim() ? test : undefined;
  } catch {
    return undefined;
  }
}
