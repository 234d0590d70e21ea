/**
 * What a test scripts (match specs and the responses to give) and the rule that checks a request against them. Separate
 * from the server: this is the scripting vocabulary a test reads; the server only asks a rule whether it matches.
 */
import type { RecordedRequest } from './recordedRequest';

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
  /**
   * Answer only once this settles: an order the test sets (a worker's reply held until the orchestrator's turn has
   * ended), where a delay would only make one order likely. Released by close()/reset()/releaseHeld() like a hang.
   */
  after?: Promise<unknown>;
}

export type ScriptedResponse =
  | (Timing & { text: string; chunks?: number; chunkDelayMs?: number; usage?: Usage })
  | (Timing & { toolCalls: ToolCallSpec[]; text?: string; usage?: Usage })
  | (Timing & { error: number; body?: unknown; headers?: Record<string, string> })
  | (Timing & { hang: true })
  /** Streams the text (one delta unless `chunks`), then holds the response open until released or closed. */
  | (Timing & { textThenHang: string; chunks?: number });

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
