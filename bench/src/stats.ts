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
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (at - lo);
}

export function distribution(values: readonly number[]): Distribution {
  const finite = values.filter(Number.isFinite);
  return {
    n: finite.length,
    median: quantile(finite, 0.5),
    p10: quantile(finite, 0.1),
    p90: quantile(finite, 0.9),
    min: finite.length ? Math.min(...finite) : Number.NaN,
    max: finite.length ? Math.max(...finite) : Number.NaN,
  };
}
