import { compareCodeUnits } from "./text.js";

/** Most names a "similar:" list holds. */
const MAX_SIMILAR = 5;

/**
 * Levenshtein distance with adjacent transpositions (optimal string alignment), exact up to
 * `max`; any larger distance is `max + 1`. Only the cells within `max` of the diagonal are
 * computed (a cell further out is already more than `max` away), in three rows, and the walk
 * stops at the first row whose every cell passes `max`: O(length × max) time, O(length) memory,
 * however long the names.
 */
function boundedDistance(a: string, b: string, max: number): number {
  const n = a.length;
  const m = b.length;
  const over = max + 1;
  if (Math.abs(n - m) > max) return over;
  // Rows i - 2, i - 1 and i of the matrix, reused in turn.
  let before = new Uint32Array(m + 2);
  let above = new Uint32Array(m + 2);
  let row = new Uint32Array(m + 2);
  for (let j = 0; j <= m + 1; j++) above[j] = Math.min(j, over);
  for (let i = 1; i <= n; i++) {
    const from = Math.max(1, i - max);
    const to = Math.min(m, i + max);
    // The cells just outside the band read as "too far".
    row[from - 1] = from === 1 ? Math.min(i, over) : over;
    row[to + 1] = over;
    let least = row[from - 1] as number;
    for (let j = from; j <= to; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (before[j - 2] as number) + 1);
      }
      row[j] = Math.min(best, over);
      if (best < least) least = best;
    }
    // No cell of a later row can come back under `max` (a transposition reaches back two rows,
    // but a cell of row i - 2 within `max - 1` would put one of row i - 1 within `max`).
    if (least > max) return over;
    [before, above, row] = [above, row, before];
  }
  return above[m] as number;
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
 * Time grows with the names' lengths, not with their product: a name of thousands of
 * characters (a model's mistake, or an attack) costs no more than reading it a few times.
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
    const d = boundedDistance(w, n, allowed);
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
