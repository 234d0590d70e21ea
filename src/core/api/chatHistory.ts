// VS Code's Chat view lets people edit a request they sent, or retry it: that request and every later one leave the
// chat's history, and the new one comes to @baton. Baton's conversation still has them, so the model would answer
// with what the chat no longer shows. Before the new request is sent, the conversation is taken back to match
// (Orchestrator.rewindTo): this finds the message to take it back to, and which conversation a chat is.
// Prompts are compared trimmed: the log holds a message trimmed (askInput), the chat's history as typed.
import type { LogEntry } from '../store/types';

/** One of @baton's turns in a chat's history (chatParticipant maps VS Code's turns to these, other participants' left out). */
export type ChatTurn =
  | { kind: 'request'; prompt: string; command?: string }
  | { kind: 'response'; command?: string; /** What its result's metadata names (none for a stopped request). */ conversation?: unknown };

const same = (a: string, b: string): boolean => a.trim() === b.trim();
const chatMessages = (log: readonly LogEntry[]): LogEntry[] => log.filter((e) => e.role === 'user' && e.source === 'chat');

/** The conversation the chat's last @baton answer named, if any. */
export function conversationNamed(turns: readonly ChatTurn[]): string | undefined {
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i]!;
    if (turn.kind === 'response' && typeof turn.conversation === 'string' && turn.conversation) return turn.conversation;
  }
  return undefined;
}

/** The prompts of the chat's @baton requests (not its commands), oldest first. */
export function chatPrompts(turns: readonly ChatTurn[]): string[] {
  return turns.flatMap((t) => (t.kind === 'request' && !t.command ? [t.prompt] : []));
}

/**
 * The prompts of the chat's @baton requests (not its commands) answered in `conversation`, oldest first. A stopped
 * one's answer names no conversation (VS Code keeps no result for it): it went where the chat was then, the
 * conversation the last answer before it named (after /new: the new one), or, before any named one, the first named
 * after it. Left out, it read as taken out of the chat, and the next message cut the conversation before it.
 */
export function askedIn(turns: readonly ChatTurn[], conversation: string): string[] {
  const named = (t: ChatTurn | undefined): string | undefined =>
    t?.kind === 'response' && typeof t.conversation === 'string' && t.conversation ? t.conversation : undefined;
  const prompts: string[] = [];
  let current: string | undefined;
  turns.forEach((turn, i) => {
    const id = named(turn);
    if (id) current = id;
    const asked = turns[i - 1];
    if (turn.kind !== 'response' || turn.command || asked?.kind !== 'request') return;
    const where =
      id ??
      current ??
      turns
        .slice(i + 1)
        .map(named)
        .find(Boolean) ??
      conversation;
    if (where === conversation) prompts.push(asked.prompt);
  });
  return prompts;
}

/**
 * The first of your Chat-view messages in `log` that the chat's history no longer has (the one to take the
 * conversation back to), or undefined when the history still has them all.
 *
 * `history`: the prompts of the chat's @baton requests sent to this conversation, oldest first. `log`: the
 * conversation's kept log, oldest first; it may have lost its oldest rows to its bound, so its Chat-view messages
 * are a run that ends where the chat's own ended. What the chat kept is the longest run of them, from their start,
 * that ends its history; a message the chat no longer has comes after that run. With the same prompt sent twice,
 * the longest run is the one taken: the least is taken back. When no run lines up (a request the chat has that never
 * reached the log, say one refused before it was sent), nothing is taken back: only a sure match takes anything.
 * An empty history with Chat-view messages in the log (the first message after /new, edited or retried: the chat
 * names the conversation by /new's answer) takes back the first of them.
 */
export function firstDroppedChatMessage(history: readonly string[], log: readonly LogEntry[]): LogEntry | undefined {
  const sent = chatMessages(log);
  if (!history.length) return sent[0];
  for (let kept = Math.min(sent.length, history.length); kept >= 1; kept--) {
    const tail = history.slice(history.length - kept);
    if (tail.every((prompt, i) => same(sent[i]!.content, prompt))) return sent[kept];
  }
  return undefined;
}

/** Whether a chat got an answer naming this conversation: one of its Chat-view messages was answered, not stopped. */
export function answeredInChat(log: readonly LogEntry[]): boolean {
  return chatMessages(log).some((e) => e.status === 'complete' || e.status === 'failed');
}

/** A conversation a chat that names none may be: its kept log, and whether another chat is known to name it. */
export interface ChatCandidate {
  id: string;
  log: readonly LogEntry[];
  /** Another chat of this window holds an answer naming it: never this chat's. */
  named?: boolean;
}

/**
 * The conversation a chat's @baton requests went to, when no answer of the chat names it: VS Code keeps no result for
 * a request stopped before it ended, so a chat whose only @baton request was stopped named none, and its next message
 * started a new conversation (the model no longer saw the first). `prompts`: the chat's @baton requests, oldest first;
 * `candidates`: the Chat view's conversations, most recently active first. The one whose Chat-view messages begin with
 * those prompts is it; none when no conversation lines up (a request stopped before it reached the log).
 *
 * Two chats may begin alike ("hi"): a conversation another chat names is never taken, and one whose log shows an
 * answer a chat kept (answeredInChat) only when it holds nothing this chat lacks (nothing of it would be taken back),
 * and only when no conversation without such an answer lines up.
 */
export function conversationOfPrompts(prompts: readonly string[], candidates: readonly ChatCandidate[]): string | undefined {
  if (!prompts.length) return undefined;
  // The one most of the prompts line up with (a later request may have been stopped before it reached the log too).
  let best: { id: string; matched: number; answered: boolean } | undefined;
  for (const { id, log, named } of candidates) {
    if (named) continue;
    const sent = chatMessages(log);
    const head = sent.slice(0, prompts.length);
    if (!head.length || !head.every((e, i) => same(e.content, prompts[i]!))) continue;
    const answered = answeredInChat(log);
    if (answered && sent.length > prompts.length) continue;
    const better = !best || (best.answered && !answered) || (best.answered === answered && head.length > best.matched);
    if (better) best = { id, matched: head.length, answered };
  }
  return best?.id;
}
