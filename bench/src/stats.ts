/** A distribution of timings, in milliseconds. */
export interface Distribution {
  readonly n: number;
  readonly median: number;
  readonly p10: number;
  readonly p90: number;
  readonly min: number;
  readonly max: number;
}

/** The `q` quantile (0–1) of `values`, linearly interpolated; NaN when there are none. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const at = (sorted.length - 1) * Math.min(1, Math.max(0, q));
  const a = sorted[Math.floor(at)] as number;
  const b = sorted[Math.ceil(at)] as number;
  return a + (b - a) * (at - Math.floor(at));
}

export function distribution(values: readonly number[]): Distribution {
  const finite = values.filter(Number.isFinite);
  const n = finite.length;
  const at = (q: number) => quantile(finite, q);
  const [min, max] = n ? [Math.min(...finite), Math.max(...finite)] : [Number.NaN, Number.NaN];
  return { n, median: at(0.5), p10: at(0.1), p90: at(0.9), min, max };
}
