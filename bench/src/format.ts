// Distributions of timings, and numbers and tables as the report and the targets write them.

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
  const at = (sorted.length - 1) * Math.min(1, Math.max(0, q));
  const [a = Number.NaN, b = Number.NaN] = [sorted[Math.floor(at)], sorted[Math.ceil(at)]];
  return a + (b - a) * (at - Math.floor(at));
}

export function distribution(values: readonly number[]): Distribution {
  const finite = values.filter(Number.isFinite);
  const [min, max] = finite.length ? [Math.min(...finite), Math.max(...finite)] : [Number.NaN, Number.NaN];
  return {
    n: finite.length,
    median: quantile(finite, 0.5),
    p10: quantile(finite, 0.1),
    p90: quantile(finite, 0.9),
    min,
    max,
  };
}

export const int = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "–");

/** Milliseconds in a table of runs: whole from 100, else one decimal. */
export const ms = (n: number): string => (!Number.isFinite(n) ? "–" : n >= 100 ? int(n) : n.toFixed(1));

/** Milliseconds of a target or a distribution: two decimals under 10. */
export const fine = (n: number): string => (Number.isFinite(n) && n < 10 ? n.toFixed(2) : ms(n));

export const mb = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : "–");

export const ratio = (n: number): string => (Number.isFinite(n) ? `${n.toFixed(2)}×` : "–");

export const pct = (n: number): string => (Number.isFinite(n) ? `${(n * 100).toFixed(1)}%` : "–");

/** A Markdown table: its header's cells separated by ` | `, and a letter per column, `l` or `r`. */
export function table(header: string, align: string, rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [`| ${header} |`, line([...align].map((a) => (a === "r" ? "---:" : "---"))), ...rows.map(line)].join(
    "\n",
  );
}
