// The runtime SIGKILLed at several points of one orchestrator turn, through the production wiring:
// the turn completes once, a Baton tool's side effect happens once, the conversation log has one
// user and one assistant row, and the retry sends the prompt again only when the runtime has no
// record of it. Each point reports how many model requests carried the prompt.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TurnHandle } from '../../src/core/orchestrator/orchestrator';
import { startCore, type CoreFixture } from '../support/orchestratorFixture';
import type { RecordedRequest, ScriptedResponse } from '../support/scriptedModelServer';
import { afterEachCore } from '../support/afterEachCore';
import { ofType } from '../support/orchestratorEvents';

/** The start of retries.ts's RESUME_NUDGE: what a retry sends when the runtime already has the prompt. */
const NUDGE = '[System: your previous reply was interrupted';
const REPLY = 'All four parts are done.';

async function waitFor(what: string, predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const text = (r: RecordedRequest): string => r.lastUserText ?? '';
/** The prompt sent as a new user turn (not a tool follow-up that still shows it as the last user message). */
const sendsPrompt = (r: RecordedRequest, prompt: string): boolean => r.messages.at(-1)?.role === 'user' && text(r).includes(prompt);
const historyCount = (r: RecordedRequest, prompt: string): number =>
  r.messages.filter((m) => m.role === 'user' && JSON.stringify(m.content).includes(prompt)).length;

interface Row {
  point: string;
  branch: string;
  'requests sending the prompt': number;
  'requests after the kill': number;
  memories: number;
  workers: number;
}

describe('a turn survives the runtime being killed at any point (real runtime, scripted model)', function () {
  this.timeout(60_000);
  let core: CoreFixture;
  let killed: boolean;
  const table: Row[] = [];

  beforeEach(async () => {
    core = await startCore();
    killed = false;
    // The runtime and the orchestrator's session exist before the turn under test.
    core.server.on({ lastUserIncludes: '[via panel] warm up' }, { text: 'ready' });
    await core.orchestrator.enqueue('warm up', { channel: 'panel' }).done;
  });
  afterEachCore(() => core);
  after(() => {
    // The figure the issue asks for: how many model requests carried the prompt at each kill point.
    console.table(table);
  });

  const kill = (): void => {
    const pid = core.sessions.runtimePid();
    assert.ok(pid, 'the runtime has a pid');
    killed = true;
    process.kill(pid, 'SIGKILL');
  };

  /** Answers after the kill: the retry (the nudge or the prompt), in order. */
  const afterKill = (prompt: string, ...responses: ScriptedResponse[]): void => {
    core.server.on({ name: 'after the kill', predicate: (r) => killed && (text(r).includes(NUDGE) || text(r).includes(prompt)) }, ...responses);
  };

  /** What every kill point must hold once the turn is done; returns the branch the retry took. */
  async function checkOnce(point: string, prompt: string, handle: TurnHandle, opts: { reached: boolean }): Promise<void> {
    const result = await handle.done;
    assert.equal(result.status, 'complete');
    assert.equal(result.content, REPLY);
    assert.equal(ofType(core.events, 'turn.completed').filter((e) => e.turnId === handle.turnId).length, 1, 'the turn completed once');
    assert.ok(
      ofType(core.events, 'turn.retrying').some((e) => e.turnId === handle.turnId),
      'the turn was retried',
    );

    const chats = core.server.chatRequests();
    const sends = chats.filter((r) => sendsPrompt(r, prompt)).length;
    const afterKillCount = chats.filter((r) => r.ruleName === 'after the kill').length;
    const nudged = chats.some((r) => text(r).includes(NUDGE));
    const hadIt = core.logger.lines.some((l) => l.includes(`Turn ${handle.turnId}: the runtime has the prompt`));
    const hadNone = core.logger.lines.some((l) => l.includes(`Turn ${handle.turnId}: the runtime has no record of the prompt`));
    let branch: string;
    if (!opts.reached) {
      // The runtime died before the prompt left Baton: it is sent (once) with no question asked.
      branch = 'never delivered: sent';
      assert.equal(sends, 1);
      assert.ok(!nudged && !hadIt && !hadNone);
    } else if (hadIt) {
      branch = 'runtime had it: nudge';
      assert.ok(nudged, 'the retry sent the nudge');
      assert.equal(sends, 1, 'the prompt was not sent again');
    } else {
      branch = 'runtime had no record: resent';
      assert.ok(hadNone, 'the log says the runtime had no record of the prompt');
      assert.ok(!nudged);
      assert.equal(sends, 2, 'sent again, once');
    }
    // Whatever the branch, the model's history holds the prompt once, and so does the log.
    assert.equal(historyCount(chats.at(-1)!, prompt), 1, 'the final history holds the prompt once');
    const log = core.store.recentLog(20);
    const userRows = log.filter((e) => e.role === 'user' && e.content === prompt);
    assert.deepEqual(
      userRows.map((e) => e.status),
      ['complete'],
      'one user row',
    );
    // The panel's rows only: a worker's result may follow as a background turn.
    const after = log.filter((e) => e.id > userRows[0]!.id && e.source === 'panel');
    assert.deepEqual(
      after.map((e) => [e.role, e.status, e.content]),
      [['assistant', 'complete', REPLY]],
      'one assistant row',
    );
    table.push({
      point,
      branch,
      'requests sending the prompt': sends,
      'requests after the kill': afterKillCount,
      memories: core.store.listMemories().length,
      workers: core.pool.list().length,
    });
  }

  it('before the request: killed as the turn starts', async () => {
    const prompt = 'kill point one: before the request';
    afterKill(prompt, { text: REPLY });
    const off = core.orchestrator.onEvent((e) => {
      if (e.type === 'turn.started') {
        off();
        kill();
      }
    });
    const handle = core.orchestrator.enqueue(prompt, { channel: 'panel' });
    await checkOnce('before the request', prompt, handle, { reached: false });
  });

  it('just after the request: the model has it, nothing streamed yet', async () => {
    const prompt = 'kill point two: just after the request';
    core.server.on({ lastUserIncludes: prompt, predicate: () => !killed }, { text: 'never seen', delayMs: 3000 });
    afterKill(prompt, { text: REPLY });
    const before = core.server.chatRequests().length;
    const handle = core.orchestrator.enqueue(prompt, { channel: 'panel' });
    await core.server.waitForRequests(before + 1);
    kill();
    await checkOnce('just after the request', prompt, handle, { reached: true });
  });

  it('mid-stream: after the first delta', async () => {
    const prompt = 'kill point three: mid-stream';
    core.server.on({ lastUserIncludes: prompt, predicate: () => !killed }, { text: 'first part, second part, third part', chunks: 3, chunkDelayMs: 1000 });
    afterKill(prompt, { text: REPLY });
    const handle = core.orchestrator.enqueue(prompt, { channel: 'panel' });
    await waitFor('the first delta', () => ofType(core.events, 'turn.delta').some((e) => e.turnId === handle.turnId));
    kill();
    await checkOnce('mid-stream', prompt, handle, { reached: true });
  });

  it('on the last delta: the whole text streamed, the reply not finished', async () => {
    const prompt = 'kill point four: on the last delta';
    const whole = 'every word of the reply';
    core.server.on({ lastUserIncludes: prompt, predicate: () => !killed }, { textThenHang: whole, chunks: 3 });
    afterKill(prompt, { text: REPLY });
    const handle = core.orchestrator.enqueue(prompt, { channel: 'panel' });
    await waitFor(
      'the last delta',
      () =>
        ofType(core.events, 'turn.delta')
          .filter((e) => e.turnId === handle.turnId)
          .map((e) => e.delta)
          .join('') === whole,
    );
    kill();
    await checkOnce('on the last delta', prompt, handle, { reached: true });
    core.server.releaseHeld();
  });

  it("inside a Baton tool: killed while `remember` saves; the retried call gets the journal's first result", async () => {
    const prompt = 'kill point five: remember that I use tabs';
    const args = { category: 'preference', content: 'Uses tabs', source: 'user' };
    core.server.on({ lastUserIncludes: prompt, afterToolResult: false, predicate: () => !killed }, { toolCalls: [{ name: 'remember', arguments: args }] });
    // After the kill the model asks for the same memory again (the runtime lost the tool's result); then it answers.
    afterKill(prompt, { toolCalls: [{ name: 'remember', arguments: args }] }, { text: REPLY });
    // The kill lands inside the tool: in the store write the tool makes.
    const store = core.store;
    const addMemory = store.addMemory.bind(store);
    store.addMemory = (...a: Parameters<typeof addMemory>) => {
      const id = addMemory(...a);
      if (!killed) kill();
      return id;
    };
    const replaysBefore = core.toolJournal.replays;
    const handle = core.orchestrator.enqueue(prompt, { channel: 'panel' });
    await checkOnce('inside a Baton tool (remember)', prompt, handle, { reached: true });
    assert.deepEqual(
      core.store.listMemories().map((m) => m.content),
      ['Uses tabs'],
      'one memory row',
    );
    assert.equal(core.toolJournal.replays - replaysBefore, 1, 'the second call was answered from the journal');
  });

  it('inside a Baton tool: killed while `create_worker_session` starts the worker; one worker, whose loss is reported once', async () => {
    const prompt = 'kill point six: start a builder';
    const args = { name: 'builder', working_dir: core.workspace, initial_prompt: 'TASK-k build the app' };
    core.server.on(
      { lastUserIncludes: prompt, afterToolResult: false, predicate: () => !killed },
      { toolCalls: [{ name: 'create_worker_session', arguments: args }] },
    );
    afterKill(prompt, { toolCalls: [{ name: 'create_worker_session', arguments: args }] }, { text: REPLY });
    // The worker's session went with the killed runtime: its task fails and the orchestrator hears it once.
    core.server.on({ lastUserIncludes: "[Background task completed] Worker 'builder'" }, { text: 'The builder was lost; I can start it again.' });
    // The kill lands inside the tool: in the store write that records the new worker.
    const store = core.store;
    const upsertWorker = store.upsertWorker.bind(store);
    store.upsertWorker = (row) => {
      upsertWorker(row);
      if (!killed) kill();
    };
    const replaysBefore = core.toolJournal.replays;
    const handle = core.orchestrator.enqueue(prompt, { channel: 'panel' });
    await checkOnce('inside a Baton tool (create_worker_session)', prompt, handle, { reached: true });
    assert.equal(core.toolJournal.replays - replaysBefore, 1, 'the second call was answered from the journal');
    assert.deepEqual(
      core.pool.list().map((w) => w.name),
      ['builder'],
      'one worker',
    );
    await waitFor('the background turn', () => ofType(core.events, 'turn.completed').some((e) => e.origin.channel === 'background'), 15_000);
    assert.equal(core.events.filter((e) => e.type === 'turn.queued' && e.origin.channel === 'background').length, 1, 'its result is delivered once');
    assert.ok(!core.server.chatRequests().some((r) => text(r).includes('TASK-k')), 'the lost worker never reached the model');
  });

  it('the runtime has the prompt: the retry sends the nudge, never the prompt', async () => {
    const prompt = 'the runtime recorded this prompt';
    core.server.on({ lastUserIncludes: prompt, predicate: () => !killed }, { textThenHang: 'Working on' });
    core.server.on({ name: 'after the kill', predicate: (r) => killed && text(r).includes(NUDGE) }, { text: REPLY });
    const handle = core.orchestrator.enqueue(prompt, { channel: 'panel' });
    await waitFor('the first delta', () => ofType(core.events, 'turn.delta').some((e) => e.turnId === handle.turnId));
    // Killed only once the runtime has written the user message to the session's own record.
    const events = eventsFile(core);
    await waitFor('the prompt in the session record', () => existsSync(events) && readFileSync(events, 'utf8').includes(prompt));
    kill();
    await checkOnce('mid-stream, prompt recorded', prompt, handle, { reached: true });
    const retry = core.server.chatRequests().at(-1)!;
    assert.ok(text(retry).includes(NUDGE), 'the retry is the nudge');
    assert.ok(core.logger.lines.some((l) => l.includes(`Turn ${handle.turnId}: the runtime has the prompt; asking it to finish`)));
    core.server.releaseHeld();
  });

  it('the runtime has no record of the prompt: it is sent again, once, and the log says so', async () => {
    // A longer first retry delay, so the session's record can be cut back while no runtime runs.
    await core.restart({ retryDelaysMs: [1000, 150, 300] });
    const prompt = 'the runtime lost this prompt';
    core.server.on({ lastUserIncludes: prompt, predicate: () => !killed }, { textThenHang: 'Working on' });
    core.server.on({ name: 'after the kill', predicate: (r) => killed && text(r).includes(prompt) }, { text: REPLY });
    const handle = core.orchestrator.enqueue(prompt, { channel: 'panel' });
    await waitFor('the first delta', () => ofType(core.events, 'turn.delta').some((e) => e.turnId === handle.turnId));
    const events = eventsFile(core);
    await waitFor('the prompt in the session record', () => existsSync(events) && readFileSync(events, 'utf8').includes(prompt));
    kill();
    // The killed runtime's record loses everything from the prompt on (as when it died before flushing).
    await waitFor('the retry', () => ofType(core.events, 'turn.retrying').some((e) => e.turnId === handle.turnId));
    const lines = readFileSync(events, 'utf8').split('\n');
    const cut = lines.findIndex((l) => l.includes('"user.message"') && l.includes(prompt));
    assert.ok(cut > 0, 'the prompt is in the record');
    writeFileSync(events, `${lines.slice(0, cut).join('\n')}\n`);
    await checkOnce('mid-stream, record lost', prompt, handle, { reached: true });
    assert.ok(core.logger.lines.some((l) => l.includes(`Turn ${handle.turnId}: the runtime has no record of the prompt; sending it again`)));
    assert.ok(!core.server.chatRequests().some((r) => text(r).includes(NUDGE)), 'no nudge');
    core.server.releaseHeld();
  });
});

function eventsFile(core: CoreFixture): string {
  const id = core.store.getState('orchestrator_session_id');
  assert.ok(id, 'the orchestrator has a session');
  return join(core.storageDir, 'copilot-sessions', 'session-state', id, 'events.jsonl');
}
