// Baton's tool helper and its per-turn journal: arguments checked with zod, failures told to the
// model, and a side effect done once per turn however often the runtime asks (the same call id
// again, or the same arguments after a retried turn), while a new turn does it again.
import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { defineBatonTool, TOOL_OUTPUT_BYTES, ToolFailure, ToolJournal, type BatonTool } from '../../src/core/copilot/batonTool';
import type { ToolResultObject } from '../../src/core/copilot/sdkTypes';
import { fail, Gate, reply, sequence, tool } from '../support/inMemoryAgentSessions';
import { unitOrchestrator } from '../support/unitOrchestrator';

function invoke(t: BatonTool, args: unknown, toolCallId: string): Promise<unknown> {
  return Promise.resolve(t.handler!(args, { sessionId: 's', toolCallId, toolName: t.name, arguments: args }));
}

describe('defineBatonTool and ToolJournal', () => {
  let journal: ToolJournal;
  let effects: string[];
  const schema = z.object({ name: z.string().min(1), size: z.number().int().optional() });
  const make = (sideEffect: boolean, run?: (a: z.output<typeof schema>) => string): BatonTool =>
    defineBatonTool(
      {
        name: 'make',
        description: 'test',
        schema,
        sideEffect,
        run: run ?? ((a) => (effects.push(a.name), `made ${a.name} (#${effects.length})`)),
      },
      journal,
    );

  beforeEach(() => {
    journal = new ToolJournal();
    effects = [];
  });

  it('keeps a result under the 20 KB the runtime passes to the model: whole when it fits, else its start and a note', async () => {
    const fits = 'a'.repeat(TOOL_OUTPUT_BYTES);
    assert.equal(
      await invoke(
        make(false, () => fits),
        { name: 'x' },
        'call-1',
      ),
      fits,
    );
    const big = `${'é'.repeat(7000)}😀${'b'.repeat(100_000)}`;
    const cut = String(
      await invoke(
        make(false, () => big),
        { name: 'x' },
        'call-2',
      ),
    );
    assert.ok(Buffer.byteLength(cut) <= TOOL_OUTPUT_BYTES, `${Buffer.byteLength(cut)} bytes`);
    assert.ok(cut.endsWith('\n\n[Output cut here: a tool result reaches the model only up to 20 KB.]'));
    const kept = cut.slice(0, cut.indexOf('\n\n[Output cut here'));
    assert.ok(big.startsWith(kept) && Buffer.byteLength(kept) > 19_900, `kept ${Buffer.byteLength(kept)} bytes of the start`);
    assert.equal(kept.slice(7000, 7002), '😀', 'never half of a character');
  });

  it('within a turn, the same call id runs once and both calls get the first result', async () => {
    const t = make(false);
    journal.begin('turn-1');
    assert.equal(await invoke(t, { name: 'a' }, 'call-1'), 'made a (#1)');
    assert.equal(await invoke(t, { name: 'a' }, 'call-1'), 'made a (#1)');
    assert.deepEqual(effects, ['a']);
    assert.equal(journal.replays, 1);
  });

  it('a side-effecting tool with the same arguments under a new call id in a retried attempt runs once; key order does not matter', async () => {
    const t = make(true);
    journal.begin('turn-1');
    assert.equal(await invoke(t, { name: 'a', size: 2 }, 'call-1'), 'made a (#1)');
    journal.retrying('turn-1');
    assert.equal(await invoke(t, { size: 2, name: 'a' }, 'call-2'), 'made a (#1)');
    assert.equal(await invoke(t, { name: 'b', size: 2 }, 'call-3'), 'made b (#2)', 'other arguments are another effect');
    assert.equal(await invoke(t, { name: 'a', size: 2 }, 'call-4'), 'made a (#3)', 'one earlier run answers one call');
    assert.deepEqual(effects, ['a', 'b', 'a']);
  });

  it('within one attempt every call runs: do, undo, do again is three effects (an answer from the journal said done when nothing was)', async () => {
    const t = make(true);
    const undo = make(true);
    journal.begin('turn-1');
    assert.equal(await invoke(t, { name: 'a' }, 'call-1'), 'made a (#1)');
    assert.equal(await invoke(undo, { name: 'un-a' }, 'call-2'), 'made un-a (#2)');
    assert.equal(await invoke(t, { name: 'a' }, 'call-3'), 'made a (#3)');
    // A retry after all three (the runtime lost the last result): the model asks for the last one again, answered.
    journal.retrying('turn-1');
    assert.equal(await invoke(t, { name: 'a' }, 'call-4'), 'made a (#1)');
    assert.deepEqual(effects, ['a', 'un-a', 'a']);
  });

  it('a tool without side effects runs again for the same arguments under a new call id', async () => {
    const t = make(false);
    journal.begin('turn-1');
    await invoke(t, { name: 'a' }, 'call-1');
    await invoke(t, { name: 'a' }, 'call-2');
    assert.deepEqual(effects, ['a', 'a']);
  });

  it('a new turn runs it again, and outside a turn (a worker’s own call) nothing is journaled', async () => {
    const t = make(true);
    journal.begin('turn-1');
    await invoke(t, { name: 'a' }, 'call-1');
    journal.end('turn-1');
    await invoke(t, { name: 'a' }, 'call-1');
    await invoke(t, { name: 'a' }, 'call-1');
    journal.begin('turn-2');
    assert.equal(await invoke(t, { name: 'a' }, 'call-1'), 'made a (#4)');
    assert.deepEqual(effects, ['a', 'a', 'a', 'a']);
  });

  it('ending an older scope does not end the current turn', async () => {
    const t = make(true);
    journal.begin('turn-1');
    journal.begin('turn-2');
    journal.end('turn-1');
    await invoke(t, { name: 'a' }, 'call-1');
    journal.retrying('turn-1');
    journal.retrying('turn-2');
    await invoke(t, { name: 'a' }, 'call-2');
    assert.deepEqual(effects, ['a']);
  });

  it('a retried attempt asking while the first run still runs shares that run', async () => {
    const gate = new Gate();
    let runs = 0;
    const t = defineBatonTool(
      {
        name: 'slow',
        description: 'test',
        schema: z.object({}),
        sideEffect: true,
        run: async () => {
          runs++;
          await gate.promise;
          return 'done once';
        },
      },
      journal,
    );
    journal.begin('turn-1');
    const first = invoke(t, {}, 'call-1');
    journal.retrying('turn-1');
    const both = Promise.all([first, invoke(t, {}, 'call-2')]);
    gate.open();
    assert.deepEqual(await both, ['done once', 'done once']);
    assert.equal(runs, 1);
  });

  it('answers bad arguments, ToolFailures and crashes as failure results the model can act on', async () => {
    const bad = (await invoke(make(false), { name: '', size: 1.5 }, 'c1')) as ToolResultObject;
    assert.equal(bad.resultType, 'failure');
    assert.match(bad.textResultForLlm, /^Invalid arguments for make: name: .*; size: .*\. Fix them and call make again\.$/);
    const refused = (await invoke(
      make(false, () => {
        throw new ToolFailure('Too many workers: 5 of 5 are active.');
      }),
      { name: 'a' },
      'c2',
    )) as ToolResultObject;
    assert.deepEqual([refused.resultType, refused.textResultForLlm], ['failure', 'Too many workers: 5 of 5 are active.']);
    // What the model can do, in its tools' names, is added for the model only (a command shows the message alone).
    const hinted = (await invoke(
      make(false, () => {
        throw new ToolFailure('Too many workers: 5 of 5 are active. Wait for one to finish or stop one.', 'kill_session stops one.');
      }),
      { name: 'a' },
      'c2b',
    )) as ToolResultObject;
    assert.equal(hinted.textResultForLlm, 'Too many workers: 5 of 5 are active. Wait for one to finish or stop one. kill_session stops one.');
    const crashed = (await invoke(
      make(false, () => {
        throw new Error('disk full\n    at stack');
      }),
      { name: 'a' },
      'c3',
    )) as ToolResultObject;
    assert.equal(crashed.textResultForLlm, 'make failed: disk full');
    assert.deepEqual(effects, []);
  });
});

describe('Baton tools in orchestrator turns (in-memory runtime)', () => {
  const { start } = unitOrchestrator();

  const remember = { category: 'fact', content: 'The build uses pnpm' };

  it('a memory saved twice in one turn with the same call id is saved once; a new turn runs the tool again', async () => {
    const { sessions, core } = await start();
    sessions.script(
      'orchestrator',
      sequence(tool('remember', remember, 'call-1'), tool('remember', remember, 'call-1'), reply('saved')),
      sequence(tool('remember', remember, 'call-1'), reply('again')),
    );
    await core.orchestrator.enqueue('remember pnpm', { channel: 'panel' }).done;
    assert.equal(core.store.listMemories().length, 1);
    const [first, second] = sessions.toolResults;
    assert.match(first?.result ?? '', /^Remembered \(#1, fact\)/);
    assert.equal(second?.result, first?.result, 'the replay hands back the first result');
    assert.equal(core.toolJournal.replays, 1);
    // The next turn is a new scope: the tool runs (and the store answers it is a duplicate).
    await core.orchestrator.enqueue('remember it again', { channel: 'panel' }).done;
    assert.equal(sessions.toolResults[2]?.result, 'Already remembered as #1 (fact): "The build uses pnpm"');
    assert.equal(core.toolJournal.replays, 1);
  });

  it('a worker started inside a turn that the runtime lost is started once when the retried turn asks again', async () => {
    const { sessions, core, workDir } = await start();
    const create = { name: 'w1', working_dir: workDir, initial_prompt: 'fix the tests' };
    const workerDone = new Gate();
    sessions.script(
      'orchestrator',
      // The session is lost right after the tool ran, so the model never saw its result; the runtime has the prompt.
      // (A 'session' failure: a connection failure would restart the runtime and take the worker's session with it.)
      sequence(tool('create_worker_session', create, 'call-a'), fail('session', { delivered: true })),
      // Answering the nudge, the model asks for the same worker again (a new call id).
      sequence(tool('create_worker_session', create, 'call-b'), reply('Started w1.')),
    );
    sessions.script('worker', async (ctx) => {
      await ctx.wait(workerDone.promise);
      await ctx.say('tests fixed');
    });
    sessions.scriptWhen('orchestrator', (p) => p.startsWith("[Background task completed] Worker 'w1' finished"), reply('w1 is done'));
    const result = await core.orchestrator.enqueue('start a worker', { channel: 'panel' }).done;
    assert.equal(result.content, 'Started w1.');
    const [a, b] = sessions.toolResults;
    assert.match(a?.result ?? '', /^On it — worker 'w1' started/);
    assert.equal(b?.result, a?.result);
    assert.deepEqual(
      core.pool.listActive().map((w) => w.name),
      ['w1'],
    );
    assert.equal(sessions.created.filter((s) => s.role === 'worker').length, 1, 'one worker session');
    workerDone.open();
    await new Promise<void>((resolve) => {
      const off = core.orchestrator.onEvent((e) => {
        if (e.type === 'turn.completed' && e.origin.channel === 'background') {
          off();
          resolve();
        }
      });
    });
    assert.deepEqual(
      sessions.runs.filter((r) => r.role === 'worker').map((r) => r.prompt),
      ['fix the tests'],
    );
    assert.equal(core.store.undeliveredInbox().length, 0);
  });

  it("two conversations answering at once keep their own journals: another's turn does not make a retried call run twice", async () => {
    const { sessions, core, workDir } = await start();
    const create = { name: 'w2', working_dir: workDir, initial_prompt: 'fix the lint' };
    const otherAnswered = new Gate();
    const workerDone = new Gate();
    sessions.scriptWhen(
      'orchestrator',
      (p) => p.includes('start a worker'),
      // The tool runs; then, while another conversation's turn begins and ends, the session is lost.
      sequence(tool('create_worker_session', create, 'call-a'), async (ctx) => ctx.wait(otherAnswered.promise), fail('session', { delivered: true })),
    );
    sessions.scriptWhen('orchestrator', (p) => p.includes('meanwhile, hello'), reply('hello'));
    sessions.script('orchestrator', sequence(tool('create_worker_session', create, 'call-b'), reply('Started w2.')));
    sessions.script('worker', async (ctx) => {
      await ctx.wait(workerDone.promise);
      await ctx.say('lint fixed');
    });
    sessions.scriptWhen('orchestrator', (p) => p.startsWith("[Background task completed] Worker 'w2' finished"), reply('w2 is done'));
    const started = core.orchestrator.enqueue('start a worker', { channel: 'panel' });
    while (sessions.toolResults.length < 1) await new Promise((r) => setTimeout(r, 5));
    const other = core.conversations.get(core.conversations.create());
    assert.equal((await other.enqueue('meanwhile, hello', { channel: 'panel' }).done).content, 'hello');
    otherAnswered.open();
    assert.equal((await started.done).content, 'Started w2.');
    const [a, b] = sessions.toolResults;
    assert.match(a?.result ?? '', /^On it — worker 'w2' started/);
    assert.equal(b?.result, a?.result, "the retried call is answered from its conversation's journal");
    assert.equal(sessions.created.filter((s) => s.role === 'worker').length, 1, 'one worker session');
    assert.equal(core.toolJournal.replays, 1);
    workerDone.open();
    while (!core.store.recentLog(20).some((e) => e.content === 'w2 is done')) await new Promise((r) => setTimeout(r, 5));
  });
});
