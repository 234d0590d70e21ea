// VS Code's Chat view lets people edit a request they sent, or retry it: that request and every later one leave the
// chat's history, and the new one comes to @baton. Baton's conversation still has them, so the model would answer
// with what the chat no longer shows. Before the new request is sent, the conversation is taken back to match
// (Orchestrator.rewindTo): this finds the message to take it back to.
import type { LogEntry } from '../store/types';

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
 * (An edit of a chat's first request starts a new conversation: the chat then names none.)
 */
export function firstDroppedChatMessage(history: readonly string[], log: readonly LogEntry[]): LogEntry | undefined {
  const sent = log.filter((e) => e.role === 'user' && e.source === 'chat');
  for (let kept = Math.min(sent.length, history.length); kept >= 1; kept--) {
    const tail = history.slice(history.length - kept);
    if (tail.every((prompt, i) => sent[i]!.content === prompt)) return sent[kept];
  }
  return undefined;
}

/**
 * The conversation a chat's @baton requests went to, when no answer of the chat names it: VS Code keeps no result for
 * a request stopped before it ended, so a chat whose only @baton request was stopped named none, and its next message
 * started a new conversation (the model no longer saw the first). `prompts`: the chat's @baton requests, oldest first;
 * `candidates`: the Chat view's conversations, most recently active first. The one whose Chat-view messages begin with
 * those prompts is it; none when no conversation lines up (a request stopped before it reached the log).
 */
export function conversationOfPrompts(prompts: readonly string[], candidates: ReadonlyArray<{ id: string; log: readonly LogEntry[] }>): string | undefined {
  if (!prompts.length) return undefined;
  // The one most of the prompts line up with (a later request may have been stopped before it reached the log too).
  let best: { id: string; matched: number } | undefined;
  for (const { id, log } of candidates) {
    const sent = log.filter((e) => e.role === 'user' && e.source === 'chat');
    const head = sent.slice(0, prompts.length);
    if (!head.length || !head.every((e, i) => e.content === prompts[i])) continue;
    if (!best || head.length > best.matched) best = { id, matched: head.length };
  }
  return best?.id;
}
