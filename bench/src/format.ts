// Numbers and tables as the report and the targets table write them.

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
