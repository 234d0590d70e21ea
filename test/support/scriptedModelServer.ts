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
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { trackServer } from './leaks';

export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string; type?: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  [key: string]: unknown;
}

export type RequestKind =
  | 'chat' // POST /chat/completions (Copilot API mode)
  | 'byok-chat' // POST /v1/chat/completions (BYOK OpenAI mode)
  | 'user'
  | 'models'
  | 'telemetry'
  | 'mcp' // the runtime's built-in GitHub MCP server (<api>/mcp/readonly), answered as an MCP server with no tools unless a test sets some (setMcpTools)
  | 'stray' // CONNECT or an absolute-URL proxy request: the runtime tried to reach the internet
  | 'unknown';

export interface RecordedRequest {
  readonly seq: number;
  readonly at: number;
  readonly kind: RequestKind;
  readonly method: string;
  /** Path without the query string (for a stray request, the raw target, e.g. `api.github.com:443`). */
  readonly path: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly rawBody: string;
  /** JSON-parsed body, or undefined when there was none or it was not JSON. */
  readonly body: unknown;
  /** The `x-client-session-id` header: the SDK sessionId in Copilot API mode. */
  readonly sessionId: string | undefined;
  readonly model: string | undefined;
  readonly stream: boolean;
  readonly messages: ChatMessage[];
  /** Text of the last message with role "user" (still wrapped in the runtime's `<current_datetime>` preamble). */
  readonly lastUserText: string | undefined;
  readonly systemText: string;
  /** Names of the function tools offered to the model. */
  readonly tools: string[];
  /** Set for chat requests: which rule answered, or undefined when the fallback "(unscripted)" did. */
  ruleName?: string;
  unscripted: boolean;
}

/** A tool as an MCP server lists it (`tools/list`). */
export interface McpToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface MatchSpec {
  sessionId?: string;
  lastUserIncludes?: string | RegExp;
  /** true: the last message has role "tool" (the follow-up after a tool call); false: it does not. */
  afterToolResult?: boolean;
  systemIncludes?: string | RegExp;
  model?: string;
  predicate?: (req: RecordedRequest) => boolean;
  /** Shown in `ruleName`/`pending()`; defaults to a description of the match. */
  name?: string;
}

export interface ToolCallSpec {
  name: string;
  arguments: Record<string, unknown> | string;
  id?: string;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

interface Timing {
  /** Wait this long before answering at all. */
  delayMs?: number;
}

export type ScriptedResponse =
  | (Timing & { text: string; chunks?: number; chunkDelayMs?: number; usage?: Usage })
  | (Timing & { toolCalls: ToolCallSpec[]; text?: string; usage?: Usage })
  | (Timing & { error: number; body?: unknown; headers?: Record<string, string> })
  | (Timing & { hang: true })
  /** Streams the text (one delta unless `chunks`), then holds the response open until released or closed. */
  | (Timing & { textThenHang: string; chunks?: number });

export interface ModelSpec {
  id: string;
  name?: string;
  family?: string;
  vendor?: string;
  maxContextTokens?: number;
  maxPromptTokens?: number;
  maxOutputTokens?: number;
  supportsTools?: boolean;
  supportsVision?: boolean;
  /** Premium requests one user request to this model costs (the Copilot API's billing multiplier); absent: none. */
  multiplier?: number;
}

export const DEFAULT_MODELS: readonly string[] = ['claude-sonnet-4.5', 'gpt-4.1', 'claude-opus-4.6', 'claude-sonnet-4.6'];

export const UNSCRIPTED_TEXT = '(unscripted)';

/** One scripted rule; returned by `server.on()` so a test can make it sticky, inspect it or remove it. */
export class ScriptRule {
  private served = 0;
  private sticky = false;
  private readonly queue: ScriptedResponse[];

  constructor(
    readonly match: MatchSpec,
    responses: ScriptedResponse[],
    private readonly removeSelf: (rule: ScriptRule) => void,
  ) {
    if (responses.length === 0) throw new Error('ScriptedModelServer.on: give at least one response');
    this.queue = [...responses];
  }

  get name(): string {
    return this.match.name ?? describeMatch(this.match);
  }

  /** How many requests this rule answered. */
  get hits(): number {
    return this.served;
  }

  get isSticky(): boolean {
    return this.sticky;
  }

  /** Responses not yet served (a sticky rule keeps its last one). */
  get remaining(): number {
    return this.queue.length;
  }

  /** True when a non-sticky rule has served every response. */
  get exhausted(): boolean {
    return !this.sticky && this.queue.length === 0;
  }

  /** Keep matching after the script runs out, repeating the last response. */
  always(): this {
    this.sticky = true;
    return this;
  }

  remove(): void {
    this.removeSelf(this);
  }

  /** @internal */
  matches(req: RecordedRequest): boolean {
    if (this.exhausted) return false;
    const m = this.match;
    if (m.sessionId !== undefined && req.sessionId !== m.sessionId) return false;
    if (m.model !== undefined && req.model !== m.model) return false;
    if (m.lastUserIncludes !== undefined && !textMatches(req.lastUserText ?? '', m.lastUserIncludes)) return false;
    if (m.systemIncludes !== undefined && !textMatches(req.systemText, m.systemIncludes)) return false;
    if (m.afterToolResult !== undefined) {
      const last = req.messages[req.messages.length - 1];
      if ((last?.role === 'tool') !== m.afterToolResult) return false;
    }
    if (m.predicate && !m.predicate(req)) return false;
    return true;
  }

  /** @internal */
  take(): ScriptedResponse {
    this.served++;
    const next = this.queue[0]!;
    if (this.queue.length > 1 || !this.sticky) this.queue.shift();
    return next;
  }
}

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
        return send(res, 200, path.startsWith('/v1') ? this.openAiModelList() : this.copilotModelList());
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

    const model = rec.model ?? this.models[0]?.id ?? 'scripted-model';
    const id = `chatcmpl-${rec.seq}`;
    const text = 'textThenHang' in response ? response.textThenHang : (response.text ?? '');
    const toolCalls = 'toolCalls' in response ? response.toolCalls.map((c) => this.normalizeToolCall(c)) : [];
    const usage = ('usage' in response && response.usage) || estimateUsage(rec.rawBody, text, toolCalls);
    const finishReason = toolCalls.length > 0 ? 'tool_calls' : 'stop';

    if (!rec.stream) {
      if ('textThenHang' in response) return; // no partial answer exists without streaming: just hang
      return send(res, 200, {
        id,
        object: 'chat.completion',
        created: nowSeconds(),
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: text.length > 0 ? text : null,
              ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
            },
            finish_reason: finishReason,
          },
        ],
        usage: withTotal(usage),
      });
    }

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const chunk = (delta: Record<string, unknown>, finish: string | null, extra?: Record<string, unknown>): string =>
      `data: ${JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created: nowSeconds(),
        model,
        choices: [{ index: 0, delta, finish_reason: finish }],
        ...extra,
      })}\n\n`;

    // textThenHang defaults to one delta so a test can wait for exactly "the partial text arrived".
    const parts = splitText(text, 'chunks' in response ? response.chunks : 'textThenHang' in response ? 1 : undefined);
    const chunkDelay = 'chunkDelayMs' in response ? (response.chunkDelayMs ?? 0) : 0;
    for (let i = 0; i < parts.length; i++) {
      if (i > 0 && chunkDelay > 0) await sleep(chunkDelay, signal);
      if (signal.aborted || res.destroyed) return;
      res.write(chunk(i === 0 ? { role: 'assistant', content: parts[i] } : { content: parts[i] }, null));
    }
    if ('textThenHang' in response) return;
    toolCalls.forEach((call, index) => {
      res.write(chunk({ ...(parts.length === 0 && index === 0 ? { role: 'assistant' } : {}), tool_calls: [{ index, ...call }] }, null));
    });
    res.write(chunk({}, finishReason, { usage: withTotal(usage) }));
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
    let body: unknown;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
    }
    const obj = isObject(body) ? body : {};
    const messages = Array.isArray(obj.messages) ? (obj.messages as ChatMessage[]) : [];
    const lastUser = [...messages].reverse().find((m) => m.role === 'user');
    const target = req.url ?? '/';
    const sid = req.headers['x-client-session-id'];
    const rec: RecordedRequest = {
      seq: ++this.seq,
      at: Date.now(),
      kind,
      method: req.method ?? 'GET',
      path: kind === 'stray' ? target : target.split('?')[0]!,
      url: target,
      headers: req.headers,
      rawBody: raw,
      body,
      sessionId: Array.isArray(sid) ? sid[0] : sid,
      model: typeof obj.model === 'string' ? obj.model : undefined,
      stream: obj.stream === true,
      messages,
      lastUserText: lastUser ? contentText(lastUser.content) : undefined,
      systemText: messages
        .filter((m) => m.role === 'system' || m.role === 'developer')
        .map((m) => contentText(m.content))
        .join('\n'),
      tools: Array.isArray(obj.tools)
        ? (obj.tools as Array<{ function?: { name?: string }; name?: string }>)
            .map((t) => t.function?.name ?? t.name)
            .filter((n): n is string => typeof n === 'string')
        : [],
      unscripted: false,
    };
    this.requests.push(rec);
    this.notify();
    return rec;
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private copilotModelList(): unknown {
    return {
      data: this.models.map((m) => ({
        id: m.id,
        name: m.name ?? m.id,
        object: 'model',
        vendor: m.vendor ?? (m.id.startsWith('claude') ? 'Anthropic' : 'OpenAI'),
        version: m.id,
        model_picker_enabled: true,
        preview: false,
        capabilities: {
          type: 'chat',
          family: m.family ?? m.id,
          object: 'model_capabilities',
          tokenizer: 'o200k_base',
          supports: {
            tool_calls: m.supportsTools ?? true,
            parallel_tool_calls: true,
            streaming: true,
            vision: m.supportsVision ?? false,
          },
          limits: {
            max_context_window_tokens: m.maxContextTokens ?? 128000,
            max_prompt_tokens: m.maxPromptTokens ?? 100000,
            max_output_tokens: m.maxOutputTokens ?? 8000,
          },
        },
        policy: { state: 'enabled', terms: '' },
        ...(m.multiplier !== undefined ? { billing: { is_premium: m.multiplier > 0, multiplier: m.multiplier } } : {}),
      })),
      object: 'list',
    };
  }

  private openAiModelList(): unknown {
    return {
      object: 'list',
      data: this.models.map((m) => ({ id: m.id, object: 'model', created: 0, owned_by: 'scripted' })),
    };
  }
}

// ---- helpers -----------------------------------------------------------------------------------------------------

export function isChat(r: RecordedRequest): boolean {
  return r.kind === 'chat' || r.kind === 'byok-chat';
}

function classify(method: string, path: string): RequestKind {
  if (method === 'POST' && (path === '/chat/completions' || path === '/v1/chat/completions')) {
    return path.startsWith('/v1') ? 'byok-chat' : 'chat';
  }
  if (method === 'GET' && path === '/copilot_internal/user') return 'user';
  if (method === 'GET' && (path === '/models' || path === '/v1/models')) return 'models';
  if (path === '/telemetry' || path.startsWith('/telemetry/')) return 'telemetry';
  if (path === '/mcp/readonly') return 'mcp';
  return 'unknown';
}

/**
 * The GitHub MCP server the runtime connects to for every Copilot session (production config
 * leaves it on), as a streamable-HTTP MCP server with no tools unless a test sets some
 * (setMcpTools): the session starts without waiting on a failed connection, and by default the
 * model sees only the session's own tools.
 */
function answerMcp(rec: RecordedRequest, res: http.ServerResponse, tools: McpToolSpec[]): void {
  if (rec.method !== 'POST') {
    res.writeHead(405).end();
    return;
  }
  const msg = isObject(rec.body) ? rec.body : {};
  const id = msg.id;
  if (id === undefined) {
    res.writeHead(202).end(); // a notification (notifications/initialized ...)
    return;
  }
  const reply = (payload: Record<string, unknown>): void => send(res, 200, { jsonrpc: '2.0', id, ...payload });
  switch (msg.method) {
    case 'initialize':
      return reply({
        result: {
          protocolVersion: (isObject(msg.params) && msg.params.protocolVersion) || '2025-06-18',
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: 'scripted-github-mcp', version: '0.0.0' },
        },
      });
    case 'tools/list':
      return reply({ result: { tools } });
    case 'ping':
      return reply({ result: {} });
    default:
      return reply({ error: { code: -32601, message: `scripted MCP server: no method ${String(msg.method)}` } });
  }
}

function describeMatch(m: MatchSpec): string {
  const parts: string[] = [];
  if (m.sessionId !== undefined) parts.push(`session=${m.sessionId}`);
  if (m.model !== undefined) parts.push(`model=${m.model}`);
  if (m.lastUserIncludes !== undefined) parts.push(`user~${String(m.lastUserIncludes)}`);
  if (m.systemIncludes !== undefined) parts.push(`system~${String(m.systemIncludes)}`);
  if (m.afterToolResult !== undefined) parts.push(`afterTool=${m.afterToolResult}`);
  if (m.predicate) parts.push('predicate');
  return parts.length > 0 ? parts.join(' ') : '(any)';
}

function textMatches(text: string, pattern: string | RegExp): boolean {
  return typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text);
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((p: unknown) => (isObject(p) && typeof p.text === 'string' ? p.text : ''))
      .filter((s) => s.length > 0)
      .join('\n');
  }
  return '';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function splitText(text: string, chunks: number | undefined): string[] {
  if (text.length === 0) return [];
  const n = Math.max(1, Math.min(chunks ?? defaultChunkCount(text), text.length));
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function defaultChunkCount(text: string): number {
  // Several deltas by default so every streamed reply exercises delta handling, not just the final message.
  return Math.min(4, text.length);
}

function estimateUsage(requestBody: string, text: string, toolCalls: Array<{ function: { arguments: string } }>): Usage {
  const out = text.length + toolCalls.reduce((n, c) => n + c.function.arguments.length, 0);
  return { prompt_tokens: Math.max(1, Math.ceil(requestBody.length / 4)), completion_tokens: Math.max(1, Math.ceil(out / 4)) };
}

function withTotal(u: Usage): Usage & { total_tokens: number } {
  return { ...u, total_tokens: u.prompt_tokens + u.completion_tokens };
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
