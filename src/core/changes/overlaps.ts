// Overlap: two pending change sets touching the same file. Found from the files each worker touched
// (refreshed while it runs), so both cards can say so before either finishes and the orchestrator can
// sequence or merge the work instead of finding out at Apply.

export interface Overlap {
  /** The other worker. */
  worker: string;
  /** Files both touched, sorted. */
  paths: string[];
}

/** For each worker, the other workers whose touched files share a path with its own (by name). */
export function findOverlaps(touched: ReadonlyMap<string, readonly string[]>): Map<string, Overlap[]> {
  const byPath = new Map<string, string[]>();
  for (const [worker, paths] of touched) {
    for (const p of new Set(paths)) byPath.set(p, [...(byPath.get(p) ?? []), worker]);
  }
  const pairs = new Map<string, Map<string, string[]>>();
  for (const [p, workers] of byPath) {
    if (workers.length < 2) continue;
    for (const a of workers) {
      for (const b of workers) {
        if (a === b) continue;
        const mine = pairs.get(a) ?? new Map<string, string[]>();
        mine.set(b, [...(mine.get(b) ?? []), p]);
        pairs.set(a, mine);
      }
    }
  }
  const result = new Map<string, Overlap[]>();
  for (const [a, others] of pairs) {
    result.set(
      a,
      [...others].sort(([x], [y]) => (x < y ? -1 : 1)).map(([worker, paths]) => ({ worker, paths: paths.sort() })),
    );
  }
  return result;
}

/** "also touched by worker 'b' (src/app.txt)": the card's and the completion message's wording. */
export function describeOverlaps(overlaps: readonly Overlap[]): string {
  return overlaps.map((o) => `worker '${o.worker}' (${o.paths.join(', ')})`).join('; ');
}
