// Search Conversations…: your messages and Baton's replies in every kept conversation that hold the words typed, newest
// first, each as a line of its text around the match. Picking one shows its conversation with it in view
// (ChatController.reveal).
import type { BatonStore } from '../store/types';

/** At most this many hits are listed; a search with more says so by listing the newest. */
export const SEARCH_HITS = 50;
/** The typed text is cut to this many characters; shorter than SEARCH_MIN, nothing is searched. */
export const SEARCH_TEXT_MAX = 200;
export const SEARCH_MIN = 2;

export interface SearchHit {
  conversation: string;
  logId: number;
  role: 'user' | 'assistant';
  /** One line of the message around the first match. */
  snippet: string;
  ts: string;
}

/** One line of `content` around the first place it holds `text` (ASCII case ignored), at most `width` characters. */
export function snippetAround(content: string, text: string, width = 90): string {
  const flat = content.replace(/\s+/g, ' ').trim();
  const at = Math.max(0, flat.toLowerCase().indexOf(text.toLowerCase()));
  if (flat.length <= width) return flat;
  // The match a little in from the left, so the words before it say what it is about.
  const start = Math.max(0, Math.min(at - Math.floor(width / 4), flat.length - width));
  const end = Math.min(flat.length, start + width);
  return `${start > 0 ? '…' : ''}${flat.slice(start, end).trim()}${end < flat.length ? '…' : ''}`;
}

/** The hits for `typed` in the conversations `known` (ids of those still kept). */
export function searchConversations(store: Pick<BatonStore, 'searchLog'>, typed: string, known: ReadonlySet<string>): SearchHit[] {
  const text = typed.trim().slice(0, SEARCH_TEXT_MAX);
  if (text.length < SEARCH_MIN) return [];
  return store
    .searchLog(text, SEARCH_HITS)
    .filter((e) => known.has(e.conversation) && (e.role === 'user' || e.role === 'assistant'))
    .map((e) => ({ conversation: e.conversation, logId: e.id, role: e.role as SearchHit['role'], snippet: snippetAround(e.content, text), ts: e.ts }));
}
