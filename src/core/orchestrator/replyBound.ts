// A reply as people read it (the panel, the log, the Chat view, the API) stops at MAX_REPLY_CHARS: what the model
// streams past it is not kept. The model's own session still holds all of it.
import { countText } from '../../shared/countText';
import { MAX_REPLY_CHARS } from '../store/bounds';

/** Ends a reply that was cut: for people, so it says what happened in their words. */
export const REPLY_CUT_NOTE = `_[The reply went on past ${countText(MAX_REPLY_CHARS)} characters; Baton keeps and shows only this much.]_`;

// A fence line opening or closing a code block: a cut inside one closes it, so the note does not read as code.
const FENCE = /^ {0,3}(`{3,}|~{3,})/gm;

/**
 * What a reply holding `text` so far takes of its next `delta`: all of it within the bound; at the bound, what fits and
 * the note, once; after that nothing.
 */
export function boundedDelta(text: string, delta: string): string {
  let room = MAX_REPLY_CHARS - text.length;
  if (room >= delta.length) return delta;
  if (room < 0) return '';
  // Never half of a character written as two UTF-16 units.
  if (room > 0 && /[\uD800-\uDBFF]/.test(delta[room - 1]!)) room--;
  const kept = text + delta.slice(0, room);
  const fences = kept.match(FENCE) ?? [];
  const close = fences.length % 2 === 1 ? `\n${fences.at(-1)!.trim()}` : '';
  return `${delta.slice(0, room)}${close}\n\n${REPLY_CUT_NOTE}`;
}
