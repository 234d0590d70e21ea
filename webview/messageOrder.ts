// Questions about the panel's messages in their order, and how many of the oldest an open panel lets go.
import type { ReferenceChip } from '../src/shared/protocol';
import { chipOfStored } from '../src/shared/storedChip';
import { GROUP } from './messageGroups';
import type { MessageView } from './messageView';

/**
 * The messages an open panel keeps: the host's visible log (LOG_KEEP). Older ones, pruned from the log, leave it
 * TRIM_EXCESS at a time, in whole groups (messageGroups.ts), while the view follows the newest: a panel left open for
 * a week kept every message it had shown (some 46 elements each: 92,000 after 2,000 messages, measured in Chromium).
 */
export const PANEL_KEEP = 200;
const TRIM_EXCESS = 2 * GROUP;

/** How many of the oldest of `count` messages the panel lets go now: none, or whole groups down to PANEL_KEEP. */
export function trimCount(count: number): number {
  const excess = count - PANEL_KEEP;
  return excess < TRIM_EXCESS ? 0 : excess - (excess % GROUP);
}

/** The text of the message `id` as it came (a reply's Markdown), or undefined when the list has no such message. */
export function contentOf(messages: readonly MessageView[], id: string): string | undefined {
  return messages.find((v) => v.id === id)?.content;
}

/** The chips your message `id` was sent with, to attach again (Edit). */
export function chipsOf(messages: readonly MessageView[], id: string): ReferenceChip[] {
  return (messages.find((v) => v.id === id)?.references ?? []).map(chipOfStored);
}

/** The id of your message just before the message `id` (what its reply answered), if that is one of yours. */
export function userBefore(messages: readonly MessageView[], id: string): string | undefined {
  const before = messages[messages.findIndex((v) => v.id === id) - 1];
  return before?.role === 'user' ? before.id : undefined;
}

/** Marks the messages from `id` on (those an edit of `id` would take back); undefined: none. */
export function markFrom(messages: readonly MessageView[], id: string | undefined): void {
  const from = id === undefined ? -1 : messages.findIndex((v) => v.id === id);
  for (const [i, view] of messages.entries()) view.el.classList.toggle('superseded', from >= 0 && i >= from);
}

/**
 * What Stop names (chat/stop's `id`): the newest reply shown streaming, the one the user sees it stop. The host stops
 * that reply only while it still runs: the second press of a double click stopped the queued message's answer too.
 */
export function stoppedReply(messages: readonly MessageView[]): { id?: string } {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'assistant' && messages[i]!.isStreaming) return { id: messages[i]!.id };
  return {};
}

/** The text of the newest user message (for ArrowUp recall when nothing was sent in this page). */
export function lastUserText(messages: readonly MessageView[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'user') return messages[i]!.content;
  return undefined;
}
