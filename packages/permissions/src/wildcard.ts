/** A compiled pattern: tells whether a value matches it. */
export type Matcher = (value: string) => boolean;

/** Code units taken by the character at `i`: 2 for a surrogate pair, else 1. */
function charLength(text: string, i: number): number {
  const high = text.charCodeAt(i);
  if (high >= 0xd800 && high <= 0xdbff && i + 1 < text.length) {
    const low = text.charCodeAt(i + 1);
    if (low >= 0xdc00 && low <= 0xdfff) return 2;
  }
  return 1;
}

/** Code units taken by the character that ends just before `i`: 2 for a surrogate pair, else 1. */
function charLengthBefore(text: string, i: number): number {
  const low = text.charCodeAt(i - 1);
  if (low >= 0xdc00 && low <= 0xdfff && i >= 2) {
    const high = text.charCodeAt(i - 2);
    if (high >= 0xd800 && high <= 0xdbff) return 2;
  }
  return 1;
}

/** Where `segment` (literals and `?`, no `*`) ends when matched at `at`, or -1. */
function matchAt(value: string, at: number, segment: string): number {
  let v = at;
  for (let s = 0; s < segment.length; s++) {
    if (v >= value.length) return -1;
    if (segment[s] === "?") v += charLength(value, v);
    else if (segment[s] === value[v]) v++;
    else return -1;
  }
  return v;
}

/** The end of the leftmost match of `segment` at or after `from`, or -1. */
function findFrom(value: string, from: number, segment: string): number {
  if (!segment.includes("?")) {
    const at = value.indexOf(segment, from);
    return at < 0 ? -1 : at + segment.length;
  }
  for (let at = from; at <= value.length; at++) {
    const end = matchAt(value, at, segment);
    if (end >= 0) return end;
  }
  return -1;
}

/** Where `segment` must start for it to end exactly at the end of `value`, or -1. */
function suffixStart(value: string, segment: string, min: number): number {
  let v = value.length;
  for (let s = segment.length - 1; s >= 0; s--) {
    if (v <= min) return -1;
    if (segment[s] === "?") v -= charLengthBefore(value, v);
    else if (segment[s] === value[v - 1]) v--;
    else return -1;
  }
  return v >= min ? v : -1;
}

/**
 * `*` any run (empty too), `?` one character, everything else itself. The pattern is split
 * at its stars: the first part must start the value, the last must end it, and each part
 * between is taken at its leftmost place (`indexOf`), which is always a correct choice for
 * these globs. No backtracking: a megabyte-long value costs one pass per part, so a hostile
 * skill name cannot stall a permission check.
 */
function globMatch(value: string, glob: string): boolean {
  const parts = glob.split("*");
  const first = parts[0] as string;
  if (parts.length === 1) return matchAt(value, 0, first) === value.length;
  let v = matchAt(value, 0, first);
  if (v < 0) return false;
  for (let i = 1; i < parts.length - 1; i++) {
    const part = parts[i] as string;
    if (part === "") continue;
    v = findFrom(value, v, part);
    if (v < 0) return false;
  }
  return suffixStart(value, parts[parts.length - 1] as string, v) >= 0;
}

function isAllStars(pattern: string): boolean {
  for (let i = 0; i < pattern.length; i++) if (pattern[i] !== "*") return false;
  return true;
}

/**
 * Compiles a pattern once, for matching many values. See {@link wildcardMatch} for the rules.
 */
export function compileWildcard(pattern: string): Matcher {
  if (!pattern.includes("*") && !pattern.includes("?")) return (value) => value === pattern;
  if (isAllStars(pattern)) return () => true;
  if (pattern.endsWith(" *")) {
    const bare = pattern.slice(0, -2);
    return (value) => globMatch(value, pattern) || globMatch(value, bare);
  }
  return (value) => globMatch(value, pattern);
}

/**
 * Whether `value` matches `pattern`, the way opencode matches permission patterns:
 *
 * - `*` matches any run of characters: empty, `/`, newlines, `.` and `..` included.
 * - `?` matches exactly one character (one code point: an emoji counts as one).
 * - A pattern ending in ` *` also matches the bare word: `ls *` matches `ls` and `ls -la`,
 *   not `lstmeval`.
 * - Every other character matches only itself, case-sensitively. Braces, brackets,
 *   parentheses, `!`, `+`, `@`, `.` and `\` are not glob syntax here: `foo+bar`, `a.b`,
 *   `{a,b}` and `[ab]` each match only that exact text, so a rule written for opencode
 *   means the same thing here and a `deny` rule cannot be sidestepped by path tricks.
 *
 * @example
 * wildcardMatch("internal-x", "internal-*"); // true
 * wildcardMatch("file12.txt", "file?.txt"); // false
 * wildcardMatch("ls", "ls *"); // true
 */
export function wildcardMatch(value: string, pattern: string): boolean {
  if (globMatch(value, pattern)) return true;
  return pattern.endsWith(" *") && globMatch(value, pattern.slice(0, -2));
}
