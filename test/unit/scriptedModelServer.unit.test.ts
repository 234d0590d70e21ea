// The scripted model server the integration tests drive the real runtime against: its fixed endpoints, chat
// completions and rules (what it records and how it holds a request: scriptedModelServerRecording.unit.test.ts).
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import { ScriptedModelServer, UNSCRIPTED_TEXT } from '../support/scriptedModelServer';
import { chat, readSse, replyText, userMsg, type Chunk } from '../support/modelServerClient';

function rawRequest(server: ScriptedModelServer, options: http.RequestOptions): Promise<{ status: number | undefined }> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: Number(port), ...options });
    req.on('connect', (res: http.IncomingMessage, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode });
    });
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('ScriptedModelServer', () => {
  let server: ScriptedModelServer;

  beforeEach(async () => {
    server = await ScriptedModelServer.start();
  });
  afterEach(async () => {
    await server.close();
  });

  describe('fixed endpoints', () => {
    it('listens on 127.0.0.1 and serves the Copilot user', async () => {
      assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const user = (await (await fetch(`${server.url}/copilot_internal/user`)).json()) as { login: string; endpoints: { api: string } };
      assert.equal(user.login, 'fake-user');
      assert.equal(user.endpoints.api, server.url);
    });

    it('lists several models in both modes, and setModels changes them', async () => {
      const ids = async (path: string): Promise<string[]> =>
        ((await (await fetch(server.url + path)).json()) as { data: Array<{ id: string }> }).data.map((m) => m.id);
      assert.deepEqual(await ids('/models'), ['claude-sonnet-4.5', 'gpt-4.1', 'claude-opus-4.6', 'claude-sonnet-4.6']);
      server.setModels(['only-one', { id: 'vision-one', supportsVision: true }]);
      assert.deepEqual(await ids('/models'), ['only-one', 'vision-one']);
      assert.deepEqual(await ids('/v1/models'), ['only-one', 'vision-one']);
      const models = (await (await fetch(`${server.url}/models`)).json()) as {
        data: Array<{ capabilities: { supports: { vision: boolean; tool_calls: boolean } } }>;
      };
      assert.equal(models.data[1]!.capabilities.supports.vision, true);
      assert.equal(models.data[0]!.capabilities.supports.tool_calls, true);
    });

    it('accepts telemetry, 404s and records unknown paths', async () => {
      assert.equal((await fetch(`${server.url}/telemetry`, { method: 'POST', body: '[]' })).status, 204);
      assert.equal((await fetch(`${server.url}/mcp/elsewhere`, { method: 'POST', body: '{}' })).status, 404);
      assert.deepEqual(
        server.unknownRequests.map((r) => `${r.method} ${r.path}`),
        ['POST /mcp/elsewhere'],
      );
      assert.deepEqual(server.strayRequests, []);
    });

    it("answers the runtime's GitHub MCP server as an MCP server with no tools", async () => {
      const rpc = async (body: Record<string, unknown>): Promise<Response> =>
        fetch(`${server.url}/mcp/readonly`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', ...body }),
        });
      const discover = (await (await rpc({ id: 0, method: 'server/discover' })).json()) as { id: number; error?: { code: number } };
      assert.deepEqual([discover.id, discover.error?.code], [0, -32601]);
      const init = (await (await rpc({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } })).json()) as {
        result: { protocolVersion: string; capabilities: { tools: unknown } };
      };
      assert.equal(init.result.protocolVersion, '2025-11-25');
      assert.ok(init.result.capabilities.tools);
      assert.equal((await rpc({ method: 'notifications/initialized' })).status, 202);
      const tools = (await (await rpc({ id: 2, method: 'tools/list' })).json()) as { result: { tools: unknown[] } };
      assert.deepEqual(tools.result.tools, []);
      assert.equal((await fetch(`${server.url}/mcp/readonly`)).status, 405);
      assert.deepEqual(server.unknownRequests, []);
      assert.equal(server.requests.filter((r) => r.kind === 'mcp').length, 5);
    });

    it('refuses CONNECT and absolute-URL proxy requests with 403 and records them as stray', async () => {
      assert.equal((await rawRequest(server, { method: 'CONNECT', path: 'api.github.com:443' })).status, 403);
      assert.equal((await rawRequest(server, { method: 'GET', path: 'http://example.invalid/x' })).status, 403);
      assert.deepEqual(
        server.strayRequests.map((r) => `${r.method} ${r.path}`),
        ['CONNECT api.github.com:443', 'GET http://example.invalid/x'],
      );
    });
  });

  describe('chat completions', () => {
    it('streams text as SSE deltas, a finish chunk with usage, then [DONE]', async () => {
      server.on({}, { text: 'abcdefghij', chunks: 5, usage: { prompt_tokens: 11, completion_tokens: 3 } });
      const events = await readSse(await chat(server, { stream: true, messages: [userMsg('hi')] }));

      assert.equal(events.at(-1), '[DONE]');
      const chunks = events.filter((e): e is Chunk => e !== '[DONE]');
      assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk'));
      const contents = chunks.map((c) => c.choices[0]?.delta.content).filter((c) => c !== undefined);
      assert.deepEqual(contents, ['ab', 'cd', 'ef', 'gh', 'ij']);
      assert.equal(chunks[0]!.choices[0]!.delta.role, 'assistant');
      const last = chunks.at(-1)!;
      assert.equal(last.choices[0]!.finish_reason, 'stop');
      assert.deepEqual(last.usage, { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 });
    });

    it('streams tool calls with finish_reason tool_calls, stringifying object arguments', async () => {
      server.on(
        {},
        {
          toolCalls: [
            { name: 'a', arguments: { x: 1 }, id: 'call_1' },
            { name: 'b', arguments: '{"y":2}' },
          ],
        },
      );
      const chunks = (await readSse(await chat(server, { stream: true, messages: [userMsg('go')] }))).filter((e): e is Chunk => e !== '[DONE]');
      const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
      assert.equal(calls.length, 2);
      assert.deepEqual(calls[0], { index: 0, id: 'call_1', type: 'function', function: { name: 'a', arguments: '{"x":1}' } });
      assert.equal(calls[1]!.index, 1);
      assert.match(calls[1]!.id, /^call_/);
      assert.equal(calls[1]!.function.arguments, '{"y":2}');
      assert.equal(chunks.at(-1)!.choices[0]!.finish_reason, 'tool_calls');
      assert.ok(chunks.at(-1)!.usage);
    });

    it('answers plain JSON without stream: true, in both modes', async () => {
      server.always({}, { toolCalls: [{ name: 't', arguments: {} }], text: 'thinking' });
      for (const path of ['/chat/completions', '/v1/chat/completions']) {
        const res = await chat(server, { messages: [userMsg('x')] }, { path });
        assert.equal(res.headers.get('content-type'), 'application/json');
        const json = (await res.json()) as {
          object: string;
          choices: Array<{ message: { content: string; tool_calls: unknown[] }; finish_reason: string }>;
          usage: { total_tokens: number };
        };
        assert.equal(json.object, 'chat.completion');
        assert.equal(json.choices[0]!.message.content, 'thinking');
        assert.equal(json.choices[0]!.message.tool_calls.length, 1);
        assert.equal(json.choices[0]!.finish_reason, 'tool_calls');
        assert.ok(json.usage.total_tokens > 0);
      }
      assert.deepEqual(
        server.chatRequests().map((r) => r.kind),
        ['chat', 'byok-chat'],
      );
    });

    it('returns scripted errors with their status, body and headers', async () => {
      server.on({}, { error: 429, headers: { 'retry-after': '0' } }, { error: 400, body: 'plain words' });
      const first = await chat(server, { messages: [userMsg('x')] });
      assert.equal(first.status, 429);
      assert.equal(first.headers.get('retry-after'), '0');
      assert.match(await first.text(), /scripted error 429/);
      const second = await chat(server, { messages: [userMsg('x')] });
      assert.equal(second.status, 400);
      assert.equal(await second.text(), 'plain words');
    });

    it('waits delayMs before answering', async () => {
      server.on({}, { text: 'late', delayMs: 150 });
      const started = Date.now();
      assert.equal(await replyText(server, 'x'), 'late');
      assert.ok(Date.now() - started >= 140);
    });

    it('spaces chunks by chunkDelayMs', async () => {
      server.on({}, { text: 'abc', chunks: 3, chunkDelayMs: 60 });
      const started = Date.now();
      await readSse(await chat(server, { stream: true, messages: [userMsg('x')] }));
      assert.ok(Date.now() - started >= 110);
    });
  });

  describe('rules', () => {
    it('consumes responses in order, then falls back to a recorded "(unscripted)"', async () => {
      const rule = server.on({}, { text: 'one' }, { text: 'two' });
      assert.deepEqual(server.pending(), [rule]);
      assert.equal(await replyText(server, 'a'), 'one');
      assert.equal(await replyText(server, 'b'), 'two');
      assert.equal(rule.exhausted, true);
      assert.deepEqual(server.pending(), []);
      assert.equal(await replyText(server, 'c'), UNSCRIPTED_TEXT);
      assert.equal(rule.hits, 2);
      assert.deepEqual(
        server.unscriptedRequests.map((r) => r.lastUserText?.endsWith('c')),
        [true],
      );
    });

    it('always() repeats the last response forever and is never pending', async () => {
      server.always({}, { text: 'first' }, { text: 'again' });
      assert.deepEqual(server.pending(), []);
      assert.equal(await replyText(server, 'a'), 'first');
      assert.equal(await replyText(server, 'b'), 'again');
      assert.equal(await replyText(server, 'c'), 'again');
      assert.deepEqual(server.unscriptedRequests, []);
    });

    it('checks newest rules first, so a later rule shadows an earlier catch-all', async () => {
      server.always({ name: 'catch-all' }, { text: 'general' });
      server.on({ lastUserIncludes: 'special', name: 'special' }, { text: 'specific' });
      assert.equal(await replyText(server, 'special case'), 'specific');
      assert.equal(await replyText(server, 'special case'), 'general');
      assert.deepEqual(
        server.chatRequests().map((r) => r.ruleName),
        ['special', 'catch-all'],
      );
    });

    it('matches on session id, last user text, tool result, system text, model and a predicate', async () => {
      server.on({ sessionId: 's-1' }, { text: 'by session' });
      server.on({ lastUserIncludes: /weather in \w+/ }, { text: 'by regexp' });
      server.on({ afterToolResult: true }, { text: 'after tool' });
      server.on({ systemIncludes: 'You are Baton' }, { text: 'by system' });
      server.on({ model: 'claude-opus-4.6' }, { text: 'by model' });
      server.on({ predicate: (r) => r.tools.includes('special_tool') }, { text: 'by predicate' });

      const text = async (body: Record<string, unknown>, headers?: Record<string, string>): Promise<string> => {
        const res = await chat(server, body, { headers });
        return ((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content;
      };
      assert.equal(await text({ messages: [userMsg('x')] }, { 'x-client-session-id': 's-1' }), 'by session');
      assert.equal(await text({ messages: [userMsg('the weather in Oslo')] }), 'by regexp');
      assert.equal(
        await text({
          messages: [
            userMsg('x'),
            { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 't', arguments: '{}' } }] },
            { role: 'tool', tool_call_id: 'c1', content: 'result' },
          ],
        }),
        'after tool',
      );
      assert.equal(await text({ messages: [{ role: 'system', content: 'You are Baton.' }, userMsg('x')] }), 'by system');
      assert.equal(await text({ model: 'claude-opus-4.6', messages: [userMsg('x')] }), 'by model');
      assert.equal(await text({ messages: [userMsg('x')], tools: [{ type: 'function', function: { name: 'special_tool', parameters: {} } }] }), 'by predicate');
      assert.deepEqual(server.pending(), []);
      assert.deepEqual(server.unscriptedRequests, []);
    });

    it('reads the last user message from content parts', async () => {
      server.on({ lastUserIncludes: 'second part' }, { text: 'parts ok' });
      const reply = await chat(server, {
        messages: [
          userMsg('older'),
          {
            role: 'user',
            content: [
              { type: 'text', text: 'first part' },
              { type: 'text', text: 'second part' },
            ],
          },
        ],
      });
      assert.equal(((await reply.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content, 'parts ok');
      assert.equal(server.chatRequests()[0]!.lastUserText, 'first part\nsecond part');
    });

    it('remove() takes a rule out', async () => {
      const rule = server.always({}, { text: 'gone soon' });
      rule.remove();
      assert.equal(await replyText(server, 'x'), UNSCRIPTED_TEXT);
    });
  });
});
