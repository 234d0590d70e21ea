// The scripted model server: what it records of each request, and how it holds one (a hang, a stall mid-reply).
import * as assert from 'node:assert/strict';
import { ScriptedModelServer, UNSCRIPTED_TEXT } from '../support/scriptedModelServer';
import { chat, replyText, userMsg } from '../support/modelServerClient';

describe('ScriptedModelServer recording and holding', () => {
  let server: ScriptedModelServer;

  beforeEach(async () => {
    server = await ScriptedModelServer.start();
  });
  afterEach(async () => {
    await server.close();
  });

  describe('recording', () => {
    it('records method, path, headers, body, session, model, messages and tool names', async () => {
      server.on({}, { text: 'ok' });
      await chat(
        server,
        {
          model: 'claude-sonnet-4.5',
          stream: false,
          messages: [{ role: 'system', content: 'sys' }, userMsg('record me')],
          tools: [{ type: 'function', function: { name: 'read_file', parameters: {} } }],
        },
        { headers: { 'x-client-session-id': 'sess-9', authorization: 'Bearer fake' } },
      );
      const [r] = server.chatRequests();
      assert.ok(r);
      assert.equal(r.method, 'POST');
      assert.equal(r.path, '/chat/completions');
      assert.equal(r.headers.authorization, 'Bearer fake');
      assert.equal(r.sessionId, 'sess-9');
      assert.equal(r.model, 'claude-sonnet-4.5');
      assert.equal(r.stream, false);
      assert.equal(r.messages.length, 2);
      assert.equal(r.systemText, 'sys');
      assert.match(r.lastUserText ?? '', /record me$/);
      assert.deepEqual(r.tools, ['read_file']);
      assert.equal((r.body as { model: string }).model, 'claude-sonnet-4.5');
    });

    it('waitForRequests counts chat requests, and times out with a useful message', async () => {
      server.always({}, { text: 'ok' });
      const waiting = server.waitForRequests(2, 2000);
      await fetch(`${server.url}/models`);
      await replyText(server, 'a');
      await replyText(server, 'b');
      assert.equal((await waiting).length, 2);
      await assert.rejects(server.waitForRequests(3, 50), /wanted 3, got 2.*GET \/models/);
    });

    it('reset() forgets rules, recordings and models', async () => {
      server.always({}, { text: 'old rule' });
      server.setModels(['x']);
      await replyText(server, 'a');
      server.reset();
      assert.deepEqual(server.requests, []);
      assert.equal(server.modelIds().length, 4);
      assert.equal(await replyText(server, 'b'), UNSCRIPTED_TEXT);
    });
  });

  describe('hanging', () => {
    it('hang holds the request until close(), which returns promptly', async () => {
      server.on({}, { hang: true });
      const pending = chat(server, { stream: true, messages: [userMsg('x')] });
      await server.waitForRequests(1, 2000);
      let settled = false;
      void pending.then(
        () => (settled = true),
        () => (settled = true),
      );
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(settled, false);

      const started = Date.now();
      await server.close();
      assert.ok(Date.now() - started < 1000);
      await assert.rejects(pending);
    });

    it('textThenHang streams the text, then stalls until releaseHeld()', async () => {
      server.on({}, { textThenHang: 'partial ' });
      const res = await chat(server, { stream: true, messages: [userMsg('x')] });
      const reader = res.body!.getReader();
      const first = await reader.read();
      const text = new TextDecoder().decode(first.value);
      assert.match(text, /"content":"partial "/);
      assert.doesNotMatch(text, /\[DONE\]/);

      const next = reader.read();
      let settled = false;
      void next.then(
        () => (settled = true),
        () => (settled = true),
      );
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(settled, false);
      server.releaseHeld();
      await assert.rejects(next);
    });

    it('after answers only once its promise settles, and close() does not wait for one that never does', async () => {
      let open!: () => void;
      server.on({ lastUserIncludes: 'gated' }, { text: 'released', after: new Promise<void>((r) => (open = r)) });
      server.on({ lastUserIncludes: 'never' }, { text: 'never', after: new Promise<void>(() => undefined) });
      let answered: string | undefined;
      const gated = replyText(server, 'gated').then((t) => (answered = t));
      await server.waitForRequests(1, 2000);
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(answered, undefined, 'held while the promise is pending');
      open();
      await gated;
      assert.equal(answered, 'released');

      const pending = chat(server, { messages: [userMsg('never')] });
      await server.waitForRequests(2, 2000);
      const started = Date.now();
      await server.close();
      assert.ok(Date.now() - started < 1000);
      await assert.rejects(pending);
    });

    it('a held delay does not keep close() waiting', async () => {
      server.on({}, { text: 'never', delayMs: 60_000 });
      const pending = chat(server, { messages: [userMsg('x')] });
      await server.waitForRequests(1, 2000);
      const started = Date.now();
      await server.close();
      assert.ok(Date.now() - started < 1000);
      await assert.rejects(pending);
    });
  });
});
