// Real git repositories in temp folders for the worktree tests and bench. Hermetic: the machine's
// global and system git config are ignored (a user's hooks, signing or autocrlf must not change a
// test), and commits work on a machine without a configured identity.
import { mkdir, writeFile } from 'node:fs/promises';
import { devNull } from 'node:os';
import { dirname, join } from 'node:path';
import { Git } from '../../src/core/git/git';

export const TEST_GIT_ENV: Record<string, string> = {
  GIT_AUTHOR_NAME: 'Baton Test',
  GIT_AUTHOR_EMAIL: 'test@baton.invalid',
  GIT_COMMITTER_NAME: 'Baton Test',
  GIT_COMMITTER_EMAIL: 'test@baton.invalid',
  GIT_CONFIG_GLOBAL: devNull,
  GIT_CONFIG_NOSYSTEM: '1',
};

export function testGit(): Git {
  return new Git({ env: TEST_GIT_ENV });
}

export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, rel)), { recursive: true });
    await writeFile(join(dir, rel), content);
  }
}

export async function commitAll(git: Git, dir: string, message: string): Promise<void> {
  await git.run(['add', '-A'], { cwd: dir });
  await git.run(['-c', 'user.name=Baton Test', '-c', 'user.email=test@baton.invalid', 'commit', '-q', '--no-verify', '-m', message], { cwd: dir });
}

/** A repository on `main` with one commit holding `files`. */
export async function makeRepo(git: Git, dir: string, files: Record<string, string>): Promise<string> {
  await mkdir(dir, { recursive: true });
  await git.run(['init', '-q', '-b', 'main'], { cwd: dir });
  await writeFiles(dir, files);
  await commitAll(git, dir, 'initial');
  return dir;
}

/**
 * A repository of `count` small files in folders of 100, checked out. The commit is written by one
 * `git fast-import` (a single pack, no 10,000 loose objects), then checked out once: a realistic
 * checkout in a fraction of the time `git add` of 10,000 files takes on a busy machine.
 */
export async function makeLargeRepo(git: Git, dir: string, count: number): Promise<string> {
  await mkdir(dir, { recursive: true });
  await git.run(['init', '-q', '-b', 'main'], { cwd: dir });
  const lines = ['commit refs/heads/main', 'committer Baton Test <test@baton.invalid> 1700000000 +0000', 'data 5', 'large'];
  for (let i = 0; i < count; i++) {
    const content = `export const value${i % 100} = ${i};\n// line two\n// line three\n`;
    lines.push(`M 100644 inline src/mod${Math.floor(i / 100)}/file${i % 100}.ts`, `data ${Buffer.byteLength(content)}`, content);
  }
  await git.run(['fast-import', '--quiet'], { cwd: dir, input: lines.join('\n') + '\n' });
  await git.run(['reset', '--hard', '-q'], { cwd: dir });
  return dir;
}
