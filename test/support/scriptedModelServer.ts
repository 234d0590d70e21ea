/**
 * A scripted stand-in for the model endpoints the Copilot runtime talks to, so tests run the REAL SDK and runtime
 * with only the model's HTTP answers faked. It speaks both the Copilot API (`/copilot_internal/user`, `/models`,
 * `/chat/completions`) and a BYOK OpenAI-compatible API under `/v1`.
 *
 * Rule order: rules are checked NEWEST-FIRST (like msw's `server.use`), so a test can shadow a catch-all rule from a
 * `beforeEach` with a more specific one. A rule whose responses are all consumed stops matching unless it is sticky
 * (`.always()` / `server.always()`), in which case its last response repeats forever.
 *
 * Anything that is not scripted still gets an answer, so a test fails on its assertion rather than a hang, but it is
 * recorded (`unscriptedRequests`, `strayRequests`, `unknownRequests`) so the test can assert it did not happen.
 */
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  completionBody,
  copilotModelList,
  DEFAULT_MODELS,
  estimateUsage,
  finishReason,
  openAiModelList,
  send,
  splitText,
  sseChunk,
  withTotal,
  type ChatAnswer,
  type ModelSpec,
} from './chatCompletionsWire';
import { trackServer } from './leaks';
import { classify, isChat, readBody, recordRequest, type RecordedRequest, type RequestKind } from './recordedRequest';
import { answerMcp, type McpToolSpec } from './scriptedMcpEndpoint';
import { ScriptRule, type MatchSpec, type ScriptedResponse, type ToolCallSpec } from './scriptRule';
import { settledOrAborted, sleep } from './abortableWaits';

// The split-out modules' exports, re-exported so every test keeps importing from this one file.
export { DEFAULT_MODELS, type ModelSpec } from './chatCompletionsWire';
export { isChat, type ChatMessage, type RecordedRequest, type RequestKind } from './recordedRequest';
export type { McpToolSpec } from './scriptedMcpEndpoint';
export { ScriptRule, type MatchSpec, type ScriptedResponse, type ToolCallSpec, type Usage } from './scriptRule';

export const UNSCRIPTED_TEXT = '(unscripted)';

export class ScriptedModelServer {
  readonly requests: RecordedRequest[] = [];
  readonly url: string;
  private rules: ScriptRule[] = [];
  private models: ModelSpec[] = DEFAULT_MODELS.map((id) => ({ id }));
  private mcpTools: McpToolSpec[] = [];
  private readonly sockets = new Set<Socket>();
  // Every delay/hang waits on this, so close()/reset() never leave a timer or a handler behind.
  private lifetime = new AbortController();
  private waiters: Array<() => void> = [];
  private seq = 0;
  private toolCallSeq = 0;
  private closed = false;

  private constructor(private readonly httpServer: http.Server) {
    const { port } = httpServer.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    httpServer.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    httpServer.on('request', (req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent && !res.destroyed) {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(`scripted server error: ${String(err)}`);
        } else {
          res.destroy();
        }
      });
    });
    // Without this listener node silently drops CONNECT; answering 403 makes a proxied internet call fail fast.
    httpServer.on('connect', (req: http.IncomingMessage, socket: Socket) => {
      this.record(req, 'stray', '');
      socket.on('error', () => undefined);
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    });
  }

  static async start(): Promise<ScriptedModelServer> {
    const server = http.createServer({ keepAlive: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const scripted = new ScriptedModelServer(server);
    trackServer(scripted);
    return scripted;
  }

  isClosed(): boolean {
    return this.closed;
  }

  // ---- scripting -------------------------------------------------------------------------------------------------

  /** Adds a rule for chat completion requests (both modes); newest rules are checked first. */
  on(match: MatchSpec, ...responses: ScriptedResponse[]): ScriptRule {
    const rule = new ScriptRule(match, responses, (r) => {
      this.rules = this.rules.filter((x) => x !== r);
    });
    this.rules.unshift(rule);
    return rule;
  }

  /** The tools the built-in GitHub MCP server endpoint lists (none by default), as an MCP server's `tools/list` gives them. */
  setMcpTools(tools: McpToolSpec[]): void {
    this.mcpTools = tools;
  }

  /** A sticky rule: its last response repeats forever. */
  always(match: MatchSpec, ...responses: ScriptedResponse[]): ScriptRule {
    return this.on(match, ...responses).always();
  }

  /** Non-sticky rules that still hold unserved responses: a test can assert the whole script ran. */
  pending(): ScriptRule[] {
    return this.rules.filter((r) => !r.isSticky && r.remaining > 0);
  }

  /** Where the recordings end now (reset() does not move it back): `assertScriptDone(mark)` judges only what came after. */
  mark(): number {
    return this.seq;
  }

  /**
   * The end of every test: the server got exactly what was scripted. No request that no rule matched, none for the
   * internet or an endpoint this server does not implement (since `since`, a `mark()`), and no scripted response left
   * unasked for.
   */
  assertScriptDone(since = 0): void {
    const after = this.requests.filter((r) => r.seq > since);
    assert.deepEqual(
      after.filter((r) => r.unscripted).map((r) => r.lastUserText ?? r.path),
      [],
      'the model server got requests no test scripted',
    );
    assert.deepEqual(
      after.filter((r) => r.kind === 'stray').map((r) => `${r.method} ${r.path}`),
      [],
      'the runtime tried to reach the internet',
    );
    assert.deepEqual(
      after.filter((r) => r.kind === 'unknown').map((r) => `${r.method} ${r.path}`),
      [],
      'the runtime called an endpoint the scripted server does not implement',
    );
    assert.deepEqual(
      this.pending().map((r) => r.name),
      [],
      'scripted responses were never asked for',
    );
  }

  setModels(models: Array<string | ModelSpec>): void {
    this.models = models.map((m) => (typeof m === 'string' ? { id: m } : m));
  }

  modelIds(): string[] {
    return this.models.map((m) => m.id);
  }

  // ---- inspection ------------------------------------------------------------------------------------------------

  /** Chat completion POSTs of either mode, in arrival order. */
  chatRequests(): RecordedRequest[] {
    return this.requests.filter(isChat);
  }

  get strayRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.kind === 'stray');
  }

  get unknownRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.kind === 'unknown');
  }

  get unscriptedRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.unscripted);
  }

  /**
   * Resolves with the matching requests once at least `n` have arrived. Counts chat completion requests unless a
   * filter is given, because the runtime's user/models/telemetry calls arrive at times a test cannot predict.
   */
  async waitForRequests(n: number, timeoutMs = 5000, filter: (r: RecordedRequest) => boolean = isChat): Promise<RecordedRequest[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.requests.filter(filter);
      if (found.length >= n) return found;
      const left = deadline - Date.now();
      if (left <= 0 || this.closed) {
        throw new Error(
          `waitForRequests: wanted ${n}, got ${found.length} after ${timeoutMs} ms; ` +
            `all requests: ${this.requests.map((r) => `${r.method} ${r.path}`).join(', ') || '(none)'}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, left);
        const waiter = (): void => done();
        function done(): void {
          clearTimeout(timer);
          resolve();
        }
        this.waiters.push(waiter);
      });
    }
  }

  /**
   * Forgets rules, recordings, models and MCP tools, and drops requests still held open (hang/textThenHang/delay), so a server
   * shared across tests starts each one clean.
   */
  reset(): void {
    this.rules = [];
    this.requests.length = 0;
    this.models = DEFAULT_MODELS.map((id) => ({ id }));
    this.mcpTools = [];
    this.releaseHeld();
  }

  /** Ends every response still held open by a hang or delay by destroying its socket. */
  releaseHeld(): void {
    this.lifetime.abort();
    this.lifetime = new AbortController();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.lifetime.abort();
    const closed = new Promise<void>((resolve) => this.httpServer.close(() => resolve()));
    // Hung and keep-alive sockets would hold close() forever.
    for (const socket of this.sockets) socket.destroy();
    this.httpServer.closeAllConnections();
    await closed;
    this.notify();
  }

  // ---- request handling ------------------------------------------------------------------------------------------

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const target = req.url ?? '/';
    // With HTTP_PROXY pointed here, a plain-http internet call arrives with an absolute URL.
    if (/^[a-z]+:\/\//i.test(target)) {
      this.record(req, 'stray', raw);
      return send(res, 403, { error: 'scripted server: outbound internet access refused' });
    }
    const path = target.split('?')[0]!.replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    const kind = classify(method, path);
    const rec = this.record(req, kind, raw);
    switch (kind) {
      case 'user':
        return send(res, 200, {
          login: 'fake-user',
          copilot_plan: 'individual_pro',
          is_mcp_enabled: false,
          analytics_tracking_id: 'x',
          organization_list: [],
          endpoints: { api: this.url, telemetry: `${this.url}/telemetry` },
        });
      case 'models':
        return send(res, 200, path.startsWith('/v1') ? openAiModelList(this.models) : copilotModelList(this.models));
      case 'telemetry':
        res.writeHead(204).end();
        return;
      case 'mcp':
        return answerMcp(rec, res, this.mcpTools);
      case 'chat':
      case 'byok-chat':
        return this.answerChat(rec, res);
      default:
        return send(res, 404, { error: `scripted server: no route for ${method} ${path}` });
    }
  }

  private async answerChat(rec: RecordedRequest, res: http.ServerResponse): Promise<void> {
    const rule = this.rules.find((r) => r.matches(rec));
    let response: ScriptedResponse;
    if (rule) {
      response = rule.take();
      rec.ruleName = rule.name;
      rec.unscripted = false;
    } else {
      response = { text: UNSCRIPTED_TEXT };
      rec.unscripted = true;
    }
    const signal = this.lifetime.signal;
    // Dropped sockets are how held responses end; writes after that must be no-ops, not crashes.
    const drop = (): void => void res.destroy();
    signal.addEventListener('abort', drop, { once: true });
    res.once('close', () => signal.removeEventListener('abort', drop));
    res.on('error', () => undefined);

    if (response.delayMs) await sleep(response.delayMs, signal);
    if (response.after) await settledOrAborted(response.after, signal);
    if (signal.aborted || res.destroyed) return;

    if ('hang' in response) return; // held until close()/reset()/releaseHeld()
    if ('error' in response) {
      const body = response.body ?? { error: { message: `scripted error ${response.error}`, code: response.error } };
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      res.writeHead(response.error, {
        'content-type': typeof body === 'string' ? 'text/plain' : 'application/json',
        ...response.headers,
      });
      res.end(text);
      return;
    }

    const text = 'textThenHang' in response ? response.textThenHang : (response.text ?? '');
    const toolCalls = 'toolCalls' in response ? response.toolCalls.map((c) => this.normalizeToolCall(c)) : [];
    const answer: ChatAnswer = {
      id: `chatcmpl-${rec.seq}`,
      model: rec.model ?? this.models[0]?.id ?? 'scripted-model',
      text,
      toolCalls,
      usage: ('usage' in response && response.usage) || estimateUsage(rec.rawBody, text, toolCalls),
    };
    if (!rec.stream) {
      if ('textThenHang' in response) return; // no partial answer exists without streaming: just hang
      return send(res, 200, completionBody(answer));
    }
    await this.streamAnswer(answer, response, res, signal);
  }

  /** The answer as server-sent chunks: the text in parts (paced when scripted), then the tool calls, then the finish. */
  private async streamAnswer(answer: ChatAnswer, response: ScriptedResponse, res: http.ServerResponse, signal: AbortSignal): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    // textThenHang defaults to one delta so a test can wait for exactly "the partial text arrived".
    const parts = splitText(answer.text, 'chunks' in response ? response.chunks : 'textThenHang' in response ? 1 : undefined);
    const chunkDelay = 'chunkDelayMs' in response ? (response.chunkDelayMs ?? 0) : 0;
    for (let i = 0; i < parts.length; i++) {
      if (i > 0 && chunkDelay > 0) await sleep(chunkDelay, signal);
      if (signal.aborted || res.destroyed) return;
      res.write(sseChunk(answer, i === 0 ? { role: 'assistant', content: parts[i] } : { content: parts[i] }, null));
    }
    if ('textThenHang' in response) return;
    answer.toolCalls.forEach((call, index) => {
      res.write(sseChunk(answer, { ...(parts.length === 0 && index === 0 ? { role: 'assistant' } : {}), tool_calls: [{ index, ...call }] }, null));
    });
    res.write(sseChunk(answer, {}, finishReason(answer), { usage: withTotal(answer.usage) }));
    res.write('data: [DONE]\n\n');
    res.end();
  }

  private normalizeToolCall(c: ToolCallSpec): { id: string; type: 'function'; function: { name: string; arguments: string } } {
    return {
      id: c.id ?? `call_scripted_${++this.toolCallSeq}`,
      type: 'function',
      function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
    };
  }

  private record(req: http.IncomingMessage, kind: RequestKind, raw: string): RecordedRequest {
    const rec = recordRequest(req, kind, raw, ++this.seq);
    this.requests.push(rec);
    this.notify();
    return rec;
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
