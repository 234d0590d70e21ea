// Proves the harness itself: the real SDK client and bundled runtime, against the scripted model server, with no
// internet. If these fail, every later test built on the harness is meaningless.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { byokHarness, defineTool, runTurn, startHarness, waitForEvent, type Harness } from '../support/copilotHarness';
import { runtimeProcesses } from '../support/leaks';
import { startCore } from '../support/orchestratorFixture';

describe('copilot harness (Copilot API mode)', function () {
  this.timeout(20_000);
  let h: Harness;

  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h?.dispose();
  });

  it('streams a plain reply as deltas, then the final message and usage', async () => {
    const session = await h.client.createSession(h.sessionConfig());
    const rule = h.server.on(
      { sessionId: session.sessionId, lastUserIncludes: 'say hello' },
      { text: 'Hello from the scripted model.', chunks: 3, usage: { prompt_tokens: 321, completion_tokens: 7 } },
    );

    const turn = await runTurn(session, 'please say hello');

    assert.equal(turn.error, undefined);
    assert.equal(turn.content, 'Hello from the scripted model.');
    assert.equal(turn.deltas.length, 3);
    assert.equal(turn.deltas.join(''), 'Hello from the scripted model.');
    const usage = turn.events.find((e) => e.type === 'assistant.usage');
    assert.ok(usage && usage.type === 'assistant.usage');
    assert.equal(usage.data.inputTokens, 321);
    assert.equal(usage.data.outputTokens, 7);

    assert.equal(rule.exhausted, true);
    const [req] = h.server.chatRequests().filter((r) => r.sessionId === session.sessionId);
    assert.ok(req);
    assert.equal(req.stream, true);
    assert.equal(req.headers.authorization, 'Bearer fake');
    assert.match(req.lastUserText ?? '', /<current_datetime>.*<\/current_datetime>\s+please say hello$/s);
    assert.equal(req.unscripted, false);
    await session.disconnect();
  });

  it('round-trips a defineTool tool call and records the role:"tool" follow-up', async () => {
    const calls: Array<{ city: string }> = [];
    const weather = defineTool('lookup_weather', {
      description: 'Current weather for a city',
      parameters: z.object({ city: z.string() }),
      handler: (args) => {
        calls.push(args);
        return `sunny in ${args.city}`;
      },
    });
    const session = await h.client.createSession(h.sessionConfig({ tools: [weather] }));
    const sid = session.sessionId;
    h.server.on({ sessionId: sid, afterToolResult: false }, { toolCalls: [{ name: 'lookup_weather', arguments: { city: 'Oslo' }, id: 'call_w1' }] });
    h.server.on({ sessionId: sid, afterToolResult: true }, { text: 'It is sunny in Oslo.' });

    const turn = await runTurn(session, 'what is the weather in Oslo?');

    assert.equal(turn.error, undefined);
    assert.deepEqual(calls, [{ city: 'Oslo' }]);
    assert.equal(turn.content, 'It is sunny in Oslo.');
    const types = turn.events.map((e) => e.type);
    assert.ok(types.indexOf('tool.execution_start') < types.indexOf('tool.execution_complete'));

    const reqs = h.server.chatRequests().filter((r) => r.sessionId === sid);
    assert.equal(reqs.length, 2);
    assert.ok(reqs[0]!.tools.includes('lookup_weather'), `tools offered: ${reqs[0]!.tools.join(', ')}`);
    const offered = (reqs[0]!.body as { tools: Array<{ function: { name: string; parameters: unknown } }> }).tools.find(
      (t) => t.function.name === 'lookup_weather',
    );
    assert.deepEqual((offered?.function.parameters as { required?: string[] }).required, ['city']);
    const last = reqs[1]!.messages.at(-1)!;
    assert.equal(last.role, 'tool');
    assert.equal(last.tool_call_id, 'call_w1');
    assert.match(JSON.stringify(last.content), /sunny in Oslo/);
    await session.disconnect();
  });

  it('surfaces a 400 as session.error quickly', async () => {
    const session = await h.client.createSession(h.sessionConfig());
    h.server.on({ sessionId: session.sessionId }, { error: 400, body: { error: { message: 'scripted bad request' } } });

    const turn = await runTurn(session, 'this will fail');

    assert.ok(turn.error, `no session.error; events: ${turn.events.map((e) => e.type).join(', ')}`);
    assert.equal(turn.error.statusCode, 400);
    assert.ok(turn.ms < 3000, `took ${turn.ms} ms`);
    await session.disconnect();
  });

  it('lets a stalled stream be aborted, and the session answers again afterwards', async () => {
    const session = await h.client.createSession(h.sessionConfig());
    const sid = session.sessionId;
    h.server.on({ sessionId: sid, lastUserIncludes: 'stall' }, { textThenHang: 'partial ' });
    h.server.on({ sessionId: sid, lastUserIncludes: 'next' }, { text: 'back again' });

    const firstDelta = waitForEvent(session, 'assistant.message_delta', 5000);
    const idle = waitForEvent(session, 'session.idle', 5000);
    await session.send('stall please');
    assert.equal((await firstDelta).data.deltaContent, 'partial ');
    await session.abort();
    await idle;

    const turn = await runTurn(session, 'next one');
    assert.equal(turn.content, 'back again');
    await session.disconnect();
  });

  it('answers a non-streaming session with plain JSON', async () => {
    const session = await h.client.createSession(h.sessionConfig({ streaming: false }));
    h.server.on({ sessionId: session.sessionId }, { text: 'one piece' });

    const turn = await runTurn(session, 'no streaming');

    assert.equal(turn.content, 'one piece');
    assert.deepEqual(turn.deltas, []);
    assert.equal(h.server.chatRequests().find((r) => r.sessionId === session.sessionId)?.stream, false);
    await session.disconnect();
  });

  it('made no stray (proxy/CONNECT) or unknown requests and nothing went unscripted', () => {
    h.server.assertScriptDone();
  });
});

describe('copilot harness (BYOK OpenAI mode)', function () {
  this.timeout(20_000);
  let h: Harness;

  before(async () => {
    h = await byokHarness();
  });
  after(async () => {
    await h?.dispose();
  });

  it('answers through <server>/v1 with the api key and no GitHub calls', async () => {
    const session = await h.client.createSession(h.sessionConfig());
    h.server.on({ sessionId: session.sessionId, lastUserIncludes: 'byok ping' }, { text: 'byok pong' });

    const turn = await runTurn(session, 'byok ping');

    assert.equal(turn.error, undefined);
    assert.equal(turn.content, 'byok pong');
    const kinds = h.server.requests.map((r) => `${r.kind} ${r.method} ${r.path}`);
    assert.deepEqual(kinds, ['byok-chat POST /v1/chat/completions']);
    assert.equal(h.server.requests[0]!.headers.authorization, 'Bearer test');
    assert.deepEqual(
      (await h.client.listModels()).map((m) => m.id),
      h.server.modelIds(),
    );
    await session.disconnect();
  });

  it('scripts sessions apart by sessionId, across a resume', async () => {
    const a = await h.client.createSession(h.sessionConfig());
    const b = await h.client.createSession(h.sessionConfig());
    h.server.on({ sessionId: a.sessionId }, { text: 'I am A' }, { text: 'I am A' });
    h.server.on({ sessionId: b.sessionId }, { text: 'I am B' });

    assert.equal((await runTurn(b, 'who?')).content, 'I am B');
    assert.equal((await runTurn(a, 'who?')).content, 'I am A');
    await a.disconnect();
    const resumed = await h.client.resumeSession(a.sessionId, h.sessionConfig({ sessionId: a.sessionId }));
    assert.equal((await runTurn(resumed, 'still?')).content, 'I am A');
    await resumed.disconnect();
    await b.disconnect();
    h.server.assertScriptDone();
  });
});

// (a) in copilotHarness.ts: can the runtime authenticate from its environment alone (no gitHubToken option)?
describe('copilot harness: env-only authentication', function () {
  this.timeout(20_000);

  async function authWith(env: Record<string, string>, authenticates = true): Promise<{ content: string | undefined; auth: string[] }> {
    const h = await startHarness({ gitHubToken: null, env });
    try {
      // Scripted only where a request is expected: a rejected token makes none.
      if (authenticates) h.server.on({ lastUserIncludes: 'who am i' }, { text: 'authenticated' });
      const session = await h.client.createSession(h.sessionConfig());
      const turn = await runTurn(session, 'who am i');
      h.server.assertScriptDone();
      return { content: turn.content, auth: h.server.requests.map((r) => String(r.headers.authorization)) };
    } finally {
      await h.dispose();
    }
  }

  it('GH_TOKEN and GITHUB_TOKEN authenticate with any value', async () => {
    for (const name of ['GH_TOKEN', 'GITHUB_TOKEN']) {
      const { content, auth } = await authWith({ [name]: 'fake' });
      assert.equal(content, 'authenticated', name);
      assert.ok(auth.length >= 3 && auth.every((a) => a === 'Bearer fake'), `${name}: ${auth.join(', ')}`);
    }
  });

  it('COPILOT_GITHUB_TOKEN authenticates only with a gho_/ghu_/github_pat_ prefix', async () => {
    assert.equal((await authWith({ COPILOT_GITHUB_TOKEN: 'gho_fake' })).content, 'authenticated');
    const rejected = await authWith({ COPILOT_GITHUB_TOKEN: 'fake' }, false);
    assert.equal(rejected.content, undefined);
    assert.deepEqual(rejected.auth, []);
  });

  it('none of them work with useLoggedInUser: false', async () => {
    const h = await startHarness({ gitHubToken: null, env: { GH_TOKEN: 'fake' }, client: { useLoggedInUser: false } });
    try {
      const status = await h.client.getAuthStatus();
      assert.equal(status.isAuthenticated, false);
    } finally {
      await h.dispose();
    }
  });
});

// (b) in copilotHarness.ts: does configDirectory keep a session out of COPILOT_HOME and out of listSessions()?
describe('copilot harness: session configDirectory', function () {
  this.timeout(20_000);
  let h: Harness;

  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h?.dispose();
  });

  it('stores the session under <configDirectory>/session-state, unlisted, resumable only with the same directory', async () => {
    const hidden = join(h.root, 'hidden-config');
    const visible = await h.client.createSession(h.sessionConfig());
    const worker = await h.client.createSession(h.sessionConfig({ configDirectory: hidden }));
    h.server.on({ lastUserIncludes: 'visible' }, { text: 'ok' });
    h.server.on({ lastUserIncludes: /hidden$/ }, { text: 'ok' });
    h.server.on({ lastUserIncludes: 'hidden again' }, { text: 'ok' });
    await runTurn(visible, 'visible');
    await runTurn(worker, 'hidden');
    await worker.disconnect();

    const listed = (await h.client.listSessions()).map((s) => s.sessionId);
    assert.ok(listed.includes(visible.sessionId));
    assert.ok(!listed.includes(worker.sessionId));
    assert.equal(await h.client.getSessionMetadata(worker.sessionId), undefined);
    assert.equal(await h.client.getLastSessionId(), visible.sessionId, 'the later, hidden session counts as last');

    assert.ok(existsSync(join(hidden, 'session-state', worker.sessionId, 'events.jsonl')));
    assert.ok(!existsSync(join(h.copilotHome, 'session-state', worker.sessionId)));

    await assert.rejects(h.client.resumeSession(worker.sessionId, h.sessionConfig()), /Session not found/);
    const resumed = await h.client.resumeSession(worker.sessionId, h.sessionConfig({ configDirectory: hidden }));
    assert.equal((await runTurn(resumed, 'hidden again')).content, 'ok');
    await resumed.disconnect();
    await visible.disconnect();
    h.server.assertScriptDone();
  });
});

describe('copilot harness: dispose', function () {
  this.timeout(20_000);

  it('is quick with a request hung mid-turn and leaves no runtime process or temp dir behind', async () => {
    const h = await startHarness();
    let disposed = false;
    try {
      h.server.on({}, { hang: true });
      const session = await h.client.createSession(h.sessionConfig());
      await session.send('hang forever');
      await h.server.waitForRequests(1, 5000);

      const started = Date.now();
      await h.dispose();
      disposed = true;
      const ms = Date.now() - started;
      assert.ok(ms < 6000, `dispose took ${ms} ms`);
      assert.ok(h.runtimePid !== undefined);
      assert.throws(() => process.kill(h.runtimePid!, 0), 'runtime process still alive');
      assert.equal(existsSync(h.root), false);
    } finally {
      if (!disposed) await h.dispose();
    }
  });
});

describe('test support cleans up', function () {
  this.timeout(60_000);

  it('startCore → restart → dispose leaves no server listening, no runtime running and no temp folder', async () => {
    const core = await startCore();
    core.server.on({ lastUserIncludes: '[via panel] one', name: 'one' }, { text: 'first' });
    core.server.on({ lastUserIncludes: '[via panel] two', name: 'two' }, { text: 'second' });
    await core.orchestrator.enqueue('one', { channel: 'panel' }).done;
    const firstRuntime = core.sessions.runtimePid();
    await core.restart();
    await core.orchestrator.enqueue('two', { channel: 'panel' }).done;
    const secondRuntime = core.sessions.runtimePid();
    core.assertScriptDone();
    await core.dispose();
    assert.ok(core.server.isClosed(), 'the scripted server was closed');
    assert.ok(!existsSync(core.root), 'the temp folder was removed');
    const alive = runtimeProcesses().map((p) => p.pid);
    assert.ok(firstRuntime && secondRuntime && firstRuntime !== secondRuntime, 'each build started its own runtime');
    assert.ok(!alive.includes(firstRuntime) && !alive.includes(secondRuntime), `runtimes still running: ${alive.join(', ')}`);
  });
});
