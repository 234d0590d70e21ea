/** One measured figure; `target` is the goal in words ("≤ 1.05"), checked by `meetsTarget`. */
export interface BenchFigure {
  name: string;
  value: number;
  unit: string;
  target?: string;
}

/** The value with its unit, to three significant digits or so. */
export function formatFigure(f: BenchFigure): string {
  const digits = f.value >= 100 ? 0 : f.value >= 10 ? 1 : f.value >= 1 ? 2 : 3;
  return `${f.value.toFixed(digits)} ${f.unit}`;
}

export function meetsTarget(f: BenchFigure): boolean | undefined {
  const m = /^(≤|<=|≥|>=)\s*([\d.]+)/.exec(f.target ?? '');
  if (!m) return undefined;
  const limit = Number(m[2]);
  return m[1] === '≤' || m[1] === '<=' ? f.value <= limit : f.value >= limit;
}

/** The median (mean of the middle two for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
