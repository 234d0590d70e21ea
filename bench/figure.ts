/** One measured figure; `target` is the goal in words ("≤ 1.05"), checked by `meetsTarget`. */
export interface BenchFigure {
  name: string;
  value: number;
  unit: string;
  target?: string;
}

export function meetsTarget(f: BenchFigure): boolean | undefined {
  const m = /^(≤|<=|≥|>=)\s*([\d.]+)/.exec(f.target ?? '');
  if (!m) return undefined;
  const limit = Number(m[2]);
  return m[1] === '≤' || m[1] === '<=' ? f.value <= limit : f.value >= limit;
}
