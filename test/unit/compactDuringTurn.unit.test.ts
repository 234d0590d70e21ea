// The compact command (Orchestrator.summarizeNow, the API's compact) asked while a turn runs: the summary waits for
// that turn, so the turn must never wait for the summary, neither at the lock (it was still opening its session) nor
// after it settles (its own summarize policy's compaction). Both waits used to hold the turn and the summary for ever.
// Turns asked after the command still wait behind the summary (lock.waiting).
import * as assert from 'node:assert/strict';
import { Gate, reply } from '../support/inMemoryAgentSessions';
import { eachUnitCore, nextEvent, until, type UnitCore } from '../support/inMemoryCore';

/** What `p` settled with within `ms`, or 'still waiting': a deadlock fails the test instead of hanging it. */
function within<T>(p: Promise<T>, ms: number): Promise<T | 'still waiting'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still waiting'>((resolve) => (timer = setTimeout(() => resolve('still waiting'), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

describe('compact asked while a turn runs (in-memory runtime)', () => {
  let f: UnitCore;
  eachUnitCore((core) => (f = core));

  it("the running turn ends though its summarize policy compacts too: the command's summary folds it, once", async () => {
    const o = f.core.orchestrator;
    o.setSummarizePolicy({ afterTurns: 1, keep: 1 });
    f.sessions.script('orchestrator', reply('a1'));
    await o.enqueue('first question', { channel: 'panel' }).done;
    const gate = new Gate();
    f.sessions.script('orchestrator', async (ctx) => {
      await ctx.wait(gate.promise);
      await ctx.say('a2');
    });
    const second = o.enqueue('second question', { channel: 'panel' });
    await until(() => f.sessions.inFlight === 1, 'the second turn to run');
    f.sessions.script('summarizer', reply('SUMMARY of both'));
    const compacting = o.summarizeNow();
    gate.open();

    const settled = await within(
      second.done.then((r) => r.status),
      2000,
    );
    assert.equal(settled, 'complete', 'the turn ends');
    const compaction = await within(compacting, 2000);
    assert.equal(compaction === 'still waiting' ? compaction : compaction?.summary, 'SUMMARY of both');
    assert.equal(compaction === 'still waiting' ? -1 : compaction?.kept, 1, 'made after the turn: its reply is the one kept');
    assert.deepEqual(
      f.events.filter((e) => e.type === 'compaction.applied').map((e) => e.turnId),
      [undefined],
      "one compaction, the command's: the policy's would have folded the same messages",
    );

    f.sessions.script('orchestrator', reply('a3'));
    assert.equal((await within(o.enqueue('third question', { channel: 'panel' }).done, 2000)) === 'still waiting', false, 'the next turn runs');
    assert.deepEqual(
      f.sessions.runs.map((r) => r.role),
      ['orchestrator', 'orchestrator', 'summarizer', 'orchestrator'],
      'the summary never interleaves with a turn',
    );
    assert.match(f.sessions.orchestratorPrompts.at(-1) ?? '', /SUMMARY of both[\s\S]*Assistant: a2/);
  });

  it('a turn still opening its session goes on; a turn asked after the command waits behind the summary', async () => {
    f.settings.turnTimeoutMs = 3000;
    const o = f.core.orchestrator;
    const opening = new Gate();
    let creating = false;
    f.sessions.beforeCreate = async (spec) => {
      if (spec.role !== 'orchestrator') return;
      creating = true;
      await opening.promise;
    };
    f.sessions.script('orchestrator', reply('answer'));
    const first = o.enqueue('a first message', { channel: 'panel' });
    await until(() => creating, 'the session to be opening');
    const summarizing = new Gate();
    f.sessions.script('summarizer', async (ctx) => {
      await ctx.wait(summarizing.promise);
      await ctx.say('SUMMARY');
    });
    const compacting = o.summarizeNow(1);
    opening.open();

    const r = await within(first.done, 2000);
    assert.deepEqual(r === 'still waiting' ? r : [r.status, r.content], ['complete', 'answer'], 'the turn is answered, not timed out empty');
    assert.ok(!f.events.some((e) => e.type === 'lock.waiting' && e.turnId === first.turnId), 'it never waited for the summary');

    await until(() => f.sessions.runs.some((run) => run.role === 'summarizer'), 'the summary to start after the turn');
    const held = nextEvent(f.core, 'lock.waiting');
    f.sessions.script('orchestrator', reply('second answer'));
    const second = o.enqueue('a second message', { channel: 'panel' });
    assert.equal((await held).turnId, second.turnId, 'asked after the command, it waits behind the summary');
    summarizing.open();
    assert.equal((await within(compacting, 2000)) === 'still waiting' ? 'still waiting' : 'made', 'made');
    assert.equal((await second.done).content, 'second answer');
    assert.match(f.sessions.orchestratorPrompts.at(-1) ?? '', /^\[System: conversation compacted\][\s\S]*SUMMARY/);
  });
});
