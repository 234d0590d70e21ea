// Sessions beyond a worker's own task, against the REAL Copilot runtime and a scripted model server, built as the
// extension builds them: the machine's Copilot CLI sessions (listed, forked, attached), results and rows kept across a
// restart, and the sweep of orphaned session folders at start.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { mkdir, readdir, realpath, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createWorkerTools } from '../../src/core/workers/workerTools';
import { CopilotClient, runTurn } from '../support/copilotHarness';
import { waitFor } from '../support/waitFor';
import { callTool, useWorkerCore } from '../support/workerCore';

describe('workers and the machine\u2019s sessions (real runtime, scripted model, production wiring)', function () {
  this.timeout(60_000);
  const fx = useWorkerCore();

  it('lists machine sessions from another client, refuses an in-use one (offering a fork), forks and attaches', async () => {
    const env = fx.core.env;
    // The user's own Copilot CLI: another process, configured as the CLI is (not by Baton).
    const other = new CopilotClient({ env, baseDirectory: env.COPILOT_HOME, gitHubToken: 'fake', workingDirectory: fx.project, logLevel: 'error' });
    fx.extraClients.push(other);
    await other.start();
    const elsewhere = join(fx.core.root, 'elsewhere');
    await mkdir(elsewhere, { recursive: true });
    fx.core.server.on({ lastUserIncludes: 'external work' }, { text: 'external reply' });
    fx.core.server.on({ lastUserIncludes: 'older work' }, { text: 'older reply' });
    const older = await other.createSession({ workingDirectory: elsewhere, streaming: true, onPermissionRequest: () => ({ kind: 'reject' }) });
    await runTurn(older, 'older work');
    await older.disconnect();
    const ext = await other.createSession({ workingDirectory: fx.project, streaming: true, onPermissionRequest: () => ({ kind: 'reject' }) });
    await runTurn(ext, 'external work');

    const pool = fx.core.pool;
    const listed = await pool.machine.list();
    assert.deepEqual(
      listed.map((s) => s.sessionId),
      [ext.sessionId, older.sessionId],
      'newest first',
    );
    assert.equal(listed[0]!.workingDir, fx.project);
    assert.equal(listed[0]!.summary, 'external work');
    assert.equal(listed[0]!.inUse, true);
    assert.equal(listed[1]!.inUse, false);
    assert.ok(listed[0]!.modifiedAt >= listed[1]!.modifiedAt);
    assert.deepEqual(
      (await pool.machine.list({ cwdFilter: '~/dev' })).map((s) => s.sessionId),
      [ext.sessionId],
    );
    assert.deepEqual(
      (await pool.machine.list({ cwdFilter: join(fx.home, 'de') })).map((s) => s.sessionId),
      [],
      'a prefix matches whole path segments',
    );
    assert.equal((await pool.machine.list({ limit: 1 })).length, 1);
    const toolText = (await callTool(createWorkerTools(pool), 'list_machine_sessions', { cwd_filter: fx.project })) as string;
    assert.match(toolText, new RegExp(`${ext.sessionId} \\| ${fx.project.replace(/[/.]/g, '\\$&')} \\| external work \\| modified just now \\| IN USE`));

    // In use by the other process: never written into.
    const eventsBefore = (await ext.getEvents()).length;
    const requestsBefore = fx.core.server.chatRequests().length;
    await assert.rejects(pool.machine.attach(ext.sessionId, 'ext'), (err: Error) => {
      assert.match(err.message, /is in use by another process/);
      assert.match(err.message, /fork: true/);
      return true;
    });
    assert.equal(fx.core.server.chatRequests().length, requestsBefore);
    assert.equal((await ext.getEvents()).length, eventsBefore);
    assert.equal(pool.list().length, 0);

    // A fork instead: a copy Baton owns; the original is untouched.
    const forked = await pool.machine.attach(ext.sessionId, 'ext-copy', { fork: true });
    assert.equal(forked.source, 'forked');
    assert.notEqual(forked.sessionId, ext.sessionId);
    assert.equal(forked.workingDir, fx.project);
    fx.core.server.on({ lastUserIncludes: 'TASK-continue' }, { text: 'Continued in the copy.' });
    fx.answerResults('ext-copy', 'The copy continued.');
    await pool.send('ext-copy', 'TASK-continue');
    await waitFor('the fork result', () => fx.delivered().length === 1);
    assert.match(fx.delivered()[0]!.text, /Worker 'ext-copy' finished:[\s\S]*Continued in the copy/);
    const forkReq = fx.core.server.chatRequests().find((r) => (r.lastUserText ?? '').includes('TASK-continue'))!;
    assert.equal(forkReq.sessionId, forked.sessionId);
    assert.ok(
      forkReq.messages.some((m) => JSON.stringify(m.content ?? '').includes('external work')),
      'the fork carries the history',
    );
    assert.equal((await ext.getEvents()).length, eventsBefore, 'the original session got nothing');
    // The private copy the fork was taken from is gone, and the fork too once its task ended with nothing to review (a
    // worker's session goes with its task): the user sees the original and the older one.
    const listedIds = async () => new Set((await pool.machine.list()).map((s) => s.sessionId));
    await waitFor('the fork deleted', async () => !(await listedIds()).has(forked.sessionId ?? ''));
    assert.deepEqual(await listedIds(), new Set([ext.sessionId, older.sessionId]));
    await assert.rejects(pool.machine.attach('../../etc', 'evil'), /not a session id/);

    // Released by the other process: attach works, and the session survives the worker.
    await ext.disconnect();
    const attached = await pool.machine.attach(ext.sessionId, 'ext');
    assert.equal(attached.source, 'attached');
    assert.equal(attached.sessionId, ext.sessionId);
    fx.core.server.on({ lastUserIncludes: 'TASK-attached' }, { text: 'Picked it up.' });
    fx.answerResults('ext', 'The attached session picked it up.');
    await pool.send('ext', 'TASK-attached');
    await waitFor('the attached result', () => fx.delivered().length === 2);
    assert.ok(await fx.core.sessions.metadata(ext.sessionId), 'never deleted');
    const mine = (await pool.machine.list()).find((s) => s.sessionId === ext.sessionId)!;
    assert.equal(mine.worker, 'ext');
    // The finished worker gives the session up to a new attach; an active one keeps it.
    await pool.machine.attach(ext.sessionId, 'again');
    assert.ok(!pool.list().some((w) => w.name === 'ext'));
    await assert.rejects(pool.machine.attach(ext.sessionId, 'third'), /already worker 'again'/);
  });

  it('with COPILOT_HOME set in the environment (and no Copilot home of its own, as the extension runs), Copilot Sessions lists the user\u2019s sessions from it', async () => {
    const env = fx.core.env;
    const cli = new CopilotClient({ env, baseDirectory: env.COPILOT_HOME, gitHubToken: 'fake', workingDirectory: fx.project, logLevel: 'error' });
    fx.extraClients.push(cli);
    await cli.start();
    fx.core.server.on({ lastUserIncludes: 'user work H' }, { text: 'done H' });
    const session = await cli.createSession({ workingDirectory: fx.project, streaming: true, onPermissionRequest: () => ({ kind: 'reject' }) });
    await runTurn(session, 'user work H');
    await session.disconnect();
    // As services.ts builds it: the environment (with the user's COPILOT_HOME), no copilotHome option.
    await fx.core.restart({ runtime: { env, workingDirectory: fx.core.workspace, gitHubToken: 'fake' } });
    // It listed nothing: the runtime, given no COPILOT_HOME (not on the allowlist), looked in ~/.copilot.
    assert.ok(
      (await fx.core.pool.machine.list()).some((l) => l.sessionId === session.sessionId),
      "the user's CLI session is listed",
    );
  });

  it('a killed attached worker is no longer shown as its session\u2019s worker (it cannot be continued)', async () => {
    const env = fx.core.env;
    const cli = new CopilotClient({ env, baseDirectory: env.COPILOT_HOME, gitHubToken: 'fake', workingDirectory: fx.project, logLevel: 'error' });
    fx.extraClients.push(cli);
    await cli.start();
    fx.core.server.on({ lastUserIncludes: 'user work K' }, { text: 'done K' });
    const session = await cli.createSession({ workingDirectory: fx.project, streaming: true, onPermissionRequest: () => ({ kind: 'reject' }) });
    await runTurn(session, 'user work K');
    await session.disconnect();
    await fx.core.pool.machine.attach(session.sessionId, 'k');
    assert.equal((await fx.core.pool.machine.list()).find((l) => l.sessionId === session.sessionId)?.worker, 'k');
    await fx.core.pool.kill('k');
    await assert.rejects(fx.core.pool.send('k', 'more'), /Worker 'k' was killed/);
    assert.equal((await fx.core.pool.machine.list()).find((l) => l.sessionId === session.sessionId)?.worker, undefined);
  });

  it('keeps undelivered results and old rows across a restart: cleans stale rows and delivers pending results', async () => {
    // The orchestrator is busy, so the finished worker's result waits in its queue when the window closes.
    fx.core.server.on({ lastUserIncludes: '[via panel] a long question' }, { textThenHang: 'thinking' });
    const busy = fx.core.orchestrator.enqueue('a long question', { channel: 'panel' });
    await waitFor('the busy turn to stream', () => fx.core.events.some((e) => e.type === 'turn.delta'));
    fx.core.server.on({ lastUserIncludes: 'TASK-lost' }, { text: 'Result while the window closed.' });
    await fx.core.pool.create({ name: 'lost', workingDir: fx.project, prompt: 'TASK-lost' });
    await waitFor('the stored result', () => fx.store.inbox.length === 1 && !fx.core.pool.listActive().length && fx.delivered().length === 1);
    assert.equal(fx.store.undeliveredInbox().length, 1, 'queued behind a turn is not delivered');

    // A running worker the window took with it, and an idle one.
    fx.store.upsertWorker({
      name: 'ghost',
      copilot_session_id: 'gone-1',
      working_dir: fx.project,
      status: 'running',
      last_output: 'half way',
      origin: 'command',
    });
    fx.store.upsertWorker({ name: 'idler', copilot_session_id: 'gone-2', working_dir: fx.project, status: 'idle', last_output: null, origin: 'panel' });
    fx.answerResults('lost', 'The lost result arrived.');
    fx.answerResults('ghost', 'The ghost worker was interrupted.');
    fx.core.events.length = 0;
    await fx.core.restart();
    await assert.rejects(busy.done, /closed while answering/);
    fx.core.server.releaseHeld();

    assert.deepEqual(fx.core.store.listWorkers(), [], 'stale rows are cleaned at start');
    assert.ok(fx.core.logger.lines.some((l) => /Cleaned 2 worker\(s\) left by a previous window: .*'ghost' \(running\)/.test(l) && /'idler' \(idle\)/.test(l)));
    await waitFor('both results answered', () => fx.backgroundDone() === 2);
    // Delivered while createBatonCore ran (before a test can listen): read from the log and the turns' ends.
    const results = fx.core.store.recentLog(20).filter((e) => e.role === 'system' && e.source.startsWith('background:'));
    // The copy queued when the window closed is set aside (not shown twice); the inbox delivered it again.
    assert.deepEqual(
      results.map((e) => [e.source, e.status]),
      [
        ['background:lost', 'cancelled'],
        ['background:lost', 'complete'],
        ['background:ghost', 'complete'],
      ],
    );
    results.shift();
    assert.match(results[0]!.content, /^\[Background task completed\] Worker 'lost' finished:[\s\S]*Result while the window closed/);
    assert.match(results[1]!.content, /^\[Background task completed\] Worker 'ghost' failed: its task was interrupted when VS Code closed[\s\S]*half way/);
    const ends = fx.core.events.flatMap((e) => (e.type === 'turn.completed' && e.origin.channel === 'background' ? [e.origin] : []));
    assert.deepEqual(ends[1], { channel: 'background', worker: 'ghost', replyTo: 'command', conversation: 'main' });
    assert.equal(fx.core.store.undeliveredInbox().length, 0);
    assert.equal(await fx.core.pool.deliverPending(), 0, 'nothing is delivered twice');
  });

  it("sweeps orphaned session folders from Baton's own folder at start; never a referenced, recent or user's session", async () => {
    const own = (id: string) => join(fx.core.storageDir, 'copilot-sessions', 'session-state', id);
    const old = new Date(Date.now() - 60 * 60_000);
    const make = async (dir: string, age?: Date) => {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'events.jsonl'), '{}\n');
      if (age) await utimes(dir, age, age);
    };
    const [orphan, recent, saved, users] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await make(own(orphan), old);
    await make(own(recent));
    await make(own(saved), old);
    // The user's own CLI session, in their Copilot home: never looked at.
    await make(join(fx.core.env.COPILOT_HOME!, 'session-state', users), old);
    fx.core.store.setState('orchestrator_session_id', saved);
    // File snapshots the runtime left in the Copilot home for workers of an earlier version: the copies of files in
    // Baton's worktrees go; those of a folder of the user's, and a CLI session's own, stay.
    const home = (id: string) => join(fx.core.env.COPILOT_HOME!, 'session-state', id);
    await mkdir(join(fx.core.storageDir, 'worktrees'), { recursive: true });
    const worktrees = await realpath(join(fx.core.storageDir, 'worktrees'));
    const snapshots = async (id: string, files: string[]) => {
      await mkdir(join(home(id), 'rewind-file-snapshots', 'backups'), { recursive: true });
      await writeFile(join(home(id), 'rewind-file-snapshots', 'backups', 'f00d'), 'a copy of the file\n');
      const entries = Object.fromEntries(files.map((f, i) => [`h${i}`, { path: f, preimage: { kind: 'content', resolvedPath: f } }]));
      await writeFile(join(home(id), 'rewind-file-snapshots', 'index.json'), JSON.stringify({ schema: 1, snapshots: [{ files: entries }] }));
    };
    const [leftByWorker, leftInPlace] = [randomUUID(), randomUUID()];
    await snapshots(leftByWorker, [join(worktrees, 'app-1a2b', 'src', 'app.ts'), join(worktrees, 'app-1a2b', 'README.md')]);
    await snapshots(leftInPlace, [join(worktrees, 'app-1a2b', 'a.ts'), join(fx.core.home, 'dev', 'plain', 'notes.txt')]);
    await snapshots(users, [join(worktrees, 'app-1a2b', 'src', 'app.ts')]);
    // A claim left by a process that is gone.
    await mkdir(join(fx.core.storageDir, 'claims'), { recursive: true });
    await writeFile(join(fx.core.storageDir, 'claims', `${orphan}.claim`), JSON.stringify({ pid: 2 ** 22 + 17, host: hostname() }));
    await fx.core.restart();
    await waitFor('the orphan to be swept', () => !existsSync(own(orphan)));
    assert.ok(existsSync(own(recent)), 'a folder changed in the last minutes stays (another window may be creating it)');
    assert.ok(existsSync(own(saved)), "the orchestrator's saved session stays");
    await waitFor('the snapshots left by a worker to be swept', () => !existsSync(home(leftByWorker)));
    assert.deepEqual((await readdir(home(users))).sort(), ['events.jsonl', 'rewind-file-snapshots'], "the user's own session is never touched");
    assert.ok(existsSync(join(home(leftInPlace), 'rewind-file-snapshots', 'backups', 'f00d')), "a copy of a file of the user's own folder stays");
    assert.ok(!existsSync(join(fx.core.storageDir, 'claims', `${orphan}.claim`)), "a dead process's claim is removed");
    assert.equal(fx.core.server.chatRequests().length, 0, 'the sweep sent nothing');
  });

  it('sweeps again while Baton runs: a session folder orphaned after the start (a conversation pushed out) goes without a restart', async () => {
    await fx.core.restart({ sessionSweepEveryMs: 300 });
    // The start's own sweep is over by then: what follows is made after it.
    await new Promise((r) => setTimeout(r, 500));
    const own = (id: string) => join(fx.core.storageDir, 'copilot-sessions', 'session-state', id);
    const [gone, saved] = [randomUUID(), randomUUID()];
    const old = new Date(Date.now() - 60 * 60_000);
    for (const id of [gone, saved]) {
      await mkdir(own(id), { recursive: true });
      await writeFile(join(own(id), 'events.jsonl'), '{}\n');
      await utimes(own(id), old, old);
    }
    // A conversation's saved session, as the store holds it: the other's conversation was pushed out, nothing names it.
    fx.core.store.setState('orchestrator_session_id', saved);
    await waitFor('the orphan to be swept by the next round', () => !existsSync(own(gone)));
    await new Promise((r) => setTimeout(r, 700));
    assert.ok(existsSync(own(saved)), 'the saved session stays, round after round');
    assert.equal(fx.core.server.chatRequests().length, 0, 'the sweep sent nothing');
  });
});
