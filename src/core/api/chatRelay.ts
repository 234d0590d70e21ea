// What @baton in VS Code's Chat view needs beyond a turn: the answers to results of workers it
// started (streamed into the open response, or kept for the next one when none is open), a note
// when the conversation went on in the panel meanwhile, and the slash commands' plain logic.
// A Chat response exists only while its request is handled, so a result that arrives later waits
// here; the panel shows it at once either way (one log).
import type { BatonEvent } from './batonEvents';
import { MEMORY_CATEGORIES, type LogEntry, type MemoryCategory } from '../store/types';
import type { BatonEvents } from './batonEvents';

export interface RelayedAnswer {
  worker: string;
  /** The orchestrator's answer to the worker's result. */
  text: string;
}

/** A Chat response following the answers to some workers' results. */
export interface ChatWatch {
  /** Called with every event of the claimed workers' background turns, in order. */
  on: (event: BatonEvent, worker: string) => void;
}

/**
 * Answers kept for a chat that has not spoken since (they are in the panel's log anyway): the newest
 * PENDING_PER_CONVERSATION of each of the PENDING_CONVERSATIONS conversations they last came to.
 */
export const PENDING_PER_CONVERSATION = 10;
export const PENDING_CONVERSATIONS = 20;

export class ChatRelay {
  /** Per conversation, oldest first; the map in the order answers last came (oldest first). */
  private readonly pending = new Map<string, RelayedAnswer[]>();
  /** Workers whose answer an open Chat response is waiting for. */
  private readonly claimed = new Map<string, ChatWatch>();
  /** Background turn id → its worker, while it runs. */
  private readonly turns = new Map<string, string>();
  private readonly off: () => void;

  constructor(events: Pick<BatonEvents, 'onEvent'>) {
    this.off = events.onEvent((e) => this.onEvent(e));
  }

  /** An open response follows these workers' answers; the returned function lets go (unanswered ones are kept for later). */
  claim(workers: string[], watch: ChatWatch): () => void {
    for (const w of workers) this.claimed.set(w, watch);
    return () => {
      for (const w of workers) if (this.claimed.get(w) === watch) this.claimed.delete(w);
    };
  }

  /**
   * The answers in `conversation` no Chat response was open for, oldest first; taking them empties its list. Each
   * chat shows its own conversation's: another chat's worker is none of its business.
   */
  takePending(conversation: string): RelayedAnswer[] {
    const answers = this.pending.get(conversation) ?? [];
    this.pending.delete(conversation);
    return answers;
  }

  private keep(conversation: string, answer: RelayedAnswer): void {
    const answers = this.pending.get(conversation) ?? [];
    this.pending.delete(conversation);
    this.pending.set(conversation, [...answers, answer].slice(-PENDING_PER_CONVERSATION));
    for (const oldest of this.pending.keys()) {
      if (this.pending.size <= PENDING_CONVERSATIONS) break;
      this.pending.delete(oldest);
    }
  }

  private onEvent(e: BatonEvent): void {
    if (e.type === 'turn.starting' && e.origin.channel === 'background' && e.origin.replyTo === 'chat' && e.origin.worker)
      this.turns.set(e.turnId, e.origin.worker);
    if (e.type !== 'turn.starting' && e.type !== 'turn.streaming' && e.type !== 'turn.completed' && e.type !== 'turn.failed' && e.type !== 'turn.cancelled')
      return;
    const worker = this.turns.get(e.turnId);
    if (!worker) return;
    const terminal = e.type === 'turn.completed' || e.type === 'turn.failed' || e.type === 'turn.cancelled';
    if (terminal) this.turns.delete(e.turnId);
    const watch = this.claimed.get(worker);
    if (watch) {
      watch.on(e, worker);
      if (terminal) this.claimed.delete(worker);
    } else if (e.type === 'turn.completed') {
      this.keep(e.conversation, { worker, text: e.text });
    }
  }

  dispose(): void {
    this.off();
  }
}

/**
 * How many messages reached Baton from other channels (the panel, a command, a tool, another
 * extension) since the last one from Chat, newest log last; 0 when Chat was the last to speak.
 */
export function messagesElsewhere(log: readonly LogEntry[]): { count: number; channels: string[] } {
  const users = log.filter((e) => e.role === 'user');
  let lastChat = -1;
  users.forEach((e, i) => {
    if (e.source === 'chat') lastChat = i;
  });
  if (lastChat < 0) return { count: 0, channels: [] };
  const since = users.slice(lastChat + 1);
  return { count: since.length, channels: [...new Set(since.map((e) => e.source))] };
}

/** "/remember preference: tabs over spaces" → a category and the text; without a known category, a fact. */
export function parseRemember(text: string): { category: MemoryCategory; content: string } | { error: string } {
  const trimmed = text.trim();
  if (!trimmed) return { error: 'Say what to remember, e.g. `/remember preference: tabs over spaces`.' };
  const m = /^(\w+)\s*:\s*([\s\S]+)$/.exec(trimmed);
  const category = m?.[1]?.toLowerCase() as MemoryCategory | undefined;
  if (m && category && MEMORY_CATEGORIES.includes(category)) return { category, content: m[2]!.trim() };
  return { category: 'fact', content: trimmed };
}
