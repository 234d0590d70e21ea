// The commands declared at activation and implemented once the core is built (src/vscode/deferredCommands.ts), with a
// fake of what they need of VS Code: a call made early waits for its implementation; once the core failed to build,
// every call (waiting then, or made any time after) is answered at once with why, never left waiting.
import * as assert from 'node:assert/strict';
import { declareCommands, failDeclaredCommands, provideCommand, StartFailure, type CommandHost } from '../../src/vscode/deferredCommands';

type Run = (...args: unknown[]) => unknown;

/** A fake of VS Code's command registry, and a record of the calls refused. */
class FakeCommandHost implements CommandHost {
  readonly commands = new Map<string, Run>();
  readonly refusals: Array<{ id: string; message: string }> = [];

  registerCommand(id: string, run: Run) {
    assert.ok(!this.commands.has(id), `${id} registered twice`);
    this.commands.set(id, run);
    return { dispose: () => this.commands.delete(id) };
  }

  refused(id: string, failure: StartFailure): unknown {
    this.refusals.push({ id, message: failure.message });
    return 'refused';
  }

  run(id: string, ...args: unknown[]): Promise<unknown> {
    return Promise.resolve(this.commands.get(id)!(...args));
  }
}

/** The call's outcome, or 'still waiting' if it has none by then. */
function settledWithin(call: Promise<unknown>, ms = 500): Promise<unknown> {
  return Promise.race([call, new Promise((resolve) => setTimeout(() => resolve('still waiting'), ms))]);
}

describe('deferred commands', () => {
  let host: FakeCommandHost;
  let declared: { dispose(): void };

  beforeEach(() => {
    host = new FakeCommandHost();
    declared = declareCommands(['baton.memory.add', 'baton.killWorker', 'baton.applyChanges'], host);
  });
  afterEach(() => declared.dispose());

  it('registers every id at once; a call made before the core is built waits, then runs its implementation with its arguments', async () => {
    assert.deepEqual([...host.commands.keys()].sort(), ['baton.applyChanges', 'baton.killWorker', 'baton.memory.add']);
    const early = host.run('baton.killWorker', 'w1');
    assert.equal(await settledWithin(early, 50), 'still waiting');
    provideCommand('baton.killWorker', (name: string) => `killed ${name}`);
    assert.equal(await early, 'killed w1');
    assert.equal(await host.run('baton.killWorker', 'w2'), 'killed w2');
    assert.deepEqual(host.refusals, []);
  });

  it('once the core failed to build, a call waiting then and every call after are refused at once with why', async () => {
    const waiting = host.run('baton.memory.add');
    failDeclaredCommands(new Error('store could not open'));
    assert.equal(await settledWithin(waiting), 'refused');
    // Never called before the failure: the case that waited forever (Kill Worker, Apply, a welcome view's link).
    assert.equal(await settledWithin(host.run('baton.killWorker', 'w1')), 'refused');
    assert.equal(await settledWithin(host.run('baton.applyChanges', 'w1')), 'refused');
    assert.deepEqual(
      host.refusals.map((r) => r.id),
      ['baton.memory.add', 'baton.killWorker', 'baton.applyChanges'],
    );
    for (const { message } of host.refusals) {
      assert.match(message, /^Baton did not start: store could not open\. /);
      assert.match(message, /Doctor report/);
    }
  });

  it('a window that starts again (disposed and declared anew) waits for its implementations again', async () => {
    failDeclaredCommands(new Error('store could not open'));
    declared.dispose();
    host = new FakeCommandHost();
    declared = declareCommands(['baton.killWorker'], host);
    const call = host.run('baton.killWorker', 'w1');
    assert.equal(await settledWithin(call, 50), 'still waiting');
    provideCommand('baton.killWorker', (name: string) => `killed ${name}`);
    assert.equal(await call, 'killed w1');
  });
});
