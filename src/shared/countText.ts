// Counts as people read them (the panel, an exported conversation): "1,234" (en-US grouping, as the rest of the panel's English text).
// Written out rather than an Intl.NumberFormat: the first Intl object a page makes loads the locale data, 10–35 ms
// measured in Chromium, which the panel paid at load before it could show its history.

/** An integer with its thousands grouped by commas; anything else as JavaScript writes it. */
export function countText(n: number): string {
  if (!Number.isSafeInteger(n)) return String(n);
  const digits = String(Math.abs(n));
  let out = '';
  for (let end = digits.length; end > 0; end -= 3) out = digits.slice(Math.max(0, end - 3), end) + (out ? `,${out}` : '');
  return n < 0 ? `-${out}` : out;
}
