// Text helpers for long-term memory: the duplicate key and the keyword query.

function words(text: string): string[] {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/**
 * Two memories in one category are duplicates when they say the same words in the same order, ignoring case, spacing
 * and punctuation: "Prefers TypeScript." and "prefers typescript" share the key "prefers typescript". Order and
 * symbols are meaning: "Prefers tabs over spaces" then "Prefers spaces over tabs" is a changed preference, and "C++"
 * is not "C#" (a key of the set of words had refused both as "already remembered", and the new one was lost).
 */
export function memoryKey(content: string): string {
  const tokens =
    content
      .normalize('NFKC')
      .toLowerCase()
      .match(/[^\s.,;:!?'"()[\]{}\u2026\u2018\u2019\u201c\u201d]+/gu) ?? [];
  return tokens.join(' ') || content.trim();
}

/**
 * An FTS4 MATCH expression that finds rows containing every word of `keyword` (as a word prefix), or undefined when
 * the keyword has no words. Each word is quoted, so nothing the model types can be read as FTS syntax.
 */
export function ftsQuery(keyword: string): string | undefined {
  const unique = [...new Set(words(keyword))];
  return unique.length ? unique.map((w) => `"${w}"*`).join(' ') : undefined;
}

/** An FTS4 MATCH expression for rows with ANY of `words` as a word prefix (FTS4 reads a prefix inside OR as "word*" only: "word"* matches nothing there). */
export function ftsAnyQuery(words: readonly string[]): string {
  return words.map((w) => `"${w}*"`).join(' OR ');
}

/** The words of an expression ftsQuery made. */
export function ftsWords(expression: string): string[] {
  return expression.split(' ').map((t) => t.replace(/^"(.*)"\*$/, '$1'));
}
