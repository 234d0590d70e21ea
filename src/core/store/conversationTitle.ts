// A conversation's title: the first words of its first message, until the user names it.

/** Titles longer than this are cut (the list shows one line). */
export const TITLE_MAX = 80;

/** The title a first message gives its conversation: its first line, whitespace folded, cut at TITLE_MAX. */
export function titleFrom(text: string): string {
  const line = text.trim().split('\n')[0]?.replace(/\s+/g, ' ').trim() ?? '';
  return line.length > TITLE_MAX ? `${line.slice(0, TITLE_MAX - 1)}…` : line;
}
