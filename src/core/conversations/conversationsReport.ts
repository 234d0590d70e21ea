// The Doctor's line on conversations: how many are kept and open against their bounds, and which are answering.
import { CONVERSATIONS_KEEP, TOOL_CONVERSATION_PREFIX, TOOL_CONVERSATIONS_KEEP } from '../store/bounds';
import type { ConversationInfo } from './conversations';

/** Titles are cut so a report stays one line; an untitled conversation is named by its id. */
const TITLE_CHARS = 40;

export function describeConversations(list: readonly ConversationInfo[], open: number, openKeep: number): string {
  const name = (c: ConversationInfo): string => {
    const title = c.title.trim() || c.id;
    return `"${title.length > TITLE_CHARS ? `${title.slice(0, TITLE_CHARS - 1)}…` : title}"`;
  };
  const shown = list.find((c) => c.active);
  const answering = list.filter((c) => c.busy);
  const tools = list.filter((c) => c.id.startsWith(TOOL_CONVERSATION_PREFIX)).length;
  return [
    `${list.length - tools} of ${CONVERSATIONS_KEEP} kept${tools ? ` (and ${tools} of ${TOOL_CONVERSATIONS_KEEP} opened by tool calls)` : ''}`,
    `${open} of ${openKeep} open in this window`,
    ...(shown ? [`shown: ${name(shown)} (${shown.messages} messages)`] : []),
    answering.length ? `answering: ${answering.map(name).join(', ')}` : 'none answering',
  ].join('; ');
}
