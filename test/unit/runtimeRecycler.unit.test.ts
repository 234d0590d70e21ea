// The idle restart of a grown runtime: when RecyclePolicy says so (unit: readings in, decisions out), and what the
// recycler does on Baton's core as the composition root builds it (the runtime in memory): never while anything uses
// the runtime, a message sent during the restart waits and is answered once, the session resumed.
import * as assert from 'node:assert/strict';
import type { RuntimeStats } from '../../src/core/copilot/agentSessions';
import { DEFAULT_RECYCLE, RecyclePolicy, type RecycleSettings } from '../../src/core/runtime/recyclePolicy';
import { residentBytes, rssSupport } from '../../src/core/util/processMemory';
import { Gate, reply } from '../support/inMemoryAgentSessions';
import { eachUnitCore, nextEvent, until, type UnitCore } from '../support/inMemoryCore';

const MB = 1024 * 1024;
const settings: RecycleSettings = { growth: 1.25, guardGrowth: 1.1, maxSessions: 0, warmupSessions: 3, warmupIdles: 5 };
const stats = (pid: number, sessionsOpened: number): RuntimeStats => ({ pid, sessionsOpened });

describe('RecyclePolicy', () => {
  it('takes the baseline once the runtime has opened the warm-up sessions, and restarts above growth × it', () => {
    const p = new RecyclePolicy();
    assert.deepEqual(p.decide(stats(7, 1), 100 * MB, settings), { restart: false });
    assert.deepEqual(p.decide(stats(7, 2), 150 * MB, settings), { restart: false }, 'still warming up: its steep first growth is not counted');
    assert.deepEqual(p.decide(stats(7, 3), 200 * MB, settings), { restart: false, baseline: 200 * MB });
    assert.deepEqual(p.decide(stats(7, 9), 250 * MB, settings), { restart: false, baseline: 200 * MB }, '1.25× is not above 1.25×');
    const d = p.decide(stats(7, 10), 251 * MB, settings);
    assert.equal(d.restart, true);
    assert.match(
      d.restart ? d.reason : '',
      /grew to 251 MB, 1\.25× the first runtime's 200 MB after warm-up \(baton\.runtime\.restartAtGrowth: 1\.25\); 1\.25× its own 200 MB after warm-up/,
    );
  });

  it('a chat without workers warms up by going idle instead of by sessions', () => {
    const p = new RecyclePolicy();
    for (let i = 0; i < 4; i++) assert.deepEqual(p.decide(stats(7, 1), 100 * MB, settings), { restart: false });
    assert.deepEqual(p.decide(stats(7, 1), 120 * MB, settings), { restart: false, baseline: 120 * MB });
    assert.equal(p.decide(stats(7, 1), 151 * MB, settings).restart, true);
  });

  it('a new runtime (another pid) warms up again, and is held to the first runtime’s bound, not its own', () => {
    const p = new RecyclePolicy();
    p.decide(stats(7, 5), 200 * MB, settings);
    assert.equal(p.baseline, 200 * MB);
    assert.deepEqual(p.decide(stats(8, 1), 300 * MB, settings), { restart: false }, 'warming up: not checked against any bound yet');
    assert.equal(p.baseline, undefined);
    // It warms up bigger than the first (215 vs 200 MB), as a restarted runtime does: the bound stays 1.25 × 200 MB.
    assert.deepEqual(p.decide(stats(8, 3), 215 * MB, settings), { restart: false, baseline: 215 * MB });
    assert.equal(p.reference, 200 * MB, 'the first runtime stays the reference');
    assert.deepEqual(p.decide(stats(8, 9), 250 * MB, settings), { restart: false, baseline: 215 * MB });
    const d = p.decide(stats(8, 10), 251 * MB, settings);
    assert.equal(d.restart, true, 'restarted at 1.25× the first (251 MB), not at 1.25× its own (269 MB)');
    assert.match(d.restart ? d.reason : '', /1\.25× the first runtime's 200 MB after warm-up .*; 1\.17× its own 215 MB after warm-up$/);
  });

  it('the guard: a runtime whose warm size is already near or above the bound is restarted only once it grew 1.1× itself', () => {
    const p = new RecyclePolicy();
    p.decide(stats(7, 3), 200 * MB, settings);
    // The work got bigger: the next runtime's warm size is 260 MB, above the 250 MB bound already.
    assert.deepEqual(p.decide(stats(8, 3), 260 * MB, settings), { restart: false, baseline: 260 * MB });
    for (const rss of [261, 280, 286]) {
      const held = p.decide(stats(8, 4), rss * MB, settings);
      assert.equal(held.restart, false, `${rss} MB is within 1.1× its own warm size: held back`);
      assert.match(
        held.restart ? '' : (held.held ?? ''),
        new RegExp(
          `^its memory is ${rss} MB, \\d\\.\\d\\d× the first runtime's 200 MB after warm-up .*, but it was 260 MB already after its own warm-up: held back until it grows past 1\\.1× that, 286 MB`,
        ),
      );
    }
    assert.equal(p.decide(stats(8, 5), 287 * MB, settings).restart, true, 'past 1.1× its own: the restart gives memory back');
    // Each runtime after it gets the same guard: at most one memory restart per 1.1× growth of its own.
    assert.deepEqual(p.decide(stats(9, 3), 262 * MB, settings), { restart: false, baseline: 262 * MB });
    assert.equal(p.decide(stats(9, 4), 270 * MB, settings).restart, false);
    // A runtime just under the bound after warm-up (240 of 250 MB) gets the 1.1× of its own too, not 4% headroom.
    const q = new RecyclePolicy();
    q.decide(stats(7, 3), 200 * MB, settings);
    q.decide(stats(8, 3), 240 * MB, settings);
    assert.equal(q.decide(stats(8, 4), 260 * MB, settings).restart, false);
    assert.equal(q.decide(stats(8, 5), 265 * MB, settings).restart, true);
  });

  it('the session count restarts where memory cannot be read, and growth 0 turns the memory trigger off', () => {
    const p = new RecyclePolicy();
    const bySessions = { ...settings, maxSessions: 4 };
    assert.deepEqual(p.decide(stats(7, 3), undefined, bySessions), { restart: false });
    const d = p.decide(stats(7, 4), undefined, bySessions);
    assert.equal(d.restart, true);
    assert.match(d.restart ? d.reason : '', /opened 4 sessions \(baton\.runtime\.restartAfterSessions: 4\)/);
    const off = new RecyclePolicy();
    const noGrowth = { ...settings, growth: 0 };
    off.decide(stats(7, 5), 100 * MB, noGrowth);
    assert.deepEqual(off.decide(stats(7, 6), 1000 * MB, noGrowth), { restart: false });
  });

  it('the defaults: 1.2× the first runtime after 20 sessions or 100 idles (guard: 1.1× its own), and 100 sessions', () => {
    assert.deepEqual(DEFAULT_RECYCLE, { growth: 1.2, guardGrowth: 1.1, maxSessions: 100, warmupSessions: 20, warmupIdles: 100 });
  });
});

describe('residentBytes', () => {
  it('reads this process’s RSS where the platform can, and nothing for a process that is not there', async () => {
    if (!rssSupport().available) {
      assert.equal(await residentBytes(process.pid), undefined);
      return;
    }
    const rss = (await residentBytes(process.pid))!;
    const own = process.memoryUsage().rss;
    assert.ok(rss > own / 2 && rss < own * 2, `${rss} vs ${own}`);
    assert.equal(await residentBytes(-1), undefined);
  });

  it('says why not on Windows', () => {
    const support = rssSupport('win32');
    assert.equal(support.available, false);
    assert.match(support.available ? '' : support.reason, /only the session count restarts it/);
  });
});

describe('RuntimeRecycler (composition root, runtime in memory)', () => {
  let f: UnitCore;
  let runtime: Partial<RecycleSettings>;

  eachUnitCore(
    (core) => (f = core),
    () => {
      // The memory trigger cannot fire in memory (no process): the session count stands in for it.
      runtime = { maxSessions: 2 };
      return { overrides: { runtimeQuietMs: 0, settings: { orchestrator: () => f.settings, workers: () => f.workerSettings, runtime: () => runtime } } };
    },
  );

  async function twoSessions(): Promise<string> {
    f.sessions.script('orchestrator', reply('one'));
    await f.core.orchestrator.enqueue('first', { channel: 'panel' }).done;
    f.sessions.script('worker', reply('worked'));
    f.sessions.scriptWhen('orchestrator', (p) => p.startsWith('[Background task completed]'), reply('noted'));
    const noted = nextEvent(f.core, 'turn.completed', (e) => e.origin.channel === 'background');
    await f.core.pool.create({ name: 'w', workingDir: f.workDir, prompt: 'go' });
    await noted;
    await until(() => f.core.orchestrator.idle && !f.core.pool.listActive().length, 'Baton to go idle');
    return f.core.orchestrator.currentSessionId!;
  }

  it('restarts the runtime when idle, resumes the conversation’s session, and the next message is answered there once', async () => {
    const session = await twoSessions();
    assert.equal(await f.core.recycler.check(), 'restarted');
    assert.equal(f.sessions.restarts.length, 1);
    assert.match(f.sessions.restarts[0]!, /^idle restart: it opened 2 sessions/);
    assert.ok(f.logger.lines.some((l) => /Copilot runtime restarted while idle in \d+ ms/.test(l)));
    await until(() => f.core.orchestrator.currentSessionId === session, 'the session resumed ahead of the next message');
    assert.deepEqual(f.sessions.resumed, [session]);
    f.sessions.script('orchestrator', reply('two'));
    const answer = await f.core.orchestrator.enqueue('second', { channel: 'panel' }).done;
    assert.equal(answer.content, 'two');
    assert.equal(f.sessions.orchestratorPrompts.filter((p) => p.endsWith('second')).length, 1);
    assert.equal(f.core.recycler.restarts, 1);
    // What Doctor shows (in memory there is no process to read: its RSS is unknown).
    assert.match(
      await f.core.recycler.describe(),
      /^RSS unknown \(warming up\), 1 session\(s\) opened since it started; restarted when idle at (1\.2× the first runtime's size after warm-up or )?2 sessions; 1 idle restart\(s\) in this window \(the last took \d+ ms\)/,
    );
    assert.deepEqual(
      f.events.filter((e) => e.type === 'turn.failed'),
      [],
    );
  });

  it('a message sent during the restart waits for it and is answered once, on the resumed session; the panel says so meanwhile', async () => {
    const session = await twoSessions();
    const slow = new Gate();
    f.sessions.duringRestart = () => slow.promise;
    const panel: { restarting: boolean; busy: boolean }[] = [];
    const off = f.core.chat.onDidPost((m) => {
      if (m.type === 'state') panel.push({ restarting: m.state.runtimeRestarting === true, busy: m.state.busy });
    });
    const restarting = f.core.recycler.check();
    await until(() => f.sessions.restarts.length === 1, 'the restart to begin');
    assert.equal(f.core.chat.state().runtimeRestarting, true, 'the header says the runtime restarts');
    // The queues are held, but nothing is answering: no Stop, the header says what it is instead.
    assert.deepEqual(panel.at(-1), { restarting: true, busy: false });
    f.sessions.script('orchestrator', reply('after the restart'));
    const during = f.core.orchestrator.enqueue('sent meanwhile', { channel: 'panel' });
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(f.sessions.orchestratorPrompts.filter((p) => p.endsWith('sent meanwhile')).length, 0, 'held while the runtime restarts');
    assert.deepEqual(panel.at(-1), { restarting: true, busy: true }, 'the message waiting shows as answering');
    slow.open();
    assert.equal(await restarting, 'restarted');
    assert.equal((await during.done).content, 'after the restart');
    assert.equal(f.sessions.orchestratorPrompts.filter((p) => p.endsWith('sent meanwhile')).length, 1);
    assert.deepEqual(f.sessions.resumed, [session], 'resumed once, by the turn that waited');
    off();
    assert.equal(f.core.chat.state().runtimeRestarting, undefined, 'the header no longer says so');
    assert.deepEqual(
      panel.filter((p, i) => i === 0 || p.restarting !== panel[i - 1]!.restarting).map((p) => p.restarting),
      [false, true, false],
      'said once as the restart began, and cleared once when it ended',
    );
  });

  // A permission question is asked by a running worker or turn, so these cover it too.
  it('never restarts while a turn runs or a worker runs', async () => {
    await twoSessions();
    const turnGate = new Gate();
    f.sessions.script('orchestrator', async (ctx) => {
      await turnGate.promise;
      await ctx.say('late');
    });
    const running = f.core.orchestrator.enqueue('slow', { channel: 'panel' });
    await until(() => f.sessions.inFlight === 1, 'the turn to run');
    assert.equal(await f.core.recycler.check(), 'busy');
    turnGate.open();
    await running.done;

    const workerGate = new Gate();
    f.sessions.script('worker', async (ctx) => {
      await workerGate.promise;
      await ctx.say('done');
    });
    f.sessions.scriptWhen('orchestrator', (p) => p.startsWith("[Background task completed] Worker 'v'"), reply('ok'));
    const noted = nextEvent(f.core, 'turn.completed', (e) => e.origin.channel === 'background');
    await f.core.pool.create({ name: 'v', workingDir: f.workDir, prompt: 'work' });
    await until(() => f.sessions.inFlight === 1, 'the worker to run');
    assert.equal(await f.core.recycler.check(), 'busy');
    workerGate.open();
    await noted;
    assert.equal(f.sessions.restarts.length, 0);
    await until(() => f.core.orchestrator.idle && !f.core.pool.listActive().length, 'Baton to go idle');
    assert.equal(await f.core.recycler.check(), 'restarted');
  });

  it('Doctor and the log say when the guard holds a memory restart back, and the restart comes once the runtime grew past it', async () => {
    // RSS by runtime: the first warms up at 200 MB; the next (after a restart) at 260 MB, above the first's 240 MB bound.
    const rss = new Map<number, number>();
    runtime = { growth: 1.2, maxSessions: 0, warmupSessions: 1, warmupIdles: 1 };
    await f.restart({
      runtimeQuietMs: 0,
      runtimeRss: async (pid) => rss.get(pid),
      settings: { orchestrator: () => f.settings, workers: () => f.workerSettings, runtime: () => runtime },
    });
    const pid = (): number => f.sessions.runtimeStats()!.pid;
    const check = async (): Promise<string> => {
      await until(() => f.core.orchestrator.idle, 'Baton to go idle');
      return f.core.recycler.check();
    };
    f.sessions.script('orchestrator', reply('one'));
    await f.core.orchestrator.enqueue('first', { channel: 'panel' }).done;
    rss.set(pid(), 200 * MB);
    assert.equal(await check(), 'kept');
    rss.set(pid(), 241 * MB);
    assert.equal(await check(), 'restarted');
    rss.set(pid(), 260 * MB);
    assert.equal(await check(), 'kept', 'the new runtime takes its own warm size');
    rss.set(pid(), 270 * MB);
    assert.equal(await check(), 'kept', 'above the bound, but held back by the guard');
    assert.match(
      await f.core.recycler.describe(),
      /^270 MB \(260 MB after warm-up\), \d session\(s\) opened since it started; restarted when idle at 1\.2× the first runtime's size after warm-up \(240 MB\); 1 idle restart\(s\) in this window \(the last took \d+ ms\); the guard holds a restart back: its memory is 270 MB, 1\.35× the first runtime's 200 MB after warm-up \(baton\.runtime\.restartAtGrowth: 1\.2\), but it was 260 MB already after its own warm-up: held back until it grows past 1\.1× that, 286 MB, so a restart gives memory back/,
    );
    assert.equal(f.logger.lines.filter((l) => l.includes('Not restarting the Copilot runtime yet')).length, 1, 'logged once for this runtime');
    rss.set(pid(), 287 * MB);
    assert.equal(await check(), 'restarted');
    assert.doesNotMatch(await f.core.recycler.describe(), /guard/, 'the new runtime is not held back');
    assert.equal(f.sessions.restarts.length, 2);
  });

  it('checks by itself once Baton has been idle for a while (no timer runs while it is busy or after)', async () => {
    await f.restart({ runtimeQuietMs: 30, settings: { orchestrator: () => f.settings, workers: () => f.workerSettings, runtime: () => runtime } });
    await twoSessions();
    await until(() => f.sessions.restarts.length === 1, 'the idle restart', 3000);
    await until(() => f.core.recycler.restarts === 1, 'the restart to finish');
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(f.sessions.restarts.length, 1, 'one restart: the new runtime has opened one session (the resume)');
  });
});
