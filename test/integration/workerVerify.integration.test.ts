// Verify before Apply with the REAL runtime (sandboxed), real git and the production wiring:
// baton.workers.verifyCommand runs on a worker's change set after each finished run, inside the
// worker's own sandbox; a pass and a failure are on the card, in the completion message, in what
// the orchestrator's tools say and in Apply's confirm; a second round verifies again; a command
// reading ~/.ssh fails like any sandboxed shell; the output kept is bounded; without the sandbox
// nothing runs.
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { applyConfirm } from '../../src/core/changes/applyConfirm';
import { formatWorkerList } from '../../src/core/workers/workerTools';
import { MAX_VERIFY_CHARS, MAX_VERIFY_LINES } from '../../src/core/changes/verifyRecord';
import { holdNextOpen } from '../support/heldOpen';
import { trackTempDir } from '../support/leaks';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import { scriptWorkerRound } from '../support/scriptedWorker';
import { waitFor } from '../support/waitFor';
import { afterEachCore } from '../support/afterEachCore';

const run = promisify(execFile);
const git = async (cwd: string, ...args: string[]): Promise<string> =>
  (await run('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', ...args], { cwd })).stdout;
const MARKER = 'MARKER-verify-id-rsa-51c0';

describe('verify before apply (real runtime, sandbox, real git)', function () {
  this.timeout(120_000);
  let core: CoreFixture;
  let repo: string;

  const doneCount = (): number => core.events.filter((e) => e.type === 'turn.completed' && e.origin.channel === 'background').length;
  const card = (worker: string) => core.pool.list().find((w) => w.name === worker);
  const finished = (worker: string) => core.pool.list().find((w) => w.name === worker && w.state === 'done');
  /** What the orchestrator was told when `worker`'s task ended (the newest one). */
  const completion = (worker: string): string =>
    core.server
      .chatRequests()
      .filter((r) => r.lastUserText?.includes(`[Background task completed] Worker '${worker}'`))
      .at(-1)?.lastUserText ?? '';

  /** One round of a worker: a shell command, then its report; and the orchestrator's answer to its result. */
  const scriptRound = (worker: string, prompt: string, command: string, report: string): void =>
    scriptWorkerRound(core.server, { worker, prompt, does: { command }, report, answer: `noted ${worker} ${prompt}` });

  const runWorker = async (worker: string, command: string, verifyCommand: string | undefined): Promise<void> => {
    core.workerSettings.verifyCommand = verifyCommand;
    scriptRound(worker, `TASK-${worker}`, command, `${worker}: done`);
    const before = doneCount();
    await core.pool.create({ name: worker, workingDir: repo, prompt: `TASK-${worker}` });
    await waitFor('the worker', () => finished(worker));
    await waitFor('its result', () => doneCount() > before);
  };

  beforeEach(async () => {
    core = await startCore();
    core.workerSettings.trustWorkingDir = true;
    repo = join(core.home, 'dev', 'repo');
    await mkdir(join(repo, 'src'), { recursive: true });
    await writeFile(join(repo, 'src', 'a.txt'), 'a original\n');
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, 'commit', '-q', '-m', 'init');
    await mkdir(join(core.home, '.ssh'), { recursive: true });
    await writeFile(join(core.home, '.ssh', 'id_rsa'), `-----BEGIN KEY-----\n${MARKER}\n-----END KEY-----\n`);
  });

  afterEachCore(() => core);

  it('a passing command: the card says passed, the orchestrator is told, Apply asks plainly; nobody was asked about the command', async () => {
    await runWorker('passer', "printf 'a by passer\\n' > src/a.txt", 'grep -q "by passer" src/a.txt && echo "1 passing" && pwd');
    const verify = card('passer')?.verify;
    assert.equal(verify?.state, 'passed', JSON.stringify(verify));
    assert.match(verify!.line, /^verify passed: grep -q "by passer" src\/a\.txt && echo "1 passing" && pwd \(\d+\.\d s\)$/);
    const [last, cwd] = verify!.tail!.split('\n').slice(-2);
    assert.equal(last, '1 passing');
    assert.equal(cwd, card('passer')!.workingDir, "it ran in the worker's worktree");
    assert.match(completion('passer'), /\n\nVerify passed: grep -q "by passer"/);
    const confirm = await applyConfirm(core.pool.changes!, 'passer');
    assert.deepEqual(confirm, {
      message: "Apply 1 file changed, +1 −1 from worker 'passer' to your working tree?",
      detail: 'All or nothing: if any chosen file conflicts or has unsaved edits, nothing changes.',
      action: 'Apply',
    });
    assert.equal(core.broker.asked.length, 0, 'verify is Baton running the command: no prompt');
    // No model request came from the verify itself: every request is one of the scripted ones.
    assert.equal(core.server.chatRequests().length, 3);
  });

  it('a failing command: named on the card, in the completion, in the tools and in Apply\u2019s confirm; Ask for changes verifies again and it passes', async () => {
    const check = 'grep -q fixed src/a.txt || { echo "FAIL: a.txt is not fixed"; exit 3; }';
    await runWorker('failer', "printf 'a broken\\n' > src/a.txt", check);
    const verify = card('failer')?.verify;
    assert.equal(verify?.state, 'failed', JSON.stringify(verify));
    assert.match(verify!.line, /^verify failed: grep -q fixed .* exited 3 after \d+\.\d s$/);
    assert.equal(verify!.tail, 'FAIL: a.txt is not fixed');
    assert.match(completion('failer'), /\n\nVerify failed: grep -q fixed .* exited 3 after \d+\.\d s\. Its last lines:\nFAIL: a\.txt is not fixed/);

    // Apply's confirm, as core builds it for the editor's dialog.
    const confirm = await applyConfirm(core.pool.changes!, 'failer');
    assert.match(confirm.message, /^Verify failed: grep -q fixed .* exited 3 after \d+\.\d s\. Apply 1 file changed, \+1 −1 from worker 'failer' anyway\?$/);
    assert.equal(confirm.action, 'Apply Anyway');
    assert.match(confirm.detail, /Last lines:\nFAIL: a\.txt is not fixed$/);
    assert.match(await core.pool.changes!.forModel('failer'), /^verify failed: grep -q fixed .* exited 3/);
    assert.match(
      formatWorkerList(core.pool.list(), Date.now()),
      /- failer: done .*; changes pending, touched: src\/a\.txt; verify failed: grep -q fixed .* exited 3/,
    );

    // The orchestrator's apply names the failure in the question the user answers; the user says no.
    core.server.on(
      { lastUserIncludes: '[via panel] apply failer', afterToolResult: false },
      { toolCalls: [{ id: 'ap1', name: 'apply_worker_changes', arguments: { name: 'failer' } }] },
    );
    core.server.on({ lastUserIncludes: '[via panel] apply failer', afterToolResult: true }, { text: 'Not applied.' });
    core.broker.answer = 'deny';
    await core.orchestrator.enqueue('apply failer', { channel: 'panel' }).done;
    assert.equal(core.broker.asked.length, 1);
    assert.match(core.broker.asked[0]!.detail, /^apply 1 file changed, \+1 −1 from worker 'failer' to your working tree although verify failed: .* exited 3/);
    const toolResult = core.server
      .chatRequests()
      .at(-1)!
      .messages.filter((m) => m.role === 'tool')
      .at(-1);
    assert.match(JSON.stringify(toolResult?.content), /did not approve applying the changes of 'failer' although verify failed/);
    assert.equal(await readFile(join(repo, 'src', 'a.txt'), 'utf8'), 'a original\n');

    // Ask for changes: the same worker fixes it; its change set changed, so verify runs again.
    scriptRound('failer', 'make the check pass', "printf 'a fixed\\n' > src/a.txt", 'failer: fixed');
    const before = doneCount();
    await core.pool.send('failer', 'make the check pass', 'panel');
    await waitFor('round two', () => finished('failer') && doneCount() > before);
    const second = core.server.chatRequests().find((r) => r.systemText.includes("You are 'failer'") && r.lastUserText?.includes('make the check pass'));
    assert.match(JSON.stringify(second?.messages), /FAIL: a\.txt is not fixed/, "the worker's next round sees the failed verify's output");
    assert.equal(card('failer')?.verify?.state, 'passed');
    assert.match(completion('failer'), /\n\nVerify passed: grep -q fixed/);
    assert.equal((await applyConfirm(core.pool.changes!, 'failer')).action, 'Apply');

    // An edit after the verify (Review's right side) makes the pass stale: the confirm says so.
    await writeFile(join(card('failer')!.workingDir, 'src', 'a.txt'), 'a fixed, edited in review\n');
    const stale = await applyConfirm(core.pool.changes!, 'failer');
    assert.equal(stale.action, 'Apply');
    assert.match(stale.detail, /^Verify passed: .* \(on an earlier version of these changes\)\.\n/);
  });

  it('a verify command that reads ~/.ssh fails like any sandboxed shell: the key reaches nothing', async () => {
    await runWorker('prober', "printf 'a by prober\\n' > src/a.txt", 'echo planted > ~/planted-by-verify; cat ~/.ssh/id_rsa');
    const verify = card('prober')?.verify;
    assert.equal(verify?.state, 'failed', JSON.stringify(verify));
    assert.match(verify!.line, /exited 1 after/);
    assert.match(verify!.tail!, /\.ssh\/id_rsa: No such file or directory/);
    assert.equal(existsSync(join(core.home, 'planted-by-verify')), false, "a write to HOME inside verify does not reach the user's HOME");
    const record = core.pool.changes!.list().find((p) => p.worker === 'prober');
    assert.ok(record, 'the change set is pending');
    assert.ok(!JSON.stringify(core.pool.list()).includes(MARKER), 'the key is on no card');
    for (const req of core.server.requests) assert.ok(!JSON.stringify(req).includes(MARKER), `the key reached the model server in ${req.method} ${req.path}`);
    assert.equal(core.broker.asked.length, 0);
  });

  it(`keeps only the end of a long output: at most ${MAX_VERIFY_LINES} lines and ${MAX_VERIFY_CHARS} characters`, async () => {
    await runWorker('chatty', "printf 'a by chatty\\n' > src/a.txt", 'seq 1 100000');
    const verify = card('chatty')?.verify;
    assert.equal(verify?.state, 'passed', JSON.stringify(verify));
    const lines = verify!.tail!.split('\n');
    assert.equal(lines.length, MAX_VERIFY_LINES);
    assert.ok(verify!.tail!.length <= MAX_VERIFY_CHARS);
    assert.deepEqual(lines.slice(-2), ['99999', '100000']);
    assert.ok(completion('chatty').length < 2000, 'a pass tells the orchestrator one line, not the output');
  });

  it("stops a verify at the worker's time limit, and a kill stops one at once", async () => {
    core.workerSettings.timeoutMs = 6_000;
    await runWorker('slow', "printf 'a by slow\\n' > src/a.txt", 'echo started; sleep 60');
    const verify = card('slow')?.verify;
    assert.equal(verify?.state, 'failed', JSON.stringify(verify));
    assert.equal(verify!.line, 'verify failed: echo started; sleep 60 did not finish within 6 s (baton.workers.timeoutMs)');
    assert.equal(verify!.tail, 'started');

    core.workerSettings.timeoutMs = 30_000;
    scriptRound('slow', 'once more', "printf 'a again\\n' > src/a.txt", 'slow: again');
    // Killed the moment the card says the verify runs: its command may not have started in the runtime yet (a cancel
    // then finds nothing to stop), and it is stopped all the same.
    let t = 0;
    let killed: Promise<string> | undefined;
    const off = core.pool.onDidChange((cards) => {
      if (!killed && cards.find((w) => w.name === 'slow')?.verify?.state === 'running') {
        t = Date.now();
        killed = core.pool.kill('slow', 'tool');
      }
    });
    await core.pool.send('slow', 'once more', 'panel');
    await waitFor('the second verify', () => killed);
    await killed;
    off();
    assert.ok(Date.now() - t < 5_000, `the kill waited ${Date.now() - t} ms`);
    assert.equal(card('slow')?.verify?.line, 'verify failed: echo started; sleep 60 was stopped');
    await waitFor('its result', () => completion('slow').includes('slow: again'));
  });

  it('without the sandbox nothing runs: the card and Apply say verify was not run, and why', async () => {
    core.workerSettings.sandbox = 'off';
    // Without the sandbox every worker shell asks; the user allows the worker's own edit.
    core.broker.answer = 'once';
    await runWorker('bare', "printf 'a by bare\\n' > src/a.txt", 'touch ran-unsandboxed');
    const verify = card('bare')?.verify;
    assert.equal(verify?.state, 'not-run', JSON.stringify(verify));
    assert.equal(verify!.line, "verify not run: it runs only inside the worker's sandbox, and the sandbox is off (baton.workers.sandbox)");
    assert.equal(existsSync(join(card('bare')!.workingDir, 'ran-unsandboxed')), false, 'the command did not run');
    assert.deepEqual(
      core.broker.asked.map((p) => p.detail),
      ["printf 'a by bare\\n' > src/a.txt"],
      'only the worker\u2019s own command was asked about',
    );
    const confirm = await applyConfirm(core.pool.changes!, 'bare');
    assert.match(confirm.message, /^Verify not run: .*sandbox is off .*\. Apply 1 file changed, \+1 −1 from worker 'bare' anyway\?$/);
    assert.equal(confirm.action, 'Apply Anyway');
  });

  it('fails closed where Bubblewrap is missing: nothing runs, and the card says why and how to fix it', async () => {
    await core.dispose();
    // This machine's PATH without bwrap: every other tool the runtime and the shell need is still there.
    const bin = await mkdtemp(join(tmpdir(), 'baton-bin-without-bwrap-'));
    trackTempDir(bin);
    const seen = new Set<string>();
    for (const dir of (process.env.PATH ?? '').split(':').filter(Boolean)) {
      for (const name of await readdir(dir).catch(() => [] as string[])) {
        if (name === 'bwrap' || seen.has(name)) continue;
        seen.add(name);
        await symlink(join(dir, name), join(bin, name));
      }
    }
    core = await startCore({ env: { PATH: bin } });
    core.workerSettings.trustWorkingDir = true;
    core.broker.answer = 'once';
    repo = join(core.home, 'dev', 'repo');
    await mkdir(join(repo, 'src'), { recursive: true });
    await writeFile(join(repo, 'src', 'a.txt'), 'a original\n');
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, 'commit', '-q', '-m', 'init');
    await runWorker('nobox', "printf 'a by nobox\\n' > src/a.txt", 'touch ran-unsandboxed');
    assert.equal(card('nobox')?.sandbox?.state, 'unsupported', JSON.stringify(card('nobox')?.sandbox));
    const verify = card('nobox')?.verify;
    assert.equal(verify?.state, 'not-run', JSON.stringify(verify));
    assert.match(
      verify!.line,
      /^verify not run: it runs only inside the worker's sandbox, and the sandbox is unsupported: Bubblewrap \(bwrap\) is not installed\. Install bubblewrap/,
    );
    assert.equal(existsSync(join(card('nobox')!.workingDir, 'ran-unsandboxed')), false, 'the command did not run');
    assert.match(completion('nobox'), /\n\nVerify not run: .*Bubblewrap \(bwrap\) is not installed/);
    await rm(bin, { recursive: true, force: true });
  });

  it('a command that writes into the worktree: its files are counted on the card and in the completion, and its pass stays current for Apply', async () => {
    await runWorker('gen', "printf 'a by gen\\n' > src/a.txt", 'echo built > generated.txt; echo ok');
    assert.equal(card('gen')?.changes?.files, 2, 'src/a.txt and generated.txt');
    assert.deepEqual(
      (await core.pool.changes!.files('gen')).map((f) => f.path),
      ['generated.txt', 'src/a.txt'],
    );
    assert.match(
      completion('gen'),
      /Verify passed: echo built > generated\.txt; echo ok \([\d.]+ s\)\. The command wrote into the worktree: the change is now 2 files changed, \+2 −1\./,
    );
    const confirm = await applyConfirm(core.pool.changes!, 'gen');
    assert.equal(confirm.message, "Apply 2 files changed, +2 −1 from worker 'gen' to your working tree?", 'no "verify on an earlier version"');
  });

  it('a run with no verify (the command cleared since) takes the earlier pass off the card: it was not this change\u2019s', async () => {
    await runWorker('v7', "printf 'a v1\\n' > src/a.txt", 'echo pass-one');
    assert.equal(card('v7')?.verify?.state, 'passed');
    core.workerSettings.verifyCommand = '';
    scriptRound('v7', 'round-two', "printf 'a v2\\n' > src/a.txt", 'v7: round two');
    const before = doneCount();
    await core.pool.send('v7', 'round-two', 'panel');
    await waitFor('round two', () => finished('v7') && doneCount() > before);
    assert.equal(card('v7')?.verify, undefined);
    assert.doesNotMatch(formatWorkerList(core.pool.list(), Date.now()), /verify passed/);
  });

  it('a window reload while the verify runs: it runs again once after the reload (the card shows it running, then its verdict; Apply and a follow-up wait for it), and no "verify failed: was stopped" is kept', async () => {
    const command = 'sleep 5; echo verified';
    core.workerSettings.verifyCommand = command;
    scriptRound('reload', 'TASK-reload', "printf 'a by reload\\n' > src/a.txt", 'reload: done');
    await core.pool.create({ name: 'reload', workingDir: repo, prompt: 'TASK-reload' });
    await waitFor('the verify running', () => card('reload')?.verify?.state === 'running');
    await core.restart();
    // Each verify the card shows starting after the reload.
    let last = card('reload')?.verify?.state;
    let runs = last === 'running' ? 1 : 0;
    core.pool.onDidChange((cards) => {
      const state = cards.find((w) => w.name === 'reload')?.verify?.state;
      if (state === 'running' && last !== 'running') runs++;
      last = state;
    });

    await waitFor('the verify running again after the reload', () => card('reload')?.verify?.state === 'running');
    assert.equal(card('reload')?.verify?.line, `verifying: ${command}`);
    assert.equal(card('reload')?.changes?.files, 1);
    // Meanwhile the change is not applied under it, and the worker is not sent more work.
    await assert.rejects(core.pool.changes!.apply('reload', { dirtyBuffers: [] }), /still working on its changes/);
    await assert.rejects(core.pool.send('reload', 'more', 'panel'), /still running/);

    await waitFor('its verdict', () => card('reload')?.verify?.state === 'passed');
    const verify = card('reload')!.verify!;
    assert.match(verify.line, /^verify passed: sleep 5; echo verified \((5|6)\.\d s\)$/);
    assert.equal(verify.tail, 'verified');
    assert.equal(card('reload')?.state, 'done');
    const saved = core.pool.changes!.list().find((p) => p.worker === 'reload')?.changeSet;
    assert.equal(saved?.verify?.state, 'passed', 'the verdict is kept with the change set');
    assert.equal(saved?.verifyDue, undefined, 'nothing is owed any more');
    const confirm = await applyConfirm(core.pool.changes!, 'reload');
    assert.deepEqual(confirm, {
      message: "Apply 1 file changed, +1 −1 from worker 'reload' to your working tree?",
      detail: 'All or nothing: if any chosen file conflicts or has unsaved edits, nothing changes.',
      action: 'Apply',
    });

    // The worker's result reached the orchestrator after the reload, saying the verify was stopped and runs again.
    await waitFor('its result delivered after the reload', () => completion('reload') !== '');
    assert.match(completion('reload'), /\[Background task completed\] Worker 'reload' finished:/);
    assert.match(completion('reload'), /Verify \(sleep 5; echo verified\) was stopped by the window closing: it runs again when Baton starts\./);
    assert.doesNotMatch(completion('reload'), /verify (passed|failed)/i);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(runs, 1, 'one verify ran after the reload');
    assert.equal(card('reload')?.verify?.state, 'passed');
  });

  describe('a verify run again after a reload, at its corners', () => {
    /** Each run of the verify command adds a line to this file in the worktree (ignored by git, so no change of its own). */
    const RUNS = 'verify-runs.log';
    const counted = (seconds: number): string => `echo run >> ${RUNS}; sleep ${seconds}; echo verified`;
    /** How many times the verify command started in `worker`'s worktree. */
    const verifyRuns = async (worker: string): Promise<number> =>
      (await readFile(join(card(worker)!.workingDir, RUNS), 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
    const savedChangeSet = (worker: string) => core.pool.changes!.list().find((p) => p.worker === worker)?.changeSet;
    /** Requests that carried `worker`'s result to the orchestrator. */
    const resultsSent = (worker: string): number =>
      core.server.chatRequests().filter((r) => r.lastUserText?.includes(`[Background task completed] Worker '${worker}'`)).length;
    const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));
    /** A window reload, waiting until the next start has listed again the workers whose changes wait. */
    const reload = async (): Promise<void> => {
      const listed = () => core.logger.lines.filter((l) => l.startsWith('info Listed again ')).length;
      const before = listed();
      await core.restart();
      await waitFor('the workers listed again', () => listed() > before);
    };

    beforeEach(async () => {
      await writeFile(join(repo, '.gitignore'), `${RUNS}\n`);
      await git(repo, 'add', '-A');
      await git(repo, 'commit', '-q', '-m', 'ignore the verify count');
    });

    /** Starts `worker` (one edit), and waits until its verify command runs (its line written). */
    const startVerifying = async (worker: string, command: string): Promise<void> => {
      core.workerSettings.verifyCommand = command;
      scriptRound(worker, `TASK-${worker}`, `printf 'a by ${worker}\\n' > src/a.txt`, `${worker}: done`);
      await core.pool.create({ name: worker, workingDir: repo, prompt: `TASK-${worker}` });
      await waitFor(`${worker}'s verify running`, async () => card(worker)?.verify?.state === 'running' && (await verifyRuns(worker)) === 1);
    };
    /** The verify of `worker` running again after a reload (the card says so, and its command started once more). */
    const runningAgain = async (worker: string, runs: number): Promise<void> => {
      try {
        await waitFor(`${worker}'s verify running again`, async () => card(worker)?.verify?.state === 'running' && (await verifyRuns(worker)) === runs);
      } catch (err) {
        // What was seen instead, for a failure read from a CI log.
        const seen = `the card says ${JSON.stringify(card(worker)?.verify)}, the command ran ${await verifyRuns(worker)} time(s)`;
        throw new Error(`${(err as Error).message}: ${seen}; ${core.logger.lines.filter((l) => !l.startsWith('info ')).join(' | ')}`);
      }
    };

    it('a kill while it runs again: it stops at once, recorded as stopped (card, Apply), is not owed any more and never runs again', async () => {
      const command = counted(8);
      await startVerifying('killed', command);
      const sessionId = card('killed')!.sessionId;
      await reload();
      await runningAgain('killed', 2);

      const t = Date.now();
      const said = await core.pool.kill('killed', 'user');
      assert.ok(Date.now() - t < 5_000, `the kill waited ${Date.now() - t} ms`);
      assert.match(said, /^Killed worker 'killed' after /);
      assert.equal(card('killed')?.state, 'done', 'the kill stopped its verify, not the work it had finished');
      assert.equal(card('killed')?.verify?.line, `verify failed: ${command} was stopped`);
      const saved = savedChangeSet('killed');
      assert.equal(saved?.verify?.state, 'failed');
      assert.equal(saved?.verify?.reason, 'was stopped');
      assert.equal(saved?.verifyDue, undefined, 'a kill is the user\u2019s say: nothing is owed');
      assert.equal(card('killed')?.changes?.files, 1);
      const confirm = await applyConfirm(core.pool.changes!, 'killed');
      assert.equal(confirm.message, `Verify failed: ${command} was stopped. Apply 1 file changed, +1 −1 from worker 'killed' anyway?`);
      assert.equal(confirm.action, 'Apply Anyway');
      // It holds no slot any more.
      assert.ok(!core.pool.listActive().some((w) => w.name === 'killed'));
      await waitFor('its result delivered after the reload', () => doneCount() >= 1);

      // Nothing runs it again: not in this window, nor at the next start.
      await settle(1_500);
      assert.equal(await verifyRuns('killed'), 2);
      await reload();
      await settle(2_000);
      assert.equal(await verifyRuns('killed'), 2, 'the verify ran once before the reload and once after it');
      assert.equal(card('killed')?.verify?.line, `verify failed: ${command} was stopped`);
      assert.equal(card('killed')?.state, 'done');
      assert.equal(resultsSent('killed'), 1);
      assert.equal(card('killed')?.sessionId, sessionId, 'its own session throughout: kept at the reload, resumed after it');
    });

    it('a kill before it runs again (its session still opening): recorded "not run" for the kill, owed no more, never run', async () => {
      const command = counted(8);
      await startVerifying('early', command);
      const closed = core.core;
      await closed.dispose();
      // The next start's session opens wait on this until the kill is made: the verify's command cannot have started.
      const held = await holdNextOpen(join(core.storageDir, 'copilot-sessions'));
      try {
        const restarted = reload();
        await held.reached;
        await waitFor('the worker taken up again for its verify', () => core.core !== closed && card('early')?.state === 'running');
        assert.notEqual(card('early')?.verify?.state, 'running', 'its command has not started');
        const killing = core.pool.kill('early', 'user');
        await held.release();
        assert.match(await killing, /^Killed worker 'early' after /);
        await restarted;
      } finally {
        await held.release();
      }
      const line = 'verify not run: the worker was killed before it could run again';
      await waitFor('the verify recorded', () => card('early')?.verify?.state === 'not-run');
      assert.equal(card('early')?.verify?.line, line);
      assert.equal(card('early')?.state, 'done');
      assert.equal(savedChangeSet('early')?.verifyDue, undefined, 'a kill is the user\u2019s say: nothing is owed');
      const confirm = await applyConfirm(core.pool.changes!, 'early');
      assert.equal(confirm.message, `V${line.slice(1)}. Apply 1 file changed, +1 −1 from worker 'early' anyway?`);
      assert.equal(confirm.action, 'Apply Anyway');
      // Nothing runs it again: not in this window, nor at the next start.
      await settle(1_500);
      await reload();
      await settle(2_000);
      assert.equal(await verifyRuns('early'), 1, 'it ran only before the first reload');
      assert.equal(card('early')?.verify?.line, line);
    });

    it('a second reload while it runs again: it runs again once more at the following start, and exactly once', async () => {
      const command = counted(8);
      await startVerifying('twice', command);
      const sessionId = card('twice')!.sessionId;
      await reload();
      await runningAgain('twice', 2);
      // The result of its task reached the orchestrator in this window, answered before it closes.
      await waitFor('its result answered', () => doneCount() >= 1);
      assert.equal(card('twice')?.verify?.state, 'running', 'still running at the second reload');
      await reload();
      await runningAgain('twice', 3);
      await waitFor('its verdict', () => card('twice')?.verify?.state === 'passed', 20_000);
      const took = /^verify passed: echo run >> verify-runs\.log; sleep 8; echo verified \((\d+\.\d) s\)$/.exec(card('twice')!.verify!.line);
      assert.ok(took && Number(took[1]) >= 8, card('twice')!.verify!.line);
      assert.equal(card('twice')?.sessionId, sessionId, 'its own session, resumed at each start');
      assert.equal(card('twice')?.state, 'done');
      assert.equal(savedChangeSet('twice')?.verifyDue, undefined);
      assert.equal((await applyConfirm(core.pool.changes!, 'twice')).action, 'Apply');
      await settle(1_500);
      assert.equal(await verifyRuns('twice'), 3, 'once per window');
      assert.equal(resultsSent('twice'), 1, 'its result went to the orchestrator once');
    });

    it('a verify silent for over 10 s, twice in a row: each runs to its end (the runtime ended such a run at 10 s, exit -1)', async () => {
      const command = counted(11);
      const passed = /^verify passed: echo run >> verify-runs\.log; sleep 11; echo verified \(1[12]\.\d s\)$/;
      core.workerSettings.verifyCommand = command;
      core.workerSettings.timeoutMs = 60_000;
      scriptRound('long', 'TASK-long', "printf 'a by long\\n' > src/a.txt", 'long: done');
      let before = doneCount();
      await core.pool.create({ name: 'long', workingDir: repo, prompt: 'TASK-long' });
      await waitFor('round one verified', () => finished('long') && doneCount() > before, 60_000);
      assert.match(card('long')!.verify!.line, passed);
      assert.equal(card('long')!.verify!.tail, 'verified', 'the keep-alive leaves nothing in the output');
      // Round two at once: its verify follows one that ran past 10 s, the case the runtime ended most often.
      scriptRound('long', 'round-two', "printf 'a by long, again\\n' > src/a.txt", 'long: done again');
      before = doneCount();
      await core.pool.send('long', 'round-two', 'panel');
      await waitFor('round two verified', () => finished('long') && doneCount() > before, 60_000);
      assert.match(card('long')!.verify!.line, passed);
      assert.equal(await verifyRuns('long'), 2, 'once per round');
      assert.match(completion('long'), /\n\nVerify passed: echo run >> verify-runs\.log; sleep 11; echo verified/);
    });

    const NO_SLOT = 'verify not run: it was stopped by the window closing, and when Baton started again every worker slot was taken (baton.workers.max)';

    it('no free worker slot at the start: the verify ends "not run", saying why in words for the user; Apply asks', async () => {
      const command = counted(8);
      await startVerifying('one', command);
      await startVerifying('two', command);
      core.workerSettings.max = 1;
      await reload();
      // One of them takes the one slot and runs again; the other cannot.
      const [ran, left] = await waitFor('one verify running again', async () => {
        for (const [a, b] of [
          ['one', 'two'],
          ['two', 'one'],
        ] as const)
          if (card(a)?.verify?.state === 'running' && (await verifyRuns(a)) === 2) return [a, b] as const;
        return undefined;
      });
      await waitFor('the other verify recorded', () => card(left)?.verify?.state === 'not-run');
      assert.equal(card(left)?.verify?.line, NO_SLOT);
      assert.equal(card(left)?.state, 'done');
      assert.equal(savedChangeSet(left)?.verifyDue, undefined);
      const confirm = await applyConfirm(core.pool.changes!, left);
      assert.equal(confirm.message, `V${NO_SLOT.slice(1)}. Apply 1 file changed, +1 −1 from worker '${left}' anyway?`);
      assert.equal(confirm.action, 'Apply Anyway');
      await core.pool.kill(ran, 'user');
      await waitFor('both results delivered after the reload', () => doneCount() >= 2);
      await settle(1_500);
      assert.equal(await verifyRuns(left), 1, 'it did not run after the reload');
      assert.equal(await verifyRuns(ran), 2);
    });

    it('its session folder deleted while the window was closed: the verify runs in a new session; a follow-up is told what the worker did', async () => {
      const command = counted(3);
      await startVerifying('gone', command);
      const sessionId = card('gone')!.sessionId!;
      // The window closes; while it is closed the worker's session folder goes (the user cleaned up, a disk restored).
      await core.core.dispose();
      await rm(join(core.storageDir, 'copilot-sessions', 'session-state', sessionId), { recursive: true });
      await reload();
      await waitFor('the verify run again', () => card('gone')?.verify?.state === 'passed');
      assert.equal(card('gone')!.verify!.line, `verify passed: ${command} (${/\((\d+\.\d) s\)$/.exec(card('gone')!.verify!.line)?.[1]} s)`);
      assert.equal(await verifyRuns('gone'), 2, 'once before the reload, once after it');
      assert.notEqual(card('gone')!.sessionId, sessionId, 'a new session: the old one could only fail to open');
      assert.ok(core.logger.lines.some((l) => l === `warn Worker 'gone': its session ${sessionId} is gone from disk; a follow-up starts a new one`));

      // A follow-up goes on in that session, told what the worker did (its report), since the session knows nothing of it.
      scriptRound('gone', 'FOLLOW-gone', "printf 'a by gone, again\\n' > src/a.txt", 'gone: done again');
      await waitFor('its result delivered after the reload', () => resultsSent('gone') >= 1);
      await core.pool.send('gone', 'FOLLOW-gone');
      await waitFor('the follow-up reported', () => completion('gone').includes('gone: done again'));
      const asked = core.server.chatRequests().filter((r) => r.systemText?.includes("You are 'gone'") && r.lastUserText?.includes('FOLLOW-gone'));
      assert.ok(asked.length >= 1);
      assert.match(
        asked[0]!.lastUserText!,
        /\[Context: you are continuing earlier work in a new session\. Your report at the end of your last task was:\]\ngone: done\n[\s\S]*FOLLOW-gone/,
      );
      assert.equal(await readFile(join(card('gone')!.workingDir, 'src', 'a.txt'), 'utf8'), 'a by gone, again\n');
      await waitFor('its verify of the follow-up', () => card('gone')?.verify?.state === 'passed' && card('gone')?.state === 'done');
    });

    it('its session cannot be opened: the verify ends "not run", saying why; Apply asks; nothing runs', async () => {
      const command = counted(8);
      await startVerifying('lost', command);
      const sessionId = card('lost')!.sessionId!;
      // The window closes; while it is closed the worker's session history is damaged (a disk fault): the runtime cannot read it.
      await core.core.dispose();
      await writeFile(join(core.storageDir, 'copilot-sessions', 'session-state', sessionId, 'events.jsonl'), 'not an event\n');
      await reload();
      await waitFor('the verify recorded', () => card('lost')?.verify?.state === 'not-run');
      assert.match(
        card('lost')!.verify!.line,
        /^verify not run: it was stopped by the window closing, and when Baton started again the worker's session could not be opened \(.+\)$/,
      );
      assert.ok(card('lost')!.verify!.line.includes(`session-state/${sessionId}/events.jsonl`), 'the runtime\u2019s own words say which session and why');
      assert.equal(card('lost')?.state, 'done');
      assert.equal(savedChangeSet('lost')?.verifyDue, undefined);
      const confirm = await applyConfirm(core.pool.changes!, 'lost');
      assert.match(
        confirm.message,
        /^Verify not run: it was stopped by the window closing, and when Baton started again the worker's session could not be opened \(.+\)\. Apply 1 file changed, \+1 −1 from worker 'lost' anyway\?$/,
      );
      assert.equal(confirm.action, 'Apply Anyway');
      await waitFor('its result delivered after the reload', () => doneCount() >= 1);
      await settle(1_500);
      assert.equal(await verifyRuns('lost'), 1);
    });
  });
});
