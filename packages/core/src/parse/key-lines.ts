/**
 * Top-level keys of frontmatter text → 1-based line in the file (the opening `---` is line 1).
 * A hand-written scan: a regex here was quadratic on long runs of blanks.
 */
export function keyLines(frontmatter: string): Map<string, number> {
  const lines = new Map<string, number>();
  let from = 0;
  for (let row = 0; from <= frontmatter.length; row++) {
    let to = frontmatter.indexOf("\n", from);
    if (to === -1) to = frontmatter.length;
    const key = keyOf(frontmatter, from, to);
    if (key !== undefined && !lines.has(key)) lines.set(key, row + 2);
    from = to + 1;
  }
  return lines;
}

/** The key a top-level `key: value` line in `text[from, to)` starts with. */
function keyOf(text: string, from: number, to: number): string | undefined {
  const first = text[from];
  if (first === undefined || from >= to) return undefined;
  let end: number;
  let key: string;
  if (first === '"' || first === "'") {
    end = text.indexOf(first, from + 1);
    if (end === -1 || end >= to || end === from + 1) return undefined;
    key = text.slice(from + 1, end);
    end++;
  } else {
    if (first === " " || first === "\t" || first === "#" || first === ":") return undefined;
    end = text.indexOf(":", from);
    if (end === -1 || end >= to) return undefined;
    key = text.slice(from, end).trimEnd();
  }
  while (end < to && (text[end] === " " || text[end] === "\t")) end++;
  if (text[end] !== ":") return undefined;
  const after = text[end + 1];
  return end + 1 === to || after === " " || after === "\t" ? key : undefined;
}

/** The 1-based line `n` of normalized text, found without splitting the whole text. */
export function lineAt(text: string, n: number): string {
  let from = 0;
  for (let i = 1; i < n; i++) {
    const next = text.indexOf("\n", from);
    if (next === -1) return "";
    from = next + 1;
  }
  const to = text.indexOf("\n", from);
  return text.slice(from, Math.min(to === -1 ? text.length : to, from + 200));
}
