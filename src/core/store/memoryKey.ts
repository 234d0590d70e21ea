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
 * Two memories in one category are duplicates when they use the same words, ignoring case, punctuation, order and
 * repetition: "Prefers TypeScript." and "typescript, prefers" share the key "prefers typescript".
 */
export function memoryKey(content: string): string {
  return [...new Set(words(content))].sort().join(' ');
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
