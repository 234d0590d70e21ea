/**
 * What the scripted model server records of each request, and how it reads one (route, body, messages). Separate from
 * the server so tests that only inspect recordings import the record, not the HTTP machinery.
 */
import type * as http from 'node:http';

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

export function isChat(r: RecordedRequest): boolean {
  return r.kind === 'chat' || r.kind === 'byok-chat';
}

export function classify(method: string, path: string): RequestKind {
  if (method === 'POST' && (path === '/chat/completions' || path === '/v1/chat/completions')) {
    return path.startsWith('/v1') ? 'byok-chat' : 'chat';
  }
  if (method === 'GET' && path === '/copilot_internal/user') return 'user';
  if (method === 'GET' && (path === '/models' || path === '/v1/models')) return 'models';
  if (path === '/telemetry' || path.startsWith('/telemetry/')) return 'telemetry';
  if (path === '/mcp/readonly') return 'mcp';
  return 'unknown';
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

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

/** Reads what a test can match and assert on out of one request; `seq` is its place in arrival order. */
export function recordRequest(req: http.IncomingMessage, kind: RequestKind, raw: string, seq: number): RecordedRequest {
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
  return {
    seq,
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
}
