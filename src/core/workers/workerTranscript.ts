// A worker's events as readable text (prompts, assistant messages, tool calls with their arguments,
// results, permission decisions, errors), for a read-only document, plus the "last line" a card shows.
// Bounded: long entries are clipped and old ones dropped, so a chatty worker cannot grow without limit.
import type { AgentEvent as SessionEvent } from '../copilot/agentSessions';
import { localClock } from '../util/localTime';

export type TranscriptKind = 'prompt' | 'assistant' | 'tool' | 'result' | 'permission' | 'error' | 'info';

export interface TranscriptEntry {
  at: number;
  kind: TranscriptKind;
  text: string;
}

export const TRANSCRIPT_MAX_ENTRIES = 1000;
export const TRANSCRIPT_MAX_ENTRY_CHARS = 20_000;
const MAX_RESULT_CHARS = 4000;
/** A card shows 200 characters of a line; its start is kept with room for the spaces trim() drops. */
const OPEN_LINE_CHARS = 1000;

export class WorkerTranscript {
  private readonly entries: TranscriptEntry[] = [];
  private dropped = 0;
  private streaming = '';
  /** The start of the line the stream is writing (up to OPEN_LINE_CHARS), and the last non-empty line it ended. */
  private openLine = '';
  private lastEnded: string | undefined;
  private toolNames = new Map<string, string>();
  /** Everything the assistant said in the current task (final messages, not deltas). */
  private taskMessages: string[] = [];
  lastLine = '';

  constructor(private readonly now: () => number = Date.now) {}

  add(kind: TranscriptKind, text: string): void {
    const clipped =
      text.length > TRANSCRIPT_MAX_ENTRY_CHARS
        ? `${text.slice(0, TRANSCRIPT_MAX_ENTRY_CHARS)}\n[… ${text.length - TRANSCRIPT_MAX_ENTRY_CHARS} more characters]`
        : text;
    this.entries.push({ at: this.now(), kind, text: clipped });
    if (this.entries.length > TRANSCRIPT_MAX_ENTRIES) {
      this.entries.shift();
      this.dropped++;
    }
  }

  /** A new task starts: its output is collected afresh. */
  beginTask(prompt: string): void {
    this.taskMessages = [];
    this.streaming = '';
    this.openLine = '';
    this.lastEnded = undefined;
    this.add('prompt', prompt);
    this.lastLine = '';
  }

  /** The assistant's messages of the current task, joined; what the orchestrator receives. */
  taskOutput(): string {
    const done = this.taskMessages.join('\n\n');
    // A task cut short (timeout, kill) may have streamed text that never became a message.
    return this.streaming ? `${done}${done ? '\n\n' : ''}${this.streaming}` : done;
  }

  /** Returns true when the card's last line changed. */
  onEvent(event: SessionEvent): boolean {
    const before = this.lastLine;
    switch (event.type) {
      case 'assistant.message_delta': {
        const delta = event.data.deltaContent;
        this.streaming += delta;
        // From the delta and the line it continues, never the whole stream: that is read again only when the task
        // ends (taskOutput). Reading it per delta (a split, or even a search from its end, which first flattens the
        // string built by +=) blocked the extension host for 24 s on a 500 KB reply in 10,000 deltas.
        const cut = delta.lastIndexOf('\n');
        const ended = cut < 0 ? undefined : lastNonEmptyLine(this.openLine + delta.slice(0, cut));
        if (ended) this.lastEnded = ended;
        this.openLine = (cut < 0 ? this.openLine + delta : delta.slice(cut + 1)).slice(0, OPEN_LINE_CHARS);
        const line = this.openLine.trim() ? clip(this.openLine.trim(), 200) : this.lastEnded;
        if (line) this.lastLine = line;
        break;
      }
      case 'assistant.message': {
        this.streaming = '';
        this.openLine = '';
        this.lastEnded = undefined;
        const content = event.data.content ?? '';
        if (content.trim()) {
          this.taskMessages.push(content);
          this.add('assistant', content);
          this.lastLine = lastNonEmptyLine(content) ?? this.lastLine;
        }
        break;
      }
      case 'tool.execution_start': {
        const { toolName, toolCallId } = event.data;
        this.toolNames.set(toolCallId, toolName);
        const args = event.data.arguments === undefined ? '' : ` ${safeJson(event.data.arguments)}`;
        this.add('tool', `${toolName}${args}`);
        this.lastLine = `→ ${toolName}${args ? ` ${clip(args.trim(), 120)}` : ''}`;
        break;
      }
      case 'tool.execution_complete': {
        const name = this.toolNames.get(event.data.toolCallId) ?? 'tool';
        this.toolNames.delete(event.data.toolCallId);
        const d = event.data as { success: boolean; result?: { content?: string }; error?: { message?: string } };
        const text = d.success ? (d.result?.content ?? '') : `failed: ${d.error?.message ?? 'unknown error'}`;
        this.add('result', `${name}: ${clip(text, MAX_RESULT_CHARS)}`);
        break;
      }
      case 'session.error':
        this.add('error', `${event.data.errorType ? `${event.data.errorType}: ` : ''}${event.data.message}`);
        this.lastLine = `error: ${event.data.message.split('\n')[0]}`;
        break;
      case 'abort':
        this.add('info', `aborted${event.data.reason ? `: ${event.data.reason}` : ''}`);
        break;
      default:
        break;
    }
    return this.lastLine !== before;
  }

  /** The whole transcript as plain text (markdown-ish headings, readable in any editor). */
  render(header: string): string {
    const parts = [header];
    if (this.dropped) parts.push(`[${this.dropped} earlier entries dropped]`);
    for (const e of this.entries) {
      const time = localClock(new Date(e.at));
      switch (e.kind) {
        case 'prompt':
          parts.push(`── ${time} Prompt ──\n${e.text}`);
          break;
        case 'assistant':
          parts.push(`── ${time} Assistant ──\n${e.text}`);
          break;
        case 'tool':
          parts.push(`${time} → ${e.text}`);
          break;
        case 'result':
          parts.push(`${time} ← ${indentTail(e.text)}`);
          break;
        case 'permission':
          parts.push(`${time} 🔒 ${e.text}`);
          break;
        case 'error':
          parts.push(`${time} ✖ ${e.text}`);
          break;
        case 'info':
          parts.push(`${time} · ${e.text}`);
          break;
      }
    }
    if (this.streaming) parts.push(`── (streaming) ──\n${this.streaming}`);
    return `${parts.join('\n\n')}\n`;
  }
}

/**
 * The last line of `text` with something on it, clipped. Read from the end: it runs on every streamed delta, so a
 * reply of 500 KB split whole at each of its 10,000 deltas blocked the extension host for seconds (measured: 24 s).
 */
function lastNonEmptyLine(text: string): string | undefined {
  let end = text.length;
  while (end > 0) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const line = text.slice(start, end).trim();
    if (line) return clip(line, 200);
    end = start - 1;
  }
  return undefined;
}

function safeJson(v: unknown): string {
  try {
    return typeof v === 'string' ? v : JSON.stringify(v);
  } catch {
    return String(v);
  }
}

function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

function indentTail(s: string): string {
  return s.replace(/\n/g, '\n    ');
}
