// Two VS Code windows on one Baton: each window is a separate Node process that builds Baton through the
// composition root over one shared storage folder (test/support/windowProcess.ts), with the real Copilot runtime
// answered by one scripted model server. What is asserted is what each window's panel is sent, what the model
// received, and what the shared log holds.
import * as assert from 'node:assert/strict';
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OrchestratorEvent } from '../../src/core/orchestrator/events';
import type { ChatMessage, HostMessage } from '../../src/shared/protocol';
import { checkAfterTest } from '../support/checkAfterTest';
import { DEFAULT_MODELS, ScriptedModelServer, type RecordedRequest } from '../support/scriptedModelServer';
import type { WindowCommand, WindowJob, WindowReport } from '../support/windowProcess';
import { scriptDelegation, scriptWorkerRound } from '../support/scriptedWorker';

const SCRIPT = join(__dirname, '..', 'support', 'windowProcess.ts');
/** The start of retries.ts's RESUME_NUDGE: what is sent when the session already has the prompt. */
const NUDGE = '[System: your previous reply was interrupted';
/** The start of the recovery context a new session gets (systemMessage.ts). */
const RECOVERY = '[System: Session recovered]';
/**
 * Shown live, without a reload. By design it takes the writer's flush delay plus the reader's poll (20 + 250 ms here,
 * 250 + 250 ms in VS Code) and a load; the figures are printed after the run. The bound only tells "live" from "never":
 * two shared cores under a parallel test run must not fail it (2,535 ms at load 19 failed a bound of 2 s).
 */
const LIVE_MS = 5000;

/** What one window's panel shows, rebuilt from the messages its host posted, as the webview applies them. */
class Panel {
  messages: ChatMessage[] = [];
  apply(m: HostMessage): void {
    switch (m.type) {
      case 'snapshot':
        this.messages = m.snapshot.messages.map((x) => ({ ...x }));
        break;
      case 'message/append': {
        const existing = this.messages.find((x) => x.id === m.message.id);
        if (existing) Object.assign(existing, m.message);
        else this.messages.push({ ...m.message });
        break;
      }
      case 'message/update': {
        const existing = this.messages.find((x) => x.id === m.id);
        if (existing) Object.assign(existing, m.patch);
        break;
      }
      case 'message/delta': {
        const existing = this.messages.find((x) => x.id === m.id);
        if (existing) existing.content += m.delta;
        break;
      }
      default:
        break;
    }
  }
  find(pred: (m: ChatMessage) => boolean): ChatMessage | undefined {
    return this.messages.find(pred);
  }
}

class Window {
  readonly reports: WindowReport[] = [];
  readonly panel = new Panel();
  readonly exited: Promise<void>;
  pid = 0;
  private readonly child: ChildProcess;
  private reqs = 0;
  /** When the panel first showed a message matching each watched predicate. */
  private readonly waiters = new Set<() => void>();

  constructor(job: WindowJob) {
    this.child = fork(SCRIPT, [], { execArgv: ['--require', 'tsx/cjs'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    this.child.on('message', (r: WindowReport) => {
      this.reports.push(r);
      if (r.kind === 'post') this.panel.apply(r.message);
      if (r.kind === 'ready') this.pid = r.pid;
      for (const wake of [...this.waiters]) wake();
    });
    this.child.once('exit', () => {
      for (const wake of [...this.waiters]) wake();
    });
    this.child.send(job);
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Waits until `check` returns a value; fails if the window dies or reports a failure first. */
  async until<T>(what: string, check: () => T | undefined | false, timeoutMs = 60_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const failed = this.reports.find((r) => r.kind === 'failed');
      if (failed) throw new Error(`window failed: ${failed.message}`);
      const value = check();
      if (value !== undefined && value !== false) return value;
      if (!this.alive) throw new Error(`the window exited before ${what}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          this.waiters.delete(wake);
          resolve();
        };
        this.waiters.add(wake);
        setTimeout(wake, 50).unref();
      });
    }
  }

  ready(): Promise<void> {
    return this.until('ready', () => this.pid > 0).then(() => undefined);
  }

  send(command: WindowCommand): void {
    this.child.send(command);
  }

  /** Sends `text` as the API and the Chat view do; resolves with how its turn ended (its reply, or the error's words). */
  async ask(text: string, asked?: (cancel: () => void) => void): Promise<{ logId: number; content?: string; error?: string }> {
    const reqId = ++this.reqs;
    this.send({ cmd: 'ask', reqId, text });
    asked?.(() => this.send({ cmd: 'cancelAsk', reqId }));
    const answer = await this.until(
      `the answer to ${text}`,
      () => this.reports.find((r): r is Extract<WindowReport, { kind: 'answer' }> => r.kind === 'answer' && r.reqId === reqId),
      90_000,
    );
    return answer.value as { logId: number; content?: string; error?: string };
  }

  /** Apply or Keep as branch on a worker's changes, or their count: the result, or `{ error: '<name>: <message>' }`. */
  async changes<T>(op: 'apply' | 'keep' | 'totals', name: string): Promise<T> {
    const reqId = ++this.reqs;
    this.send({ cmd: 'changes', reqId, op, name });
    const answer = await this.until(`the answer to ${op} ${name}`, () =>
      this.reports.find((r): r is Extract<WindowReport, { kind: 'answer' }> => r.kind === 'answer' && r.reqId === reqId),
    );
    return answer.value as T;
  }

  async query<T>(what: 'session' | 'owners' | 'log'): Promise<T> {
    const reqId = ++this.reqs;
    this.send({ cmd: 'query', reqId, what });
    const answer = await this.until(`the answer to ${what}`, () =>
      this.reports.find((r): r is Extract<WindowReport, { kind: 'answer' }> => r.kind === 'answer' && r.reqId === reqId),
    );
    return answer.value as T;
  }

  events<T extends OrchestratorEvent['type']>(type: T): Array<Extract<OrchestratorEvent, { type: T }> & { at: number }> {
    return this.reports.flatMap((r) =>
      r.kind === 'event' && r.event.type === type ? [{ ...(r.event as Extract<OrchestratorEvent, { type: T }>), at: r.at }] : [],
    );
  }

  /** When the panel was first sent a message matching `pred` (a post's time), or undefined. */
  shownAt(pred: (m: ChatMessage) => boolean): number | undefined {
    const panel = new Panel();
    for (const r of this.reports) {
      if (r.kind !== 'post') continue;
      panel.apply(r.message);
      if (panel.find(pred)) return r.at;
    }
    return undefined;
  }

  get logLines(): string[] {
    return this.reports.flatMap((r) => (r.kind === 'log' ? [r.line] : []));
  }

  async close(): Promise<void> {
    if (!this.alive) return;
    this.send({ cmd: 'dispose' });
    await this.exited;
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}

const sendsPrompt = (r: RecordedRequest, prompt: string): boolean => r.messages.at(-1)?.role === 'user' && (r.lastUserText ?? '').includes(prompt);
const mentions = (r: RecordedRequest, text: string): boolean => r.messages.some((m) => m.role === 'user' && JSON.stringify(m.content).includes(text));

describe('two windows, one Baton (separate processes, real runtime, scripted model)', function () {
  this.timeout(180_000);
  let server: ScriptedModelServer;
  let root: string;
  const windows: Window[] = [];
  const figures: Record<string, string> = {};

  beforeEach(async () => {
    server = await ScriptedModelServer.start();
    server.setModels([...DEFAULT_MODELS, 'claude-haiku-4.5']);
    root = await mkdtemp(join(tmpdir(), 'baton-windows-'));
  });

  afterEach(async function () {
    try {
      if (this.currentTest?.state === 'passed') checkAfterTest(this, () => server.assertScriptDone());
    } finally {
      for (const w of windows.splice(0)) {
        w.kill();
        await w.exited;
      }
      server.releaseHeld();
      await server.close();
      await rm(root, { recursive: true, force: true, maxRetries: 3 });
    }
  });

  after(() => console.table(figures));

  function open(workspace: string, opts: Pick<WindowJob, 'trustWorkingDir'> = {}): Window {
    const w = new Window({ root, serverUrl: server.url, workspace, ...opts });
    windows.push(w);
    return w;
  }

  it('a slow reply in window 1 while window 2 opens: no interrupted row, no Resend, the model gets the prompt once; window 2 shows the reply, marked', async () => {
    const prompt = 'a slow question about the build';
    server.on({ lastUserIncludes: prompt }, { text: 'The slow answer.', delayMs: 4000 });
    const one = open('one');
    await one.ready();
    one.send({ cmd: 'send', text: prompt });
    await server.waitForRequests(1, 60_000, (r) => sendsPrompt(r, prompt));

    const two = open('two');
    await two.ready();
    await two.until('its first snapshot', () => two.panel.find((m) => m.content === prompt));
    const completed = await one.until('the reply in window 1', () => one.events('turn.completed')[0]);
    const shown = await two.until('the reply in window 2', () => two.shownAt((m) => m.role === 'assistant' && m.content === 'The slow answer.'));
    figures['window 1 reply → shown in window 2 (ms)'] = String(shown - completed.at);
    assert.ok(shown - completed.at < LIVE_MS, `shown ${shown - completed.at} ms after it was written`);
    // Past the watcher's period: nothing was judged interrupted afterwards either.
    await new Promise((r) => setTimeout(r, 1500));

    for (const [name, w] of [
      ['window 1', one],
      ['window 2', two],
    ] as const) {
      assert.deepEqual(
        w.panel.messages.filter((m) => m.status === 'interrupted').map((m) => m.content),
        [],
        `${name} shows no interrupted message (no Resend)`,
      );
    }
    const inTwo = two.panel.messages.map((m) => [m.role, m.content, m.from]);
    assert.deepEqual(inTwo, [
      ['user', prompt, 'one'],
      ['assistant', 'The slow answer.', 'one'],
    ]);
    assert.equal(one.panel.messages.filter((m) => m.from).length, 0, 'window 1 marks nothing: it all came from window 1');
    assert.equal(server.chatRequests().filter((r) => sendsPrompt(r, prompt)).length, 1, 'the model received the prompt once');
    const log = await two.query<Array<{ role: string; status: string; content: string }>>('log');
    assert.deepEqual(
      log.map((e) => [e.role, e.status]),
      [
        ['user', 'complete'],
        ['assistant', 'complete'],
      ],
      'the log holds one exchange',
    );
  });

  it("a worker running in window 1 while window 2 opens: window 2 leaves it be (no 'interrupted' result, the task never run again); its one result arrives", async () => {
    await mkdir(join(root, 'home', 'dev', 'app'), { recursive: true });
    const prompt = 'start the long job';
    server.on(
      { lastUserIncludes: prompt, afterToolResult: false, name: 'the worker is started' },
      { toolCalls: [{ name: 'create_worker_session', arguments: { name: 'long', working_dir: '~/dev/app', initial_prompt: 'TASK-long: run it' } }] },
    );
    server.on({ lastUserIncludes: prompt, afterToolResult: true, name: 'started' }, { text: 'Started.' });
    server.on({ lastUserIncludes: 'TASK-long', name: 'the long task' }, { text: 'Long job done.', delayMs: 4000 });
    server.on({ lastUserIncludes: "[Background task completed] Worker 'long'", name: 'its result' }, { text: 'The long job is done.' });
    const one = open('one');
    await one.ready();
    one.send({ cmd: 'send', text: prompt });
    await server.waitForRequests(1, 60_000, (r) => (r.lastUserText ?? '').includes('TASK-long'));

    // Window 2 opens while the worker works: at its start it cleans the rows closed windows left.
    const two = open('two');
    await two.ready();
    await one.until('the reply to the result', () => one.panel.find((m) => m.role === 'assistant' && m.content === 'The long job is done.'));
    await new Promise((r) => setTimeout(r, 1000));
    const results = server.chatRequests().filter((r) => mentions(r, "Worker 'long'"));
    assert.equal(results.length, 1, 'one result reached the model');
    assert.ok(!results.some((r) => mentions(r, 'interrupted')), 'and it is not an interruption');
    assert.equal(server.chatRequests().filter((r) => (r.lastUserText ?? '').includes('TASK-long')).length, 1, 'the task ran once');
    assert.ok(!two.logLines.some((l) => l.includes('left by a previous window')), two.logLines.join('\n'));
  });

  it('a message queued behind a reply in window 1: both panels show each reply after its message, live, and so does a window opened after', async () => {
    // Held long enough for the other window to see the second message queued (its store's sync, a loaded machine: under
    // the whole suite's load 2.5 s was once too short, and the message was answered before it showed there).
    server.on({ lastUserIncludes: 'the first of two' }, { text: 'First answer.', delayMs: 6000 });
    server.on({ lastUserIncludes: 'the second of two' }, { text: 'Second answer.' });
    const one = open('one');
    const two = open('two');
    await one.ready();
    await two.ready();
    one.send({ cmd: 'send', text: 'the first of two' });
    await server.waitForRequests(1, 60_000, (r) => sendsPrompt(r, 'the first of two'));
    // Written to the log before the first answer is.
    one.send({ cmd: 'send', text: 'the second of two' });
    // Both windows prepared the session as their panel opened: the first to claim the conversation runs it, and the
    // other's messages wait in its queue. That one shows the message queued there (its Remove cancels it there), also in a snapshot (its
    // panel reloaded); the owner shows it queued in its own queue (Remove offered).
    const holders = await one.query<Array<{ label: string }>>('owners');
    const [owner, other] = holders[0]?.label === 'one' ? [one, two] : [two, one];
    const queuedIn = (w: Window, elsewhere: boolean): ChatMessage | undefined =>
      w.panel.find((m) => m.content === 'the second of two' && m.status === 'pending' && (m.queuedElsewhere === true) === elsewhere);
    await other.until('the message queued in the other window', () => queuedIn(other, true));
    await owner.until('the message queued in the owner', () => queuedIn(owner, false));
    const snapshots = (w: Window): number => w.reports.filter((r) => r.kind === 'post' && r.message.type === 'snapshot').length;
    for (const w of [owner, other]) {
      const before = snapshots(w);
      w.send({ cmd: 'reload' });
      await w.until('the snapshot after the reload', () => snapshots(w) > before);
      assert.ok(queuedIn(w, w === other), `still queued in ${w === owner ? 'the owner' : 'the other window'}'s snapshot`);
      // The other window learns the first was sent from the owner's record of it, which reaches its store with the next
      // sync: under load that can come after the reload (CI once saw it 'pending' there), so it is awaited, not read.
      await w.until('the message being answered shown as sent', () => w.panel.find((m) => m.content === 'the first of two')?.status === 'complete');
    }
    assert.equal(owner.events('turn.completed').length, 0, 'all of it while the first was answered');
    await two.until('the second answer in window 2', () => two.panel.find((m) => m.content === 'Second answer.'));
    await one.until('the second answer in window 1', () => one.panel.find((m) => m.content === 'Second answer.'));
    for (const w of [one, two]) assert.equal(w.panel.find((m) => m.content === 'the second of two')?.status, 'complete', 'sent once its turn ran');
    const order = ['the first of two', 'First answer.', 'the second of two', 'Second answer.'];
    assert.deepEqual(
      one.panel.messages.map((m) => m.content),
      order,
    );
    assert.deepEqual(
      two.panel.messages.map((m) => m.content),
      order,
    );
    // A window opened now reads it from the log: in the same order.
    const three = open('three');
    await three.ready();
    await three.until('its first snapshot', () => three.panel.find((m) => m.content === 'Second answer.'));
    assert.deepEqual(
      three.panel.messages.map((m) => m.content),
      order,
    );
  });

  it('typed in window 2 runs in window 1’s session (the owner), shows in window 1 live, marked; a reload of window 1 continues that session', async () => {
    server.on({ lastUserIncludes: 'first: remember the number 41' }, { text: 'Noted: 41.' });
    const one = open('one');
    await one.ready();
    one.send({ cmd: 'send', text: 'first: remember the number 41' });
    await one.until('the first reply', () => one.events('turn.completed')[0]);
    const session = await one.query<string>('session');
    assert.ok(session);

    const two = open('two');
    await two.ready();
    const second = 'second: add one to it';
    server.on(
      { lastUserIncludes: second, predicate: (r) => mentions(r, 'first: remember the number 41') },
      { text: 'It is 42, one more than 41.', chunks: 6, chunkDelayMs: 300 },
    );
    const sentAt = Date.now();
    two.send({ cmd: 'send', text: second });
    const inOne = await one.until('window 2’s message in window 1', () => one.shownAt((m) => m.role === 'user' && m.content === second));
    figures['typed in window 2 → shown in window 1 (ms)'] = String(inOne - sentAt);
    assert.ok(inOne - sentAt < LIVE_MS, `shown in window 1 ${inOne - sentAt} ms after it was sent`);
    assert.equal(one.panel.find((m) => m.content === second)?.from, 'two', 'marked with the window it came from');
    // The owner runs it and streams it; window 2 gets the reply through the store.
    const started = await one.until('the owner ran it', () => one.events('turn.started')[1]);
    const replyAt = (await one.until('the owner settled the reply', () => one.events('turn.completed')[1])).at;
    assert.equal(
      one
        .events('turn.delta')
        .filter((d) => d.turnId === started.turnId)
        .map((d) => d.delta)
        .join(''),
      'It is 42, one more than 41.',
      'the owner streamed it',
    );
    assert.equal(one.panel.find((m) => m.role === 'assistant' && m.content === 'It is 42, one more than 41.')?.status, 'complete');
    const inTwo = await two.until('the reply in window 2', () => two.shownAt((m) => m.role === 'assistant' && m.content === 'It is 42, one more than 41.'));
    figures['owner’s reply → shown in window 2 (ms)'] = String(inTwo - replyAt);
    // Window 2 streamed it too, before the owner settled it.
    const streamedAt = two.shownAt((m) => m.role === 'assistant' && m.status === 'streaming' && m.content.length > 0 && m.from === 'one');
    assert.ok(streamedAt !== undefined && streamedAt < replyAt, 'window 2 showed the reply while it streamed');
    figures['owner’s first delta → streaming in window 2 (ms)'] = String(
      streamedAt - one.events('turn.delta').filter((d) => d.turnId === started.turnId)[0]!.at,
    );
    assert.deepEqual(
      two.panel.messages.map((m) => [m.role, m.content, m.status]),
      [
        ['user', 'first: remember the number 41', 'complete'],
        ['assistant', 'Noted: 41.', 'complete'],
        ['user', second, 'complete'],
        ['assistant', 'It is 42, one more than 41.', 'complete'],
      ],
      'one reply in window 2: the streamed one became the settled one',
    );
    assert.ok(inTwo - replyAt < LIVE_MS, `reply shown in window 2 ${inTwo - replyAt} ms after it was written`);
    assert.equal(two.panel.find((m) => m.role === 'user' && m.content === second)?.from, undefined, 'window 2’s own message is not marked');
    // Until the owner took it, window 2 showed it queued there.
    assert.ok(
      two.shownAt((m) => m.role === 'user' && m.content === second && m.status === 'pending' && m.queuedElsewhere === true) !== undefined,
      'window 2 showed its message as queued in the window that runs the conversation',
    );
    assert.equal(
      two.panel.find((m) => m.role === 'assistant' && m.content === 'It is 42, one more than 41.')?.from,
      'one',
      'the reply says which window answered',
    );
    assert.equal(await two.query<string | null>('session'), null, 'window 2 started no session of its own');
    assert.equal(two.events('session.ready').length, 0);

    // Reload window 1 with window 2 open: the new process continues the same session, no recovery context.
    await one.close();
    const oneAgain = open('one');
    await oneAgain.ready();
    const third = 'third: and the number before?';
    server.on(
      { lastUserIncludes: third, predicate: (r) => mentions(r, 'first: remember the number 41') && mentions(r, second) && !mentions(r, RECOVERY) },
      { text: '41.' },
    );
    oneAgain.send({ cmd: 'send', text: third });
    await oneAgain.until('the reply after the reload', () => oneAgain.events('turn.completed')[0]);
    assert.deepEqual(
      oneAgain.events('session.ready').map((e) => e.how),
      ['resumed'],
    );
    assert.equal(await oneAgain.query<string>('session'), session, 'the same session id');
    for (const p of ['first: remember the number 41', second, third])
      assert.equal(server.chatRequests().filter((r) => sendsPrompt(r, p)).length, 1, `"${p}" reached the model once`);
    const owners = await two.query<Array<{ conversation: string; pid: number; label: string; mine: boolean }>>('owners');
    assert.deepEqual(
      owners.map((o) => [o.conversation, o.label, o.pid, o.mine]),
      [['main', 'one', oneAgain.pid, false]],
      'window 2 sees which window holds the conversation',
    );
  });

  /** Window 1 answering a slow message (so it runs the conversation, and what follows waits), window 2 opened after. */
  async function ownerAnswering(): Promise<[Window, Window]> {
    const one = open('one');
    await one.ready();
    one.send({ cmd: 'send', text: 'hold on: a slow one' });
    await server.waitForRequests(1, 60_000, (r) => sendsPrompt(r, 'hold on: a slow one'));
    const two = open('two');
    await two.ready();
    return [one, two];
  }

  it('Remove in the window that runs the conversation, on a message window 2 asked: window 2’s ask ends, cancelled, at once; the model never sees it', async () => {
    server.on({ lastUserIncludes: 'hold on: a slow one' }, { text: 'Slow answer.', delayMs: 4000 });
    const [one, two] = await ownerAnswering();
    const asked = two.ask('taken out in window 1');
    const queued = await one.until('window 2’s message queued in window 1, Remove offered', () =>
      one.panel.find((m) => m.content === 'taken out in window 1' && m.status === 'pending' && !m.queuedElsewhere),
    );
    const removedAt = Date.now();
    one.send({ cmd: 'withdraw', id: queued.id });
    const outcome = await asked;
    assert.equal(outcome.error, 'The message was removed from the queue in the window running this conversation, before it was sent.');
    figures['removed in window 1 → window 2’s ask ended (ms)'] = String(Date.now() - removedAt);
    await two.until('gone from window 2’s panel', () => !two.panel.find((m) => m.content === 'taken out in window 1'));
    await one.until('the slow answer', () => one.panel.find((m) => m.content === 'Slow answer.' && m.status === 'complete'));
    await one.until('the first turn’s end', () => one.events('turn.completed')[0]);
    assert.equal(one.events('turn.withdrawn').length, 1);
    assert.equal(one.events('turn.completed').length, 1, 'only the first was answered');
    assert.equal(server.chatRequests().filter((r) => mentions(r, 'taken out in window 1')).length, 0, 'the model never saw it');
  });

  it('window 2 takes back what it sent to window 1: Remove on a queued message (its text back in window 2’s box), an ask cancelled while queued and one cancelled while window 1 answers it', async () => {
    // The first answer is held until both of window 2's messages were taken out of window 1's queue: a loaded machine
    // opening window 2 slowly must not let it end first (CI read it so once with a 4 s answer).
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    server.on({ lastUserIncludes: 'hold on: a slow one' }, { text: 'Slow answer.', after: held });
    server.on({ lastUserIncludes: 'stopped from window 2' }, { text: 'Never finished.', delayMs: 8000 });
    const [one, two] = await ownerAnswering();
    let cancelQueued = (): void => undefined;
    const queuedAsk = two.ask('asked, then cancelled while queued', (cancel) => (cancelQueued = cancel));
    two.send({ cmd: 'send', text: 'removed from window 2' });
    const shownQueued = (w: Window, text: string): ChatMessage | undefined => w.panel.find((m) => m.content === text && m.status === 'pending');
    const inTwo = await two.until('queued in window 1, shown in window 2', () => shownQueued(two, 'removed from window 2'));
    assert.equal(inTwo.queuedElsewhere, true);
    await one.until(
      'both taken into window 1’s queue',
      () => shownQueued(one, 'removed from window 2') && shownQueued(one, 'asked, then cancelled while queued'),
    );
    // Remove in window 2: its text comes back to window 2's message box; window 1 takes it out of its queue.
    two.send({ cmd: 'withdraw', id: inTwo.id });
    const back = await two.until('its text back in window 2', () =>
      two.reports.find((r) => r.kind === 'post' && r.message.type === 'chat/withdrawn' && r.message.id === inTwo.id),
    );
    assert.ok(back.kind === 'post' && back.message.type === 'chat/withdrawn' && back.message.text === 'removed from window 2');
    await one.until('gone from window 1', () => !one.panel.find((m) => m.content === 'removed from window 2'));
    await two.until('gone from window 2', () => !two.panel.find((m) => m.content === 'removed from window 2'));
    // The ask cancelled while it waits in window 1's queue ends at once, and window 1 never runs it.
    cancelQueued();
    assert.equal((await queuedAsk).error, 'The message was cancelled.');
    await one.until('the cancelled ask gone from window 1', () => !one.panel.find((m) => m.content === 'asked, then cancelled while queued'));
    release();
    await one.until('the slow answer', () => one.events('turn.completed')[0]);
    assert.equal(one.events('turn.withdrawn').length, 2, 'both taken out of window 1’s queue, never started');
    // An ask window 1 is answering, cancelled in window 2: window 1 stops it.
    let cancelRunning = (): void => undefined;
    const runningAsk = two.ask('stopped from window 2', (cancel) => (cancelRunning = cancel));
    await server.waitForRequests(1, 60_000, (r) => sendsPrompt(r, 'stopped from window 2'));
    await one.until('window 1 answering it', () => one.events('turn.started').length === 2);
    cancelRunning();
    assert.equal((await runningAsk).error, 'The message was cancelled.');
    const stopped = await one.until('window 1 stopped it', () => one.events('turn.cancelled')[0]);
    assert.equal(stopped.turnId, one.events('turn.started')[1]!.turnId);
    assert.equal(one.events('turn.completed').length, 1);
    const asked = server.chatRequests().map((r) => r.lastUserText ?? '');
    assert.ok(!asked.some((t) => t.includes('removed from window 2') || t.includes('cancelled while queued')), JSON.stringify(asked));
  });

  it('Stop in window 2 while window 1 streams the answer to what window 2 typed: shown there, and it stops it in window 1; what streamed stays', async () => {
    server.on({ lastUserIncludes: 'hold on: a slow one' }, { text: 'Slow answer.', delayMs: 1500 });
    const [one, two] = await ownerAnswering();
    await one.until('the slow answer', () => one.events('turn.completed')[0]);
    const typed = 'window 2: a long story please';
    server.on({ lastUserIncludes: typed }, { text: 'Once upon a time, far away, a story that never ended, and on, and on.', chunks: 8, chunkDelayMs: 1500 });
    two.send({ cmd: 'send', text: typed });
    const busy = (w: Window): boolean | undefined => {
      const last = w.reports.filter((r) => r.kind === 'post' && r.message.type === 'state').at(-1);
      return last?.kind === 'post' && last.message.type === 'state' ? last.message.state.busy : undefined;
    };
    await two.until('the answer streaming in window 2', () =>
      two.panel.find((m) => m.role === 'assistant' && m.status === 'streaming' && m.content.length > 0),
    );
    await two.until('Stop shown in window 2', () => busy(two) === true);
    two.send({ cmd: 'stop' });
    const stopped = await one.until('window 1 stopped it', () => one.events('turn.cancelled')[0]);
    assert.equal(stopped.turnId, one.events('turn.started')[1]!.turnId, 'the answer to window 2’s message');
    await two.until('Stop gone in window 2', () => busy(two) === false);
    const reply = await two.until('the stopped reply in window 2', () =>
      two.panel.find((m) => m.role === 'assistant' && m.content.startsWith('Once') && m.status !== 'streaming'),
    );
    assert.notEqual(reply.status, 'complete', 'shown as stopped, not as a whole answer');
    assert.ok(!reply.content.includes('and on, and on.'), reply.content);
    assert.equal(one.events('turn.completed').length, 1);
    assert.equal(server.chatRequests().filter((r) => sendsPrompt(r, typed)).length, 1, 'the model got the message once');
  });

  it('window 1 killed mid-turn: window 2 shows the turn interrupted at once, and Resend reaches the model once (the nudge, not a second copy)', async () => {
    const prompt = 'a question window 1 never finishes';
    let killed = false;
    server.on({ lastUserIncludes: prompt, predicate: () => !killed }, { textThenHang: 'Half of', chunks: 1 });
    server.on({ name: 'the nudge after the kill', lastUserIncludes: NUDGE, predicate: () => killed }, { text: 'The whole answer.' });
    const one = open('one');
    await one.ready();
    one.send({ cmd: 'send', text: prompt });
    await one.until('the first delta', () => one.events('turn.delta')[0]);
    const two = open('two');
    await two.ready();
    await two.until('the message in window 2', () => two.panel.find((m) => m.content === prompt));
    assert.equal(two.panel.find((m) => m.content === prompt)?.status, 'complete', 'not interrupted while window 1 answers it');

    killed = true;
    const killedAt = Date.now();
    one.kill();
    await one.exited;
    const interruptedAt = await two.until('the interrupted message', () => two.shownAt((m) => m.content === prompt && m.status === 'interrupted'));
    figures['window 1 killed → shown interrupted in window 2 (ms)'] = String(interruptedAt - killedAt);
    // The store's write lease would take 10 s to go stale; the claim's process check needs no wait.
    assert.ok(interruptedAt - killedAt < 10_000, `${interruptedAt - killedAt} ms`);

    const row = two.panel.find((m) => m.content === prompt && m.status === 'interrupted')!;
    two.send({ cmd: 'resend', id: row.id });
    const done = await two.until('the resent turn', () => two.events('turn.completed')[0]);
    assert.equal(done.result.content, 'The whole answer.');
    assert.equal(server.chatRequests().filter((r) => sendsPrompt(r, prompt)).length, 1, 'the prompt reached the model once');
    assert.equal(server.chatRequests().filter((r) => (r.lastUserText ?? '').includes(NUDGE)).length, 1, 'the resend was the nudge, once');
    assert.ok(
      two.logLines.some((l) => l.includes('the runtime has the prompt')),
      'window 2 asked the session before sending',
    );
  });

  it("two windows' Applies into one file at the same moment: both edits land (the windows take turns through the global storage)", async () => {
    const repo = join(root, 'home', 'dev', 'repo');
    await mkdir(join(repo, 'src'), { recursive: true });
    // Large enough that git apply's read and write of it take a while: the two windows' writes overlap without turns.
    const lines = Array.from({ length: 60_000 }, (_, i) => `line ${i + 1} of the shared file`);
    await writeFile(join(repo, 'src', 'shared.txt'), `${lines.join('\n')}\n`);
    const git = (...args: string[]): string =>
      execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', ...args], { cwd: repo, encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'init');
    for (const [worker, line] of [
      ['alpha', 1],
      ['beta', lines.length],
    ] as const) {
      scriptDelegation(server, { prompt: `start ${worker}`, worker, workingDir: '~/dev/repo', task: `TASK-${worker}`, started: `${worker} started.` });
      scriptWorkerRound(server, {
        worker,
        prompt: `TASK-${worker}`,
        does: { command: `sed -i 's/^line ${line} of/${worker} edited line ${line} of/' src/shared.txt` },
        report: `${worker}: edited`,
      });
    }
    const one = open('one', { trustWorkingDir: true });
    await one.ready();
    for (const worker of ['alpha', 'beta']) {
      one.send({ cmd: 'send', text: `start ${worker}` });
      await one.until(`${worker}'s result`, () => one.panel.find((m) => m.role === 'assistant' && m.content === `noted ${worker}`));
    }
    const two = open('two', { trustWorkingDir: true });
    await two.ready();
    // Window 2 learns of beta's change set from the store window 1 writes (its poll).
    for (;;) {
      const totals = await two.changes<{ line?: string }>('totals', 'beta');
      if (totals.line) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const [a, b] = await Promise.all([one.changes<string>('apply', 'alpha'), two.changes<string>('apply', 'beta')]);
    assert.match(a, /^Applied 1 file changed/);
    assert.match(b, /^Applied 1 file changed/);
    const after = readFileSync(join(repo, 'src', 'shared.txt'), 'utf8').split('\n');
    assert.deepEqual(
      [after[0], after[lines.length - 1], after.length],
      ['alpha edited line 1 of the shared file', `beta edited line ${lines.length} of the shared file`, lines.length + 1],
    );
    assert.deepEqual(readdirSync(join(root, 'globalStorage', 'locks')), [], 'no window holds the lock once both are over');
  });

  it("window 1 killed while its worker resolves a conflict: the next window puts the worker's worktree and base back as before the attempt, so no conflict marker can be applied", async () => {
    const repo = join(root, 'home', 'dev', 'repo');
    await mkdir(join(repo, 'src'), { recursive: true });
    await writeFile(join(repo, 'src', 'app.txt'), 'original line\n');
    const git = (...args: string[]): string =>
      execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', ...args], { cwd: repo, encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'init');
    for (const [worker, line] of [
      ['alpha', 'alpha line'],
      ['beta', 'beta line'],
    ] as const) {
      scriptDelegation(server, { prompt: `start ${worker}`, worker, workingDir: '~/dev/repo', task: `TASK-${worker}`, started: `${worker} started.` });
      scriptWorkerRound(server, { worker, prompt: `TASK-${worker}`, does: { command: `printf '${line}\\n' > src/app.txt` }, report: `${worker}: edited` });
    }
    server.on(
      { lastUserIncludes: '[via panel] resolve beta', afterToolResult: false },
      { toolCalls: [{ name: 'resolve_worker_conflicts', arguments: { name: 'beta' } }] },
    );
    server.on({ lastUserIncludes: '[via panel] resolve beta', afterToolResult: true }, { text: 'Resolving.' });
    // Beta starts on its conflict and is still at it when its window dies.
    server.on({ systemIncludes: "You are 'beta'", lastUserIncludes: 'These files conflict', name: 'beta resolving' }, { textThenHang: 'Merging', chunks: 1 });

    const one = open('one', { trustWorkingDir: true });
    await one.ready();
    for (const worker of ['alpha', 'beta']) {
      one.send({ cmd: 'send', text: `start ${worker}` });
      await one.until(`${worker}'s result`, () => one.panel.find((m) => m.role === 'assistant' && m.content === `noted ${worker}`));
    }
    assert.match(await one.changes<string>('apply', 'alpha'), /^Applied 1 file changed/);
    assert.match((await one.changes<{ error: string }>('apply', 'beta')).error, /^ApplyConflict: .*src\/app\.txt/);
    const worktree = readdirSync(join(root, 'globalStorage', 'worktrees')).map((d) => join(root, 'globalStorage', 'worktrees', d, 'beta'))[0]!;
    const before = { app: readFileSync(join(worktree, 'src', 'app.txt'), 'utf8'), totals: (await one.changes<{ line: string }>('totals', 'beta')).line };
    assert.deepEqual(before, { app: 'beta line\n', totals: '1 file changed, +1 −1' });

    one.send({ cmd: 'send', text: 'resolve beta' });
    await server.waitForRequests(1, 60_000, (r) => (r.lastUserText ?? '').includes('These files conflict'));
    assert.match(readFileSync(join(worktree, 'src', 'app.txt'), 'utf8'), /^<<<<<<< user's tree\nalpha line\n=======\nbeta line\n>>>>>>> your change\n$/);
    one.kill();
    await one.exited;

    // What else a window killed mid-operation leaves in tmp/: a snapshot's index an hour old goes, one in use may not.
    const tmp = join(root, 'globalStorage', 'tmp');
    writeFileSync(join(tmp, 'index-beta-left'), 'DIRC');
    writeFileSync(join(tmp, 'index-beta-in-use'), 'DIRC');
    const anHourAgo = (Date.now() - 61 * 60 * 1000) / 1000;
    utimesSync(join(tmp, 'index-beta-left'), anHourAgo, anHourAgo);

    server.on(
      { lastUserIncludes: "[Background task completed] Worker 'beta' failed: its task was interrupted", name: 'the interrupted result' },
      { text: 'Beta was cut off.' },
    );
    const two = open('two');
    await two.ready();
    // Without the undo, the worktree kept the markers on a base that made them apply cleanly: Apply wrote them in.
    // Polled while the undo runs, which removes the file before it copies it back.
    const app = (): string | undefined => {
      try {
        return readFileSync(join(worktree, 'src', 'app.txt'), 'utf8');
      } catch {
        return undefined;
      }
    };
    await two.until('the worktree put back', () => app() === before.app && two.logLines.some((l) => l.includes("Worker 'beta' was resolving")), 20_000);
    assert.ok(two.logLines.some((l) => l.includes("Worker 'beta' was resolving its conflicts when its window closed: its worktree and base are back")));
    assert.deepEqual(
      { app: readFileSync(join(worktree, 'src', 'app.txt'), 'utf8'), totals: (await two.changes<{ line: string }>('totals', 'beta')).line },
      before,
    );
    // Its change is what it was: it still conflicts with the user's file, which Apply leaves alone.
    assert.match((await two.changes<{ error: string }>('apply', 'beta')).error, /^ApplyConflict: .*src\/app\.txt/);
    assert.equal(readFileSync(join(repo, 'src', 'app.txt'), 'utf8'), 'alpha line\n');
    // Nor does the undone move stay in its record: kept as a branch, its change is on the base it had, none of the
    // user's edits in it (the move's record made Keep refuse it, or revert the user's commits made before the move).
    const initial = git('rev-parse', 'main').trim();
    assert.match(await two.changes<string>('keep', 'beta'), /^Kept 1 file changed, \+1 −1 of worker 'beta' as commit \w{8} on branch baton\/beta/);
    assert.equal(git('rev-parse', 'baton/beta^').trim(), initial);
    assert.equal(git('show', 'baton/beta:src/app.txt'), 'beta line\n');
    await two.until('the old leftover swept', () => !readdirSync(tmp).includes('index-beta-left'));
    assert.deepEqual(readdirSync(tmp), ['index-beta-in-use'], 'the copies it was put back from are gone too');
    await two.until('the interrupted result answered', () => two.panel.find((m) => m.role === 'assistant' && m.content === 'Beta was cut off.'));
  });
});
