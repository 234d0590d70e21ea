// A Copilot CLI session keeps its permission mode in its saved state: one the user switched to allow-all (`/allow-all`,
// `--yolo`) is still allow-all when Baton brings it in, and the runtime then approves every tool by itself, without
// asking Baton's permission handler. Against the REAL runtime and the user's own CLI (another client on the same
// Copilot home): attached or forked, such a session's tools go through Baton's handler (src/core/copilot/handlerOnly.ts),
// so a protected file is refused and anything else is asked, with the sandbox off.
import * as assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { userCliSessions } from '../support/userCliSessions';
import { waitFor } from '../support/waitFor';
import { useWorkerCore } from '../support/workerCore';

describe('machine sessions the user set to allow-all (real runtime, the user\u2019s CLI beside Baton)', function () {
  this.timeout(90_000);
  const fx = useWorkerCore();

  it('attached or forked, every tool still goes through Baton: a protected file refused, the rest asked', async () => {
    await writeFile(join(fx.home, '.ssh', 'id_rsa'), 'SECRET-KEY-7731\n');
    await writeFile(join(fx.home, 'notes.txt'), 'NOTES-OUTSIDE-4410\n');
    // The user's own Copilot CLI, in allow-all mode for its sessions.
    const ids = await userCliSessions(fx, ['cli task one', 'cli task two'], async (s) => {
      assert.equal((await s.rpc.permissions.setMode({ mode: 'allow-all' })).mode, 'allow-all');
    });

    fx.core.workerSettings.sandbox = 'off';
    fx.core.broker.answer = 'deny';
    const pool = fx.core.pool;
    await pool.machine.attach(ids[0]!, 'attached');
    await pool.machine.attach(ids[1]!, 'forked', { fork: true });
    for (const name of ['attached', 'forked']) {
      const task = `TASK-${name}`;
      const own = (r: { lastUserText?: string; messages: Array<{ role: string }> }) => (r.lastUserText ?? '').includes(task);
      fx.core.server.on(
        { predicate: (r) => own(r) && r.messages.at(-1)?.role !== 'tool', name: `${name} reads` },
        {
          toolCalls: [
            { id: `${name}-key`, name: 'bash', arguments: { command: `cat ${join(fx.home, '.ssh', 'id_rsa')}`, description: 'key' } },
            { id: `${name}-notes`, name: 'bash', arguments: { command: `cat ${join(fx.home, 'notes.txt')}`, description: 'notes' } },
          ],
        },
      );
      fx.core.server.on({ predicate: (r) => own(r) && r.messages.at(-1)?.role === 'tool', name: `${name} reports` }, { text: `${name}: could not` });
      fx.answerResults(name, 'noted');
      await pool.send(name, task);
      await waitFor(`${name} to finish`, () => pool.list().find((w) => w.name === name && w.state === 'done'));
      // Its result answered too: the test ends by checking the model got exactly what was scripted (seen in CI: the
      // last one's answer came after the checks).
      await waitFor(`${name}'s result answered`, () =>
        fx.core.server.chatRequests().some((r) => r.lastUserText?.includes(`[Background task completed] Worker '${name}'`)),
      );
    }

    const sent = JSON.stringify(fx.core.server.chatRequests().map((r) => r.messages));
    assert.doesNotMatch(sent, /SECRET-KEY-7731/, 'the protected file never reached the model');
    assert.doesNotMatch(sent, /NOTES-OUTSIDE-4410/, 'the denied read never reached the model');
    assert.match(sent, /inside the protected path ~\/\.ssh/);
    assert.deepEqual(
      fx.core.broker.asked.map((p) => [p.worker, p.kind, p.detail]),
      ['attached', 'forked'].map((w) => [w, 'shell', `cat ${join(fx.home, 'notes.txt')}`]),
    );
  });
});
