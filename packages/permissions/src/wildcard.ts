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

/**
 * `*` any run (empty too), `?` one character, everything else itself. Greedy with one
 * backtrack point per star: O(value × pattern) at worst, never exponential, so a long
 * command cannot stall a permission check the way a backtracking RegExp can.
 */
function globMatch(value: string, glob: string): boolean {
  let v = 0;
  let g = 0;
  let star = -1;
  let starValue = 0;
  while (v < value.length) {
    const p = glob[g];
    if (p === "*") {
      star = g++;
      starValue = v;
    } else if (p === "?") {
      v += charLength(value, v);
      g++;
    } else if (p !== undefined && p === value[v]) {
      v++;
      g++;
    } else if (star >= 0) {
      starValue += charLength(value, starValue);
      v = starValue;
      g = star + 1;
    } else {
      return false;
    }
  }
  while (glob[g] === "*") g++;
  return g === glob.length;
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
