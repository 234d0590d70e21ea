// A fork of a machine session ("baton: <name>", made by the sidebar's Fork or attach_machine_session with fork: true) is
// Baton's own copy, in the user's Copilot home: against the REAL runtime, it is deleted from there once its worker's
// task ends with nothing pending (finished, or killed idle), as a session Baton created is; the session it was forked
// from and an attached one (the user's own) stay.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { userCliSessions } from '../support/userCliSessions';
import { waitFor } from '../support/waitFor';
import { useWorkerCore } from '../support/workerCore';

describe('forks of machine sessions are deleted with their worker\u2019s work (real runtime)', function () {
  this.timeout(90_000);
  const fx = useWorkerCore();

  it('a finished fork and a killed one leave the Copilot home; the source and an attached session stay', async () => {
    const env = fx.core.env;
    const ids = await userCliSessions(fx, ['cli task one', 'cli task two']);
    const [source, user] = ids as [string, string];
    const folder = (id: string) => join(env.COPILOT_HOME!, 'session-state', id);
    const pool = fx.core.pool;

    // Forked, given a task that changes nothing: gone once the task ended.
    const finished = await pool.machine.attach(source, 'copy', { fork: true });
    assert.equal(finished.source, 'forked');
    assert.ok(existsSync(folder(finished.sessionId!)), 'the fork lives in the Copilot home');
    fx.core.server.on({ lastUserIncludes: 'TASK-copy' }, { text: 'Nothing to change.' });
    fx.answerResults('copy', 'noted');
    await pool.send('copy', 'TASK-copy');
    await waitFor('the fork to finish', () => pool.list().find((w) => w.name === 'copy' && w.state === 'done'));
    await waitFor('the finished fork deleted', () => !existsSync(folder(finished.sessionId!)));

    // Forked from the sidebar and killed while idle: gone too.
    const killed = await pool.machine.fork(source, 'copy2', { replyTo: 'command' });
    assert.ok(existsSync(folder(killed.sessionId!)));
    await pool.kill('copy2');
    await waitFor('the killed fork deleted', () => !existsSync(folder(killed.sessionId!)));

    // Attached (the user's own session): it outlives its worker, finished and killed.
    await pool.machine.attach(user, 'mine');
    fx.core.server.on({ lastUserIncludes: 'TASK-mine' }, { text: 'Picked it up.' });
    fx.answerResults('mine', 'noted');
    await pool.send('mine', 'TASK-mine');
    await waitFor('the attached worker to finish', () => pool.list().find((w) => w.name === 'mine' && w.state === 'done'));
    await pool.machine.attach(user, 'mine-again');
    await pool.kill('mine-again');

    assert.ok(existsSync(join(folder(source), 'events.jsonl')), 'the source session stays');
    assert.ok(existsSync(join(folder(user), 'events.jsonl')), 'the attached session stays');
    assert.deepEqual(new Set((await pool.machine.list()).map((s) => s.sessionId)), new Set([source, user]), 'no "baton: <name>" left in the list');
  });
});
