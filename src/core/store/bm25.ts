// Full-text ranking for FTS4 tables (the sql.js build has no FTS5 and so no bm25()): the wiki's search and the
// memories a turn is given both rank with this.

const K1 = 1.2;

/**
 * BM25 (without length normalisation, which FTS4's 'pcnx' does not give) from matchinfo's p, c, n and x values;
 * `weights[c]` weighs column c (default 1).
 */
export function bm25(blob: Uint8Array, weights: readonly number[] = []): number {
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const at = (i: number): number => view.getUint32(i * 4, true);
  const phrases = at(0);
  const columns = at(1);
  const docs = at(2);
  let score = 0;
  for (let p = 0; p < phrases; p++) {
    for (let c = 0; c < columns; c++) {
      const base = 3 + 3 * (p * columns + c);
      const tf = at(base);
      const df = at(base + 2);
      if (!tf) continue;
      const idf = Math.log(1 + (docs - df + 0.5) / (df + 0.5));
      score += (weights[c] ?? 1) * idf * ((tf * (K1 + 1)) / (tf + K1));
    }
  }
  return Math.round(score * 1000) / 1000;
}
