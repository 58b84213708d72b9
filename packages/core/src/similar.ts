import { compareCodeUnits } from "./text.js";

/** Most names a "similar:" list holds. */
const MAX_SIMILAR = 5;

/** Levenshtein distance with adjacent transpositions (optimal string alignment). */
function distance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = d[i] as number[];
      const above = d[i - 1] as number[];
      let best = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, ((d[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = best;
    }
  }
  return (d[rows - 1] as number[])[cols - 1] as number;
}

function sharedPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/**
 * Names that look like `wanted`: a small edit away (typos, a missing `s`), one a prefix of the
 * other (`pdf` for `pdf-forms`), or sharing the first half of the name (`internal-docs` for
 * `internal-deploy`). Closest first, then in code-unit order. Only the names
 * given are candidates, so a caller that passes what the agent may see leaks nothing else.
 */
export function similarNames(wanted: string, names: readonly string[]): string[] {
  const w = wanted.trim().toLowerCase();
  if (w === "") return [];
  const allowed = Math.max(1, Math.min(3, Math.floor(w.length / 3)));
  const scored: { name: string; score: number }[] = [];
  for (const name of names) {
    const n = name.toLowerCase();
    if (n === w) {
      scored.push({ name, score: 0 });
      continue;
    }
    const d = Math.abs(n.length - w.length) > allowed + 8 ? Number.POSITIVE_INFINITY : distance(w, n);
    if (d <= allowed) scored.push({ name, score: d });
    else if (w.length >= 3 && (n.startsWith(w) || w.startsWith(n)) && n.length >= 2) {
      scored.push({ name, score: allowed + 1 });
    } else if (sharedPrefix(w, n) >= Math.max(4, Math.ceil(w.length / 2))) {
      scored.push({ name, score: allowed + 2 });
    }
  }
  return scored
    .sort((a, b) => a.score - b.score || compareCodeUnits(a.name, b.name))
    .slice(0, MAX_SIMILAR)
    .map((s) => s.name);
}
