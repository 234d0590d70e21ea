// What "Verify before Apply" costs beyond the command itself: `true` as baton.workers.verifyCommand
// through the ChangeVerifier (a worker session with a worker's sandbox policy in the REAL runtime,
// Bubblewrap, the result stored with the change set), against
// `true` spawned directly. The worktree is one of a 10,000-file repository with 20 changed files,
// as in the landing figures.
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ChangeVerifier } from '../src/core/changes/changeVerifier';
import { PendingChangeSets } from '../src/core/changes/pendingChangeSets';
import type { AgentSession } from '../src/core/copilot/agentSessions';
import { workerSandboxPolicy } from '../src/core/workers/workerSandbox';
import { makeLargeRepo, testGit } from '../test/support/gitFixture';
import { startCore } from '../test/support/orchestratorFixture';
import { median, type BenchFigure } from './figure';

const FILES = 10_000;
const CHANGES = 20;

function spawnTrue(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('true', { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', () => resolve());
  });
}

export async function benchVerify(opts: { quick: boolean }): Promise<BenchFigure[]> {
  const core = await startCore({ flushDelayMs: 250 });
  let session: AgentSession | undefined;
  try {
    const git = testGit();
    const repo = await makeLargeRepo(git, join(core.root, 'repo'), FILES);
    const pending = new PendingChangeSets(core.store, core.storageDir, core.logger, () => [], git);
    const { record: cs } = await pending.worktrees.createWorkerWorktree({ repoDir: repo, workerName: 'checked' });
    pending.save(cs);
    for (let i = 0; i < CHANGES; i++) await writeFile(join(cs.worktreePath, 'src', `mod${i}`, 'file3.ts'), `export const worker${i} = true;\n`);
    await mkdir(join(core.home, '.ssh'), { recursive: true });
    session = await core.sessions.create({
      role: 'worker',
      workingDirectory: cs.worktreePath,
      systemMessage: "You are 'checked', a Baton worker.",
      permissions: () => ({ kind: 'reject', feedback: 'bench' }),
      ownSession: true,
      sandbox: workerSandboxPolicy({
        workingDir: cs.worktreePath,
        protectedPaths: [join(core.home, '.ssh')],
        network: { mode: 'deny', allowedHosts: [], blockedHosts: [], line: 'network off', brief: 'network off' },
      }),
    });
    const live = session;
    const verifier = new ChangeVerifier({
      pending,
      liveSession: () => live,
      settings: () => ({ verifyCommand: 'true', timeoutMs: 30_000 }),
      fire: () => undefined,
      logger: core.logger,
    });
    const worker: Parameters<ChangeVerifier['afterRun']>[0] = {
      name: 'checked',
      isolation: { kind: 'worktree' as const, branch: cs.branch, baseCommit: cs.baseCommit, sourceDir: repo, uncommittedLeftOut: false },
      changes: { files: CHANGES, additions: CHANGES, deletions: CHANGES },
    };
    // Warm both paths: the first sandboxed command and the first snapshot after a checkout are slower.
    worker.changesTree = await pending.changeSets.snapshot(cs);
    await verifier.afterRun(worker);
    await spawnTrue();
    const direct: number[] = [];
    const verified: number[] = [];
    const commands: number[] = [];
    for (let i = 0; i < (opts.quick ? 5 : 15); i++) {
      // The completion counts the changes (a snapshot) whether or not a verify follows: not verify's cost.
      worker.changesTree = await pending.changeSets.snapshot(cs);
      let t = performance.now();
      await spawnTrue();
      direct.push(performance.now() - t);
      t = performance.now();
      const note = await verifier.afterRun(worker);
      verified.push(performance.now() - t);
      const record = pending.get('checked')?.verify;
      if (record?.state !== 'passed' || !note.includes('Verify passed')) throw new Error(`verify did not pass: ${JSON.stringify(record)}`);
      commands.push(record.durationMs);
    }
    const overhead = median(verified) - median(direct);
    return [
      { name: '`true` spawned directly (median)', value: median(direct), unit: 'ms' },
      { name: `\`true\` as the verify command, ${FILES.toLocaleString('en')}-file repo (median, all of it)`, value: median(verified), unit: 'ms' },
      { name: '  of which the command in the worker\u2019s sandbox (runtime RPC + Bubblewrap)', value: median(commands), unit: 'ms' },
      { name: 'verify overhead beyond the command itself', value: overhead, unit: 'ms', target: '≤ 100' },
    ];
  } finally {
    await session?.disconnect();
    await core.dispose();
  }
}
