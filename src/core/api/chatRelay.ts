// What @baton in VS Code's Chat view needs beyond a turn: the answers to results of workers it
// started (streamed into the open response, or kept for the next one when none is open), a note
// when the conversation went on in the panel meanwhile, and the slash commands' plain logic.
// A Chat response exists only while its request is handled, so a result that arrives later waits
// here; the panel shows it at once either way (one log).
import type { BatonErrorInfo, BatonWorkerEndState } from '../../../api/baton';
import type { BatonEvent } from './batonEvents';
import type { OrchestratorEvent } from '../orchestrator/events';
import { MEMORY_CATEGORIES, type LogEntry, type MemoryCategory } from '../store/types';
import type { BatonEvents } from './batonEvents';
import { pastTense } from '../workers/workerMessages';

export interface RelayedAnswer {
  worker: string;
  /** The orchestrator's answer to the worker's result. */
  text: string;
}

/** How the wait for a worker's answer ended. */
export type AnswerEnd =
  | { kind: 'answered' }
  /** Answered, and a question to the user (a permission, an apply confirm) waits in the panel. */
  | { kind: 'awaiting-input' }
  | { kind: 'failed'; error: BatonErrorInfo }
  /** The answer was stopped, or taken out of the queue before it started. */
  | { kind: 'stopped' }
  /** The conversation runs in another window: the answer is given there. */
  | { kind: 'elsewhere' }
  /** The worker ended and no answer is coming: the orchestrator stopped it itself, or its report could not be handed over. */
  | { kind: 'unanswered'; state: BatonWorkerEndState };

/** A Chat response following the answers to some workers' results. */
export interface ChatWatch {
  /** Called with every event of the claimed workers' background turns, in order. */
  on: (event: BatonEvent, worker: string) => void;
  /** The wait for `worker` is over, once, however it ended (the response must not wait on: nothing else will come). */
  ended: (worker: string, end: AnswerEnd) => void;
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
  /** Background turn id → its worker, from when it is queued until it ends. */
  private readonly turns = new Map<string, string>();
  private readonly offs: Array<() => void>;

  /**
   * `orchestrators`: every conversation's own events, for what the public ones leave out: that an answer to a worker
   * was queued (so a finished worker has one coming), or withdrawn from the queue.
   */
  constructor(events: Pick<BatonEvents, 'onEvent'>, orchestrators: { onEvent(handler: (e: OrchestratorEvent) => void): () => void }) {
    this.offs = [events.onEvent((e) => this.onEvent(e)), orchestrators.onEvent((e) => this.onOrchestrator(e))];
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

  private end(worker: string, end: AnswerEnd): void {
    const watch = this.claimed.get(worker);
    if (!watch) return;
    this.claimed.delete(worker);
    watch.ended(worker, end);
  }

  private answering(worker: string): boolean {
    return [...this.turns.values()].includes(worker);
  }

  private onOrchestrator(e: OrchestratorEvent): void {
    if (e.type === 'turn.queued' && e.origin.channel === 'background' && e.origin.replyTo === 'chat' && e.origin.worker) {
      if (e.elsewhere) this.end(e.origin.worker, { kind: 'elsewhere' });
      else this.turns.set(e.turnId, e.origin.worker);
    } else if (e.type === 'turn.withdrawn') {
      const worker = this.turns.get(e.turnId);
      // Withdrawn once started, it also ends as turn.cancelled (onEvent), and that was first.
      this.turns.delete(e.turnId);
      if (worker) this.end(worker, { kind: 'stopped' });
    }
  }

  private onEvent(e: BatonEvent): void {
    if (e.type === 'worker.finished') {
      // A report handed over is queued as a turn in the same dispatch as this event, and our listener of the
      // orchestrator's events may hear of it after this one: whether an answer is coming is read once it has.
      if (this.claimed.has(e.worker))
        queueMicrotask(() => {
          if (!this.answering(e.worker)) this.end(e.worker, { kind: 'unanswered', state: e.state });
        });
      return;
    }
    if (e.type === 'turn.starting' && e.origin.channel === 'background' && e.origin.replyTo === 'chat' && e.origin.worker)
      this.turns.set(e.turnId, e.origin.worker);
    const terminal = e.type === 'turn.completed' || e.type === 'turn.awaiting-input' || e.type === 'turn.failed' || e.type === 'turn.cancelled';
    if (!terminal && e.type !== 'turn.starting' && e.type !== 'turn.streaming') return;
    const worker = this.turns.get(e.turnId);
    if (!worker) return;
    if (terminal) this.turns.delete(e.turnId);
    const watch = this.claimed.get(worker);
    if (watch) {
      watch.on(e, worker);
      if (terminal) this.end(worker, answerEnd(e));
    } else if (e.type === 'turn.completed' || e.type === 'turn.awaiting-input') {
      this.keep(e.conversation, { worker, text: e.text });
    }
  }

  dispose(): void {
    for (const off of this.offs) off();
  }
}

function answerEnd(e: Extract<BatonEvent, { type: 'turn.completed' | 'turn.awaiting-input' | 'turn.failed' | 'turn.cancelled' }>): AnswerEnd {
  switch (e.type) {
    case 'turn.completed':
      return { kind: 'answered' };
    case 'turn.awaiting-input':
      return { kind: 'awaiting-input' };
    case 'turn.failed':
      return { kind: 'failed', error: e.error };
    case 'turn.cancelled':
      return { kind: 'stopped' };
  }
}

/** What the Chat response says last about a worker whose wait ended (markdown); nothing when its answer said it all. */
export function answerEndNote(worker: string, end: AnswerEnd): string {
  switch (end.kind) {
    case 'answered':
      return '';
    case 'awaiting-input':
      return '\n\n_Baton is waiting for your answer to a question in its panel._';
    case 'failed':
      return `\n\n**Baton could not answer worker '${worker}'\u2019s result:** ${end.error.message}`;
    case 'stopped':
      return `\n\n_Baton\u2019s answer to worker '${worker}' was stopped._`;
    case 'elsewhere':
      return `\n\n---\n\n_Worker '${worker}' finished; its result is answered in the window that runs this conversation._`;
    case 'unanswered':
      return end.state === 'killed'
        ? `\n\n---\n\n**Worker '${worker}' was stopped by Baton** before it finished; no answer follows. Its transcript keeps what it did.`
        : `\n\n---\n\n**Worker '${worker}' ${pastTense(end.state)}**; no answer from Baton follows here. Its transcript keeps what it did.`;
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
