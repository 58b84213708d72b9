// Distributions of timings, and numbers and tables as the report and the targets write them.

/** The `q` quantile (0–1) of `values`, linearly interpolated; NaN when there are none. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  const at = (sorted.length - 1) * Math.min(1, Math.max(0, q));
  const [a = Number.NaN, b = Number.NaN] = [sorted[Math.floor(at)], sorted[Math.ceil(at)]];
  return a + (b - a) * (at - Math.floor(at));
}

export function distribution(values: readonly number[] = []) {
  const q = (p: number) => quantile(values, p);
  const n = values.filter(Number.isFinite).length;
  return { n, median: q(0.5), p10: q(0.1), p90: q(0.9), min: q(0), max: q(1) };
}

export type Distribution = ReturnType<typeof distribution>;

const finite = (n: number | undefined): n is number => n !== undefined && Number.isFinite(n);
export const int = (n?: number) => (finite(n) ? Math.round(n).toLocaleString("en-US") : "–");
/** Milliseconds in a table of runs: whole from 100, else one decimal. */
export const ms = (n?: number) => (!finite(n) ? "–" : n >= 100 ? int(n) : n.toFixed(1));
/** Milliseconds of a target or a distribution: two decimals under 10. */
export const fine = (n?: number) => (finite(n) && n < 10 ? n.toFixed(2) : ms(n));
export const mb = (n?: number) => (finite(n) ? n.toFixed(1) : "–");
export const ratio = (n?: number) => (finite(n) ? `${n.toFixed(2)}×` : "–");
export const pct = (n?: number) => (finite(n) ? `${(n * 100).toFixed(1)}%` : "–");

/** A column of a table: its header, its cell of a row, and `true` when it is text (left-aligned). */
export type Column<R> = readonly [header: string, cell: (row: R) => string | number, text?: boolean];

export function table<R>(columns: readonly Column<R>[], rows: readonly R[]): string {
  const line = (cells: readonly (string | number)[]) => `| ${cells.join(" | ")} |`;
  const rule = line(columns.map(([, , text]) => (text ? "---" : "---:")));
  const body = rows.map((r) => line(columns.map(([, cell]) => cell(r))));
  return [line(columns.map(([h]) => h)), rule, ...body].join("\n");
}
